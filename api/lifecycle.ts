/**
 * Starts a lifecycle workflow and waits until it has stored its resource (update-with-start
 * on the workflow's `recorded` update, see workflows/lifecycle.ts). With USE_EXISTING, a
 * second start for a running workflow id answers with the first workflow's record.
 *
 * The wait is bounded: when no worker confirms in time the caller gets 503 (idempotency keys
 * are released on 5xx), and a retry with the same key joins the same workflow when its id
 * derives from the key.
 */
import { WithStartWorkflowOperation } from '@temporalio/client';
import type { SearchAttributes } from '@temporalio/common';
import { ApiError } from '../domain/errors';
import { RECORDED_UPDATE } from '../workflows/lifecycle';
import type { AppContext, AppDeps } from './context';

export const RECORD_TIMEOUT_MS = 10_000;

export interface LifecycleStart {
  workflowType: string;
  workflowId: string;
  args: unknown[];
  searchAttributes: SearchAttributes;
  /** Override of RECORD_TIMEOUT_MS (tests). */
  timeoutMs?: number;
}

/** Workflow id of a resource: from the idempotency key when there is one, so retries join it. */
export function lifecycleWorkflowId(ctx: AppContext, prefix: string, resourceId: string): string {
  const key = ctx.get('x-idempotency-key');
  return key ? `${prefix}-${ctx.state.principal!.organizationCode}-${key.toLowerCase()}` : `${prefix}-${resourceId}`;
}

export async function startAndAwaitRecord<R>(deps: AppDeps, start: LifecycleStart): Promise<R> {
  const startWorkflowOperation = new WithStartWorkflowOperation(start.workflowType, {
    taskQueue: deps.config.taskQueue,
    workflowId: start.workflowId,
    args: start.args,
    workflowIdConflictPolicy: 'USE_EXISTING',
    searchAttributes: start.searchAttributes,
  });
  const recorded = deps.temporal.workflow.executeUpdateWithStart(RECORDED_UPDATE, { startWorkflowOperation }) as Promise<R>;
  recorded.catch(() => undefined); // may settle after the timeout below
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ApiError('unavailable', 'the request could not be confirmed in time; retry it with the same X-Idempotency-Key')),
      start.timeoutMs ?? RECORD_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([recorded, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
