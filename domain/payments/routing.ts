/**
 * Routing: which provider connections, in which order, serve a payment. Rules are
 * evaluated by ascending priority; the first whose conditions all match gives the ordered
 * connection list (failover goes down that list). An account without rules uses the
 * default route: its two sandbox connections.
 */
import * as t from 'io-ts';
import { boundedArray, boundedString, CountryCode, CurrencyCode, DecimalAmount, enumOf, intRange, struct, Uuid, annotate } from '../codecs/common';
import { compareAmounts } from '../money';
import { CARD_BRANDS, PAYMENT_METHOD_TYPES } from './codecs';
import { flowOf, PaymentFlow } from './methods';
import { providerEntry, PROVIDER_CODES, providerTakes } from '../providers/catalogue';
import { ConnectionId, ConnectionIdView, defaultSandboxConnectionId } from './connections';

/** Provider codes a connection, a pinned refund, an onboarding or a transfer may name: the catalogue's. */
export const PROVIDER_IDS = PROVIDER_CODES;

/** Providers whose connections carry credentials (required for them, refused for the others). */
export const PROVIDERS_WITH_CREDENTIALS: readonly string[] = ['STRIPE', 'ADYEN'];

// Stripe secret keys (sk_) and restricted keys (rk_), test or live mode.
const STRIPE_KEY = /^(sk|rk)_(test|live)_[0-9A-Za-z]{8,247}$/;
// Stripe webhook endpoint signing secrets.
const STRIPE_WEBHOOK_SECRET = /^whsec_[0-9A-Za-z+/=]{8,247}$/;
// Adyen's HMAC keys are hexadecimal (64 characters for the 32-byte keys the Customer Area generates).
const ADYEN_HMAC_KEY = /^([0-9A-Fa-f]{2}){16,128}$/;
// The live endpoint prefix Adyen gives a company account, e.g. 1797a841fbb37ca7-AdyenDemo.
const ADYEN_LIVE_PREFIX = /^[0-9A-Za-z][0-9A-Za-z-]{0,99}$/;

export const ADYEN_ENVIRONMENTS = ['TEST', 'LIVE'] as const;

const secret = (description: string, max = 255) => annotate(boundedString(1, max), { description, writeOnly: true });

export const ProviderCredentialsInput = struct(
  'ProviderCredentialsInput',
  {},
  {
    secret_key: secret('STRIPE (required): the secret (sk_test_..., sk_live_...) or restricted (rk_...) API key.'),
    webhook_secret: secret('STRIPE (optional): the signing secret (whsec_...) of the Stripe webhook endpoint pointed at POST /v1/provider-webhooks/{connection_id}; without it Stripe events are refused.'),
    api_key: secret('ADYEN (required): the API key of an Adyen API credential (X-API-Key) with the Checkout API role.', 1024),
    environment: annotate(enumOf('AdyenEnvironment', ADYEN_ENVIRONMENTS), { description: 'ADYEN (required): TEST (checkout-test.adyen.com) or LIVE.' }),
    live_endpoint_url_prefix: annotate(boundedString(1, 100), { description: 'ADYEN, LIVE only (required there): the live endpoint prefix of the company account ([prefix]-checkout-live.adyenpayments.com).' }),
    hmac_key: secret('ADYEN (optional): the HMAC key (hexadecimal) of the standard webhook pointed at POST /v1/provider-webhooks/{connection_id}; without it Adyen notifications are refused.', 256),
  },
);
export type ProviderCredentialsInput = t.TypeOf<typeof ProviderCredentialsInput>;

export const ProviderConnectionCreate = struct(
  'ProviderConnectionCreate',
  {
    provider_id: annotate(enumOf('ProviderId', PROVIDER_IDS), {
      description: 'a code of the provider catalogue (README, "Provider catalogue"); SANDBOX is the built-in sandbox acquirer, STRIPE goes to Stripe PaymentIntents and ADYEN to Adyen\'s Checkout API (credentials required for both). Connections to providers without a connector yet are kept but never routed to',
    }),
    name: boundedString(3, 255),
    merchant_id: annotate(boundedString(1, 255), { description: 'the merchant identifier the provider issued for this connection (STRIPE: the account id, acct_..., for people only; ADYEN: the merchant account, sent as merchantAccount on every call)' }),
  },
  {
    credentials: annotate(ProviderCredentialsInput, {
      description: 'Stored encrypted, opened only for provider calls and webhook signature checks, never returned. STRIPE: secret_key, optionally webhook_secret. ADYEN: api_key, environment, live_endpoint_url_prefix for LIVE, optionally hmac_key. SANDBOX: none.',
    }),
  },
);
export type ProviderConnectionCreate = t.TypeOf<typeof ProviderConnectionCreate>;

export const ProviderConnection = t.type(
  {
    id: ConnectionIdView,
    account_id: Uuid,
    provider_id: t.string,
    name: t.string,
    merchant_id: t.string,
    status: t.string,
    default: t.boolean,
    credentials_configured: annotate(t.boolean, { description: 'whether credentials are stored for this connection (they are never returned)' }),
    created_at: t.string,
  },
  'ProviderConnection',
);

const FIELDS_OF: Record<string, readonly (keyof ProviderCredentialsInput)[]> = {
  STRIPE: ['secret_key', 'webhook_secret'],
  ADYEN: ['api_key', 'environment', 'live_endpoint_url_prefix', 'hmac_key'],
};

/** Why a connection's credentials do not fit its provider (field path + message), or null. Messages never repeat a value: a mistyped secret is still a secret. */
export function connectionCredentialsProblem(input: ProviderConnectionCreate): { field: string; message: string } | null {
  const needed = PROVIDERS_WITH_CREDENTIALS.includes(input.provider_id);
  if (!needed) return input.credentials ? { field: 'credentials', message: `Switchyard keeps no credentials for ${input.provider_id} connections` } : null;
  const c = input.credentials;
  if (!c) return { field: 'credentials', message: `${input.provider_id} connections need credentials (${input.provider_id === 'STRIPE' ? 'secret_key' : 'api_key and environment'})` };
  const foreign = (Object.keys(c) as (keyof ProviderCredentialsInput)[]).find((k) => c[k] !== undefined && !FIELDS_OF[input.provider_id].includes(k));
  if (foreign) return { field: `credentials.${foreign}`, message: `${input.provider_id} connections take no ${foreign}` };
  if (input.provider_id === 'STRIPE') {
    if (!c.secret_key) return { field: 'credentials.secret_key', message: 'STRIPE connections need credentials.secret_key' };
    if (!STRIPE_KEY.test(c.secret_key)) return { field: 'credentials.secret_key', message: 'must be a Stripe secret or restricted API key (sk_test_..., sk_live_..., rk_test_..., rk_live_...)' };
    if (c.webhook_secret !== undefined && !STRIPE_WEBHOOK_SECRET.test(c.webhook_secret)) return { field: 'credentials.webhook_secret', message: 'must be a Stripe webhook signing secret (whsec_...)' };
  }
  if (input.provider_id === 'ADYEN') {
    if (!c.api_key) return { field: 'credentials.api_key', message: 'ADYEN connections need credentials.api_key' };
    if (!c.environment) return { field: 'credentials.environment', message: 'ADYEN connections need credentials.environment (TEST or LIVE)' };
    if (c.environment === 'LIVE' && !c.live_endpoint_url_prefix) return { field: 'credentials.live_endpoint_url_prefix', message: 'LIVE ADYEN connections need the live endpoint URL prefix of the company account' };
    if (c.environment === 'TEST' && c.live_endpoint_url_prefix !== undefined) return { field: 'credentials.live_endpoint_url_prefix', message: 'only LIVE ADYEN connections take a live endpoint URL prefix' };
    if (c.live_endpoint_url_prefix !== undefined && !ADYEN_LIVE_PREFIX.test(c.live_endpoint_url_prefix)) return { field: 'credentials.live_endpoint_url_prefix', message: 'must be letters, digits and hyphens (e.g. 1797a841fbb37ca7-AdyenDemo)' };
    if (c.hmac_key !== undefined && !ADYEN_HMAC_KEY.test(c.hmac_key)) return { field: 'credentials.hmac_key', message: 'must be the hexadecimal HMAC key of the Adyen webhook' };
  }
  return null;
}

export const RoutingConditions = struct(
  'RoutingConditions',
  {},
  {
    countries: boundedArray(CountryCode, 1, 250),
    payment_method_types: boundedArray(enumOf('PaymentMethodType', PAYMENT_METHOD_TYPES), 1, 50),
    currencies: boundedArray(CurrencyCode, 1, 200),
    amount_min: annotate(DecimalAmount, { description: 'inclusive' }),
    amount_max: annotate(DecimalAmount, { description: 'inclusive' }),
    card_brands: boundedArray(enumOf('CardBrand', CARD_BRANDS), 1, 20),
    iin_prefixes: annotate(boundedArray(boundedString(1, 8), 1, 500), { description: 'the card number starts with one of these digits' }),
  },
);
export type RoutingConditions = t.TypeOf<typeof RoutingConditions>;

export const RoutingRuleCreate = struct(
  'RoutingRuleCreate',
  {
    name: boundedString(3, 255),
    priority: annotate(intRange(0, 10_000), { description: 'lower is evaluated first' }),
    connection_ids: annotate(boundedArray(ConnectionId, 1, 10), { description: 'ordered: the first is tried first, the next on soft decline, timeout or 5xx' }),
  },
  { conditions: RoutingConditions },
);
export type RoutingRuleCreate = t.TypeOf<typeof RoutingRuleCreate>;

export const RoutingRule = t.type(
  { id: Uuid, account_id: Uuid, name: t.string, priority: t.number, conditions: t.UnknownRecord, connection_ids: t.array(ConnectionIdView), created_at: t.string },
  'RoutingRule',
);

export interface RoutingFacts {
  country: string;
  paymentMethodType: string;
  currency: string;
  amount: number;
  cardBrand: string | null;
  iin: string | null;
}

export interface RuleLike {
  id: string;
  priority: number;
  conditions: RoutingConditions;
  connection_ids: string[];
}

export function ruleMatches(conditions: RoutingConditions, facts: RoutingFacts): boolean {
  const c = conditions;
  if (c.countries && !c.countries.includes(facts.country)) return false;
  if (c.payment_method_types && !c.payment_method_types.includes(facts.paymentMethodType as never)) return false;
  if (c.currencies && !c.currencies.includes(facts.currency)) return false;
  if (c.amount_min !== undefined && compareAmounts(facts.amount, c.amount_min) < 0) return false;
  if (c.amount_max !== undefined && compareAmounts(facts.amount, c.amount_max) > 0) return false;
  if (c.card_brands && (!facts.cardBrand || !c.card_brands.includes(facts.cardBrand as never))) return false;
  if (c.iin_prefixes && (!facts.iin || !c.iin_prefixes.some((p) => facts.iin!.startsWith(p)))) return false;
  return true;
}

/** The first matching rule by priority (ties: older rule first, i.e. input order). */
export function selectRule<R extends RuleLike>(rules: R[], facts: RoutingFacts): R | null {
  const ordered = rules.map((rule, index) => ({ rule, index })).sort((a, b) => a.rule.priority - b.rule.priority || a.index - b.index);
  return ordered.find(({ rule }) => ruleMatches(rule.conditions, facts))?.rule ?? null;
}

/** Why a connection of a route cannot take a payment (null: it can). */
export function connectionRefusal(providerId: string, facts: Pick<RoutingFacts, 'country' | 'paymentMethodType'>, flowsOf: (providerId: string) => readonly PaymentFlow[]): string | null {
  if (!providerEntry(providerId)) return `${providerId} is not in the provider catalogue`;
  if (!providerTakes(providerId, facts.paymentMethodType, facts.country)) return `${providerId} does not take ${facts.paymentMethodType} payments in ${facts.country}`;
  const flow = flowOf(facts.paymentMethodType);
  if (!flow || !flowsOf(providerId).includes(flow)) return `Switchyard has no ${providerId} connector for ${flow ?? facts.paymentMethodType} payments yet`;
  return null;
}

/**
 * The connections of a route that can take the payment: the catalogue says the provider
 * takes the method in that country and a connector implements the method's flow. The
 * reasons tell why the others were left out (for a 422 or a log line).
 */
export function servableConnections<C extends { providerId: string }>(
  route: readonly C[], facts: Pick<RoutingFacts, 'country' | 'paymentMethodType'>, flowsOf: (providerId: string) => readonly PaymentFlow[],
): { servable: C[]; refusals: string[] } {
  const servable: C[] = [];
  const refusals = new Set<string>();
  for (const connection of route) {
    const refusal = connectionRefusal(connection.providerId, facts, flowsOf);
    if (refusal) refusals.add(refusal);
    else servable.push(connection);
  }
  return { servable, refusals: [...refusals] };
}

/** The default route of an account without rules: two sandbox connections, one per simulated acquirer. */
export function defaultSandboxConnections(accountId: string) {
  return [1, 2].map((n) => ({
    id: defaultSandboxConnectionId(n),
    account_id: accountId,
    provider_id: 'SANDBOX',
    name: `Sandbox acquirer ${n}`,
    merchant_id: `sbx-${accountId}-${n}`,
    status: 'ACTIVE',
    default: true,
    credentials_configured: false,
  }));
}
