/**
 * The unreferenced refund lifecycle (table in domain/refunds/unreferenced.ts): optional
 * stand-alone fraud screening, then the credit on the routed connections with failover on
 * soft declines and provider errors, then the outcome webhook. The API starts it with the
 * `refundCreated` update and answers once the CREATED record is stored.
 *
 * No card or account data enters the history: the input names a vault card id, and bank /
 * wallet destinations are sealed under the refund's id.
 */
import { allHandlersFinished, condition, defineQuery, defineUpdate, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ProviderResult } from '../activities/providers/connector';
import type { RoutedConnection } from '../activities/repositories/routing';
import { failoverAllowed } from '../domain/payments/provider-codes';
import { creditRailOf, RefundRecord, renderRefund, withRefundChanges } from '../domain/refunds/unreferenced';
import { startWebhookDelivery } from './webhook-delivery';

const { saveMoneyRecord, screenCredit } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' },
});

const { submitCredit } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '3 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 10 },
});

export interface UnreferencedRefundInput {
  record: RefundRecord;
  cardId: string | null;
  route: RoutedConnection[];
}

export const refundCreatedUpdate = defineUpdate<RefundRecord>('refundCreated');
export const refundQuery = defineQuery<RefundRecord>('refund');

const EVENT_OF_STATUS: Record<string, string> = {
  CREATED: 'unreferenced_refund.created',
  SUCCEEDED: 'unreferenced_refund.succeeded',
  DECLINED: 'unreferenced_refund.declined',
  FAILED: 'unreferenced_refund.failed',
};

export async function unreferencedRefundWorkflow(input: UnreferencedRefundInput): Promise<RefundRecord> {
  const now = () => new Date().toISOString();
  let record = input.record;
  let stored = false;
  setHandler(refundQuery, () => record);
  setHandler(refundCreatedUpdate, async () => {
    await condition(() => stored);
    return input.record;
  });

  async function save(): Promise<void> {
    await saveMoneyRecord({ collection: 'unreferenced_refunds', record });
    upsertSearchAttributes({ ResourceStatus: [`${record.status}/${record.sub_status}`] });
  }

  async function announce(): Promise<void> {
    const eventType = EVENT_OF_STATUS[record.status];
    if (!eventType) return;
    await startWebhookDelivery({
      deliveryId: `${record.id}:${record.version}`,
      eventId: `${record.id}:${record.version}`,
      eventType,
      organizationCode: record.organization_code,
      accountId: record.account_id,
      resourceType: 'unreferenced_refund',
      resourceId: record.id,
      callbackUrl: record.callback_url,
      occurredAt: record.updated_at,
      data: renderRefund(record) as unknown as Record<string, unknown>,
    });
  }

  await save();
  stored = true;
  await announce();

  if (record.fraud_screening.stand_alone) {
    const verdict = await screenCredit({ refundId: record.id, organizationCode: record.organization_code, amount: record.amount.value, destinationFingerprint: record.destination_fingerprint });
    record = withRefundChanges(record, { fraud_screening: { stand_alone: true, ...verdict } }, now());
    if (verdict.status === 'REJECTED') {
      record = withRefundChanges(record, { status: 'DECLINED', sub_status: 'FRAUD_REJECTED' }, now());
      await save();
      await announce();
      return record;
    }
  }

  record = withRefundChanges(record, { status: 'PROCESSING', sub_status: 'SUBMITTED' }, now());
  await save();
  let last: ProviderResult | null = null;
  for (let i = 0; i < input.route.length; i++) {
    const connection = input.route[i];
    try {
      last = await submitCredit({
        refundId: record.id,
        attempt: i + 1,
        connection,
        cardId: input.cardId,
        amount: record.amount.value,
        currency: record.amount.currency,
        description: record.description,
        softDescriptor: record.method.soft_descriptor,
        reference: record.id,
      });
    } catch (error) {
      last = { category: 'PROVIDER_ERROR', providerStatus: 'ERROR', providerTransactionId: null, responseCode: 'PROVIDER_UNREACHABLE', responseMessage: (error as Error).message, iso8583Code: null, iso8583Message: null, httpStatus: null, rawResponse: null, threeDsRedirectUrl: null };
    }
    const at = now();
    record = withRefundChanges(record, {
      attempts: [...record.attempts, { attempt: i + 1, provider_id: connection.providerId, connection_id: connection.connectionId, category: last.category, status: last.providerStatus, reference: last.providerTransactionId, response_code: last.responseCode, raw_response_code: last.iso8583Code, message: last.responseMessage, at }],
      provider: { name: connection.providerId, type: creditRailOf(record), connection_id: connection.connectionId, reference: last.providerTransactionId, category: last.category, raw_response_code: last.iso8583Code },
    }, at);
    if (!failoverAllowed(last.category)) break;
  }
  const outcome = last?.category ?? 'PROVIDER_ERROR';
  const final = outcome === 'APPROVED'
    ? { status: 'SUCCEEDED' as const, sub_status: 'APPROVED' }
    : outcome.endsWith('DECLINE')
      ? { status: 'DECLINED' as const, sub_status: 'DECLINED' }
      : { status: 'FAILED' as const, sub_status: 'PROVIDER_ERROR' };
  record = withRefundChanges(record, final, now());
  await save();
  await announce();
  await condition(allHandlersFinished);
  return record;
}
