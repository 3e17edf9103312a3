/**
 * Payment statuses, sub-statuses and the transition table the payment workflow enforces.
 *
 * status says where the payment is; sub_status says why. The spec observes
 * READY_TO_PAY / CREATED for a payment nothing was attempted for yet.
 *
 * | from (status/sub_status)            | event              | to                                   |
 * |-------------------------------------|--------------------|--------------------------------------|
 * | (none)                              | created            | READY_TO_PAY/CREATED                 |
 * | READY_TO_PAY/CREATED                | attempt_started    | PENDING/PROCESSING                   |
 * | READY_TO_PAY/CREATED                | no_route           | ERROR/NO_ROUTE                       |
 * | READY_TO_PAY/CREATED                | cancel             | CANCELED/CANCELED                    |
 * | PENDING/PROCESSING                  | attempt_started    | PENDING/PROCESSING (failover)        |
 * | PENDING/PROCESSING                  | approved           | SUCCEEDED/CAPTURED or AUTHORIZED     |
 * | PENDING/PROCESSING                  | three_ds_required  | PENDING/WAITING_ADDITIONAL_STEP      |
 * | PENDING/PROCESSING                  | declined           | DECLINED/DECLINED                    |
 * | PENDING/PROCESSING                  | provider_failed    | ERROR/PROVIDER_ERROR                 |
 * | PENDING/WAITING_ADDITIONAL_STEP     | cancel | expired   | CANCELED/CANCELED or EXPIRED/EXPIRED |
 * | SUCCEEDED/AUTHORIZED                | capture            | SUCCEEDED/CAPTURED or PARTIALLY_CAPTURED |
 * | SUCCEEDED/AUTHORIZED                | cancel | expired   | CANCELED/CANCELED or EXPIRED/EXPIRED |
 * | SUCCEEDED/CAPTURED, PARTIALLY_*     | refund (partial)   | SUCCEEDED/PARTIALLY_REFUNDED         |
 * | SUCCEEDED/CAPTURED, PARTIALLY_*     | refund (the rest)  | REFUNDED/REFUNDED                    |
 *
 * DECLINED, ERROR, CANCELED, EXPIRED and REFUNDED are final.
 */

export const PAYMENT_STATUSES = ['READY_TO_PAY', 'PENDING', 'SUCCEEDED', 'DECLINED', 'ERROR', 'CANCELED', 'EXPIRED', 'REFUNDED'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const PAYMENT_SUB_STATUSES = [
  'CREATED',
  'PROCESSING',
  'WAITING_ADDITIONAL_STEP',
  'AUTHORIZED',
  'CAPTURED',
  'PARTIALLY_CAPTURED',
  'PARTIALLY_REFUNDED',
  'DECLINED',
  'NO_ROUTE',
  'PROVIDER_ERROR',
  'CANCELED',
  'EXPIRED',
  'REFUNDED',
] as const;
export type PaymentSubStatus = (typeof PAYMENT_SUB_STATUSES)[number];

/** CHARGEBACK: a dispute reported by the provider's webhook (the payment's own status is unchanged). */
export const TRANSACTION_TYPES = ['PURCHASE', 'AUTHORIZE', 'CAPTURE', 'CANCEL', 'REFUND', 'CHARGEBACK'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

/** SUCCEEDED: the provider approved; DECLINED: it refused; ERROR: 5xx or timeout (then reversed); PENDING: awaiting the payer (3DS). */
export const TRANSACTION_STATUSES = ['SUCCEEDED', 'DECLINED', 'ERROR', 'PENDING'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/** Why a transaction ended as it did, for reporting and routing decisions. */
export const TRANSACTION_CATEGORIES = ['APPROVED', 'SOFT_DECLINE', 'HARD_DECLINE', 'THREE_D_SECURE', 'TIMEOUT', 'PROVIDER_ERROR'] as const;
export type TransactionCategory = (typeof TRANSACTION_CATEGORIES)[number];

export interface PaymentState {
  status: PaymentStatus;
  sub_status: PaymentSubStatus;
}

export const FINAL_STATUSES: readonly PaymentStatus[] = ['DECLINED', 'ERROR', 'CANCELED', 'EXPIRED', 'REFUNDED'];

export type PaymentEvent =
  | { type: 'attempt_started' }
  | { type: 'no_route' }
  | { type: 'approved'; captured: boolean }
  | { type: 'three_ds_required' }
  | { type: 'declined' }
  | { type: 'provider_failed' }
  | { type: 'capture'; full: boolean }
  | { type: 'cancel' }
  | { type: 'expired' }
  | { type: 'refund'; full: boolean };

export class InvalidTransition extends Error {
  constructor(
    readonly from: PaymentState,
    readonly event: PaymentEvent['type'],
  ) {
    super(`a payment in ${from.status}/${from.sub_status} cannot ${EVENT_VERBS[event]}`);
    this.name = 'InvalidTransition';
  }
}

const EVENT_VERBS: Record<PaymentEvent['type'], string> = {
  attempt_started: 'start a provider attempt',
  no_route: 'fail for lack of a route',
  approved: 'be approved',
  three_ds_required: 'wait for 3-D Secure',
  declined: 'be declined',
  provider_failed: 'fail at the provider',
  capture: 'be captured',
  cancel: 'be canceled',
  expired: 'expire',
  refund: 'be refunded',
};

const REFUNDABLE: readonly PaymentSubStatus[] = ['CAPTURED', 'PARTIALLY_CAPTURED', 'PARTIALLY_REFUNDED'];

/** The next state, or null when the event is not allowed in `from`. */
export function nextState(from: PaymentState, event: PaymentEvent): PaymentState | null {
  const at = (status: PaymentStatus, ...subs: PaymentSubStatus[]) => from.status === status && (subs.length === 0 || subs.includes(from.sub_status));
  switch (event.type) {
    case 'attempt_started':
      return at('READY_TO_PAY', 'CREATED') || at('PENDING', 'PROCESSING') ? { status: 'PENDING', sub_status: 'PROCESSING' } : null;
    case 'no_route':
      return at('READY_TO_PAY', 'CREATED') ? { status: 'ERROR', sub_status: 'NO_ROUTE' } : null;
    case 'approved':
      return at('PENDING', 'PROCESSING', 'WAITING_ADDITIONAL_STEP') ? { status: 'SUCCEEDED', sub_status: event.captured ? 'CAPTURED' : 'AUTHORIZED' } : null;
    case 'three_ds_required':
      return at('PENDING', 'PROCESSING') ? { status: 'PENDING', sub_status: 'WAITING_ADDITIONAL_STEP' } : null;
    case 'declined':
      return at('PENDING', 'PROCESSING', 'WAITING_ADDITIONAL_STEP') ? { status: 'DECLINED', sub_status: 'DECLINED' } : null;
    case 'provider_failed':
      return at('PENDING', 'PROCESSING') ? { status: 'ERROR', sub_status: 'PROVIDER_ERROR' } : null;
    case 'capture':
      return at('SUCCEEDED', 'AUTHORIZED') ? { status: 'SUCCEEDED', sub_status: event.full ? 'CAPTURED' : 'PARTIALLY_CAPTURED' } : null;
    case 'cancel':
      return at('READY_TO_PAY', 'CREATED') || at('PENDING', 'WAITING_ADDITIONAL_STEP') || at('SUCCEEDED', 'AUTHORIZED')
        ? { status: 'CANCELED', sub_status: 'CANCELED' }
        : null;
    case 'expired':
      return at('PENDING', 'WAITING_ADDITIONAL_STEP') || at('SUCCEEDED', 'AUTHORIZED') ? { status: 'EXPIRED', sub_status: 'EXPIRED' } : null;
    case 'refund':
      if (!at('SUCCEEDED', ...REFUNDABLE)) return null;
      return event.full ? { status: 'REFUNDED', sub_status: 'REFUNDED' } : { status: 'SUCCEEDED', sub_status: 'PARTIALLY_REFUNDED' };
  }
}

/** Like nextState, but throws InvalidTransition (the workflow's guard). */
export function transition(from: PaymentState, event: PaymentEvent): PaymentState {
  const next = nextState(from, event);
  if (!next) throw new InvalidTransition(from, event.type);
  return next;
}

export function isFinal(state: PaymentState): boolean {
  return FINAL_STATUSES.includes(state.status);
}

/** The transition table as text, for the OpenAPI description of the Payments tag. */
export const PAYMENT_STATES_DOC = [
  'Statuses: READY_TO_PAY (created, nothing attempted), PENDING (PROCESSING at a provider, or WAITING_ADDITIONAL_STEP for 3-D Secure),',
  'SUCCEEDED (AUTHORIZED, CAPTURED, PARTIALLY_CAPTURED, PARTIALLY_REFUNDED), and the final DECLINED (DECLINED), ERROR (NO_ROUTE, PROVIDER_ERROR),',
  'CANCELED (CANCELED), EXPIRED (EXPIRED), REFUNDED (REFUNDED).',
  'Transitions: READY_TO_PAY/CREATED -> PENDING/PROCESSING (provider attempt; failover keeps PROCESSING) -> SUCCEEDED/CAPTURED (capture=true) or',
  'SUCCEEDED/AUTHORIZED (capture=false), PENDING/WAITING_ADDITIONAL_STEP (3-D Secure), DECLINED/DECLINED, ERROR/PROVIDER_ERROR (every connection',
  'failed with 5xx or timeout). READY_TO_PAY -> ERROR/NO_ROUTE when no connection matches. AUTHORIZED -> capture -> CAPTURED (full) or',
  'PARTIALLY_CAPTURED; AUTHORIZED, READY_TO_PAY or WAITING_ADDITIONAL_STEP -> cancel -> CANCELED; AUTHORIZED or WAITING_ADDITIONAL_STEP ->',
  'EXPIRED when not completed in time; CAPTURED/PARTIALLY_* -> refund -> PARTIALLY_REFUNDED, or REFUNDED when everything captured is refunded.',
  'A request for a transition the table does not allow answers 409 INVALID_STATUS_TRANSITION.',
].join(' ');
