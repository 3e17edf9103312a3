/**
 * Subscriptions: recurring charges on an enrolled card, each one a long-running workflow.
 *   POST  /v1/subscriptions                       create (200, as the contract says)
 *   GET   /v1/subscriptions/{id}
 *   POST  /v1/subscriptions/{id}/pause | resume | cancel
 *   PATCH /v1/subscriptions/{id}                  metadata changes (empty value unsets a key)
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { customerPayerOf, findCustomer, findPaymentMethod } from '../../activities/repositories/customers';
import { findOwnedAccount } from '../../activities/repositories/merchants';
import { findOwnedRecord } from '../../activities/repositories/records';
import { findVaultCard, summaryOf } from '../../activities/repositories/vault';
import { newId } from '../../domain/credentials';
import { ApiError } from '../../domain/errors';
import { mergeMetadata } from '../../domain/money-movement/common';
import { uuidFromKey } from '../../domain/ids';
import {
  billingStartAt, chargeAt, renderSubscription, Subscription, SubscriptionCreateRequest, SubscriptionMetadataUpdate, subscriptionProblems, SubscriptionRecord,
} from '../../domain/subscriptions/subscription';
import {
  cancelSubscriptionUpdate, pauseSubscriptionUpdate, resumeSubscriptionUpdate, SUBSCRIPTION_INVALID_TRANSITION, subscriptionAnsweredUpdate, subscriptionMetadataUpdate,
} from '../../workflows/subscription';
import type { AppDeps } from '../context';
import { closedBeforeUpdate, startLifecycle, updateRetryingUnprocessed, withinSyncWait } from '../lifecycle';
import type { RouteTable } from '../routes';
import { resourceSearchAttributes } from '../../domain/search-attributes';

const ID_PARAM = { name: 'subscription_id', description: 'id returned at creation', schema: { type: 'string', format: 'uuid' } };
const workflowIdOf = (id: string) => `subscription-${id}`;

export function registerSubscriptionRoutes(routes: RouteTable, deps: AppDeps): void {
  routes.add(
    {
      method: 'POST', path: '/v1/subscriptions', operationId: 'createSubscription', awaitsWorkflow: true, tag: 'Subscriptions', area: 'default', auth: 'pair',
      summary: 'Create a subscription (recurring charges on an enrolled card)',
      description:
        'Charges amount every frequency period (DAY, WEEK, MONTH, YEAR x value) or on a billing_date (DAY_OF_MONTH 1..28, DAY_OF_WEEK 1..7, LAST_DAY_OF_MONTH), from availability.start_at (default now; a start_at in the past starts billing at creation: missed cycles are never charged, the first charge is now and the following cycles count from now). ' +
        'until billing_cycles.total cycles were charged (billing_cycles.next_at is always the next charge time, including a pending retry) or the next charge would fall after availability.finish_at, whichever comes first (then COMPLETED). ' +
        'Each charge is a payment (GET /v1/payments/{charges[].payment_id}); a declined one is retried retries.max_attempts times, retries.interval apart, for retries.amount when given. ' +
        'The first trial_period.billing_cycles cycles are charged trial_period.amount (0: not charged). With initial_payment_validation the subscription is PENDING until its first payment is approved ' +
        '(FAILED if it never is) and this call waits for that first charge. payment_method.card.usage is required when the card was enrolled through a customer-initiated payment. ' +
        'Metadata entries with an empty value are dropped (unset). Sandbox/test clock: with SUBSCRIPTION_PERIOD_SECONDS > 0 every billing period and retry-interval unit lasts that many seconds. ' +
        'Optional x-idempotency-key (UUID): the same key returns the subscription first created. Webhooks subscription.active / .paused / .canceled / .completed / .failed / .charge_failed go to the account webhook.',
      idempotency: { required: false, format: 'uuid', onDifferentPayload: 'replay' },
      body: SubscriptionCreateRequest,
      responses: {
        200: { description: 'The created subscription (ACTIVE, or PENDING / ACTIVE / FAILED with initial_payment_validation)', body: Subscription },
        404: { description: 'ACCOUNT_NOT_FOUND, CUSTOMER_NOT_FOUND or PAYMENT_METHOD_NOT_FOUND' },
      },
    },
    async (ctx, body) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      const account = await findOwnedAccount(deps.db, organizationCode, body.account_id);
      if (!account) throw new ApiError('not_found', 'account not found', { code: 'ACCOUNT_NOT_FOUND' });
      const customer = await findCustomer(deps.db, organizationCode, body.customer_payer.id);
      if (!customer) throw new ApiError('not_found', 'customer not found', { code: 'CUSTOMER_NOT_FOUND' });
      const method = await findPaymentMethod(deps.db, organizationCode, customer._id, body.payment_method.vaulted_token);
      const card = method && method.status === 'ENROLLED' ? await findVaultCard(deps.db, method.card_id) : null;
      if (!method || !card) throw new ApiError('not_found', 'vaulted_token not found for this customer', { code: 'PAYMENT_METHOD_NOT_FOUND' });
      const now = new Date();
      const problems = subscriptionProblems(body, now, Boolean(method.verify?.payment));
      if (problems.length) throw new ApiError('validation', problems.map((p) => p.message), { fieldErrors: problems });

      const key = ctx.get('x-idempotency-key');
      const id = key ? uuidFromKey('subscription', organizationCode, key) : newId();
      const at = now.toISOString();
      const startAt = billingStartAt(body.availability?.start_at, now); // never in the past: no catching up on missed cycles
      const frequency = body.frequency ? { type: body.frequency.type, value: body.frequency.value } : null;
      const billingDate = body.billing_date ? { type: body.billing_date.type, day: body.billing_date.day ?? null } : null;
      const periodSeconds = deps.config.subscriptionPeriodSeconds;
      const record: SubscriptionRecord = {
        id, version: 1, organization_code: organizationCode, account_id: account._id,
        name: body.name, description: body.description ?? null, merchant_reference: body.merchant_reference ?? null, country: body.country,
        status: body.initial_payment_validation ? 'PENDING' : 'ACTIVE',
        amount: { currency: body.amount.currency, value: body.amount.value },
        payment_method: { type: 'CARD', vaulted_token: method._id, card: { installments: body.payment_method.card?.installments ?? null, usage: body.payment_method.card?.usage ?? null, network_transaction_id: body.payment_method.card?.network_transaction_id ?? null } },
        frequency, billing_date: billingDate,
        billing_cycles: { total: body.billing_cycles?.total ?? null, current: 1, next_at: chargeAt({ startAt, frequency, billingDate, periodSeconds }, 1).toISOString() },
        customer_payer: { id: customer._id },
        trial_period: body.trial_period ? { billing_cycles: body.trial_period.billing_cycles, amount: { ...body.trial_period.amount } } : null,
        availability: { start_at: startAt, finish_at: body.availability?.finish_at ? new Date(body.availability.finish_at).toISOString() : null },
        metadata: mergeMetadata([], body.metadata ?? []),
        additional_data: body.additional_data ?? null,
        retries: { max_attempts: body.retries?.max_attempts ?? 0, interval: body.retries?.interval ?? { type: 'DAY', value: 1 }, amount: body.retries?.amount ?? null },
        initial_payment_validation: body.initial_payment_validation ?? false,
        charges: [], skipped_periods: 0, created_at: at, updated_at: at,
      };
      const created = await startLifecycle(deps, {
        workflowType: 'subscriptionWorkflow',
        workflowId: workflowIdOf(id),
        args: [{ record, plan: { cardId: card._id, card: summaryOf(card), customer: customerPayerOf(customer) }, periodSeconds }],
        update: subscriptionAnsweredUpdate,
        searchAttributes: resourceSearchAttributes({ type: 'subscription', id, accountId: account._id, organizationCode, merchantReference: record.merchant_reference }),
        fallback: () => findOwnedRecord<SubscriptionRecord>(deps.db, 'subscriptions', organizationCode, id),
      });
      ctx.status = 200;
      ctx.set('Location', `/v1/subscriptions/${created.id}`);
      ctx.body = renderSubscription(created);
    },
  );

  async function owned(organizationCode: string, id: string): Promise<SubscriptionRecord> {
    const record = await findOwnedRecord<SubscriptionRecord>(deps.db, 'subscriptions', organizationCode, id);
    if (!record) throw new ApiError('not_found', 'subscription not found', { code: 'SUBSCRIPTION_NOT_FOUND' });
    return record;
  }

  routes.add(
    {
      method: 'GET', path: '/v1/subscriptions/:subscription_id', operationId: 'getSubscription', tag: 'Subscriptions', area: 'default', auth: 'pair',
      summary: 'Retrieve a subscription', pathParams: [ID_PARAM],
      responses: { 200: { description: 'The subscription', body: Subscription }, 404: { description: 'SUBSCRIPTION_NOT_FOUND' } },
    },
    async (ctx) => {
      ctx.body = renderSubscription(await owned(ctx.state.principal!.organizationCode, ctx.params.subscription_id));
    },
  );

  async function runUpdate(id: string, run: (handle: ReturnType<typeof deps.temporal.workflow.getHandle>) => Promise<SubscriptionRecord>): Promise<SubscriptionRecord> {
    try {
      return await withinSyncWait(deps, updateRetryingUnprocessed(() => run(deps.temporal.workflow.getHandle(workflowIdOf(id)))));
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure && error.cause.type === SUBSCRIPTION_INVALID_TRANSITION) {
        throw new ApiError('conflict', error.cause.message, { code: 'INVALID_STATUS_TRANSITION' });
      }
      if (closedBeforeUpdate(error)) {
        throw new ApiError('conflict', 'this subscription is closed: no further change is possible', { code: 'INVALID_STATUS_TRANSITION' });
      }
      throw error;
    }
  }

  for (const [action, update, summary] of [
    ['pause', pauseSubscriptionUpdate, 'Pause an ACTIVE subscription (no charges until resumed)'],
    ['resume', resumeSubscriptionUpdate, 'Resume a PAUSED subscription (periods that fell due while paused are skipped)'],
    ['cancel', cancelSubscriptionUpdate, 'Cancel a PENDING, ACTIVE or PAUSED subscription (final)'],
  ] as const) {
    routes.add(
      {
        method: 'POST', path: `/v1/subscriptions/:subscription_id/${action}`, operationId: `${action}Subscription`, awaitsWorkflow: true, tag: 'Subscriptions', area: 'default', auth: 'pair',
        summary, description: 'Answers 409 INVALID_STATUS_TRANSITION from any other status.', pathParams: [ID_PARAM],
        responses: { 200: { description: 'The subscription after the change', body: Subscription }, 404: { description: 'SUBSCRIPTION_NOT_FOUND' }, 409: { description: 'INVALID_STATUS_TRANSITION' } },
      },
      async (ctx) => {
        const record = await owned(ctx.state.principal!.organizationCode, ctx.params.subscription_id);
        ctx.body = renderSubscription(await runUpdate(record.id, (h) => h.executeUpdate(update)));
      },
    );
  }

  routes.add(
    {
      method: 'PATCH', path: '/v1/subscriptions/:subscription_id', operationId: 'updateSubscriptionMetadata', awaitsWorkflow: true, tag: 'Subscriptions', area: 'default', auth: 'pair',
      summary: 'Change a subscription\'s metadata', description: 'Entries are merged by key; an entry with an empty value unsets its key. At most 50 keys remain.',
      pathParams: [ID_PARAM], body: SubscriptionMetadataUpdate,
      responses: { 200: { description: 'The subscription', body: Subscription }, 400: { description: 'more than 50 keys would remain' }, 404: { description: 'SUBSCRIPTION_NOT_FOUND' }, 409: { description: 'INVALID_STATUS_TRANSITION (final subscription)' } },
    },
    async (ctx, body) => {
      const record = await owned(ctx.state.principal!.organizationCode, ctx.params.subscription_id);
      if (mergeMetadata(record.metadata, body.metadata).length > 50) {
        throw new ApiError('validation', 'metadata would hold more than 50 entries', { fieldErrors: [{ field: 'metadata', code: 'INVALID', message: 'metadata would hold more than 50 entries' }] });
      }
      ctx.body = renderSubscription(await runUpdate(record.id, (h) => h.executeUpdate(subscriptionMetadataUpdate, { args: [body.metadata] })));
    },
  );
}
