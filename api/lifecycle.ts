/**
 * Starting a lifecycle workflow and answering with its first answer. Update-with-start on
 * an update the workflow answers once it has stored the resource (by default `recorded`,
 * see workflows/lifecycle.ts), so the API replies with exactly what was stored and the
 * resource is never written outside its workflow. USE_EXISTING plus a fixed update id: a
 * second start for a running workflow id answers with the first workflow's record.
 *
 * The wait is bounded (LIFECYCLE_SYNC_WAIT_MS): past it the caller gets the stored resource
 * when a `fallback` finds it, else 503 (idempotency keys are released on 5xx), and a retry
 * with the same key joins the same workflow when its id derives from the key.
 */
import { WithStartWorkflowOperation } from '@temporalio/client';
import type { SearchAttributes, UpdateDefinition } from '@temporalio/common';
import { ApiError } from '../domain/errors';
import { RECORDED_UPDATE } from '../workflows/lifecycle';
import type { AppDeps } from './context';

export interface LifecycleStart<R> {
  workflowType: string;
  workflowId: string;
  args: unknown[];
  searchAttributes: SearchAttributes;
  /** The update that answers with the stored resource; defaults to `recorded`. */
  update?: UpdateDefinition<R, []> | string;
  /** What to answer when the workflow is slower than the wait (read back from MongoDB). */
  fallback?: () => Promise<R | null>;
}

export async function startLifecycle<R>(deps: AppDeps, start: LifecycleStart<R>): Promise<R> {
  const startWorkflowOperation = new WithStartWorkflowOperation(start.workflowType, {
    workflowId: start.workflowId,
    taskQueue: deps.config.taskQueue,
    args: start.args,
    workflowIdConflictPolicy: 'USE_EXISTING',
    searchAttributes: start.searchAttributes,
  });
  const answer = deps.temporal.workflow.executeUpdateWithStart(start.update ?? RECORDED_UPDATE, { startWorkflowOperation, updateId: 'first-answer' }) as Promise<R>;
  answer.catch(() => undefined); // may settle after the wait below; the workflow carries on regardless
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), deps.config.lifecycleSyncWaitMs);
  });
  try {
    const first = await Promise.race([answer, waited]);
    if (first) return first;
  } finally {
    clearTimeout(timer);
  }
  const stored = start.fallback ? await start.fallback() : null;
  if (stored) return stored;
  throw new ApiError('unavailable', 'the request could not be confirmed in time; retry it with the same X-Idempotency-Key');
}
