/**
 * Payments: creation (a payment workflow answering with its first outcome), retrieval,
 * and capture / cancel / refund (updates on the payment's workflow).
 */
import { refuseTestCardWithLiveKeys } from '../modes';
import { closedBeforeUpdate, updateRetryingUnprocessed, withinSyncWait } from '../lifecycle';
import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import * as t from 'io-ts';
import { findOwnedAccount } from '../../activities/repositories/merchants';
import { findPayment, findPaymentsByMerchantOrderId } from '../../activities/repositories/payments';
import { customerPayerOf, findCustomer, findPaymentMethod } from '../../activities/repositories/customers';
import { findVaultCard, forgetSecurityCode, readSecurityCode, storeSecurityCode, summaryOf, vaultCard } from '../../activities/repositories/vault';
import { consumeCardToken } from '../../activities/repositories/card-tokens';
import { resolveRoute, usableConnections } from '../../activities/repositories/routing';
import { paymentFlowsOf } from '../../activities/providers';
import { TEST_CARDS_DOC } from '../../activities/sandbox-gateway/test-cards';
import { amountFieldProblems, AMOUNT_PRECISION_RULE, DecimalAmount, maxString, struct, annotate, PositiveDecimalAmount } from '../../domain/codecs/common';
import { newId } from '../../domain/credentials';
import { uuidFromKey } from '../../domain/ids';
import { ApiError } from '../../domain/errors';
import { CARD_METHOD_TYPES, isInlineCard, NormalizedPaymentCreate, normalizePaymentCreate, Payment, PaymentCreateRequest, paymentCreateProblems, PaymentList } from '../../domain/payments/codecs';
import type { PaymentFlow } from '../../domain/payments/methods';
import { servableConnections } from '../../domain/payments/routing';
import { CustomerPayerRecord, newPaymentRecord, PaymentRecord, renderPayment, sanitizePaymentRequest, CardSummary } from '../../domain/payments/record';
import { PAYMENT_STATES_DOC } from '../../domain/payments/states';
import type { PaymentWorkflowInput, OperationRequest } from '../../workflows/payment';
import { cancelUpdate, captureUpdate, firstOutcomeUpdate, INVALID_AMOUNT, INVALID_TRANSITION, refundUpdate } from '../../workflows/payment';
import type { AppContext, AppDeps } from '../context';
import type { RouteTable } from '../routes';
import { DRY_RUN_HEADER, handleDryRunPayment, isDryRunRequest, renderStoredDryRunPayment } from './dry-run';
import { findDryRunPayment } from '../../activities/repositories/dry-run';
import { resourceSearchAttributes } from '../../domain/search-attributes';

const PAYMENT_ID_PARAM = { name: 'payment_id', description: 'id of the payment', schema: { type: 'string', format: 'uuid' } };
const IDEMPOTENCY = { required: false, format: 'uuid', onDifferentPayload: 'replay' } as const;

export const paymentWorkflowId = (paymentId: string) => `payment-${paymentId}`;

/** A payment created with an idempotency key gets an id derived from it, so even a retry after a lost lock lands on the same workflow. */
function paymentIdFor(organizationCode: string, idempotencyKey: string | undefined): string {
  return idempotencyKey ? uuidFromKey('payment', organizationCode, idempotencyKey) : newId();
}

const NO_PAYER: CustomerPayerRecord = {
  id: null, merchant_customer_id: null, first_name: null, last_name: null, gender: null, date_of_birth: null, email: null, nationality: null,
  ip_address: null, device_fingerprint: null, browser_info: null, document: null, phone: null, billing_address: null, shipping_address: null,
};

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function booleanQuery(ctx: AppContext, name: string): boolean {
  const raw = ctx.query[name];
  if (raw === undefined) return false;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new ApiError('validation', `${name} must be true or false`, { fieldErrors: [{ field: name, code: 'INVALID', message: `${name} must be true or false` }] });
}

/**
 * Starts the payment's workflow (durable once this returns, with or without a running
 * worker), then asks it for the first outcome through the firstOutcome update. If the
 * provider is slower than PAYMENT_SYNC_WAIT_MS the answer is the stored state (PENDING):
 * the workflow carries on and the outcome follows by webhook and GET.
 */
async function startPayment(deps: AppDeps, input: PaymentWorkflowInput): Promise<PaymentRecord> {
  const { paymentId, organizationCode, accountId, request } = input.payment;
  // One round trip starts the workflow and waits for its first outcome (update-with-start).
  // REJECT_DUPLICATE: a payment id runs once, ever; a late retry of a closed payment reads it back.
  const startWorkflowOperation = new WithStartWorkflowOperation('paymentWorkflow', {
    workflowId: paymentWorkflowId(paymentId),
    taskQueue: deps.config.taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    searchAttributes: resourceSearchAttributes({ type: 'payment', id: paymentId, accountId, organizationCode, merchantReference: request.merchant_reference }),
  });
  const outcome = deps.temporal.workflow.executeUpdateWithStart(firstOutcomeUpdate, { startWorkflowOperation, updateId: 'first-outcome' });
  outcome.catch(() => undefined); // may be abandoned below; the workflow carries on regardless
  let first: PaymentRecord | null;
  try {
    first = await Promise.race([outcome, sleep(deps.config.paymentSyncWaitMs).then(() => null)]);
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    first = null; // closed long ago: the stored record answers
  }
  if (first) return first;
  const stored = await findPayment(deps.db, organizationCode, paymentId);
  if (stored) return stored;
  // Slower than the wait (no worker yet, a slow provider): answer PENDING only once the
  // workflow is known to exist, so a PENDING payment is never one that was not started.
  const exists = await deps.temporal.workflow.getHandle(paymentWorkflowId(paymentId)).describe().then(() => true, () => false);
  if (!exists) throw new ApiError('unavailable', 'the payment could not be confirmed in time; retry it with the same X-Idempotency-Key');
  return newPaymentRecord(input.payment);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}

/** Runs an update on a payment's workflow, mapping refusals to HTTP answers. */
async function operate(deps: AppDeps, paymentId: string, update: typeof captureUpdate, request: OperationRequest): Promise<PaymentRecord> {
  try {
    const handle = deps.temporal.workflow.getHandle(paymentWorkflowId(paymentId));
    return await withinSyncWait(deps, updateRetryingUnprocessed(() => handle.executeUpdate(update, { args: [request], updateId: `${update.name}-${request.operationId}` })));
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      if (error.cause.type === INVALID_TRANSITION) throw new ApiError('conflict', error.cause.message, { code: 'INVALID_STATUS_TRANSITION' });
      if (error.cause.type === INVALID_AMOUNT) throw new ApiError('validation', error.cause.message, { code: 'INVALID_AMOUNT', fieldErrors: [{ field: 'amount', code: 'OUT_OF_RANGE', message: error.cause.message }] });
    }
    if (closedBeforeUpdate(error)) {
      throw new ApiError('conflict', 'this payment is closed: no further operation is possible', { code: 'INVALID_STATUS_TRANSITION' });
    }
    throw error;
  }
}

/** Flows the payment lifecycle (workflows/payment.ts) drives today. */
const LIFECYCLE_FLOWS: readonly PaymentFlow[] = ['card'];

/**
 * Non-card methods are judged at the door, before anything is stored or started, so a
 * payment nobody can take is a 422 now rather than a workflow that fails later. The
 * reasons say what is missing: a matching routing rule, a provider that takes the method
 * in the country (catalogue), or a connector and lifecycle for the method's flow.
 */
async function refuseNonCardPayment(deps: AppDeps, accountId: string, request: NormalizedPaymentCreate): Promise<never> {
  const type = request.payment_method.type;
  const facts = { country: request.country, paymentMethodType: type, currency: request.amount.currency, amount: request.amount.value, cardBrand: null, iin: null };
  const route = await resolveRoute(deps.db, accountId, facts);
  const flowsOf = (providerId: string) => paymentFlowsOf(providerId).filter((flow) => LIFECYCLE_FLOWS.includes(flow));
  const reasons = route ? servableConnections(route, facts, flowsOf).refusals : ['no routing rule of the account matches this payment'];
  const message = `no connection of this account can take ${type} payments in ${request.country}`;
  throw new ApiError('unprocessable', [message, ...reasons], {
    code: 'PAYMENT_METHOD_NOT_SUPPORTED',
    fieldErrors: [{ field: 'payment_method.type', code: 'UNSUPPORTED', message: `${message}: ${reasons.join('; ')}` }],
  });
}

/** A live account starts with no connection (never the sandbox): say so now, not as a failed payment later. */
async function refuseLiveWithoutConnection(deps: AppDeps, accountId: string): Promise<void> {
  const { configured } = await usableConnections(deps.db, accountId);
  if (configured.length) return;
  const message = 'this live account has no provider connection: live keys never reach the sandbox; add a connection with live credentials (POST /v1/accounts/{account_id}/provider-connections), or use the test keys';
  throw new ApiError('unprocessable', message, { code: 'NO_LIVE_CONNECTION', fieldErrors: [{ field: 'account_id', code: 'NO_LIVE_CONNECTION', message }] });
}

const CaptureRequest = struct('CaptureRequest', {}, { amount: annotate(PositiveDecimalAmount, { description: `in the payment's currency, ${AMOUNT_PRECISION_RULE}; defaults to the whole authorized amount` }), description: maxString(255) });
const CancelRequest = struct('CancelRequest', {}, { reason: maxString(255), description: maxString(255) });
const RefundRequest = struct('RefundRequest', {}, {
  amount: annotate(DecimalAmount, { description: `greater than 0 and at most captured minus refunded; in the payment's currency, ${AMOUNT_PRECISION_RULE}; defaults to all of it` }),
  reason: annotate(maxString(255), { description: 'e.g. REQUESTED_BY_CUSTOMER, DUPLICATE, FRAUDULENT' }),
  description: maxString(255),
});

export function registerPaymentRoutes(routes: RouteTable, deps: AppDeps): void {
  routes.add(
    {
      method: 'POST', path: '/v1/payments', operationId: 'createPayment', awaitsWorkflow: true, tag: 'Payments', area: 'default', auth: 'pair',
      summary: 'Create a payment (routed to a provider, with failover)',
      description:
        'Creates the payment, routes it by the account\'s routing rules (default: two sandbox connections) and answers with the first outcome. ' +
        'A provider slower than the wait (PAYMENT_SYNC_WAIT_MS) gives 201 with status PENDING/PROCESSING; the outcome follows by webhook and GET. ' +
        'Failover goes to the next connection on soft decline, timeout (the attempt is reversed) or provider 5xx, never after a hard decline; every attempt is a transaction. ' +
        'Non-card methods (wallets, redirects, vouchers, bank transfers: see the vocabulary in the README) are judged before anything is stored: when no connection of the route can take the method in the country, the answer is 422 PAYMENT_METHOD_NOT_SUPPORTED with the reasons (with Dry-run: true they are validated and stored like cards). ' +
        'capture=false authorizes only (capture later). X-Idempotency-Key (UUID): the same key within 24 h returns the first answer; a concurrent duplicate gets 400 REQUEST_IN_PROCESS. ' +
        `${PAYMENT_STATES_DOC} ${TEST_CARDS_DOC}`,
      idempotency: IDEMPOTENCY,
      headers: [DRY_RUN_HEADER],
      body: PaymentCreateRequest,
      responses: {
        201: { description: 'The payment with its first outcome (or PENDING); with Dry-run: true the stored dry-run payment (dry_run: true)', body: Payment },
        404: { description: 'account_id, customer_payer.id, token or vaulted_token unknown for this organization' },
        422: { description: 'PAYMENT_METHOD_NOT_SUPPORTED: no connection of the account\'s route can take this non-card method in this country (the messages say why); NO_LIVE_CONNECTION: live keys and the live account has no provider connection (live keys never reach the sandbox); nothing is stored' },
      },
    },
    async (ctx, body) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      const dryRun = isDryRunRequest(ctx); // a malformed Dry-run header is refused before anything else
      const problems = paymentCreateProblems(body, new Date());
      if (problems.length) throw new ApiError('validation', problems.map((p) => p.message), { fieldErrors: problems });
      if (dryRun) return handleDryRunPayment(ctx, deps, body);
      const request = normalizePaymentCreate(body);
      const inlineCard = request.payment_method.detail?.card;
      refuseTestCardWithLiveKeys(ctx, isInlineCard(inlineCard) ? inlineCard.number : undefined, 'payment_method.detail.card.number');
      const account = await findOwnedAccount(deps.db, organizationCode, request.account_id);
      if (!account) throw new ApiError('not_found', 'account not found', { code: 'ACCOUNT_NOT_FOUND' });
      if (!CARD_METHOD_TYPES.includes(request.payment_method.type)) await refuseNonCardPayment(deps, account._id, request);
      if (account.mode === 'live') await refuseLiveWithoutConnection(deps, account._id);
      const paymentId = paymentIdFor(organizationCode, ctx.get('x-idempotency-key') || undefined);
      if (ctx.get('x-idempotency-key')) {
        // The key's answer expired or was lost, the payment was not: answer with it, never run it again.
        const existing = await findPayment(deps.db, organizationCode, paymentId);
        if (existing) {
          ctx.status = 201;
          ctx.set('Location', `/v1/payments/${existing.id}`);
          ctx.body = renderPayment(existing);
          return;
        }
      }

      let customer: CustomerPayerRecord | null = null;
      const { id: customerId, ...inlinePayer } = request.customer_payer ?? {};
      if (customerId) {
        const doc = await findCustomer(deps.db, organizationCode, customerId);
        if (!doc) throw new ApiError('not_found', 'customer not found', { code: 'CUSTOMER_NOT_FOUND' });
        customer = { ...customerPayerOf(doc), ...definedOnly(inlinePayer) } as CustomerPayerRecord;
      } else if (request.customer_payer) {
        customer = { ...NO_PAYER, ...definedOnly(inlinePayer) } as CustomerPayerRecord;
      }

      const method = request.payment_method;
      const cardInput = method.detail?.card;
      let cardId: string;
      let summary: CardSummary;
      let vaultedToken: string | null = null;
      let securityCodeStored: Promise<void> = Promise.resolve();
      const securityCodeOnCard = isInlineCard(cardInput) && Boolean(cardInput.security_code);
      if (isInlineCard(cardInput)) {
        // One write: the card, with its CVV kept on it for this payment's authorization.
        ({ cardId, summary } = await vaultCard(deps.db, deps.keyring, { organizationCode, accountId: account._id }, cardInput, paymentId));
      } else {
        if (method.vaulted_token) {
          const enrolled = await findPaymentMethod(deps.db, organizationCode, customerId!, method.vaulted_token);
          if (!enrolled || enrolled.status !== 'ENROLLED') throw new ApiError('not_found', 'vaulted_token not found for this customer', { code: 'PAYMENT_METHOD_NOT_FOUND' });
          cardId = enrolled.card_id;
          vaultedToken = enrolled._id;
        } else {
          const consumed = await consumeCardToken(deps.db, organizationCode, account._id, method.token!, paymentId);
          if (!consumed) throw new ApiError('not_found', 'token not found, expired or already used', { code: 'TOKEN_NOT_FOUND' });
          cardId = consumed;
          // A CVV given when the token was made moves to this payment's single authorization.
          const tokenCode = await readSecurityCode(deps.db, deps.keyring, method.token!);
          if (tokenCode && !cardInput?.security_code) await storeSecurityCode(deps.db, deps.keyring, paymentId, tokenCode);
          await forgetSecurityCode(deps.db, method.token!);
        }
        const card = await findVaultCard(deps.db, cardId);
        if (!card) throw new ApiError('not_found', 'the card of this token is no longer in the vault', { code: 'PAYMENT_METHOD_NOT_FOUND' });
        summary = summaryOf(card);
      }
      if (cardInput?.security_code && !isInlineCard(cardInput)) securityCodeStored = storeSecurityCode(deps.db, deps.keyring, paymentId, cardInput.security_code);
      await securityCodeStored;

      const record = await startPayment(deps, {
        payment: { paymentId, organizationCode, accountId: account._id, createdAt: new Date().toISOString(), request: sanitizePaymentRequest(request), card: summary, customer, vaultedToken },
        cardId,
        customerId: customerId ?? null,
        ...(securityCodeOnCard ? { securityCodeOnCard } : {}),
      });
      ctx.status = 201;
      ctx.set('Location', `/v1/payments/${record.id}`);
      ctx.body = renderPayment(record);
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/payments/:payment_id', operationId: 'getPayment', tag: 'Payments', area: 'default', auth: 'pair',
      summary: 'Retrieve a payment',
      description:
        'By default `transactions` holds the latest transaction and provider_data.raw_response is null. ' +
        'A dry-run payment (created with `Dry-run: true`) is read here too, as it was answered at creation: `dry_run: true`, READY_TO_PAY / CREATED, no transactions, and `dry_run_pairing` as it stands now.',
      pathParams: [PAYMENT_ID_PARAM],
      query: [
        { name: 'include_raw_response', description: 'true: include each transaction\'s provider raw response (provider_data.raw_response). Default false.', schema: { type: 'boolean', default: false } },
        { name: 'include_transactions', description: 'true: include the whole transaction history, oldest first. Default false (latest transaction only).', schema: { type: 'boolean', default: false } },
      ],
      responses: { 200: { description: 'The payment', body: Payment }, 404: { description: 'No such payment for this organization' } },
    },
    async (ctx) => {
      const options = { includeRawResponse: booleanQuery(ctx, 'include_raw_response'), includeTransactions: booleanQuery(ctx, 'include_transactions') };
      const organizationCode = ctx.state.principal!.organizationCode;
      const record = await findPayment(deps.db, organizationCode, ctx.params.payment_id);
      if (record) {
        ctx.body = renderPayment(record, options);
        return;
      }
      const dryRun = await findDryRunPayment(deps.db, organizationCode, ctx.params.payment_id);
      if (!dryRun) throw new ApiError('not_found', 'payment not found', { code: 'PAYMENT_NOT_FOUND' });
      ctx.body = renderStoredDryRunPayment(dryRun);
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/payments', operationId: 'listPaymentsByMerchantOrderId', tag: 'Payments', area: 'default', auth: 'pair',
      summary: 'Retrieve the payments of a merchant order id',
      query: [{ name: 'merchant_order_id', description: 'the merchant order identifier (3 to 255 characters)', required: true, schema: { type: 'string', minLength: 3, maxLength: 255 } }],
      description: 'Payments routed to a provider; dry-run payments are not listed (read one by its id, or its pairing by merchant_reference under /v1/dry-run/provider-events).',
      responses: { 200: { description: 'The payments with that merchant_order_id, oldest first (empty when none)', body: PaymentList } },
    },
    async (ctx) => {
      const id = ctx.query.merchant_order_id;
      if (typeof id !== 'string' || id.length < 3 || id.length > 255) {
        throw new ApiError('validation', 'merchant_order_id must be 3 to 255 characters', { fieldErrors: [{ field: 'merchant_order_id', code: id === undefined ? 'REQUIRED' : 'INVALID', message: 'merchant_order_id must be 3 to 255 characters' }] });
      }
      const records = await findPaymentsByMerchantOrderId(deps.db, ctx.state.principal!.organizationCode, id);
      ctx.body = records.map((r) => renderPayment(r));
    },
  );

  const operation = <B extends t.Any>(
    path: string, operationId: string, summary: string, description: string, body: B, update: typeof captureUpdate, status: number,
    toRequest: (b: t.TypeOf<B>) => Omit<OperationRequest, 'operationId'>,
  ) =>
    routes.add(
      {
        method: 'POST', path: `/v1/payments/:payment_id/${path}`, operationId, awaitsWorkflow: true, tag: 'Payments', area: 'default', auth: 'pair', summary,
        description: `${description} Answers with the payment; the new transaction (latest) tells the provider's answer. A state the transition table does not allow answers 409 INVALID_STATUS_TRANSITION.`,
        idempotency: IDEMPOTENCY,
        pathParams: [PAYMENT_ID_PARAM],
        body,
        responses: { [status]: { description: 'The payment after the operation', body: Payment }, 404: { description: 'No such payment for this organization' }, 409: { description: 'Not allowed in the payment\'s status, or a dry-run payment (never routed)' } },
      },
      async (ctx, decoded) => {
        const organizationCode = ctx.state.principal!.organizationCode;
        const existing = await findPayment(deps.db, organizationCode, ctx.params.payment_id);
        if (!existing) {
          // A dry-run payment exists (GET reads it) but was never routed: nothing to operate on.
          if (await findDryRunPayment(deps.db, organizationCode, ctx.params.payment_id)) {
            throw new ApiError('conflict', 'this is a dry-run payment: it was never routed to a provider, so it cannot be captured, cancelled or refunded', { code: 'INVALID_STATUS_TRANSITION' });
          }
          throw new ApiError('not_found', 'payment not found', { code: 'PAYMENT_NOT_FOUND' });
        }
        // The amount is in the payment's currency: its ISO 4217 minor unit and maximum apply.
        const amountProblems = amountFieldProblems('amount', (decoded as { amount?: number }).amount, existing.amount.currency);
        if (amountProblems.length) throw new ApiError('validation', amountProblems.map((p) => p.message), { fieldErrors: amountProblems });
        const key = ctx.get('x-idempotency-key');
        const record = await operate(deps, existing.id, update, { operationId: key || newId(), ...toRequest(decoded) });
        ctx.status = status;
        ctx.body = renderPayment(record);
      },
    );

  operation('capture', 'capturePayment', 'Capture an authorized payment', 'Captures all (default) or part of an AUTHORIZED payment.', CaptureRequest, captureUpdate, 200, (b) => ({ amount: b.amount, description: b.description }));
  operation('cancel', 'cancelPayment', 'Cancel (void) a payment', 'Voids an AUTHORIZED payment at the provider, or abandons one waiting for 3-D Secure.', CancelRequest, cancelUpdate, 200, (b) => ({ reason: b.reason, description: b.description }));
  operation('refunds', 'refundPayment', 'Refund a captured payment (full or partial)', 'Refunds part or all of what was captured; the sum of refunds never exceeds the captured amount.', RefundRequest, refundUpdate, 201, (b) => ({ amount: b.amount, reason: b.reason, description: b.description }));
}
