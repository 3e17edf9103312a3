/**
 * Outgoing webhooks: endpoint and secret per account (secret sealed at rest), signed POST
 * per attempt, every attempt recorded. The retry schedule lives in the delivery workflow.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import type { ActivityDeps } from './index';
import { openString, sealString, Keyring } from '../domain/crypto';
import { SIGNATURE_HEADER, signWebhook, streamId, streamTimeKey, WEBHOOK_EVENT_RETENTION_DAYS, webhookEventBody } from '../domain/webhooks';

/** One event of an organization's stream (GET /v1/webhook-events), `_id` = streamId(organization, `<time>|<event id>`). */
export interface WebhookStreamDoc {
  _id: string;
  organization_code: string;
  event_id: string;
  event_type: string;
  account_id: string;
  resource_type: string;
  resource_id: string;
  /** The exact body sent to webhook endpoints. */
  body: string;
  stored_at: Date;
  expires_at: Date;
}

/**
 * Adds an event to its organization's stream once, whatever the retries: `webhook_events`
 * (keyed by organization and event id) names the stream document the first attempt chose,
 * and the stream document is upserted under that key.
 */
export async function recordWebhookEvent(
  db: Db,
  event: { eventId: string; eventType: string; organizationCode: string; accountId: string; resourceType: string; resourceId: string; occurredAt: string; data: Record<string, unknown> },
): Promise<void> {
  const now = new Date();
  const expiresAt = new Date(now.getTime() + WEBHOOK_EVENT_RETENTION_DAYS * 86_400_000);
  const events = db.collection<{ _id: string; stream_id: string; expires_at: Date }>('webhook_events');
  const eventKey = `${event.organizationCode}|${event.eventId}`;
  let id = streamId(event.organizationCode, `${streamTimeKey(now.getTime())}|${event.eventId}`);
  try {
    await events.insertOne({ _id: eventKey, stream_id: id, expires_at: expiresAt });
  } catch (error) {
    if ((error as { code?: number }).code !== 11000) throw error;
    id = (await events.findOne({ _id: eventKey }))!.stream_id;
  }
  const doc: Omit<WebhookStreamDoc, '_id'> = {
    organization_code: event.organizationCode, event_id: event.eventId, event_type: event.eventType, account_id: event.accountId,
    resource_type: event.resourceType, resource_id: event.resourceId, body: webhookEventBody(event), stored_at: now, expires_at: expiresAt,
  };
  await db.collection<WebhookStreamDoc>('webhook_event_stream').updateOne({ _id: id }, { $setOnInsert: doc }, { upsert: true });
}

export interface WebhookEndpointDoc {
  _id: string; // account id
  organization_code: string;
  url: string | null;
  secret_sealed: string;
  created_at: Date;
  updated_at: Date;
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}

/** The account's endpoint, created with a fresh secret (and no URL) on first use. */
export async function ensureWebhookEndpoint(db: Db, keyring: Keyring, organizationCode: string, accountId: string): Promise<WebhookEndpointDoc> {
  const endpoints = db.collection<WebhookEndpointDoc>('webhook_endpoints');
  const existing = await endpoints.findOne({ _id: accountId });
  if (existing) return existing;
  const now = new Date();
  const doc: WebhookEndpointDoc = { _id: accountId, organization_code: organizationCode, url: null, secret_sealed: sealString(keyring, 'webhook-secret', newWebhookSecret(), accountId), created_at: now, updated_at: now };
  try {
    await endpoints.insertOne(doc);
    return doc;
  } catch (error) {
    if ((error as { code?: number }).code !== 11000) throw error;
    return (await endpoints.findOne({ _id: accountId }))!;
  }
}

export function webhookSecretOf(keyring: Keyring, endpoint: WebhookEndpointDoc): string {
  return openString(keyring, 'webhook-secret', endpoint.secret_sealed, endpoint._id);
}

export interface DeliveryPlan {
  url: string | null;
  retryBaseMs: number;
  maxAttempts: number;
}

export interface WebhookAttemptResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}

export function createWebhookActivities(deps: ActivityDeps) {
  const { db, keyring, config } = deps;
  return {
    async prepareWebhookDelivery(input: { deliveryId: string; eventId: string; eventType: string; organizationCode: string; accountId: string; resourceType: string; resourceId: string; callbackUrl: string | null; occurredAt?: string; data?: Record<string, unknown> }): Promise<DeliveryPlan> {
      // Every event joins the organization's stream (GET /v1/webhook-events), endpoint or not.
      if (input.data !== undefined && input.occurredAt !== undefined) await recordWebhookEvent(db, { ...input, occurredAt: input.occurredAt, data: input.data });
      const endpoint = await ensureWebhookEndpoint(db, keyring, input.organizationCode, input.accountId);
      const url = input.callbackUrl ?? endpoint.url;
      const now = new Date();
      await db.collection('webhook_deliveries').updateOne(
        { _id: input.deliveryId as never },
        {
          $setOnInsert: {
            event_id: input.eventId,
            event_type: input.eventType,
            organization_code: input.organizationCode,
            account_id: input.accountId,
            resource_type: input.resourceType,
            resource_id: input.resourceId,
            url,
            status: url ? 'PENDING' : 'NO_ENDPOINT',
            attempts: [],
            created_at: now,
          },
          $set: { updated_at: now },
        },
        { upsert: true },
      );
      return { url, retryBaseMs: config.webhookRetryBaseMs, maxAttempts: config.webhookMaxAttempts };
    },

    async attemptWebhookDelivery(input: { deliveryId: string; attempt: number; url: string; body: string; accountId: string; organizationCode: string; nextRetryInMs: number | null }): Promise<WebhookAttemptResult> {
      const endpoint = await ensureWebhookEndpoint(db, keyring, input.organizationCode, input.accountId);
      const timestamp = Math.floor(Date.now() / 1000);
      const started = Date.now();
      let result: WebhookAttemptResult;
      try {
        const response = await fetch(input.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'Switchyard-Webhooks/1', [SIGNATURE_HEADER]: signWebhook(webhookSecretOf(keyring, endpoint), timestamp, input.body) },
          body: input.body,
          signal: AbortSignal.timeout(config.webhookTimeoutMs),
          redirect: 'manual',
        });
        await response.arrayBuffer().catch(() => undefined);
        result = { ok: response.status >= 200 && response.status < 300, statusCode: response.status, error: null };
      } catch (error) {
        result = { ok: false, statusCode: null, error: (error as Error).name === 'TimeoutError' ? `no answer within ${config.webhookTimeoutMs} ms` : (error as Error).message };
      }
      const attempt = {
        attempt: input.attempt,
        status_code: result.statusCode,
        error: result.error,
        duration_ms: Date.now() - started,
        attempted_at: new Date(started).toISOString(),
        next_retry_at: !result.ok && input.nextRetryInMs !== null ? new Date(Date.now() + input.nextRetryInMs).toISOString() : null,
      };
      // Pull-then-push keeps one entry per attempt number even when this activity is retried.
      const deliveries = db.collection('webhook_deliveries');
      await deliveries.updateOne({ _id: input.deliveryId as never }, { $pull: { attempts: { attempt: input.attempt } } as never });
      await deliveries.updateOne({ _id: input.deliveryId as never }, { $push: { attempts: attempt } as never, $set: { updated_at: new Date() } });
      return result;
    },

    async finishWebhookDelivery(input: { deliveryId: string; status: 'DELIVERED' | 'FAILED' }): Promise<void> {
      await db.collection('webhook_deliveries').updateOne({ _id: input.deliveryId as never }, { $set: { status: input.status, updated_at: new Date() } });
    },
  };
}
