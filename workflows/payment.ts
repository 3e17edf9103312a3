/**
 * The payment lifecycle. Its history is the audit log: routing, every provider attempt,
 * the outcome, and later capture / cancel / refund (updates, each adding a transaction).
 * The API starts it, then waits on the `firstOutcome` update and answers with the first
 * outcome, or PENDING when the provider is slower than the API waits.
 *
 * Card data never enters the history: the input names a vault card id; the attempt
 * activity opens the vault itself.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  defineQuery,
  defineUpdate,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  uuid4,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { RoutedConnection } from '../activities/repositories/routing';
import { outcomeOfDecisiveFirstAttempt, ProviderResult, providerTransaction, withAuthorizationOutcome } from '../domain/payments/attempts';
import { compareAmounts } from '../domain/money';
import { failoverAllowed } from '../domain/payments/provider-codes';
import {
  addRefund,
  applyEvent,
  authorizingTransaction,
  isFullRefund,
  NewPaymentInput,
  newPaymentRecord,
  PaymentRecord,
  refundable,
  renderPayment,
  TransactionRecord,
  withChanges,
  withTransaction,
} from '../domain/payments/record';
import { isFinal, nextState, PaymentEvent, TransactionType } from '../domain/payments/states';
import type { ProviderEvent } from '../domain/providers/events';
import { announceWebhook, startWebhookDelivery } from './webhook-delivery';
import { creditCapturedSplits } from './split-credits';
import { serialQueue } from './serial';

// Short MongoDB reads and writes run as local activities (no task-queue round trip per
// write); they are idempotent like every activity, and recorded in history as markers.
const { savePayment, routePayment, releaseSecurityCode, recordDomainEvent } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' },
});
const { enrollPaymentMethod } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' },
});

// Provider calls heartbeat every second: when a worker dies mid-call, another retries the
// same attempt (same idempotency key) within seconds.
const providerActivities = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '3 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 20 },
});
// Since 'local-provider-calls': the authorization runs as a local activity, inside the workflow
// task that asked for them: no task-queue round trip through the server per call, so the
// first outcome usually comes within the update-with-start's first workflow task. A worker
// dying mid-call: the task times out and the next worker repeats the call with the same
// idempotency key, so the provider still sees one charge.
const localProviderActivities = proxyLocalActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 20 },
});

/** How long an authorization is held for capture, 3-D Secure may take, and refunds stay possible. */
export const AUTHORIZATION_HOLD = '7 days';
export const THREE_DS_WINDOW = '1 hour';
export const REFUND_WINDOW = '180 days';

export interface PaymentWorkflowInput {
  payment: NewPaymentInput;
  cardId: string;
  customerId: string | null;
  /** The CVV is kept on the vault card (a card given with the payment); absent in older inputs. */
  securityCodeOnCard?: boolean;
}

export interface OperationRequest {
  /** Stable per request (the API derives it from X-Idempotency-Key when given). */
  operationId: string;
  amount?: number;
  reason?: string;
  description?: string;
}

export const firstOutcomeUpdate = defineUpdate<PaymentRecord>('firstOutcome');
export const captureUpdate = defineUpdate<PaymentRecord, [OperationRequest]>('capture');
export const cancelUpdate = defineUpdate<PaymentRecord, [OperationRequest]>('cancel');
export const refundUpdate = defineUpdate<PaymentRecord, [OperationRequest]>('refund');
export const paymentQuery = defineQuery<PaymentRecord>('payment');

/** A verified provider webhook event about this payment (POST /v1/provider-webhooks/{connection_id}). */
export interface ProviderEventInput extends ProviderEvent {
  /** The connection whose webhook carried the event. */
  connectionId: string;
}

export interface ProviderEventOutcome {
  applied: boolean;
  /** What the event did, or why it changed nothing. */
  detail: string;
}

export const providerEventUpdate = defineUpdate<ProviderEventOutcome, [ProviderEventInput]>('providerEvent');

/** ApplicationFailure types the API maps to HTTP answers. */
export const INVALID_TRANSITION = 'InvalidStatusTransition';
export const INVALID_AMOUNT = 'InvalidAmount';


const PAST_PARTICIPLE: Partial<Record<PaymentEvent['type'], string>> = { cancel: 'canceled', capture: 'captured', refund: 'refunded' };

const WEBHOOK_EVENT_OF_STATUS: Record<string, string> = {
  'SUCCEEDED/AUTHORIZED': 'payment.succeeded',
  'SUCCEEDED/CAPTURED': 'payment.succeeded',
  'SUCCEEDED/PARTIALLY_CAPTURED': 'payment.captured',
  'SUCCEEDED/PARTIALLY_REFUNDED': 'payment.refunded',
  'PENDING/WAITING_ADDITIONAL_STEP': 'payment.pending',
  'DECLINED/DECLINED': 'payment.declined',
  'ERROR/PROVIDER_ERROR': 'payment.failed',
  'ERROR/NO_ROUTE': 'payment.failed',
  'CANCELED/CANCELED': 'payment.canceled',
  'EXPIRED/EXPIRED': 'payment.expired',
  'REFUNDED/REFUNDED': 'payment.refunded',
};

export async function paymentWorkflow(input: PaymentWorkflowInput): Promise<PaymentRecord> {
  const now = () => new Date().toISOString(); // workflow time: deterministic on replay
  let record = newPaymentRecord(input.payment);
  let outcomeReached = false;
  let busy = false; // before 'serial-operations': the old, racy exclusion (kept for replay)
  // A run started since 'payment-2026-11-24' has every change below: it records this one
  // marker instead of one per change (each marker also costs a search-attribute update, on the
  // payment's critical path). Older histories replay change by change, as they were recorded.
  const current = patched('payment-2026-11-24');
  const since = (change: string) => current || patched(change);
  // Histories recorded before the FIFO queue keep their old ordering on replay.
  const serialOperations = since('serial-operations');
  const localProviderCalls = since('local-provider-calls');
  // Only the authorization: capture / cancel / refund stay ordinary activities, so the
  // workflow task stays short while merchants' updates arrive (an update handed to a task
  // that is held open by a long local activity can come back unprocessed).
  const { authorizeAttempt } = localProviderCalls ? localProviderActivities : providerActivities;
  // Since 'first-task-outcome' (one patch: each costs a marker and a search-attribute update):
  // routing and the first attempt are one local activity; PROCESSING is stored by the attempt
  // only when the provider is slow, so a fast outcome costs one write of the read model; the
  // webhook's workflow starts with the first task, and no timer task follows it.
  const firstTaskOutcome = localProviderCalls && since('first-task-outcome');
  const { providerFollowUp } = providerActivities;
  const { routeAndAuthorize } = localProviderActivities;
  const serially = serialQueue();
  let operationsReceived = 0;
  let authorizedOn: RoutedConnection | null = null;
  // The connection of an attempt that waits for its outcome (3-D Secure, a pending answer).
  let pendingOn: RoutedConnection | null = null;
  const providerEventsApplied = new Set<string>();

  async function save(): Promise<void> {
    await savePayment(record);
    showStatus();
  }

  function showStatus(): void {
    upsertSearchAttributes({ ResourceStatus: [`${record.status}/${record.sub_status}`] });
  }

  function transaction(type: TransactionType, amount: number, result: ProviderResult, connection: RoutedConnection | null, extra: Partial<TransactionRecord> = {}): TransactionRecord {
    const at = now();
    return providerTransaction(record, type, amount, result, connection, uuid4(), at, extra);
  }

  /**
   * Webhooks and domain events for `payment` as it is now (or as it was at the outcome).
   * `webhookFirst`: the webhook's workflow is started before anything else, so the task in
   * progress ends with that start; false when there is no event to announce.
   */
  async function announce(payment: PaymentRecord = record, webhookFirst = false): Promise<boolean> {
    const key = `${payment.status}/${payment.sub_status}`;
    const eventType = WEBHOOK_EVENT_OF_STATUS[key];
    if (!eventType) return false;
    const eventId = `${payment.id}:${payment.version}`;
    const data = renderPayment(payment) as unknown as Record<string, unknown>;
    const delivery = {
      deliveryId: eventId,
      eventId,
      eventType,
      organizationCode: payment.organization_code,
      accountId: payment.account_id,
      resourceType: 'payment',
      resourceId: payment.id,
      callbackUrl: payment.callback_url,
      occurredAt: payment.updated_at,
      data,
    };
    // Since 'webhook-prepared-by-payment' the event is recorded here and a delivery workflow
    // starts only when there is a URL (announceWebhook).
    const preparedHere = since('webhook-prepared-by-payment');
    if (webhookFirst && !preparedHere) await startWebhookDelivery(delivery);
    if (eventType === 'payment.declined') {
      const last = payment.transactions[payment.transactions.length - 1];
      await recordDomainEvent({
        id: `payment.declined:${payment.id}`,
        type: 'payment.declined',
        organizationCode: payment.organization_code,
        accountId: payment.account_id,
        resourceType: 'payment',
        resourceId: payment.id,
        occurredAt: payment.updated_at,
        // The campaigns' DeclinedPayment shape (domain/campaigns/codecs.ts).
        payload: {
          payment_id: payment.id,
          merchant_order_id: payment.merchant_order_id,
          country: payment.country,
          amount: { currency: payment.amount.currency, value: payment.amount.value },
          status: payment.status,
          sub_status: payment.sub_status,
          payment_method_type: payment.payment_method.type,
          provider_id: last?.provider_id ?? null,
          card_bin: payment.payment_method.card?.iin ?? null,
          response_code: last?.response_code ?? null,
          iso_response_code: last?.provider_data?.iso8583_response_code ?? null,
          category: last?.category ?? null,
          metadata: payment.metadata,
          customer: payment.customer_payer
            ? {
                id: payment.customer_payer.id ?? null,
                email: payment.customer_payer.email ?? null,
                phone: payment.customer_payer.phone?.number ? `${payment.customer_payer.phone.country_code ?? ''}${payment.customer_payer.phone.number}` : null,
              }
            : null,
        },
      });
    }
    // Marketplace payments: the captured split shares fund the organization balance (split transfers pay them out).
    if (payment.sub_status === 'CAPTURED' && payment.split.length > 0 && since('ledger-split-credits')) await creditCapturedSplits(payment);
    if (preparedHere) await announceWebhook(delivery);
    else if (!webhookFirst) await startWebhookDelivery(delivery);
    return true;
  }

  function refuse(event: PaymentEvent): void {
    if (!outcomeReached || !nextState(record, event)) {
      throw ApplicationFailure.create({ type: INVALID_TRANSITION, message: `a payment in ${record.status}/${record.sub_status} cannot be ${PAST_PARTICIPLE[event.type] ?? event.type}`, nonRetryable: true });
    }
  }

  function badAmount(message: string): never {
    throw ApplicationFailure.create({ type: INVALID_AMOUNT, message, nonRetryable: true });
  }

  function validateCapture(req: OperationRequest): void {
    refuse({ type: 'capture', full: true });
    const amount = req.amount ?? record.amount.value;
    if (compareAmounts(amount, 0) <= 0 || compareAmounts(amount, record.amount.value) > 0) badAmount(`capture amount must be greater than 0 and at most ${record.amount.value}`);
  }

  function validateCancel(): void {
    refuse({ type: 'cancel' });
  }

  function validateRefund(req: OperationRequest): void {
    refuse({ type: 'refund', full: false });
    const amount = req.amount ?? refundable(record);
    if (compareAmounts(amount, 0) <= 0 || compareAmounts(amount, refundable(record)) > 0) badAmount(`refund amount must be greater than 0 and at most the captured amount not yet refunded (${refundable(record)})`);
  }

  /**
   * One operation at a time, in arrival order; the state is validated again once it is our
   * turn, and the caller gets the record as its own operation left it.
   */
  async function exclusive(validate: () => void, run: () => Promise<void>): Promise<PaymentRecord> {
    operationsReceived++;
    if (serialOperations) {
      return serially(async () => {
        validate();
        await run();
        return record;
      });
    }
    await condition(() => !busy);
    validate();
    busy = true;
    try {
      await run();
      return record;
    } finally {
      busy = false;
    }
  }

  async function followUp(kind: 'capture' | 'void' | 'refund', req: OperationRequest, amount: number): Promise<{ result: ProviderResult; connection: RoutedConnection | null }> {
    const authorization = authorizingTransaction(record);
    const connection = authorizedOn;
    if (!authorization?.provider_data?.transaction_id || !connection) {
      return { result: { category: 'PROVIDER_ERROR', providerStatus: 'ERROR', providerTransactionId: null, responseCode: 'NO_AUTHORIZATION', responseMessage: 'no provider authorization to act on', iso8583Code: null, iso8583Message: null, httpStatus: null, rawResponse: null, threeDsRedirectUrl: null }, connection };
    }
    try {
      const result = await providerFollowUp({
        kind,
        idempotencyKey: `${record.id}:${kind}:${req.operationId}`,
        connection,
        providerTransactionId: authorization.provider_data.transaction_id,
        amount,
        currency: record.amount.currency,
      });
      return { result, connection };
    } catch (error) {
      return { result: { category: 'PROVIDER_ERROR', providerStatus: 'ERROR', providerTransactionId: null, responseCode: 'PROVIDER_ERROR', responseMessage: (error as Error).message, iso8583Code: null, iso8583Message: null, httpStatus: null, rawResponse: null, threeDsRedirectUrl: null }, connection };
    }
  }

  async function operate(type: TransactionType, req: OperationRequest, amount: number, onSuccess: () => void, kind: 'capture' | 'void' | 'refund' | null): Promise<void> {
    const { result, connection } = kind
      ? await followUp(kind, req, amount)
      : { result: { category: 'APPROVED', providerStatus: 'APPROVED', providerTransactionId: null, responseCode: 'CANCELED', responseMessage: 'canceled before completion', iso8583Code: null, iso8583Message: null, httpStatus: null, rawResponse: null, threeDsRedirectUrl: null } as ProviderResult, connection: null };
    record = withTransaction(record, transaction(type, amount, result, connection, { reason: req.reason ?? null, description: req.description ?? null }), now());
    if (result.category === 'APPROVED') onSuccess();
    await save();
    if (result.category === 'APPROVED') await announce();
  }


  /**
   * A provider's asynchronous word on this payment. The outcome of a waiting payment
   * (authorized or declined) moves it like a provider answer would have; a chargeback is
   * recorded as a CHARGEBACK transaction; anything else changes nothing. Each provider event
   * applies once (the API also keeps one record per event id).
   */
  async function applyProviderEvent(event: ProviderEventInput): Promise<ProviderEventOutcome> {
    if (providerEventsApplied.has(event.eventId)) return { applied: false, detail: 'duplicate event' };
    providerEventsApplied.add(event.eventId);
    const state = `${record.status}/${record.sub_status}`;
    const result: ProviderResult = {
      category: event.category,
      providerStatus: event.kind === 'declined' ? 'DECLINED' : 'APPROVED',
      providerTransactionId: event.providerTransactionId,
      responseCode: event.responseCode,
      responseMessage: event.responseMessage,
      iso8583Code: event.iso8583Code,
      iso8583Message: event.iso8583Message,
      httpStatus: null,
      rawResponse: event.raw,
      threeDsRedirectUrl: null,
    };
    if (event.kind === 'authorized' || event.kind === 'declined') {
      if (record.sub_status !== 'WAITING_ADDITIONAL_STEP' || !pendingOn || pendingOn.connectionId !== event.connectionId) {
        return { applied: false, detail: `the payment is ${state}: no outcome of ${event.connectionId} is awaited` };
      }
      const waiting = [...record.transactions].reverse().find((t) => t.status === 'PENDING');
      const waitingRef = waiting?.provider_data?.transaction_id ?? null;
      if (waitingRef && event.providerReferences.length && !event.providerReferences.includes(waitingRef)) {
        return { applied: false, detail: `the event is about ${event.providerReferences.join(', ')}, the payment waits on ${waitingRef}` };
      }
      const connection = pendingOn;
      record = withTransaction(record, transaction(record.capture ? 'PURCHASE' : 'AUTHORIZE', record.amount.value, { ...result, providerTransactionId: event.providerTransactionId ?? waitingRef }, connection), now());
      if (event.kind === 'authorized') {
        authorizedOn = connection;
        record = applyEvent(record, { type: 'approved', captured: record.capture }, now());
        if (record.sub_status === 'CAPTURED') record = withChanges(record, { amount: { ...record.amount, captured: record.amount.value } }, now());
      } else {
        record = applyEvent(record, { type: 'declined' }, now());
      }
      record = withChanges(record, { checkout: { ...record.checkout, sdk_action_required: false } }, now());
      await save();
      await announce();
      return { applied: true, detail: `${state} -> ${record.status}/${record.sub_status}` };
    }
    if (event.kind === 'chargeback') {
      if (record.status !== 'SUCCEEDED' && record.status !== 'REFUNDED') return { applied: false, detail: `the payment is ${state}: nothing was captured to charge back` };
      const connection = authorizedOn && authorizedOn.connectionId === event.connectionId ? authorizedOn : { connectionId: event.connectionId, providerId: event.providerId, merchantId: '', name: '' };
      const amount = event.amount ?? record.amount.captured;
      record = withTransaction(record, transaction('CHARGEBACK', amount, result, connection, { status: event.chargebackStatus ?? 'SUCCEEDED', reason: event.reason }), now());
      await save();
      return { applied: true, detail: `chargeback recorded (${event.chargebackStatus ?? 'SUCCEEDED'})` };
    }
    return { applied: false, detail: `${event.type} changes nothing on a payment` };
  }

  setHandler(paymentQuery, () => record);
  // Registering a handler adds nothing to history; what it does is new, hence the patch,
  // taken when the first event is applied (histories without one replay untouched).
  setHandler(providerEventUpdate, async (event) => {
    if (!since('provider-events')) return { applied: false, detail: 'this payment predates provider events' };
    let outcome: ProviderEventOutcome = { applied: false, detail: 'not applied' };
    await exclusive(() => undefined, async () => {
      outcome = await applyProviderEvent(event);
    });
    return outcome;
  });
  setHandler(firstOutcomeUpdate, async () => {
    await condition(() => outcomeReached);
    return record;
  });
  setHandler(
    captureUpdate,
    (req) =>
      exclusive(
        () => validateCapture(req),
        async () => {
          const amount = req.amount ?? record.amount.value;
          await operate('CAPTURE', req, amount, () => {
            const full = compareAmounts(amount, record.amount.value) === 0;
            record = withChanges(applyEvent(record, { type: 'capture', full }, now()), { amount: { ...record.amount, captured: amount } }, now());
          }, 'capture');
        },
      ),
    { validator: validateCapture },
  );
  setHandler(
    cancelUpdate,
    (req) =>
      exclusive(validateCancel, async () => {
        const needsVoid = record.sub_status === 'AUTHORIZED';
        await operate('CANCEL', req, record.amount.value, () => {
          record = applyEvent(record, { type: 'cancel' }, now());
        }, needsVoid ? 'void' : null);
      }),
    { validator: (_req: OperationRequest) => validateCancel() },
  );
  setHandler(
    refundUpdate,
    (req) =>
      exclusive(
        () => validateRefund(req),
        async () => {
          const amount = req.amount ?? refundable(record);
          await operate('REFUND', req, amount, () => {
            const full = isFullRefund(record, amount);
            record = withChanges(applyEvent(record, { type: 'refund', full }, now()), { amount: addRefund(record, amount) }, now());
          }, 'refund');
        },
      ),
    { validator: validateRefund },
  );

  // ---- routing and provider attempts -------------------------------------------------
  // Before 'local-provider-calls' the new payment was stored before routing; then its first
  // write was PROCESSING (or NO_ROUTE); since 'first-task-outcome' it is the outcome,
  // unless the provider is slow.
  if (!localProviderCalls) await save();
  const card = record.payment_method.card;
  const facts = { country: record.country, paymentMethodType: record.payment_method.type, currency: record.amount.currency, amount: record.amount.value, cardBrand: card?.brand ?? null, iin: card?.iin ?? null };
  const attempt = (i: number) => ({
    paymentId: record.id,
    attempt: i + 1,
    cardId: input.cardId,
    securityCodeOnCard: input.securityCodeOnCard,
    amount: record.amount.value,
    currency: record.amount.currency,
    capture: record.capture,
    installments: card?.installments ?? null,
    softDescriptor: card?.soft_descriptor ?? null,
    reference: record.id,
  });
  let route: RoutedConnection[] | null;
  let firstResult: ProviderResult | null = null;
  let firstStarted: PaymentRecord | null = null; // the record as the first attempt starts
  let storedByAttempt = false;
  if (firstTaskOutcome) {
    firstStarted = applyEvent(record, { type: 'attempt_started' }, now());
    // Since 'attempt-stores-outcome': a first attempt that settles the payment has its outcome
    // stored by the attempt activity itself, built from the same pure function with the ids
    // and time given here: one local activity (one hand-off with the workflow) less before
    // the answer.
    const storeOutcome = since('attempt-stores-outcome') ? { transactionId: uuid4(), at: now() } : undefined;
    const answer = await routeAndAuthorize({ accountId: record.account_id, facts, attempt: attempt(0), processing: firstStarted, storeOutcome });
    ({ route, first: firstResult } = answer);
    if (storeOutcome && answer.outcomeStored && route && firstResult) {
      record = outcomeOfDecisiveFirstAttempt(firstStarted, firstResult, route[0], route.length, storeOutcome.transactionId, storeOutcome.at)!;
      storedByAttempt = true;
      if (firstResult.category === 'APPROVED') authorizedOn = route[0];
      if (firstResult.category === 'THREE_D_SECURE') pendingOn = route[0];
    }
  } else {
    route = await routePayment({ accountId: record.account_id, facts });
  }
  if (storedByAttempt) {
    // The outcome is settled and stored.
  } else if (!route || route.length === 0) {
    record = applyEvent(record, { type: 'no_route' }, now());
  } else {
    let last: ProviderResult | null = null;
    for (let i = 0; i < route.length; i++) {
      if (firstTaskOutcome) {
        record = i === 0 ? firstStarted! : applyEvent(record, { type: 'attempt_started' }, now());
        last = i === 0 ? firstResult! : await authorizeAttempt({ ...attempt(i), connection: route[i], processing: record });
      } else {
        record = applyEvent(record, { type: 'attempt_started' }, now());
        // PROCESSING is written while the provider answers (both are local activities since
        // 'local-provider-calls'); it is written before the outcome, whichever ends first.
        const processingSaved = save();
        if (!localProviderCalls) await processingSaved;
        last = await authorizeAttempt({ ...attempt(i), connection: route[i] });
        await processingSaved;
      }
      record = withTransaction(record, transaction(record.capture ? 'PURCHASE' : 'AUTHORIZE', record.amount.value, last, route[i]), now());
      if (last.category === 'APPROVED') authorizedOn = route[i];
      if (last.category === 'THREE_D_SECURE') pendingOn = route[i];
      if (!failoverAllowed(last.category)) break;
    }
    record = withAuthorizationOutcome(record, last!, now());
  }
  if (storedByAttempt) showStatus();
  else await save();
  outcomeReached = true;
  if (firstTaskOutcome) {
    // This task's completion carries the answer; the webhook and the CVV's release follow in the
    // next task (brought by a 1 ms timer; before 'webhook-prepared-by-payment', by the start of
    // the webhook's workflow). The CVV is released only then, once the attempt is recorded: a
    // repeated attempt must send the same request. Queued first: an operation the merchant
    // sends on the answer runs after, and the webhook tells the outcome as it was.
    const outcome = record;
    const preparedHere = since('webhook-prepared-by-payment');
    await serially(async () => {
      if (preparedHere) {
        await sleep(1);
        await Promise.all([announce(outcome), releaseSecurityCode(outcome.id, input.securityCodeOnCard ? input.cardId : undefined)]);
        return;
      }
      if (!(await announce(outcome, true))) await sleep(1); // no event: end this task all the same
      await releaseSecurityCode(outcome.id, input.securityCodeOnCard ? input.cardId : undefined);
    });
  } else if (localProviderCalls) {
    // End this workflow task here, so the first-outcome answer leaves now instead of after the
    // clean-up and webhook below (a task completes only once its local activities have). Queued
    // first: an operation the merchant sends on the answer runs after, and the webhook tells
    // the outcome as it was.
    const outcome = record;
    await serially(async () => {
      await sleep(1);
      await releaseSecurityCode(outcome.id, input.securityCodeOnCard ? input.cardId : undefined);
      await announce(outcome);
    });
  } else {
    await releaseSecurityCode(record.id, input.securityCodeOnCard ? input.cardId : undefined);
    await announce();
  }

  if (record.status === 'SUCCEEDED' && record.payment_method.vault_on_success && input.customerId && !record.payment_method.vaulted_token) {
    const enrolled = await enrollPaymentMethod({
      vaultedToken: uuid4(),
      organizationCode: record.organization_code,
      accountId: record.account_id,
      customerId: input.customerId,
      cardId: input.cardId,
      country: record.country,
      sessionId: record.checkout.session,
      verifyPaymentId: record.id,
    });
    record = withChanges(record, { payment_method: { ...record.payment_method, vaulted_token: enrolled.vaultedToken } }, now());
    await save();
  }

  // ---- later operations until a final state or the end of the relevant window ----------
  while (!isFinal(record)) {
    const state = `${record.status}/${record.sub_status}`;
    const window = record.sub_status === 'AUTHORIZED' ? AUTHORIZATION_HOLD : record.sub_status === 'WAITING_ADDITIONAL_STEP' ? THREE_DS_WINDOW : REFUND_WINDOW;
    const moved = await condition(() => `${record.status}/${record.sub_status}` !== state, window);
    if (moved) continue;
    if (serialOperations) {
      if (record.sub_status !== 'AUTHORIZED' && record.sub_status !== 'WAITING_ADDITIONAL_STEP') break; // refund window closed
      // Expiry queues behind operations already accepted; one of them may have moved the payment.
      const expired = await serially(async () => {
        if (`${record.status}/${record.sub_status}` !== state) return false;
        await operate('CANCEL', { operationId: 'expiry', reason: 'authorization expired' }, record.amount.value, () => {
          record = applyEvent(record, { type: 'expired' }, now());
        }, record.sub_status === 'AUTHORIZED' ? 'void' : null);
        return true;
      });
      if (expired && !isFinal(record)) break; // the provider refused the void: nothing more to wait for
      continue;
    }
    await condition(() => !busy);
    if (record.sub_status === 'AUTHORIZED' || record.sub_status === 'WAITING_ADDITIONAL_STEP') {
      const authorized = record.sub_status === 'AUTHORIZED';
      busy = true;
      await operate('CANCEL', { operationId: 'expiry', reason: 'authorization expired' }, record.amount.value, () => {
        record = applyEvent(record, { type: 'expired' }, now());
      }, authorized ? 'void' : null);
      busy = false;
      if (!isFinal(record)) break;
    } else {
      break; // refund window closed
    }
  }
  await condition(allHandlersFinished);
  if (localProviderCalls) {
    // Answer every update in a workflow task of its own before completing: the server fails
    // the updates of the completing task, and a refund that ran must never answer "closed".
    let seen: number;
    do {
      seen = operationsReceived;
      await sleep(1);
      await condition(allHandlersFinished);
    } while (operationsReceived !== seen);
  }
  return record;
}
