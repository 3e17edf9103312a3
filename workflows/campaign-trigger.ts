/**
 * Declined-payment trigger for campaigns.
 *
 * `campaignTriggerWorkflow` (one per namespace, started by every worker with
 * USE_EXISTING) polls domain_events for payment.declined events. The claim activity
 * inserts one unique claim per event, so an event is handed out once even when several
 * workers or a retried poll race; each claimed event gets its own `campaignEventWorkflow`
 * (id `campaign-event-<event_id>`), which evaluates it against the account's ACTIVE
 * campaigns, waits on a durable timer for a campaign's daily window when the decline came
 * outside it, and delivers at most one communication per campaign.
 */
import {
  continueAsNew,
  ParentClosePolicy,
  proxyActivities,
  sleep,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities } from '../activities';
import type { DeliveryResult } from '../activities/campaigns';

const { claimDeclinedEvents, planCampaignTriggers } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumInterval: '10 seconds' },
});
const { deliverCampaignCommunication } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumInterval: '1 minute' },
});

export const CAMPAIGN_TRIGGER_WORKFLOW_ID = 'switchyard-campaign-trigger';
const CLAIMS_PER_ROUND = 50;
const ROUNDS_PER_RUN = 200;

export interface CampaignTriggerInput {
  pollMs: number;
  /** Where the next poll starts (occurred_at); null = the configured lookback. */
  since: string | null;
}

export function campaignEventWorkflowId(eventId: string): string {
  return `campaign-event-${eventId}`;
}

export async function campaignTriggerWorkflow(input: CampaignTriggerInput): Promise<void> {
  let since = input.since;
  for (let round = 0; round < ROUNDS_PER_RUN && !workflowInfo().continueAsNewSuggested; round++) {
    const claimant = `${workflowInfo().runId}:${round}`;
    const claimed = await claimDeclinedEvents({ since, claimant, max: CLAIMS_PER_ROUND });
    since = claimed.next;
    await Promise.all(
      claimed.events.map(({ id: eventId, accountId }) =>
        startChild(campaignEventWorkflow, {
          workflowId: campaignEventWorkflowId(eventId),
          args: [{ eventId }],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          searchAttributes: { ResourceType: ['campaign-event'], AccountId: [accountId] },
        }).catch((error) => {
          // Started by an earlier round whose result was lost: that run handles it.
          if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
        }),
      ),
    );
    if (claimed.claimed.length < CLAIMS_PER_ROUND) await sleep(input.pollMs);
  }
  await continueAsNew<typeof campaignTriggerWorkflow>({ pollMs: input.pollMs, since });
}

export async function campaignEventWorkflow(input: { eventId: string }): Promise<DeliveryResult[]> {
  const plan = await planCampaignTriggers({ eventId: input.eventId });
  return Promise.all(
    plan.candidates.map(async ({ campaignId, sendAt }) => {
      const wait = Date.parse(sendAt) - Date.now();
      if (wait > 0) await sleep(wait); // outside the daily window: wait until it opens
      return deliverCampaignCommunication({ campaignId, eventId: input.eventId });
    }),
  );
}
