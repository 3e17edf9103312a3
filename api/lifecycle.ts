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
import { WithStartWorkflowOperation, WorkflowNotFoundError } from '@temporalio/client';
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

/**
 * Bounds a synchronous wait on a workflow (an update, a short workflow) to
 * LIFECYCLE_SYNC_WAIT_MS, well below the idempotency lock's lifetime: past it the caller
 * gets 503 and retries with the same key, which joins the same update or workflow.
 */
export async function withinSyncWait<T>(deps: AppDeps, work: Promise<T>): Promise<T> {
  work.catch(() => undefined); // may settle after the wait; what it does carries on in the workflow
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<typeof NOT_CONFIRMED>((resolve) => {
    timer = setTimeout(() => resolve(NOT_CONFIRMED), deps.config.lifecycleSyncWaitMs);
  });
  try {
    const first = await Promise.race([work, waited]);
    if (first !== NOT_CONFIRMED) return first as T;
  } finally {
    clearTimeout(timer);
  }
  throw new ApiError('unavailable', 'the request could not be confirmed in time; retry it with the same X-Idempotency-Key');
}

const NOT_CONFIRMED = Symbol('not confirmed in time');

/**
 * Runs an update, again when the server answers that no worker processed it (type
 * UnprocessedUpdate: it was handed to a workflow task that completed without it, so it never
 * ran). The same update id makes the repeat safe.
 */
export async function updateRetryingUnprocessed<T>(run: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      const cause = (error as { cause?: { type?: string } }).cause;
      if (attempt >= attempts || cause?.type !== 'UnprocessedUpdate') throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
    }
  }
}

/**
 * The entity's workflow had closed (a final state) before this update could run: it never
 * ran, and it would have been refused anyway. Includes an update that arrived while the
 * workflow was completing (the server fails it rather than delivering it).
 */
export function closedBeforeUpdate(error: unknown): boolean {
  if (error instanceof WorkflowNotFoundError) return true;
  const messages = [error, (error as { cause?: unknown })?.cause].map((e) => String((e as Error | undefined)?.message ?? ''));
  return messages.some((m) => /already completed|completed before the Update completed/i.test(m));
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
