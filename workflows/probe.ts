/**
 * The shortest possible lifecycle: started with an update that it answers at once. Its
 * update-with-start round trip is the floor under every synchronous answer of the API (a
 * payment is that round trip plus routing, the provider and the read model), so the
 * payments benchmark measures it beside the payment, on the same Temporal, in the same run.
 */
import { allHandlersFinished, condition, defineUpdate, setHandler } from '@temporalio/workflow';

export const probeAnswerUpdate = defineUpdate<string>('probeAnswer');

export async function roundTripProbeWorkflow(): Promise<void> {
  let answered = false;
  setHandler(probeAnswerUpdate, () => {
    answered = true;
    return 'ok';
  });
  await condition(() => answered);
  await condition(allHandlersFinished);
}
