/**
 * Starting a lifecycle workflow and answering with its first answer: update-with-start,
 * so the workflow stores the resource before the API replies. The workflow id is derived
 * from the resource id (itself derived from the idempotency key when one is given), and
 * an existing run is reused, so a retried request never starts a second lifecycle.
 */
import { WithStartWorkflowOperation } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { ApiError } from '../domain/errors';
import type { AppDeps } from './context';

export interface LifecycleStart<R> {
  workflowType: string;
  workflowId: string;
  args: unknown[];
  update: UpdateDefinition<R, []>;
  searchAttributes: Record<string, string[]>;
  /** What to answer when the workflow is slower than the wait (read back from MongoDB). */
  fallback: () => Promise<R | null>;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}

export async function startLifecycle<R>(deps: AppDeps, start: LifecycleStart<R>): Promise<R> {
  const startWorkflowOperation = new WithStartWorkflowOperation(start.workflowType, {
    workflowId: start.workflowId,
    taskQueue: deps.config.taskQueue,
    args: start.args,
    workflowIdConflictPolicy: 'USE_EXISTING',
    searchAttributes: start.searchAttributes,
  });
  const answer = deps.temporal.workflow.executeUpdateWithStart(start.update, { startWorkflowOperation, updateId: 'first-answer' });
  answer.catch(() => undefined); // may be abandoned below; the workflow carries on regardless
  const first = await Promise.race([answer, sleep(deps.config.lifecycleSyncWaitMs).then(() => null)]).catch(() => null);
  if (first) return first;
  const stored = await start.fallback();
  if (stored) return stored;
  throw new ApiError('unavailable', 'the request could not be completed in time; retry with the same X-Idempotency-Key');
}
