/**
 * Unreferenced refunds: POST /v1/refunds/unreferenced pushes a credit to a card, bank
 * account or wallet without an original payment; GET reads it back. Errors use the
 * refunds area's problem+json shape.
 */
import { refuseTestCardWithLiveKeys } from '../modes';
import type { Next } from 'koa';
import { findOwnedAccount } from '../../activities/repositories/merchants';
import { findCustomer, customerPayerOf } from '../../activities/repositories/customers';
import { sealDestination } from '../../activities/repositories/payout-destinations';
import { findOwnedRecord } from '../../activities/repositories/records';
import { resolveRoute } from '../../activities/repositories/routing';
import { findVaultCard, summaryOf, vaultCard } from '../../activities/repositories/vault';
import { keyedHash } from '../../domain/crypto';
import { ApiError } from '../../domain/errors';
import { bankRailOf, creditRefusal, supportsCredit } from '../../domain/money-movement/common';
import { hasMoneyMovementConnector } from '../../activities/providers/money-movement';
import { uuidFromKey } from '../../domain/ids';
import type { CardSummary } from '../../domain/payments/record';
import {
  bankSummaryOf, creditMethodOf, creditRailOf, RefundPayerSummary, RefundRecord, renderRefund, UnreferencedRefund, UnreferencedRefundRequest, unreferencedRefundProblems,
} from '../../domain/refunds/unreferenced';
import { refundCreatedUpdate } from '../../workflows/unreferenced-refund';
import type { AppContext, AppDeps } from '../context';
import { startLifecycle } from '../lifecycle';
import { pinnedConnections } from '../provider-connections';
import type { RouteTable } from '../routes';
import { resourceSearchAttributes } from '../../domain/search-attributes';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** X-Idempotency-Key must be a version 4 UUID here (checked before the key is claimed). */
export async function requireUuidV4Key(ctx: AppContext, next: Next): Promise<unknown> {
  const key = ctx.get('x-idempotency-key');
  if (key && !UUID_V4.test(key)) {
    throw new ApiError('validation', 'X-Idempotency-Key must be a version 4 UUID', { fieldErrors: [{ field: 'X-Idempotency-Key', code: 'INVALID', message: 'X-Idempotency-Key must be a version 4 UUID' }] });
  }
  return next();
}

export function registerRefundRoutes(routes: RouteTable, deps: AppDeps): void {
  routes.add(
    {
      method: 'POST', path: '/v1/refunds/unreferenced', operationId: 'createUnreferencedRefund', awaitsWorkflow: true, tag: 'Unreferenced refunds', area: 'refunds', auth: 'pair',
      summary: 'Push a credit to a payment method without an original payment',
      description:
        'Answers 201 with the refund in CREATED/CREATED; the credit then runs in its own lifecycle: CREATED -> (fraud screening when fraud_screening.stand_alone) -> PROCESSING/SUBMITTED -> ' +
        'SUCCEEDED/APPROVED, DECLINED/DECLINED, DECLINED/FRAUD_REJECTED or FAILED/PROVIDER_ERROR. Webhook events unreferenced_refund.created / .succeeded / .declined / .failed go to callback_url ' +
        '(else the account webhook) with the refund, metadata included, as data. Routing follows the account\'s routing rules (provider_data.id pins a provider and bypasses them), keeping only ' +
        'connections whose provider can push credits to that payment method in that country (provider catalogue: unreferenced_refund for cards, payout for bank accounts and wallets) and has a connector; ' +
        'none gives 422 UNREFERENCED_REFUND_NOT_SUPPORTED, as does a provider_data.id without that capability (sandbox: cards everywhere; bank accounts in US (ACH), ' +
        'SEPA countries, BR, MX, CO, PE, CL; wallets in BR, MX, CO, AR). X-Idempotency-Key (UUID v4) is required: a retry with the same key returns the refund first created. ' +
        'Sandbox outcomes: card credits follow the test cards; a bank account ending in 0002 or a wallet token starting with "decline" is declined. ' +
        'Fraud screening rejects amounts above FRAUD_MAX_CREDIT_AMOUNT and more than FRAUD_MAX_CREDITS_PER_DESTINATION_PER_DAY credits to one destination.',
      idempotency: { required: true, format: 'uuid', onDifferentPayload: 'replay' },
      headers: [{ name: 'X-Idempotency-Key', description: 'UUID v4, required; identifies the refund', required: true, schema: { type: 'string', format: 'uuid' } }],
      body: UnreferencedRefundRequest,
      responses: {
        201: { description: 'The refund, status CREATED', body: UnreferencedRefund },
        400: { description: 'VALIDATION_ERROR with errors[] (codes REQUIRED, INVALID, OUT_OF_RANGE, INVALID_PAYMENT_METHOD_SOURCE)' },
        404: { description: 'ACCOUNT_NOT_FOUND, CUSTOMER_NOT_FOUND or PAYMENT_METHOD_NOT_FOUND for this organization' },
        422: { description: 'UNREFERENCED_REFUND_NOT_SUPPORTED: no provider can credit this payment method in this country' },
      },
    },
    async (ctx, body) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      const problems = unreferencedRefundProblems(body);
      if (problems.length) throw new ApiError('validation', problems.map((p) => p.message), { fieldErrors: problems });
      const account = await findOwnedAccount(deps.db, organizationCode, body.account_id);
      if (!account) throw new ApiError('not_found', 'account not found', { code: 'ACCOUNT_NOT_FOUND' });
      const refundId = uuidFromKey('unreferenced-refund', organizationCode, ctx.get('x-idempotency-key'));
      const kind = creditMethodOf(body);
      const detail = body.payment_method.detail ?? {};

      let payer: RefundPayerSummary | null = null;
      if (body.customer_payer) {
        const p = body.customer_payer;
        const stored = p.id ? await findCustomer(deps.db, organizationCode, p.id) : null;
        if (p.id && !stored) throw new ApiError('not_found', 'customer not found', { code: 'CUSTOMER_NOT_FOUND' });
        const base = stored ? customerPayerOf(stored) : null;
        payer = {
          id: p.id ?? null,
          merchant_customer_id: p.merchant_customer_id ?? base?.merchant_customer_id ?? null,
          type: p.type ?? null,
          first_name: p.first_name ?? base?.first_name ?? null,
          last_name: p.last_name ?? base?.last_name ?? null,
          business_name: p.business_name ?? null,
          email: p.email ?? base?.email ?? null,
          nationality: p.nationality ?? base?.nationality ?? null,
        };
      }

      // Routing first: an unsupported destination is refused before anything is vaulted.
      const card = detail.card?.card_data;
      const pinned = body.provider_data?.id;
      const candidates = pinned
        ? await pinnedConnections(deps, account._id, pinned)
        : (await resolveRoute(deps.db, account._id, {
            country: body.country,
            paymentMethodType: kind === 'CARD' ? 'CARD' : kind === 'WALLET' ? 'WALLET' : bankRailOf(body.country, detail.bank_transfer!.account_type) === 'ACH' ? 'ACH' : 'BANK_TRANSFER',
            currency: body.amount.currency,
            amount: body.amount.value,
            cardBrand: card?.brand ?? null,
            iin: card ? card.number.slice(0, 8) : null,
          })) ?? [];
      // Catalogue capability and country first, then a connector to send it through.
      const route = candidates.filter((c) => supportsCredit(c.providerId, kind, body.country) && hasMoneyMovementConnector(c.providerId));
      if (route.length === 0) {
        const why = pinned ? creditRefusal(pinned, kind, body.country) ?? `the account has no ${pinned} connection Switchyard can send credits through yet` : null;
        throw new ApiError('unprocessable', `no provider supports ${kind} credits in ${body.country}${pinned ? ` through ${pinned}` : ''}${why ? `: ${why}` : ''}`, { code: 'UNREFERENCED_REFUND_NOT_SUPPORTED' });
      }

      let cardId: string | null = null;
      let summary: CardSummary | null = null;
      let fingerprint: string;
      if (body.payment_method.vaulted_token) {
        const method = await deps.db.collection('payment_methods').findOne({
          _id: body.payment_method.vaulted_token as never, organization_code: organizationCode, status: 'ENROLLED', ...(payer?.id ? { customer_id: payer.id } : {}),
        });
        const vaulted = method ? await findVaultCard(deps.db, method.card_id as string) : null;
        if (!vaulted) throw new ApiError('not_found', 'vaulted_token not found', { code: 'PAYMENT_METHOD_NOT_FOUND' });
        cardId = vaulted._id;
        summary = summaryOf(vaulted);
      } else if (card) {
        refuseTestCardWithLiveKeys(ctx, card.number, 'payment_method.detail.card.number');
        ({ cardId, summary } = await vaultCard(deps.db, deps.keyring, { organizationCode, accountId: account._id }, { ...card, security_code: undefined }));
      }
      const bank = detail.bank_transfer;
      const wallet = detail.wallet;
      if (summary) fingerprint = summary.fingerprint;
      else if (bank) {
        fingerprint = keyedHash(deps.keyring, 'fingerprint', `bank:${bank.bank_id ?? ''}:${bank.bank_account ?? bank.provider_token}`, organizationCode);
        await sealDestination(deps.db, deps.keyring, refundId, organizationCode, {
          type: 'BANK_TRANSFER',
          bank: { account: bank.bank_account ?? null, provider_token: bank.provider_token ?? null, bank_id: bank.bank_id ?? null, account_type: bank.account_type, beneficiary_name: bank.beneficiary_name, beneficiary_type: bank.beneficiary_type ?? null, document: bank.beneficiary_document ?? null },
        });
      } else {
        fingerprint = keyedHash(deps.keyring, 'fingerprint', `wallet:${wallet!.payment_token}`, organizationCode);
        await sealDestination(deps.db, deps.keyring, refundId, organizationCode, { type: 'WALLET', wallet: { payment_token: wallet!.payment_token } });
      }

      const now = new Date().toISOString();
      const method: RefundRecord['method'] = {
        kind,
        vaulted_token: body.payment_method.vaulted_token ?? null,
        card: summary ? { brand: card?.brand ?? summary.brand, last_four: summary.lfd, type: card?.type ?? summary.type ?? null } : null,
        bank_transfer: bank ? bankSummaryOf(body.country, bank) : null,
        wallet: wallet ? { last_four: wallet.payment_token.slice(-4) } : null,
        soft_descriptor: detail.card?.soft_descriptor ?? null,
      };
      const record: RefundRecord = {
        id: refundId,
        version: 1,
        organization_code: organizationCode,
        account_id: account._id,
        merchant_order_id: body.merchant_order_id,
        merchant_reference: body.merchant_reference ?? body.merchant_order_id,
        country: body.country,
        description: body.description,
        amount: { value: body.amount.value, currency: body.amount.currency },
        status: 'CREATED',
        sub_status: 'CREATED',
        method,
        customer_payer: payer,
        provider: { name: route[0].providerId, type: creditRailOf({ method }), connection_id: route[0].connectionId, reference: null, category: null, raw_response_code: null },
        attempts: [],
        fraud_screening: { stand_alone: body.fraud_screening?.stand_alone ?? false, status: 'NOT_REQUESTED', reasons: [] },
        metadata: (body.metadata ?? []).map((m) => ({ key: m.key, value: m.value })),
        callback_url: body.callback_url ?? null,
        destination_fingerprint: fingerprint,
        created_at: now,
        updated_at: now,
      };
      const created = await startLifecycle(deps, {
        workflowType: 'unreferencedRefundWorkflow',
        workflowId: `unreferenced-refund-${refundId}`,
        args: [{ record, cardId, route }],
        update: refundCreatedUpdate,
        searchAttributes: resourceSearchAttributes({ type: 'unreferenced_refund', id: refundId, accountId: account._id, organizationCode, merchantReference: record.merchant_reference }),
        fallback: () => findOwnedRecord<RefundRecord>(deps.db, 'unreferenced_refunds', organizationCode, refundId),
      });
      ctx.status = 201;
      ctx.set('Location', `/v1/refunds/unreferenced/${created.id}`);
      ctx.body = renderRefund(created);
    },
    [requireUuidV4Key],
  );

  routes.add(
    {
      method: 'GET', path: '/v1/refunds/unreferenced/:refund_id', operationId: 'getUnreferencedRefund', tag: 'Unreferenced refunds', area: 'refunds', auth: 'pair',
      summary: 'Retrieve an unreferenced refund',
      pathParams: [{ name: 'refund_id', description: 'id returned at creation', schema: { type: 'string', format: 'uuid' } }],
      responses: { 200: { description: 'The refund in its current state', body: UnreferencedRefund }, 404: { description: 'No such refund for this organization (REFUND_NOT_FOUND)' } },
    },
    async (ctx) => {
      const record = await findOwnedRecord<RefundRecord>(deps.db, 'unreferenced_refunds', ctx.state.principal!.organizationCode, ctx.params.refund_id);
      if (!record) throw new ApiError('not_found', 'refund not found', { code: 'REFUND_NOT_FOUND' });
      ctx.body = renderRefund(record);
    },
  );
}
