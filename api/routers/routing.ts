/**
 * Provider connections and routing rules per account (configuration, not lifecycle: the
 * API writes them directly). Without rules an account routes to its two default sandbox
 * connections (default-sandbox-1, then default-sandbox-2).
 */
import * as t from 'io-ts';
import { findOwnedAccount } from '../../activities/repositories/merchants';
import { connectionEnvironment, KeyMode } from '../../domain/credentials';
import { ConnectionDoc, createConnection, createRule, deleteRule, listConnections, listRules, RoutingRuleDoc, usableConnections } from '../../activities/repositories/routing';
import { ApiError } from '../../domain/errors';
import { connectionCredentialsProblem, defaultSandboxConnections, ProviderConnection, ProviderConnectionCreate, RoutingRule, RoutingRuleCreate } from '../../domain/payments/routing';
import type { AppContext, AppDeps } from '../context';
import type { RouteTable } from '../routes';

const ACCOUNT_PARAM = { name: 'account_id', description: 'an account of the organization', schema: { type: 'string', format: 'uuid' } };
/** Another organization's account answers like a missing one. */
const NO_ACCOUNT = { description: 'ACCOUNT_NOT_FOUND: no such account in the organization' };

// Field by field: the sealed credentials never leave the database.
const renderConnection = (c: ConnectionDoc) => ({ id: c._id, account_id: c.account_id, provider_id: c.provider_id, name: c.name, merchant_id: c.merchant_id, status: c.status, default: false, credentials_configured: Boolean(c.credentials_sealed), created_at: c.created_at.toISOString() });
const renderRule = (r: RoutingRuleDoc) => ({ id: r._id, account_id: r.account_id, name: r.name, priority: r.priority, conditions: r.conditions, connection_ids: r.connection_ids, created_at: r.created_at.toISOString() });

async function ownedAccount(deps: AppDeps, ctx: AppContext) {
  const account = await findOwnedAccount(deps.db, ctx.state.principal!.organizationCode, ctx.params.account_id);
  if (!account) throw new ApiError('not_found', 'account not found', { code: 'ACCOUNT_NOT_FOUND' });
  return account;
}

/** A test account takes the sandbox and providers' test environments only; a live account never those. */
function modeProblem(mode: KeyMode | null, body: ProviderConnectionCreate): { field: string; message: string } | null {
  const environment = connectionEnvironment(body.provider_id, body.credentials);
  if (!mode || !environment || mode === environment) return null;
  const field = body.provider_id === 'SANDBOX' ? 'provider_id' : body.provider_id === 'ADYEN' ? 'credentials.environment' : 'credentials.secret_key';
  return mode === 'test'
    ? { field, message: 'a test-mode account (test keys) connects only to the sandbox and to providers\' test environments; add live credentials with the live keys' }
    : { field, message: 'a live account (live keys) never connects to the sandbox or to a provider\'s test environment; add test credentials with the test keys' };
}

export function registerRoutingRoutes(routes: RouteTable, deps: AppDeps): void {
  const base = { tag: 'Routing', area: 'default' as const, auth: 'pair' as const, pathParams: [ACCOUNT_PARAM] };

  routes.add(
    {
      ...base, method: 'POST', path: '/v1/accounts/:account_id/provider-connections', operationId: 'createProviderConnection', summary: 'Add a provider connection to an account',
      description: 'SANDBOX connections need no credentials; STRIPE connections need credentials.secret_key (a Stripe secret or restricted key), which is stored encrypted and never returned. Payments reach a connection through routing rules.',
      body: ProviderConnectionCreate, responses: { 201: { description: 'The connection (without its credentials)', body: ProviderConnection }, 400: { description: 'Invalid body, or credentials that do not fit the provider' }, 404: NO_ACCOUNT },
    },
    async (ctx, body) => {
      const account = await ownedAccount(deps, ctx);
      const problem = connectionCredentialsProblem(body) ?? modeProblem(account.mode ?? null, body);
      if (problem) throw new ApiError('validation', problem.message, { fieldErrors: [{ field: problem.field, code: 'INVALID', message: problem.message }] });
      ctx.status = 201;
      ctx.body = renderConnection(await createConnection(deps.db, deps.keyring, account.organization_code, account._id, body));
    },
  );

  routes.add(
    { ...base, method: 'GET', path: '/v1/accounts/:account_id/provider-connections', operationId: 'listProviderConnections', summary: 'List an account\'s provider connections (the two default sandbox connections included, except on a live account)', responses: { 200: { description: 'Connections', body: t.array(ProviderConnection) }, 404: NO_ACCOUNT } },
    async (ctx) => {
      const account = await ownedAccount(deps, ctx);
      const defaults = account.mode === 'live' ? [] : defaultSandboxConnections(account._id).map((c) => ({ ...c, created_at: account.created_at.toISOString() }));
      ctx.body = [...defaults, ...(await listConnections(deps.db, account._id)).map(renderConnection)];
    },
  );

  routes.add(
    {
      ...base, method: 'POST', path: '/v1/accounts/:account_id/routing-rules', operationId: 'createRoutingRule', summary: 'Add a routing rule',
      description: 'Rules are evaluated by ascending priority; the first whose conditions all match (country, payment method type, currency, amount range, card brand, IIN prefix; an absent condition matches everything) gives the ordered connection list. Once an account has a rule, a payment no rule matches ends ERROR/NO_ROUTE.',
      body: RoutingRuleCreate, responses: { 201: { description: 'The rule', body: RoutingRule }, 400: { description: 'Unknown connection id' }, 404: NO_ACCOUNT },
    },
    async (ctx, body) => {
      const account = await ownedAccount(deps, ctx);
      const { defaults, configured } = await usableConnections(deps.db, account._id);
      const known = new Set([...defaults, ...configured].map((c) => c.id));
      // Stored as listed (lower case), so routing finds them whatever case a UUID was sent in.
      const connectionIds = body.connection_ids.map((id) => id.toLowerCase());
      const unknown = connectionIds.filter((id) => !known.has(id));
      if (unknown.length) throw new ApiError('validation', `unknown connection ids: ${unknown.join(', ')}`, { fieldErrors: [{ field: 'connection_ids', code: 'INVALID', message: `unknown connection ids: ${unknown.join(', ')}` }] });
      ctx.status = 201;
      ctx.body = renderRule(await createRule(deps.db, account.organization_code, account._id, { ...body, connection_ids: connectionIds }));
    },
  );

  routes.add(
    { ...base, method: 'GET', path: '/v1/accounts/:account_id/routing-rules', operationId: 'listRoutingRules', summary: 'List routing rules in evaluation order', responses: { 200: { description: 'Rules', body: t.array(RoutingRule) }, 404: NO_ACCOUNT } },
    async (ctx) => {
      const account = await ownedAccount(deps, ctx);
      ctx.body = (await listRules(deps.db, account._id)).map(renderRule);
    },
  );

  routes.add(
    {
      ...base, method: 'DELETE', path: '/v1/accounts/:account_id/routing-rules/:rule_id', operationId: 'deleteRoutingRule', summary: 'Delete a routing rule',
      pathParams: [ACCOUNT_PARAM, { name: 'rule_id', description: 'the rule', schema: { type: 'string', format: 'uuid' } }],
      responses: { 204: { description: 'Deleted' }, 404: { description: 'NOT_FOUND: no such rule; ACCOUNT_NOT_FOUND: no such account in the organization' } },
    },
    async (ctx) => {
      const account = await ownedAccount(deps, ctx);
      if (!(await deleteRule(deps.db, account._id, ctx.params.rule_id))) throw new ApiError('not_found', 'routing rule not found');
      ctx.status = 204;
    },
  );
}
