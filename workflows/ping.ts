/**
 * The smallest lifecycle: proves that the worker runs, payloads are encrypted and search
 * attributes are registered. Used by the readiness tests and the stack smoke test.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { recordPing } = proxyActivities<Activities>({ startToCloseTimeout: '10 seconds' });

export interface PingInput {
  organizationCode: string;
  message: string;
}

export async function pingWorkflow(input: PingInput): Promise<{ pingId: string; echoed: string }> {
  return recordPing(input);
}
