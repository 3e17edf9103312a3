/**
 * Outgoing webhook signatures and retry schedule.
 *
 * Verification recipe for receivers (also in the OpenAPI description):
 *   1. read the header `Switchyard-Signature: t=<unix seconds>,v1=<hex>`;
 *   2. compute HMAC-SHA256(secret, `${t}.${raw request body}`) as hex;
 *   3. compare with v1 in constant time and reject when |now - t| > 300 s (replays).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
export { retryDelayMs } from './webhook-retry';
export { webhookEventBody } from './webhook-event';

export const SIGNATURE_HEADER = 'Switchyard-Signature';
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export function signWebhook(secret: string, timestampSeconds: number, body: string): string {
  const v1 = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
  return `t=${timestampSeconds},v1=${v1}`;
}

export function verifyWebhookSignature(header: string, body: string, secret: string, nowSeconds: number, toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.trim().split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || !parts.v1 || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(signWebhook(secret, t, body).split('v1=')[1], 'hex');
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export const WEBHOOK_DOC =
  'Switchyard sends events (payment.succeeded, payment.declined, payment.pending, payment.captured, payment.canceled, payment.refunded, ' +
  'payment.failed, payment.expired) as POST JSON {id, type, created_at, account_id, data} to the payment\'s callback_url, or else to the ' +
  'account webhook URL (PUT /v1/accounts/{account_id}/webhook). Each request carries `Switchyard-Signature: t=<unix seconds>,v1=<hex>` ' +
  'where v1 = HMAC-SHA256(account webhook secret, "<t>.<raw body>"); verify it in constant time and reject t older than 300 s. ' +
  'Any answer other than 2xx (or no answer within 5 s) is retried with exponential backoff (30 s, 60 s, 120 s... 8 attempts by default); ' +
  'every attempt is listed by GET /v1/webhooks/deliveries. Deliveries can repeat: deduplicate on the event id. ' +
  'GET /v1/webhook-events lists the organization\'s events, signed, for forwarding to a local URL (`switchyard listen --forward-to <url>`).';

/** How long the organization's webhook events stay listed by GET /v1/webhook-events. */
export const WEBHOOK_EVENT_RETENTION_DAYS = 30;

/**
 * The organization's event stream (GET /v1/webhook-events) is ordered by the time each event
 * was stored (ms, zero-padded) and its id; its documents are keyed
 * `<organization>|<time>|<event id>`, so a page is one `_id` range. An event is listed once
 * STREAM_SETTLE_MS old, so one stored a moment before a later-keyed one is never skipped.
 */
export const STREAM_SETTLE_MS = 1000;

export function streamTimeKey(ms: number): string {
  return String(Math.max(0, Math.floor(ms))).padStart(15, '0');
}

export function streamId(organizationCode: string, key: string): string {
  return `${organizationCode}|${key}`;
}

/** Cursors are opaque to clients: base64url of the stream key (`<time>|<event id>`); `0` is the oldest kept. */
export function encodeStreamCursor(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}

export function decodeStreamCursor(cursor: string): string | null {
  if (cursor === '0') return `${streamTimeKey(0)}|`;
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) return null;
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  return /^\d{15}\|[^|]*$/.test(key) ? key : null;
}
