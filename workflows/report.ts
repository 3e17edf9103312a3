/**
 * One report: PENDING -> AVAILABLE | FAILED (table in domain/reports.ts). The API starts it
 * with update-with-start and answers 202 with the PENDING record.
 */
import { ActivityFailure, ApplicationFailure, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ReportRecord } from '../activities/repositories/reports';
import type { ReportStatus } from '../domain/reports';
import { answerWhenRecorded } from './lifecycle';

const { recordReport, completeReport, failReport } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});
const { buildTransactionsReport } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '2 seconds', maximumAttempts: 3 },
});

export interface ReportInput {
  report: ReportRecord;
}

export async function reportWorkflow(input: ReportInput): Promise<ReportStatus> {
  const answer = answerWhenRecorded<ReportRecord>();
  const recorded = await recordReport(input.report);
  answer.resolve(recorded);
  let status: ReportStatus;
  try {
    const built = await buildTransactionsReport(recorded._id);
    await completeReport(recorded._id, built);
    status = 'AVAILABLE';
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    const cause = error.cause;
    const reason = cause instanceof ApplicationFailure && cause.type ? `${cause.type}: ${cause.message}` : 'the report could not be built';
    await failReport(recorded._id, reason);
    status = 'FAILED';
  }
  upsertSearchAttributes({ ResourceStatus: [status] });
  return status;
}
