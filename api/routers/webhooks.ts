/**
 * The account's webhook endpoint (URL + signing secret) and the record of every delivery.
 */
import * as t from 'io-ts';
import { findOwnedAccount } from '../../activities/repositories/merchants';
import { ensureWebhookEndpoint, newWebhookSecret, WebhookEndpointDoc, webhookSecretOf, WebhookStreamDoc } from '../../activities/webhooks';
import { HttpsUrl, struct, Timestamp, Uuid } from '../../domain/codecs/common';
import { sealString } from '../../domain/crypto';
import { ApiError } from '../../domain/errors';
import { decodeStreamCursor, encodeStreamCursor, SIGNATURE_HEADER, signWebhook, STREAM_SETTLE_MS, streamId, streamTimeKey, WEBHOOK_DOC, WEBHOOK_EVENT_RETENTION_DAYS } from '../../domain/webhooks';
import type { AppContext, AppDeps } from '../context';
import type { RouteTable } from '../routes';

const WebhookEndpointUpdate = struct('WebhookEndpointUpdate', { url: HttpsUrl }, { rotate_secret: t.boolean });
const WebhookEndpoint = t.type({ account_id: Uuid, url: t.union([t.string, t.null]), secret: t.string, updated_at: Timestamp }, 'WebhookEndpoint');
const WebhookAttempt = t.type({ attempt: t.number, status_code: t.union([t.number, t.null]), error: t.union([t.string, t.null]), duration_ms: t.number, attempted_at: Timestamp, next_retry_at: t.union([Timestamp, t.null]) });
const WebhookDelivery = t.type(
  { id: t.string, event_id: t.string, event_type: t.string, resource_type: t.string, resource_id: t.string, url: t.union([t.string, t.null]), status: t.string, attempts: t.array(WebhookAttempt), created_at: Timestamp, updated_at: Timestamp },
  'WebhookDelivery',
);

const WebhookEvent = t.type(
  {
    id: t.string, type: t.string, account_id: Uuid, resource_type: t.string, resource_id: t.string, created_at: Timestamp,
    body: t.string, signature: t.string,
  },
  'WebhookEvent',
);
const WebhookEventPage = t.type({ events: t.array(WebhookEvent), next_cursor: t.string }, 'WebhookEventPage');

/** Longest long-poll wait, and how often a waiting request looks again. */
export const EVENTS_MAX_WAIT_SECONDS = 30;
const EVENTS_POLL_MS = 250;

const EVENTS_DOC =
  `Every webhook event Switchyard announced for the organization's accounts (whatever its delivery URL, also when none is set), oldest first, ` +
  `kept ${WEBHOOK_EVENT_RETENTION_DAYS} days. Each carries \`body\`, the exact bytes a webhook receiver gets, and \`signature\`, a ` +
  `\`${SIGNATURE_HEADER}\` header value computed at answer time with the account's webhook secret over \`body\` (the secret itself is never in ` +
  'the answer): POST `body` with that header to a local URL and it verifies as a delivery does. This is what `switchyard listen --forward-to <url>` does. ' +
  'Long poll: with no event after `after`, the request waits up to `wait` seconds for one. Continue with `next_cursor`. Without `after` the ' +
  'listing starts now (nothing older); `after=0` starts at the oldest event kept. An event is listed about a second after it is announced. ' +
  'Authentication: the key pair only (`public-api-key` and `private-secret-key`; not the public key alone, not a whitelabel embed token), ' +
  'as for reading the webhook secret itself (GET /v1/accounts/{account_id}/webhook).';

export function registerWebhookRoutes(routes: RouteTable, deps: AppDeps): void {
  const account = async (ctx: AppContext) => {
    const found = await findOwnedAccount(deps.db, ctx.state.principal!.organizationCode, ctx.params.account_id);
    if (!found) throw new ApiError('not_found', 'account not found', { code: 'ACCOUNT_NOT_FOUND' });
    return found;
  };
  const render = (doc: WebhookEndpointDoc) => ({ account_id: doc._id, url: doc.url, secret: webhookSecretOf(deps.keyring, doc), updated_at: doc.updated_at.toISOString() });
  const pathParams = [{ name: 'account_id', description: 'an account of the organization', schema: { type: 'string', format: 'uuid' } }];
  const noAccount = { description: 'ACCOUNT_NOT_FOUND: no such account in the organization' };

  routes.add(
    {
      method: 'PUT', path: '/v1/accounts/:account_id/webhook', operationId: 'setWebhookEndpoint', tag: 'Webhooks', area: 'default', auth: 'pair',
      summary: 'Set the account webhook URL (and rotate its signing secret)', description: WEBHOOK_DOC, pathParams,
      body: WebhookEndpointUpdate, responses: { 200: { description: 'The endpoint with its signing secret', body: WebhookEndpoint }, 404: noAccount },
    },
    async (ctx, body) => {
      const acc = await account(ctx);
      const current = await ensureWebhookEndpoint(deps.db, deps.keyring, acc.organization_code, acc._id);
      const secret_sealed = body.rotate_secret ? sealString(deps.keyring, 'webhook-secret', newWebhookSecret(), acc._id) : current.secret_sealed;
      await deps.db.collection<WebhookEndpointDoc>('webhook_endpoints').updateOne({ _id: acc._id }, { $set: { url: body.url, secret_sealed, updated_at: new Date() } });
      ctx.body = render((await deps.db.collection<WebhookEndpointDoc>('webhook_endpoints').findOne({ _id: acc._id }))!);
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/accounts/:account_id/webhook', operationId: 'getWebhookEndpoint', tag: 'Webhooks', area: 'default', auth: 'pair',
      summary: 'Read the account webhook URL and signing secret', pathParams, responses: { 200: { description: 'The endpoint', body: WebhookEndpoint }, 404: noAccount },
    },
    async (ctx) => {
      const acc = await account(ctx);
      ctx.body = render(await ensureWebhookEndpoint(deps.db, deps.keyring, acc.organization_code, acc._id));
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/webhook-events', operationId: 'listWebhookEvents', tag: 'Webhooks', area: 'default', auth: 'pair',
      summary: 'The organization\'s webhook events, each signed, as a long-poll listing (for `switchyard listen`)', description: EVENTS_DOC,
      query: [
        { name: 'after', description: '`next_cursor` of the previous answer, or `0` for the oldest event kept; without it the listing starts now', schema: { type: 'string' } },
        { name: 'wait', description: `seconds to wait for an event when there is none yet (0 to ${EVENTS_MAX_WAIT_SECONDS}, default 0)`, schema: { type: 'integer', minimum: 0, maximum: EVENTS_MAX_WAIT_SECONDS } },
        { name: 'limit', description: 'most events per answer (1 to 100, default 50)', schema: { type: 'integer', minimum: 1, maximum: 100 } },
      ],
      responses: { 200: { description: 'Events after the cursor, oldest first (none once `wait` has passed without any), and the cursor to continue from', body: WebhookEventPage } },
    },
    async (ctx) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      const single = (name: string): string | undefined => {
        const value = ctx.query[name];
        if (Array.isArray(value)) throw invalidQuery(name, 'a single value', `${name} must be given once`);
        return value === undefined || value === '' ? undefined : value;
      };
      const integer = (name: string, min: number, max: number, fallback: number): number => {
        const raw = single(name);
        if (raw === undefined) return fallback;
        const value = Number(raw);
        if (!/^\d+$/.test(raw) || value < min || value > max) throw invalidQuery(name, `an integer from ${min} to ${max}`, `${name} must be an integer from ${min} to ${max}`);
        return value;
      };
      const wait = integer('wait', 0, EVENTS_MAX_WAIT_SECONDS, 0);
      const limit = integer('limit', 1, 100, 50);
      const after = single('after');
      let key = after === undefined ? `${streamTimeKey(Date.now())}|` : decodeStreamCursor(after);
      if (key === null) throw invalidQuery('after', 'the next_cursor of a previous answer, or 0', 'after must be the next_cursor of a previous answer, or 0');

      const stream = deps.db.collection<WebhookStreamDoc>('webhook_event_stream');
      const deadline = Date.now() + wait * 1000;
      let closed = false;
      ctx.req.once('close', () => (closed = true));
      let docs: WebhookStreamDoc[] = [];
      for (;;) {
        // One _id range of this organization's stream: after the cursor, older than the settle delay.
        const settled = streamTimeKey(Date.now() - STREAM_SETTLE_MS);
        docs = (await stream.find({ _id: { $gt: streamId(organizationCode, key), $lt: streamId(organizationCode, `${settled}|`) } }).sort({ _id: 1 }).limit(limit).toArray())
          .filter((d) => d.organization_code === organizationCode);
        if (docs.length || closed || Date.now() + EVENTS_POLL_MS > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, EVENTS_POLL_MS));
      }
      const secrets = new Map<string, string>();
      const now = Math.floor(Date.now() / 1000);
      const events = [];
      for (const d of docs) {
        if (!secrets.has(d.account_id)) secrets.set(d.account_id, webhookSecretOf(deps.keyring, await ensureWebhookEndpoint(deps.db, deps.keyring, organizationCode, d.account_id)));
        events.push({
          id: d.event_id, type: d.event_type, account_id: d.account_id, resource_type: d.resource_type, resource_id: d.resource_id,
          created_at: d.stored_at.toISOString(), body: d.body, signature: signWebhook(secrets.get(d.account_id)!, now, d.body),
        });
      }
      if (docs.length) key = docs[docs.length - 1]._id.slice(organizationCode.length + 1);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { events, next_cursor: encodeStreamCursor(key) };
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/webhooks/deliveries', operationId: 'listWebhookDeliveries', tag: 'Webhooks', area: 'default', auth: 'pair',
      summary: 'Deliveries of webhook events for a resource, with every attempt',
      query: [{ name: 'resource_id', description: 'e.g. a payment id', required: true, schema: { type: 'string' } }],
      responses: { 200: { description: 'Deliveries, oldest first', body: t.type({ deliveries: t.array(WebhookDelivery) }) } },
    },
    async (ctx) => {
      const resourceId = ctx.query.resource_id;
      if (typeof resourceId !== 'string' || !resourceId) throw new ApiError('validation', 'resource_id is required', { fieldErrors: [{ field: 'resource_id', code: 'REQUIRED', message: 'resource_id is required' }] });
      const docs = await deps.db.collection('webhook_deliveries').find({ organization_code: ctx.state.principal!.organizationCode, resource_id: resourceId }).sort({ created_at: 1 }).toArray();
      ctx.body = {
        deliveries: docs.map((d) => ({
          id: String(d._id), event_id: d.event_id, event_type: d.event_type, resource_type: d.resource_type, resource_id: d.resource_id, url: d.url, status: d.status,
          attempts: [...(d.attempts ?? [])].sort((a, b) => a.attempt - b.attempt), created_at: (d.created_at as Date).toISOString(), updated_at: (d.updated_at as Date).toISOString(),
        })),
      };
    },
  );
}

function invalidQuery(field: string, expected: string, message: string): ApiError {
  return new ApiError('validation', message, { fieldErrors: [{ field, code: 'INVALID', message, expected }] });
}
