/**
 * Payment activities: the read model, routing, provider attempts and follow-ups, the
 * vault's CVV lifecycle and the domain events other features consume.
 *
 * Each provider call carries an idempotency key derived from the payment and the attempt
 * number (never random), so an activity retried after a timeout or a worker crash is
 * answered by the provider with the first result instead of charging again.
 */
import type { ActivityDeps } from './index';
import { baseUrlFor, connectorFor, paymentFlowsOf } from './providers';
import { AuthorizeRequest, ProviderCall, ProviderResult, ProviderTimeout, targetOf, traced, withHeartbeat } from './providers/connector';
import { markPaymentMethodUsed } from './repositories/customers';
import { savePaymentRecord } from './repositories/payments';
import { openConnectionCredentials, resolveRoute, RoutedConnection } from './repositories/routing';
import { findVaultCard, forgetSecurityCode, forgetSecurityCodeOnCard, openPan, readSecurityCode, securityCodeOnCard } from './repositories/vault';
import { outcomeOfDecisiveFirstAttempt } from '../domain/payments/attempts';
import { authorizingTransaction, PaymentRecord } from '../domain/payments/record';
import { PROVIDERS_WITH_CREDENTIALS, RoutingFacts, servableConnections } from '../domain/payments/routing';
import { fullYear } from '../domain/payments/cards';

export interface AttemptInput {
  paymentId: string;
  attempt: number;
  connection: RoutedConnection;
  cardId: string;
  /** The payment's CVV is kept on its vault card (a card given with the payment), not under the payment. */
  securityCodeOnCard?: boolean;
  amount: number;
  currency: string;
  capture: boolean;
  installments: number | null;
  softDescriptor: string | null;
  reference: string;
}

export interface AttemptOptions {
  /**
   * Since 'first-task-outcome': the payment as PROCESSING, stored only when the provider
   * has not answered within PROCESSING_NOTICE_MS; a fast answer is stored once, with its
   * outcome, by the workflow.
   */
  processing?: PaymentRecord;
}

export interface RouteAndAuthorizeInput extends AttemptOptions {
  accountId: string;
  facts: RoutingFacts;
  /** The first attempt, made on the route's first connection. */
  attempt: Omit<AttemptInput, 'connection'>;
  /**
   * Since 'attempt-stores-outcome': when the first attempt settles the payment, the outcome
   * (built by outcomeOfDecisiveFirstAttempt from `processing`, with this transaction id and
   * time from the workflow) is stored here, so the workflow answers without another write.
   */
  storeOutcome?: { transactionId: string; at: string };
}

export interface RouteAndAuthorizeResult {
  /** Null when no connection can take the payment (NO_ROUTE): nothing was attempted. */
  route: RoutedConnection[] | null;
  /** The first attempt's result, on route[0]; null without a route. */
  first: ProviderResult | null;
  /** True when the payment's outcome was stored here (storeOutcome was asked and the first attempt settled it). */
  outcomeStored?: boolean;
}

/**
 * A provider slower than this gets its payment stored as PROCESSING while it answers, well
 * before the API stops waiting (PAYMENT_SYNC_WAIT_MS) and answers with the stored payment.
 */
const PROCESSING_NOTICE_MS = 250;

export interface FollowUpInput {
  kind: 'capture' | 'void' | 'refund';
  /** Unique per operation (payment id + operation id), stable across retries. */
  idempotencyKey: string;
  connection: RoutedConnection;
  providerTransactionId: string;
  amount: number;
  currency: string;
}

export interface DomainEventInput {
  id: string;
  type: string;
  organizationCode: string;
  accountId: string;
  resourceType: string;
  resourceId: string;
  occurredAt: string;
  /** What consumers evaluate (for payment.declined: the campaigns' DeclinedPayment shape). */
  payload: Record<string, unknown>;
}


function failureResult(category: 'TIMEOUT' | 'PROVIDER_ERROR', message: string, rawResponse: unknown): ProviderResult {
  return {
    category,
    providerStatus: category === 'TIMEOUT' ? 'TIMEOUT' : 'ERROR',
    providerTransactionId: null,
    responseCode: category === 'TIMEOUT' ? 'PROVIDER_TIMEOUT' : 'PROVIDER_UNREACHABLE',
    responseMessage: message,
    iso8583Code: null,
    iso8583Message: null,
    httpStatus: null,
    rawResponse,
    threeDsRedirectUrl: null,
  };
}


export function createPaymentActivities(deps: ActivityDeps) {
  const { db, keyring, config } = deps;

  /**
   * What a provider call on `connection` needs. The connection's credentials are opened here,
   * in the activity, like the vault card: they never travel through workflow history.
   */
  async function providerCall(connection: RoutedConnection): Promise<ProviderCall> {
    return {
      target: targetOf(connection),
      // Only providers that have credentials cost a read (the sandbox's hot path stays as it was).
      credentials: PROVIDERS_WITH_CREDENTIALS.includes(connection.providerId) ? await openConnectionCredentials(db, keyring, connection.connectionId) : null,
      baseUrl: baseUrlFor(connection.providerId, config),
      timeoutMs: config.providerTimeoutMs,
      returnUrl: config.publicBaseUrl,
    };
  }

  /** The vault card and the CVV kept for this payment's authorization (null once used or when none was given). */
  async function openCard(input: { cardId: string; paymentId: string; securityCodeOnCard?: boolean }) {
    const [card, securityCode] = await Promise.all([
      findVaultCard(db, input.cardId),
      input.securityCodeOnCard ? null : readSecurityCode(db, keyring, input.paymentId),
    ]);
    if (!card) throw new Error(`vault card ${input.cardId} is missing`);
    return { card, securityCode: input.securityCodeOnCard ? securityCodeOnCard(keyring, card, input.paymentId) : securityCode };
  }

  /**
   * Runs `work` (a provider call); if it is still running after PROCESSING_NOTICE_MS, stores
   * `processing` meanwhile. Returns only once that write has settled, so it never lands after
   * the outcome the workflow stores next (and the version check would refuse it anyway).
   */
  async function noticingSlowAnswer<T>(processing: PaymentRecord | undefined, work: () => Promise<T>): Promise<T> {
    if (!processing) return work();
    let stored: Promise<void> | undefined;
    const timer = setTimeout(() => {
      // Only a notice: the outcome is stored by the workflow whether or not this succeeds.
      stored = savePaymentRecord(db, processing).catch((error) => deps.logger.warn({ err: error, paymentId: processing.id }, 'could not store the payment as PROCESSING'));
    }, Math.min(PROCESSING_NOTICE_MS, config.paymentSyncWaitMs / 3));
    try {
      return await work();
    } finally {
      clearTimeout(timer);
      await stored;
    }
  }

  async function authorize(input: AttemptInput, opened: Awaited<ReturnType<typeof openCard>>, processing?: PaymentRecord): Promise<ProviderResult> {
    const { card, securityCode } = opened;
    const connector = connectorFor(input.connection.providerId);
    const call = await providerCall(input.connection);
    const request: AuthorizeRequest = {
      idempotencyKey: `${input.paymentId}:attempt:${input.attempt}`,
      reference: input.reference,
      amount: input.amount,
      currency: input.currency,
      capture: input.capture,
      installments: input.installments,
      softDescriptor: input.softDescriptor,
      card: {
        number: openPan(keyring, card),
        holderName: card.holder_name,
        expirationMonth: card.expiration_month,
        expirationYear: fullYear(card.expiration_year),
        securityCode,
      },
    };
    return withHeartbeat(() =>
      noticingSlowAnswer(processing, async () => {
        try {
          return await traced(connector.providerId, 'authorize', call.timeoutMs, () => connector.authorize(call, request));
        } catch (error) {
          if (error instanceof ProviderTimeout) {
            const reversal = await traced(connector.providerId, 'reversal', call.timeoutMs, () => connector.reverse(call, request)).catch((e) => ({ error: String(e) }));
            return failureResult('TIMEOUT', `no answer within ${config.providerTimeoutMs} ms; attempt reversed`, { reversal });
          }
          // Connection refused / reset before an answer: nothing was authorized on our side of the wire.
          return failureResult('PROVIDER_ERROR', `provider unreachable: ${(error as Error).message}`, null);
        }
      }),
    );
  }

  /**
   * The route's connections that can take the payment. A connection to a catalogue
   * provider without a connector (or one that does not take the method there) is left
   * out here, so the payment ends NO_ROUTE instead of failing on a missing connector.
   */
  async function routePayment(input: { accountId: string; facts: RoutingFacts }): Promise<RoutedConnection[] | null> {
    const route = await resolveRoute(db, input.accountId, input.facts);
    if (!route) return null;
    const { servable } = servableConnections(route, input.facts, paymentFlowsOf);
    return servable.length ? servable : null;
  }

  async function savePayment(record: PaymentRecord): Promise<void> {
    await savePaymentRecord(db, record);
    // A payment approved with an enrolled method is that method's latest successful use.
    const approved = record.payment_method.vaulted_token ? authorizingTransaction(record) : undefined;
    if (approved) await markPaymentMethodUsed(db, record.organization_code, record.payment_method.vaulted_token, approved.created_at);
  }

  return {
    savePayment,

    routePayment,

    /**
     * One authorization attempt on one connection. Provider answers (approval, decline,
     * 5xx) are results, not failures; a timeout is followed by a reversal of the attempt
     * so nothing stays charged when the route moves on to the next connection.
     */
    async authorizeAttempt(input: AttemptInput & AttemptOptions): Promise<ProviderResult> {
      return authorize(input, await openCard(input), input.processing);
    },

    /**
     * Routing and the first attempt in one local activity (since 'first-task-outcome'):
     * one hand-off between workflow and worker less, and the vault is read while the route
     * resolves. Failover attempts are authorizeAttempt.
     */
    async routeAndAuthorize(input: RouteAndAuthorizeInput): Promise<RouteAndAuthorizeResult> {
      const card = openCard(input.attempt);
      card.catch(() => undefined); // awaited only when there is a route
      const route = await routePayment(input);
      if (!route) return { route: null, first: null };
      const first = await authorize({ ...input.attempt, connection: route[0] }, await card, input.processing);
      const outcome = input.storeOutcome && input.processing
        ? outcomeOfDecisiveFirstAttempt(input.processing, first, route[0], route.length, input.storeOutcome.transactionId, input.storeOutcome.at)
        : null;
      // Stored with the record's version: a retried activity writes the same outcome again, harmlessly.
      if (outcome) await savePayment(outcome);
      return { route, first, outcomeStored: Boolean(outcome) };
    },


    async providerFollowUp(input: FollowUpInput): Promise<ProviderResult> {
      const connector = connectorFor(input.connection.providerId);
      const call = await providerCall(input.connection);
      const request = {
        idempotencyKey: input.idempotencyKey,
        providerTransactionId: input.providerTransactionId,
        amount: input.amount,
        currency: input.currency,
      };
      return withHeartbeat(async () => {
        try {
          return await traced(connector.providerId, input.kind, call.timeoutMs, () => connector.followUp(call, input.kind, request));
        } catch (error) {
          // Follow-ups are idempotent at the provider: a retry with the same key is safe.
          if (error instanceof ProviderTimeout) throw error;
          throw new Error(`provider unreachable: ${(error as Error).message}`);
        }
      });
    },

    /** The CVV served its one authorization: delete it. */
    async releaseSecurityCode(paymentId: string, cardId?: string): Promise<void> {
      // A card vaulted with its payment holds that payment's CVV; otherwise it is kept under the payment.
      if (cardId) await forgetSecurityCodeOnCard(db, cardId);
      else await forgetSecurityCode(db, paymentId);
    },

    /** Stores a domain event once (its id is the key), so consumers that come later miss nothing. */
    async recordDomainEvent(event: DomainEventInput): Promise<void> {
      try {
        await db.collection('domain_events').insertOne({
          _id: event.id as never,
          type: event.type,
          organization_code: event.organizationCode,
          account_id: event.accountId,
          resource_type: event.resourceType,
          resource_id: event.resourceId,
          ...(event.resourceType === 'payment' ? { payment_id: event.resourceId } : {}),
          occurred_at: new Date(event.occurredAt),
          payload: event.payload,
          recorded_at: new Date(),
        });
      } catch (error) {
        if ((error as { code?: number }).code !== 11000) throw error;
      }
    },
  };
}

export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
