/**
 * Shared by lifecycle workflows whose creation answers synchronously: the API starts the
 * workflow with update-with-start and this update returns once the workflow's first
 * activity has stored the resource, so the API answers with exactly what was stored and the
 * resource is never written outside its workflow.
 */
import { condition, defineUpdate, setHandler } from '@temporalio/workflow';

export const RECORDED_UPDATE = 'recorded';

export const recordedUpdate = defineUpdate<unknown>(RECORDED_UPDATE);

/** Registers the update; call it first in the workflow, then `resolve` once recorded. */
export function answerWhenRecorded<R>(): { resolve(record: R): void } {
  let recorded: { record: R } | undefined;
  setHandler(recordedUpdate, async () => {
    await condition(() => recorded !== undefined);
    return recorded!.record;
  });
  return {
    resolve(record: R) {
      recorded = { record };
    },
  };
}
