/**
 * What a provider's answer to an authorization attempt does to the payment record: the
 * transaction it adds and the outcome it settles. Pure, so the payment workflow and the
 * attempt activity that stores a decisive first outcome build the very same record.
 */
import { failoverAllowed } from './provider-codes';
import { applyEvent, PaymentRecord, TransactionRecord, withChanges, withTransaction } from './record';
import { PaymentEvent, TransactionCategory, TransactionType } from './states';

/** A provider's answer to one call, as connectors report it. */
export interface ProviderResult {
  category: TransactionCategory;
  providerStatus: string;
  providerTransactionId: string | null;
  responseCode: string;
  responseMessage: string;
  iso8583Code: string | null;
  iso8583Message: string | null;
  httpStatus: number | null;
  rawResponse: unknown;
  threeDsRedirectUrl: string | null;
}

/** The connection a call went to (a routed connection carries more; only these are recorded). */
export interface AttemptConnection {
  connectionId: string;
  providerId: string;
}

const OUTCOME_EVENTS: Record<TransactionCategory, (capture: boolean) => PaymentEvent> = {
  APPROVED: (capture) => ({ type: 'approved', captured: capture }),
  THREE_D_SECURE: () => ({ type: 'three_ds_required' }),
  SOFT_DECLINE: () => ({ type: 'declined' }),
  HARD_DECLINE: () => ({ type: 'declined' }),
  TIMEOUT: () => ({ type: 'provider_failed' }),
  PROVIDER_ERROR: () => ({ type: 'provider_failed' }),
};

/** The transaction recording one provider call; `id` and `at` come from the caller (workflow ids and time). */
export function providerTransaction(
  record: PaymentRecord, type: TransactionType, amount: number, result: ProviderResult, connection: AttemptConnection | null,
  id: string, at: string, extra: Partial<TransactionRecord> = {},
): TransactionRecord {
  const status = result.category === 'APPROVED' ? 'SUCCEEDED' : result.category === 'THREE_D_SECURE' ? 'PENDING' : result.category.endsWith('DECLINE') ? 'DECLINED' : 'ERROR';
  return {
    id,
    type,
    status,
    category: result.category,
    amount,
    provider_id: connection?.providerId ?? null,
    connection_id: connection?.connectionId ?? null,
    response_code: result.responseCode,
    response_message: result.responseMessage,
    reason: null,
    description: null,
    merchant_reference: record.merchant_reference,
    provider_data: {
      id: connection?.providerId ?? null,
      transaction_id: result.providerTransactionId,
      account_id: connection?.connectionId ?? null,
      status: result.providerStatus,
      status_detail: result.responseCode,
      response_code: result.httpStatus === null ? null : String(result.httpStatus),
      response_message: result.responseMessage,
      iso8583_response_code: result.iso8583Code,
      iso8583_response_message: result.iso8583Message,
      raw_response: result.rawResponse ?? null,
      third_party_transaction_id: result.providerTransactionId,
    },
    three_d_secure_action_required: result.category === 'THREE_D_SECURE',
    created_at: at,
    updated_at: at,
    ...extra,
  };
}

/** The payment once its authorization attempts end with `last`. */
export function withAuthorizationOutcome(record: PaymentRecord, last: ProviderResult, at: string): PaymentRecord {
  let next = applyEvent(record, OUTCOME_EVENTS[last.category](record.capture), at);
  if (next.sub_status === 'CAPTURED') next = withChanges(next, { amount: { ...next.amount, captured: next.amount.value } }, at);
  if (next.sub_status === 'WAITING_ADDITIONAL_STEP') next = withChanges(next, { checkout: { ...next.checkout, sdk_action_required: true } }, at);
  return next;
}

/**
 * The payment's outcome when its first attempt settles it (no failover follows: the answer
 * forbids it or the route has no other connection); null when the route moves on.
 * `started` is the record as the attempt started (PROCESSING).
 */
export function outcomeOfDecisiveFirstAttempt(
  started: PaymentRecord, result: ProviderResult, connection: AttemptConnection, routeLength: number, transactionId: string, at: string,
): PaymentRecord | null {
  if (failoverAllowed(result.category) && routeLength > 1) return null;
  const type = started.capture ? 'PURCHASE' : 'AUTHORIZE';
  const attempted = withTransaction(started, providerTransaction(started, type, started.amount.value, result, connection, transactionId, at), at);
  return withAuthorizationOutcome(attempted, result, at);
}
