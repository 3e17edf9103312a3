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
  const { settlesInMs } = await submitBankingTransfer(recorded._id);
  upsertSearchAttributes({ ResourceStatus: ['PROCESSING'] });
  await sleep(settlesInMs);
  const outcome = await settleBankingTransfer(recorded._id);
  upsertSearchAttributes({ ResourceStatus: [outcome.status] });
  return outcome;
}
