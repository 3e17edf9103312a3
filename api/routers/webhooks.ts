/**
 * The account's webhook endpoint (URL + signing secret) and the record of every delivery.
 */
import * as t from 'io-ts';
import { findOwnedAccount } from '../../activities/repositories/merchants';
import { ensureWebhookEndpoint, newWebhookSecret, WebhookEndpointDoc, webhookSecretOf } from '../../activities/webhooks';
import { HttpsUrl, struct, Timestamp, Uuid } from '../../domain/codecs/common';
import { sealString } from '../../domain/crypto';
import { ApiError } from '../../domain/errors';
import { WEBHOOK_DOC } from '../../domain/webhooks';
import type { AppContext, AppDeps } from '../context';
import type { RouteTable } from '../routes';

const WebhookEndpointUpdate = struct('WebhookEndpointUpdate', { url: HttpsUrl }, { rotate_secret: t.boolean });
const WebhookEndpoint = t.type({ account_id: Uuid, url: t.union([t.string, t.null]), secret: t.string, updated_at: Timestamp }, 'WebhookEndpoint');
const WebhookAttempt = t.type({ attempt: t.number, status_code: t.union([t.number, t.null]), error: t.union([t.string, t.null]), duration_ms: t.number, attempted_at: Timestamp, next_retry_at: t.union([Timestamp, t.null]) });
const WebhookDelivery = t.type(
  { id: t.string, event_id: t.string, event_type: t.string, resource_type: t.string, resource_id: t.string, url: t.union([t.string, t.null]), status: t.string, attempts: t.array(WebhookAttempt), created_at: Timestamp, updated_at: Timestamp },
  'WebhookDelivery',
);

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
