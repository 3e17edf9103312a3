/**
 * Delivery of one outgoing webhook event, retried with exponential backoff. Any workflow
 * starts one with `startWebhookDelivery` (a child that outlives its parent), so payments,
 * refunds, transfers and onboarding share one mechanism.
 */
import { ParentClosePolicy, patched, proxyActivities, proxyLocalActivities, sleep, startChild } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities } from '../activities';
import type { DeliveryPlan } from '../activities/webhooks';
import { retryDelayMs } from '../domain/webhook-retry';
import { resourceSearchAttributes } from '../domain/search-attributes';
import { webhookEventBody } from '../domain/webhook-event';

const { prepareWebhookDelivery, attemptWebhookDelivery, finishWebhookDelivery } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 5 },
});

export interface WebhookDeliveryInput {
  /** Unique per event and destination; also the workflow id suffix. */
  deliveryId: string;
  eventId: string;
  eventType: string;
  organizationCode: string;
  accountId: string;
  resourceType: string;
  resourceId: string;
  /** The resource's own callback URL; the account's webhook URL otherwise. */
  callbackUrl: string | null;
  occurredAt: string;
  data: Record<string, unknown>;
  /** Set when the announcing workflow recorded the event and prepared the delivery itself (announceWebhook). */
  plan?: DeliveryPlan;
}

// Since 'local-webhook-preparation' the preparation (two short MongoDB calls) is a local
// activity: no task-queue round trip, and one workflow task less per event.
const local = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 5 },
});

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<'DELIVERED' | 'FAILED' | 'NO_ENDPOINT'> {
  const plan = input.plan ?? (patched('local-webhook-preparation') ? await local.prepareWebhookDelivery(input) : await prepareWebhookDelivery(input));
  if (!plan.url) return 'NO_ENDPOINT';
  const body = webhookEventBody(input);
  for (let attempt = 1; attempt <= plan.maxAttempts; attempt++) {
    const last = attempt === plan.maxAttempts;
    const delay = retryDelayMs(plan.retryBaseMs, attempt);
    const result = await attemptWebhookDelivery({
      deliveryId: input.deliveryId, attempt, url: plan.url, body, accountId: input.accountId, organizationCode: input.organizationCode, nextRetryInMs: last ? null : delay,
    });
    if (result.ok) {
      await finishWebhookDelivery({ deliveryId: input.deliveryId, status: 'DELIVERED' });
      return 'DELIVERED';
    }
    if (!last) await sleep(delay);
  }
  await finishWebhookDelivery({ deliveryId: input.deliveryId, status: 'FAILED' });
  return 'FAILED';
}

// Preparing in an announcing lifecycle: retried until it succeeds, never failing that lifecycle.
const announcing = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * Records the event (GET /v1/webhook-events) and prepares its delivery in the announcing
 * workflow, as a local activity, and starts a delivery workflow only when there is a URL to
 * deliver to: an event nobody receives costs no workflow run of its own.
 */
export async function announceWebhook(input: WebhookDeliveryInput): Promise<void> {
  const plan = await announcing.prepareWebhookDelivery(input);
  if (plan.url) await startWebhookDelivery({ ...input, plan });
}

/** Starts the delivery of one event from any workflow; returns once it is durably started. */
export async function startWebhookDelivery(input: WebhookDeliveryInput): Promise<void> {
  try {
    await startChild(webhookDeliveryWorkflow, {
      workflowId: `webhook-${input.deliveryId}`,
      args: [input],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      // ResourceId is the announced resource's id: its deliveries are found with it.
      searchAttributes: resourceSearchAttributes({ type: 'webhook_delivery', id: input.resourceId, accountId: input.accountId, organizationCode: input.organizationCode }),
    });
  } catch (error) {
    // The same event was already announced (its id is the delivery's): once is enough, and
    // the announcing lifecycle must never fail over it.
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
