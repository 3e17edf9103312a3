/**
 * One banking transfer: PENDING -> PROCESSING -> COMPLETED | FAILED (table in
 * domain/banking.ts). The API starts it with update-with-start and answers 202 with the
 * PENDING record; the settlement wait is a durable timer, so a transfer on a rail that
 * settles in days survives worker restarts.
 */
import { proxyActivities, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { BankingTransferRecord } from '../activities/repositories/banking';
import type { SettlementOutcome } from '../domain/banking';
import { answerWhenRecorded } from './lifecycle';
import { startWebhookDelivery } from './webhook-delivery';

const { recordBankingTransfer, submitBankingTransfer, settleBankingTransfer } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export interface BankingTransferInput {
  transfer: BankingTransferRecord;
}

export async function bankingTransferWorkflow(input: BankingTransferInput): Promise<SettlementOutcome> {
  const answer = answerWhenRecorded<BankingTransferRecord>();
  const recorded = await recordBankingTransfer(input.transfer);
  answer.resolve(recorded);
  await announce(recorded, 'PENDING', null);
  const { settlesInMs } = await submitBankingTransfer(recorded._id);
  upsertSearchAttributes({ ResourceStatus: ['PROCESSING'] });
  await announce(recorded, 'PROCESSING', null);
  await sleep(settlesInMs);
  const outcome = await settleBankingTransfer(recorded._id);
  upsertSearchAttributes({ ResourceStatus: [outcome.status] });
  await announce(recorded, outcome.status, outcome.failure);
  return outcome;
}

/** Progress webhook (banking_transfer.<status>) through the shared signed, retried delivery. */
async function announce(transfer: BankingTransferRecord, status: string, failure: SettlementOutcome['failure']): Promise<void> {
  const eventType = `banking_transfer.${status.toLowerCase()}`;
  const eventId = `${transfer._id}:${status}`;
  await startWebhookDelivery({
    deliveryId: eventId,
    eventId,
    eventType,
    organizationCode: transfer.organization_code,
    accountId: transfer.account_id,
    resourceType: 'banking_transfer',
    resourceId: transfer._id,
    callbackUrl: null,
    occurredAt: new Date().toISOString(), // workflow time: deterministic on replay
    // Identifiers and state only: destination details stay behind the authenticated GET.
    data: {
      id: transfer._id,
      account_id: transfer.account_id,
      source_account_id: transfer.source_account_id,
      destination_account_id: transfer.destination_account_id,
      merchant_transfer_id: transfer.merchant_transfer_id,
      amount: transfer.amount,
      payment_rail: transfer.payment_rail,
      status,
      failure,
    },
  });
}
