/**
 * A split-marketplace standalone transfer (table in domain/transfers/split.ts), as a saga:
 * debit the organization balance, pay the recipient at the provider, and credit the
 * balance back when the provider refuses. The API starts it with `transferAnswered`.
 */
import { allHandlersFinished, condition, defineUpdate, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ProviderResult } from '../activities/providers/connector';
import type { RoutedConnection } from '../activities/repositories/routing';
import { renderTransfer, TransferRecord, TransferTransaction, withTransferChanges } from '../domain/transfers/split';
import { startWebhookDelivery } from './webhook-delivery';

const { saveMoneyRecord, moveBalance } = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' } });
const { transferAtProvider } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '3 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 8 },
});

export interface SplitTransferInput {
  record: TransferRecord;
  connection: RoutedConnection;
  providerRecipientId: string;
}

export const transferAnsweredUpdate = defineUpdate<TransferRecord>('transferAnswered');

export async function splitTransferWorkflow(input: SplitTransferInput): Promise<TransferRecord> {
  const now = () => new Date().toISOString();
  let record = input.record;
  let answered = false;
  setHandler(transferAnsweredUpdate, async () => {
    await condition(() => answered);
    return record;
  });
  const save = async () => {
    await saveMoneyRecord({ collection: 'split_transfers', record });
    upsertSearchAttributes({ ResourceStatus: [record.status] });
  };
  const transaction = (status: TransferTransaction['status'], code: string, result: ProviderResult | null): TransferTransaction => ({
    code,
    type: 'SPLIT_TRANSFER',
    status,
    provider_transfer_id: result?.providerTransactionId ?? null,
    provider_response_message: result?.responseMessage ?? null,
    provider_raw_response: result?.rawResponse === undefined || result?.rawResponse === null ? null : JSON.stringify(result.rawResponse),
    created_at: now(),
    updated_at: now(),
  });

  await save();
  const ledger = { organizationCode: record.organization_code, currency: record.amount.currency, amount: record.amount.value, reference: record.id };
  const debit = await moveBalance({ ...ledger, operationKey: `transfer:${record.id}`, kind: 'TRANSFER_DEBIT' });
  // completed_at is set on every final state (it only changes what the read model holds).
  if (!debit.applied) {
    const at = now();
    record = withTransferChanges(record, { status: 'FAILED', completed_at: at, transactions: [transaction('FAILED', 'INSUFFICIENT_BALANCE', null)] }, at);
  } else {
    let result: ProviderResult;
    try {
      result = await transferAtProvider({ transferId: record.id, connection: input.connection, providerRecipientId: input.providerRecipientId, amount: record.amount.value, currency: record.amount.currency, description: record.description });
    } catch (error) {
      result = { category: 'PROVIDER_ERROR', providerStatus: 'ERROR', providerTransactionId: null, responseCode: 'PROVIDER_ERROR', responseMessage: (error as Error).message, iso8583Code: null, iso8583Message: null, httpStatus: null, rawResponse: null, threeDsRedirectUrl: null };
    }
    if (result.category === 'APPROVED') {
      const at = now();
      record = withTransferChanges(record, { status: 'SUCCEEDED', completed_at: at, transactions: [transaction('SUCCEEDED', result.responseCode, result)] }, at);
    } else {
      await moveBalance({ ...ledger, operationKey: `transfer:${record.id}:reversal`, kind: 'TRANSFER_REVERSAL' });
      const at = now();
      record = withTransferChanges(record, { status: 'FAILED', completed_at: at, transactions: [transaction('FAILED', result.responseCode, result)] }, at);
    }
  }
  await save();
  answered = true;
  await startWebhookDelivery({
    deliveryId: `${record.id}:${record.version}`,
    eventId: `${record.id}:${record.version}`,
    eventType: `split_transfer.${record.status.toLowerCase()}`,
    organizationCode: record.organization_code,
    accountId: record.account_id,
    resourceType: 'split_transfer',
    resourceId: record.id,
    callbackUrl: null,
    occurredAt: record.updated_at,
    data: renderTransfer(record) as unknown as Record<string, unknown>,
  });
  await condition(allHandlersFinished);
  return record;
}
