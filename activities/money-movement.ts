/**
 * Activities of the money-movement lifecycles: read models, credits (unreferenced
 * refunds), their fraud screening, recipient onboarding at the provider, the balance
 * ledger and split transfers, and following a subscription charge.
 *
 * Every provider call carries an idempotency key derived from the resource and attempt,
 * so a retried activity is answered with the first result instead of moving money twice.
 * Timeouts and unreachable providers throw: the activity is retried with the same key.
 */
import { Context } from '@temporalio/activity';
import type { ActivityDeps } from './index';
import { baseUrlFor } from './providers';
import { callProvider, ProviderHttpRequest, ProviderOperation, ProviderResult, targetOf, withHeartbeat } from './providers/connector';
import { CreditDestination, moneyMovementConnectorFor } from './providers/money-movement';
import { openDestination } from './repositories/payout-destinations';
import { RecordCollection, saveVersioned, VersionedRecord } from './repositories/records';
import type { RoutedConnection } from './repositories/routing';
import { findVaultCard, openPan } from './repositories/vault';
import { fullYear } from '../domain/payments/cards';
import { compareAmounts, toMinor } from '../domain/money';
import { appendEntry, LedgerEntryKind } from './repositories/ledger';
import { BankWithdrawal, LegalRepresentative, RecipientRecord, renderRecipient, StoredDocumentRef } from '../domain/recipients/codecs';


export interface CreditInput {
  refundId: string;
  attempt: number;
  connection: RoutedConnection;
  /** Vault card id for card destinations; otherwise the sealed destination has the refund's id. */
  cardId: string | null;
  amount: number;
  currency: string;
  description: string;
  softDescriptor: string | null;
  reference: string;
}


export interface OnboardAtProviderInput {
  onboardingId: string;
  connection: RoutedConnection;
  existingRecipientId: string | null;
  legalEntity: { type: string; name: string; country: string };
  documentCategories: string[];
  termsAccepted: boolean;
  bank: Record<string, string | null> | null;
}

export interface OnboardAtProviderResult {
  status: 'SUCCEEDED' | 'PENDING_REVIEW' | 'FAILED';
  providerRecipientId: string | null;
  requirements: Array<{ code: string; message: string }>;
  legalEntity: Record<string, unknown> | null;
  onboardingUrl: string | null;
  redirectUrl: string | null;
  reason: string | null;
}

export interface ApplyOnboardingInput {
  organizationCode: string;
  recipientId: string;
  bank: BankWithdrawal | null;
  legalRepresentatives: LegalRepresentative[];
  documentation: StoredDocumentRef[];
  /** The onboarding's update time, so a retry writes the same. */
  at: string;
}

export function createMoneyMovementActivities(deps: ActivityDeps) {
  const { db, keyring, config } = deps;

  async function call(connection: RoutedConnection, operation: ProviderOperation, request: ProviderHttpRequest): Promise<ProviderResult> {
    const connector = moneyMovementConnectorFor(connection.providerId);
    const baseUrl = baseUrlFor(connection.providerId, config);
    if (!baseUrl) throw new Error(`no base URL for provider ${connection.providerId}`);
    return withHeartbeat(() => callProvider(connector.charges, operation, baseUrl, request, config.providerTimeoutMs));
  }

  return {
    async saveMoneyRecord(input: { collection: RecordCollection; record: VersionedRecord }): Promise<void> {
      await saveVersioned(db, input.collection, input.record);
    },

    /** Pushes one credit to one connection. Provider answers (approval, decline, 5xx) are results. */
    async submitCredit(input: CreditInput): Promise<ProviderResult> {
      let destination: CreditDestination;
      if (input.cardId) {
        const card = await findVaultCard(db, input.cardId);
        if (!card) throw new Error(`vault card ${input.cardId} is missing`);
        destination = { type: 'CARD', card: { number: openPan(keyring, card), holderName: card.holder_name, expirationMonth: card.expiration_month, expirationYear: fullYear(card.expiration_year), securityCode: null } };
      } else {
        const stored = await openDestination(db, keyring, input.refundId);
        if (!stored) throw new Error(`destination of refund ${input.refundId} is missing`);
        destination = stored;
      }
      const connector = moneyMovementConnectorFor(input.connection.providerId);
      return call(input.connection, 'credit', connector.buildCredit(targetOf(input.connection), {
        idempotencyKey: `${input.refundId}:credit:${input.attempt}`,
        reference: input.reference,
        amount: input.amount,
        currency: input.currency,
        description: input.description,
        softDescriptor: input.softDescriptor,
        destination,
      }));
    },

    /**
     * Stand-alone fraud screening of a credit: an amount ceiling and a velocity limit on the
     * destination (same card fingerprint / account) over 24 hours.
     */
    async screenCredit(input: { refundId: string; organizationCode: string; amount: number; destinationFingerprint: string }): Promise<{ status: 'APPROVED' | 'REJECTED'; reasons: string[] }> {
      const reasons: string[] = [];
      if (compareAmounts(input.amount, config.fraudMaxCreditAmount) > 0) reasons.push('AMOUNT_ABOVE_LIMIT');
      const recent = await db.collection('unreferenced_refunds').countDocuments({
        organization_code: input.organizationCode,
        destination_fingerprint: input.destinationFingerprint,
        _id: { $ne: input.refundId as never },
        created_at: { $gte: new Date(Date.now() - 24 * 3600 * 1000).toISOString() },
      });
      if (recent >= config.fraudMaxCreditsPerDestinationPerDay) reasons.push('DESTINATION_VELOCITY');
      return { status: reasons.length ? 'REJECTED' : 'APPROVED', reasons };
    },

    /** Registers (or links) a recipient at the provider; the answer decides the onboarding status. */
    async onboardAtProvider(input: OnboardAtProviderInput): Promise<OnboardAtProviderResult> {
      const connector = moneyMovementConnectorFor(input.connection.providerId);
      const result = await call(input.connection, 'recipient_onboarding', connector.buildRecipientOnboarding(targetOf(input.connection), {
        idempotencyKey: `${input.onboardingId}:onboarding`,
        reference: input.onboardingId,
        existingRecipientId: input.existingRecipientId,
        legalEntity: input.legalEntity,
        documentCategories: input.documentCategories,
        termsAccepted: input.termsAccepted,
        bank: input.bank,
      }));
      if (result.category === 'PROVIDER_ERROR' || result.category === 'TIMEOUT') throw new Error(`provider error: ${result.responseMessage}`); // retried
      const body = (result.rawResponse ?? {}) as Record<string, any>;
      const providerStatus = String(body.status ?? '');
      return {
        status: result.category === 'APPROVED' ? (providerStatus === 'PENDING_REVIEW' ? 'PENDING_REVIEW' : 'SUCCEEDED') : 'FAILED',
        providerRecipientId: typeof body.id === 'string' ? body.id : null,
        requirements: Array.isArray(body.requirements) ? body.requirements : [],
        legalEntity: body.legal_entity ?? null,
        onboardingUrl: body.onboarding_url ?? null,
        redirectUrl: body.redirect_url ?? null,
        reason: result.category === 'APPROVED' ? null : result.responseMessage,
      };
    },

    /**
     * A SUCCEEDED onboarding's data becomes the recipient's: the withdrawal method it was
     * onboarded with, its legal representatives and documents. Idempotent (plain $set), so a
     * retry writes the same. Answers the recipient as the onboarding then shows it.
     */
    async applyOnboardingToRecipient(input: ApplyOnboardingInput): Promise<ReturnType<typeof renderRecipient> | null> {
      const recipients = db.collection('recipients');
      const filter = { _id: input.recipientId as never, organization_code: input.organizationCode };
      await recipients.updateOne(filter, {
        $set: {
          ...(input.bank ? { 'withdrawal_methods.bank': input.bank } : {}),
          legal_representatives: input.legalRepresentatives,
          documentation: input.documentation,
          updated_at: input.at,
        },
      });
      const doc = await recipients.findOne(filter);
      if (!doc) return null;
      const { _id, ...rest } = doc;
      return renderRecipient({ id: String(_id), ...rest } as unknown as RecipientRecord);
    },

    /** Appends one ledger operation (idempotent by operationKey); a debit below zero is refused. */
    async moveBalance(input: { organizationCode: string; currency: string; operationKey: string; kind: LedgerEntryKind; amount: number; reference: string }): Promise<{ applied: boolean; balanceUnits: string }> {
      const units = toMinor(input.amount);
      const result = await appendEntry(db, {
        organizationCode: input.organizationCode, currency: input.currency, operationKey: input.operationKey, kind: input.kind, reference: input.reference,
        amountUnits: input.kind === 'TRANSFER_DEBIT' ? -units : units,
      });
      return result.applied ? { applied: true, balanceUnits: String(result.entry.balance_units) } : { applied: false, balanceUnits: result.balanceUnits.toString() };
    },

    async transferAtProvider(input: { transferId: string; connection: RoutedConnection; providerRecipientId: string; amount: number; currency: string; description: string }): Promise<ProviderResult> {
      const connector = moneyMovementConnectorFor(input.connection.providerId);
      const result = await call(input.connection, 'transfer', connector.buildTransfer(targetOf(input.connection), {
        idempotencyKey: `${input.transferId}:transfer`, reference: input.transferId, providerRecipientId: input.providerRecipientId, amount: input.amount, currency: input.currency, description: input.description,
      }));
      if (result.category === 'PROVIDER_ERROR' || result.category === 'TIMEOUT') throw new Error(`provider error: ${result.responseMessage}`); // retried with the same key
      return result;
    },

    /**
     * Follows a payment started by another workflow (a subscription charge) until its first
     * outcome, from the payment read model. 3-D Secure counts as a decline: nobody is there
     * to authenticate a merchant-initiated charge.
     */
    async awaitPaymentOutcome(input: { paymentId: string }): Promise<{ status: string; subStatus: string; networkTransactionId: string | null }> {
      for (;;) {
        const payment = await db.collection('payments').findOne({ _id: input.paymentId as never });
        const settled = payment && payment.status !== 'READY_TO_PAY' && !(payment.status === 'PENDING' && payment.sub_status === 'PROCESSING');
        if (settled) {
          const transactions = (payment.transactions ?? []) as Array<{ provider_data?: { raw_response?: { network_transaction_id?: unknown } } }>;
          const ntid = transactions[transactions.length - 1]?.provider_data?.raw_response?.network_transaction_id;
          return { status: String(payment.status), subStatus: String(payment.sub_status), networkTransactionId: typeof ntid === 'string' ? ntid : null };
        }
        Context.current().heartbeat();
        await Context.current().sleep(250); // throws when the activity is cancelled (e.g. worker shutdown)
      }
    },
  };
}

export type MoneyMovementActivities = ReturnType<typeof createMoneyMovementActivities>;
