/**
 * Purges expired documents (idempotency keys, rate-limit slots...). MongoDB would do this
 * with TTL indexes; FerretDB 1.24 does not implement them, so one long-running workflow
 * per namespace does it for both.
 */
import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { purgeExpired } = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 3 } });

export const HOUSEKEEPING_WORKFLOW_ID = 'switchyard-housekeeping';
const ROUNDS_PER_RUN = 100;

export async function housekeepingWorkflow(intervalMinutes = 10): Promise<void> {
  for (let round = 0; round < ROUNDS_PER_RUN; round++) {
    await purgeExpired();
    await sleep(`${intervalMinutes} minutes`);
  }
  await continueAsNew<typeof housekeepingWorkflow>(intervalMinutes);
}
