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
  'every attempt is listed by GET /v1/webhooks/deliveries. Deliveries can repeat: deduplicate on the event id.';
