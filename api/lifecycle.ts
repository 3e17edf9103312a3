/**
 * Starts a lifecycle workflow and waits until it has stored its resource (update-with-start
 * on the workflow's `recorded` update, see workflows/lifecycle.ts). With USE_EXISTING, a
 * second start for a running workflow id answers with the first workflow's record.
 */
import { WithStartWorkflowOperation } from '@temporalio/client';
import type { SearchAttributes } from '@temporalio/common';
import { RECORDED_UPDATE } from '../workflows/lifecycle';
import type { AppDeps } from './context';

export interface LifecycleStart {
  workflowType: string;
  workflowId: string;
  args: unknown[];
  searchAttributes: SearchAttributes;
}

export async function startAndAwaitRecord<R>(deps: AppDeps, start: LifecycleStart): Promise<R> {
  const startWorkflowOperation = new WithStartWorkflowOperation(start.workflowType, {
    taskQueue: deps.config.taskQueue,
    workflowId: start.workflowId,
    args: start.args,
    workflowIdConflictPolicy: 'USE_EXISTING',
    searchAttributes: start.searchAttributes,
  });
  return (await deps.temporal.workflow.executeUpdateWithStart(RECORDED_UPDATE, { startWorkflowOperation })) as R;
}
