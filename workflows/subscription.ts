/**
 * A subscription: one long-running workflow per subscription (table in
 * domain/subscriptions/subscription.ts). Each cycle is charged through the payments
 * machinery: a payment workflow started as a child (abandoned on close, it keeps its own
 * capture/refund window), followed to its first outcome. Declined charges are retried per
 * `retries`. Pause, resume, cancel and metadata changes are updates.
 */
import {
  allHandlersFinished, ApplicationFailure, condition, continueAsNew, defineUpdate, ParentClosePolicy, proxyActivities, setHandler, startChild, upsertSearchAttributes, uuid4, workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { mergeMetadata } from '../domain/money-movement/common';
import type { CardSummary, CustomerPayerRecord } from '../domain/payments/record';
import {
  cycleAmount, dueAt, FINAL_SUBSCRIPTION_STATUSES, renderSubscription, retryDelayMs, scheduleOf, SubscriptionRecord, SubscriptionStatus, withSubscriptionChanges,
} from '../domain/subscriptions/subscription';
import { paymentWorkflow, PaymentWorkflowInput } from './payment';
import { startWebhookDelivery } from './webhook-delivery';
import { resourceSearchAttributes } from '../domain/search-attributes';

const { saveMoneyRecord } = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' } });
const { awaitPaymentOutcome } = proxyActivities<Activities>({ startToCloseTimeout: '10 minutes', heartbeatTimeout: '10 seconds', retry: { maximumInterval: '10 seconds' } });

export interface ChargePlan {
  cardId: string;
  card: CardSummary;
  customer: CustomerPayerRecord;
}

export interface SubscriptionInput {
  record: SubscriptionRecord;
  plan: ChargePlan;
  /** SUBSCRIPTION_PERIOD_SECONDS at creation: fixed for the life of the subscription. */
  periodSeconds: number;
}

export const SUBSCRIPTION_INVALID_TRANSITION = 'InvalidStatusTransition';
export const subscriptionAnsweredUpdate = defineUpdate<SubscriptionRecord>('subscriptionAnswered');
export const pauseSubscriptionUpdate = defineUpdate<SubscriptionRecord>('pause');
export const resumeSubscriptionUpdate = defineUpdate<SubscriptionRecord>('resume');
export const cancelSubscriptionUpdate = defineUpdate<SubscriptionRecord>('cancel');
export const subscriptionMetadataUpdate = defineUpdate<SubscriptionRecord, [Array<{ key: string; value: string }>]>('metadata');

const isFinal = (status: SubscriptionStatus) => FINAL_SUBSCRIPTION_STATUSES.includes(status);

export async function subscriptionWorkflow(input: SubscriptionInput): Promise<SubscriptionRecord> {
  const now = () => new Date().toISOString();
  const schedule = scheduleOf(input.record, input.periodSeconds);
  let record = input.record;
  let answered = false;
  let changes = 0;

  // Updates and the billing loop both save: one write at a time (conditional writes are not
  // atomic on FerretDB), each writing the record as it is when its turn comes.
  let saving: Promise<void> = Promise.resolve();
  function save(): Promise<void> {
    saving = saving.then(async () => {
      await saveMoneyRecord({ collection: 'subscriptions', record });
      upsertSearchAttributes({ ResourceStatus: [record.status] });
    });
    return saving;
  }

  async function announce(eventType: string): Promise<void> {
    await startWebhookDelivery({
      deliveryId: `${record.id}:${record.version}`, eventId: `${record.id}:${record.version}`, eventType,
      organizationCode: record.organization_code, accountId: record.account_id, resourceType: 'subscription', resourceId: record.id,
      callbackUrl: null, occurredAt: record.updated_at, data: renderSubscription(record) as unknown as Record<string, unknown>,
    });
  }

  function transition(to: SubscriptionStatus, allowedFrom: SubscriptionStatus[]): () => void {
    return () => {
      if (!allowedFrom.includes(record.status)) {
        throw ApplicationFailure.create({ type: SUBSCRIPTION_INVALID_TRANSITION, message: `a subscription in ${record.status} cannot become ${to}`, nonRetryable: true });
      }
    };
  }

  async function moveTo(to: SubscriptionStatus): Promise<SubscriptionRecord> {
    const final = isFinal(to);
    record = withSubscriptionChanges(record, { status: to, ...(final ? { billing_cycles: { ...record.billing_cycles, next_at: null } } : {}) }, now());
    changes++;
    await save();
    await announce(`subscription.${to.toLowerCase()}`);
    return record;
  }

  const chargeAtSkipping = (skipped: number) => dueAt({ ...record, skipped_periods: skipped }, schedule, record.billing_cycles.current).getTime();
  const validatePause = transition('PAUSED', ['ACTIVE']);
  const validateResume = transition('ACTIVE', ['PAUSED']);
  const validateCancel = transition('CANCELED', ['PENDING', 'ACTIVE', 'PAUSED']);
  const validateMetadata = (_entries: Array<{ key: string; value: string }>) => {
    if (isFinal(record.status)) throw ApplicationFailure.create({ type: SUBSCRIPTION_INVALID_TRANSITION, message: `a ${record.status} subscription cannot be changed`, nonRetryable: true });
  };
  setHandler(subscriptionAnsweredUpdate, async () => {
    await condition(() => answered);
    return record;
  });
  setHandler(pauseSubscriptionUpdate, () => moveTo('PAUSED'), { validator: validatePause });
  setHandler(resumeSubscriptionUpdate, () => {
    // Billing picks up at the first period still ahead; those that fell due while paused are skipped.
    let skipped = record.skipped_periods;
    while (chargeAtSkipping(skipped) < Date.now()) skipped++;
    record = withSubscriptionChanges(record, { skipped_periods: skipped, billing_cycles: { ...record.billing_cycles, next_at: new Date(chargeAtSkipping(skipped)).toISOString() } }, now());
    return moveTo('ACTIVE');
  }, { validator: validateResume });
  setHandler(cancelSubscriptionUpdate, () => moveTo('CANCELED'), { validator: validateCancel });
  setHandler(subscriptionMetadataUpdate, async (entries) => {
    record = withSubscriptionChanges(record, { metadata: mergeMetadata(record.metadata, entries) }, now());
    changes++;
    await save();
    return record;
  }, { validator: validateMetadata });

  /**
   * Charges one attempt through a child payment workflow; true when approved. `retryInMs`: a
   * declined attempt is retried that much later, so next_at shows that time meanwhile.
   */
  async function chargeOnce(cycle: number, attempt: number, amount: number, retryInMs: number | null): Promise<boolean> {
    const paymentId = uuid4();
    const startedAt = now();
    const payment: PaymentWorkflowInput = {
      payment: {
        paymentId,
        organizationCode: record.organization_code,
        accountId: record.account_id,
        createdAt: now(),
        request: {
          account_id: record.account_id,
          description: record.description ?? record.name,
          country: record.country,
          merchant_order_id: `${record.id}:${cycle}`,
          merchant_reference: record.merchant_reference ?? record.id,
          amount: { currency: record.amount.currency, value: amount },
          payment_method: { type: 'CARD', vaulted_token: record.payment_method.vaulted_token, vault_on_success: false, detail: { card: { installments: record.payment_method.card.installments ?? undefined } } },
          customer_payer: { id: record.customer_payer.id },
          capture: true,
          workflow: 'DIRECT',
          metadata: [...record.metadata, { key: 'subscription_id', value: record.id }, { key: 'billing_cycle', value: String(cycle) }],
        },
        card: input.plan.card,
        customer: input.plan.customer,
        vaultedToken: record.payment_method.vaulted_token,
      },
      cardId: input.plan.cardId,
      customerId: record.customer_payer.id,
    };
    await startChild(paymentWorkflow, {
      workflowId: `payment-${paymentId}`,
      args: [payment],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      searchAttributes: resourceSearchAttributes({ type: 'payment', id: paymentId, accountId: record.account_id, organizationCode: record.organization_code, merchantReference: payment.payment.request.merchant_reference }),
    });
    const outcome = await awaitPaymentOutcome({ paymentId });
    const approved = outcome.status === 'SUCCEEDED';
    const card = record.payment_method.card;
    const retryAt = !approved && retryInMs !== null ? new Date(Date.now() + retryInMs).toISOString() : null;
    record = withSubscriptionChanges(record, {
      ...(retryAt ? { billing_cycles: { ...record.billing_cycles, next_at: retryAt } } : {}),
      charges: [...record.charges, { cycle, attempt, payment_id: paymentId, amount, status: outcome.status, sub_status: outcome.subStatus, created_at: startedAt }],
      // After an approved charge the credential has been used: later charges are USED, with the network transaction id.
      ...(approved && card.usage ? { payment_method: { ...record.payment_method, card: { ...card, usage: 'USED', network_transaction_id: outcome.networkTransactionId ?? card.network_transaction_id } } } : {}),
    }, now());
    await save();
    return approved;
  }

  async function chargeCycle(cycle: number): Promise<boolean> {
    const amount = cycleAmount(record, cycle);
    if (amount === 0) {
      record = withSubscriptionChanges(record, { charges: [...record.charges, { cycle, attempt: 1, payment_id: null, amount: 0, status: 'NOT_CHARGED', sub_status: 'TRIAL', created_at: now() }] }, now());
      await save();
      return true;
    }
    const attempts = 1 + record.retries.max_attempts;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) {
        await condition(() => isFinal(record.status), retryDelayMs(record.retries, input.periodSeconds));
        if (isFinal(record.status)) return false;
      }
      const value = attempt > 1 && record.retries.amount ? record.retries.amount.value : amount;
      if (await chargeOnce(cycle, attempt, value, attempt < attempts ? retryDelayMs(record.retries, input.periodSeconds) : null)) return true;
    }
    return false;
  }

  if (record.version === 1) {
    await save();
    await announce(`subscription.${record.status.toLowerCase()}`);
  }
  answered = !(record.status === 'PENDING');

  while (!isFinal(record.status)) {
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof subscriptionWorkflow>({ ...input, record });
    }
    const cycle = record.billing_cycles.current;
    const total = record.billing_cycles.total;
    const due = dueAt(record, schedule, cycle);
    const finish = record.availability.finish_at ? new Date(record.availability.finish_at) : null;
    if ((total !== null && cycle > total) || (finish && Math.max(due.getTime(), Date.now()) > finish.getTime())) {
      record = withSubscriptionChanges(record, { billing_cycles: { ...record.billing_cycles, current: Math.max(1, cycle - 1) } }, now());
      await moveTo('COMPLETED');
      break;
    }
    const seen = changes;
    const wait = due.getTime() - Date.now();
    if (wait > 0 && (await condition(() => changes !== seen, wait))) continue; // paused, canceled...: look again
    if (record.status === 'PAUSED') {
      await condition(() => record.status !== 'PAUSED');
      continue;
    }
    if (isFinal(record.status)) break;
    if (finish && Date.now() > finish.getTime()) continue; // running late: no charge is ever made after finish_at

    const approved = await chargeCycle(cycle);
    if (isFinal(record.status)) break;
    if (record.status === 'PENDING') {
      answered = true;
      await moveTo(approved ? 'ACTIVE' : 'FAILED');
      if (!approved) break;
    } else if (!approved) {
      await announce('subscription.charge_failed');
    }
    record = withSubscriptionChanges(record, { billing_cycles: { ...record.billing_cycles, current: cycle + 1, next_at: dueAt(record, schedule, cycle + 1).toISOString() } }, now());
    await save();
  }
  answered = true;
  await condition(allHandlersFinished);
  return record;
}
