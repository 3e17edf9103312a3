/**
 * Provider connections and routing rules per account. A connection's provider credentials
 * are stored only sealed (AES-256-GCM under the provider-credentials subkey, bound to the
 * connection id); only the worker's provider calls open them.
 */
import type { Db } from 'mongodb';
import type { ConnectionCredentials } from '../providers/connector';
import { Keyring, openString, sealString } from '../../domain/crypto';
import { connectionEnvironment, KeyMode, newId } from '../../domain/credentials';
import { accountMode } from './merchants';
import { defaultSandboxConnections, ProviderConnectionCreate, ProviderCredentialsInput, RoutingFacts, RoutingRuleCreate, selectRule } from '../../domain/payments/routing';

export interface ConnectionDoc {
  _id: string;
  organization_code: string;
  account_id: string;
  provider_id: string;
  name: string;
  merchant_id: string;
  status: 'ACTIVE';
  /** test (sandbox, a provider's test environment) or live; null when unknown; absent before modes. */
  environment?: KeyMode | null;
  /** "<keyId>.<iv+tag+ciphertext>" of the credentials' JSON; absent for the sandbox. */
  credentials_sealed?: string;
  credentials_key_id?: string;
  created_at: Date;
}

export interface RoutingRuleDoc extends RoutingRuleCreate {
  _id: string;
  organization_code: string;
  account_id: string;
  conditions: NonNullable<RoutingRuleCreate['conditions']>;
  created_at: Date;
}

export interface RoutedConnection {
  connectionId: string;
  providerId: string;
  merchantId: string;
  name: string;
}

function sealCredentials(keyring: Keyring, connectionId: string, credentials: ConnectionCredentials) {
  const sealed = sealString(keyring, 'provider-credentials', JSON.stringify(credentials), connectionId);
  return { credentials_sealed: sealed, credentials_key_id: sealed.slice(0, sealed.indexOf('.')) };
}

/** The API's snake_case credential fields as stored (sealed) and handed to connectors. */
export function credentialsOf(input: ProviderCredentialsInput): ConnectionCredentials {
  const stored: ConnectionCredentials = {
    secretKey: input.secret_key,
    webhookSecret: input.webhook_secret,
    apiKey: input.api_key,
    environment: input.environment,
    liveEndpointUrlPrefix: input.live_endpoint_url_prefix,
    hmacKey: input.hmac_key,
  };
  return Object.fromEntries(Object.entries(stored).filter(([, v]) => v !== undefined)) as ConnectionCredentials;
}

export async function createConnection(db: Db, keyring: Keyring, organizationCode: string, accountId: string, input: ProviderConnectionCreate): Promise<ConnectionDoc> {
  const { credentials, ...fields } = input;
  const _id = newId();
  const doc: ConnectionDoc = {
    _id,
    organization_code: organizationCode,
    account_id: accountId,
    ...fields,
    status: 'ACTIVE',
    environment: connectionEnvironment(input.provider_id, credentials),
    ...(credentials ? sealCredentials(keyring, _id, credentialsOf(credentials)) : {}),
    created_at: new Date(),
  };
  await db.collection<ConnectionDoc>('provider_connections').insertOne(doc);
  await bumpRoutingVersion(db, accountId);
  return doc;
}

/** The credentials of a configured connection, opened for one provider call; null when it has none. */
export async function openConnectionCredentials(db: Db, keyring: Keyring, connectionId: string): Promise<ConnectionCredentials | null> {
  const doc = await db.collection<ConnectionDoc>('provider_connections').findOne({ _id: connectionId }, { projection: { credentials_sealed: 1 } });
  if (!doc?.credentials_sealed) return null;
  return JSON.parse(openString(keyring, 'provider-credentials', doc.credentials_sealed, connectionId)) as ConnectionCredentials;
}

/** Key rotation: re-seals every connection's credentials not sealed under the active key (safe to rerun). */
export async function resealConnectionCredentials(db: Db, keyring: Keyring): Promise<number> {
  let count = 0;
  const connections = db.collection<ConnectionDoc>('provider_connections');
  for await (const doc of connections.find({ credentials_sealed: { $exists: true }, credentials_key_id: { $ne: keyring.activeKeyId } })) {
    const opened = JSON.parse(openString(keyring, 'provider-credentials', doc.credentials_sealed!, doc._id)) as ConnectionCredentials;
    const result = await connections.updateOne({ _id: doc._id, credentials_key_id: doc.credentials_key_id }, { $set: sealCredentials(keyring, doc._id, opened) });
    count += result.modifiedCount;
  }
  return count;
}

/**
 * One document per account that ever had routing rules or connections (_id: the account id),
 * whose `version` changes with each of them. Routing reads it by _id on every payment and
 * keeps the account's rules and connections in memory while the version stands, so a payment
 * never lists them (a scan on FerretDB) and every process sees a change at once.
 */
interface RoutingVersionDoc {
  _id: string;
  version: string;
  updated_at: Date;
}

const routingVersions = (db: Db) => db.collection<RoutingVersionDoc>('routing_versions');

async function bumpRoutingVersion(db: Db, accountId: string): Promise<void> {
  const update = { $set: { version: newId(), updated_at: new Date() } };
  try {
    await routingVersions(db).updateOne({ _id: accountId }, update, { upsert: true });
  } catch (error) {
    if ((error as { code?: number }).code !== 11000) throw error;
    await routingVersions(db).updateOne({ _id: accountId }, update); // a concurrent upsert created it
  }
}

/**
 * At start-up: a version for every account with rules or connections but none yet (stored
 * before versions existed, or by an older process during a rolling upgrade).
 */
export async function backfillRoutingVersions(db: Db): Promise<number> {
  const accounts = new Set<string>();
  for (const name of ['routing_rules', 'provider_connections']) {
    for await (const doc of db.collection<{ account_id: string }>(name).find({}, { projection: { account_id: 1 } })) accounts.add(doc.account_id);
  }
  let written = 0;
  for (const accountId of accounts) {
    if (await routingVersions(db).findOne({ _id: accountId })) continue;
    await bumpRoutingVersion(db, accountId);
    written++;
  }
  return written;
}

interface AccountRouting {
  version: string;
  rules: RoutingRuleDoc[];
  connections: Map<string, RoutedConnection>;
}

const ROUTING_CACHE_SIZE = 10_000;
const routingCache = new Map<string, AccountRouting>();

async function accountRouting(db: Db, accountId: string): Promise<AccountRouting | null> {
  const current = await routingVersions(db).findOne({ _id: accountId });
  if (!current) return null; // never had rules or connections
  const key = `${db.databaseName}\u0000${accountId}`;
  const cached = routingCache.get(key);
  if (cached?.version === current.version) return cached;
  const [rules, all, mode] = await Promise.all([
    listRules(db, accountId),
    db.collection<ConnectionDoc>('provider_connections').find({ account_id: accountId }, { projection: { provider_id: 1, merchant_id: 1, name: 1, environment: 1 } }).toArray(),
    accountMode(db, accountId),
  ]);
  const connections = all.filter((c) => usableIn(mode, c.environment));
  const loaded: AccountRouting = {
    version: current.version,
    rules,
    connections: new Map(connections.map((c) => [c._id, { connectionId: c._id, providerId: c.provider_id, merchantId: c.merchant_id, name: c.name }])),
  };
  routingCache.delete(key);
  routingCache.set(key, loaded);
  if (routingCache.size > ROUTING_CACHE_SIZE) routingCache.delete(routingCache.keys().next().value!);
  return loaded;
}

/** A configured connection by id, whatever its account (webhooks name only the connection). */
export function findConnection(db: Db, connectionId: string): Promise<ConnectionDoc | null> {
  return db.collection<ConnectionDoc>('provider_connections').findOne({ _id: connectionId.toLowerCase() });
}

export function listConnections(db: Db, accountId: string): Promise<ConnectionDoc[]> {
  return db.collection<ConnectionDoc>('provider_connections').find({ account_id: accountId }).sort({ created_at: 1 }).toArray();
}

export async function createRule(db: Db, organizationCode: string, accountId: string, input: RoutingRuleCreate): Promise<RoutingRuleDoc> {
  const doc: RoutingRuleDoc = { _id: newId(), organization_code: organizationCode, account_id: accountId, ...input, conditions: input.conditions ?? {}, created_at: new Date() };
  await db.collection<RoutingRuleDoc>('routing_rules').insertOne(doc);
  await bumpRoutingVersion(db, accountId);
  return doc;
}

export function listRules(db: Db, accountId: string): Promise<RoutingRuleDoc[]> {
  return db.collection<RoutingRuleDoc>('routing_rules').find({ account_id: accountId }).sort({ priority: 1, created_at: 1 }).toArray();
}

export async function deleteRule(db: Db, accountId: string, ruleId: string): Promise<boolean> {
  const result = await db.collection<RoutingRuleDoc>('routing_rules').deleteOne({ _id: ruleId, account_id: accountId });
  if (result.deletedCount === 1) await bumpRoutingVersion(db, accountId);
  return result.deletedCount === 1;
}

/** Whether an account of `mode` may reach a connection of `environment` (accounts from before modes reach all). */
export function usableIn(mode: KeyMode | null, environment: KeyMode | null | undefined): boolean {
  if (!mode || !environment) return true;
  return mode === environment;
}

/** The default sandbox connections, for every account but a live one. */
async function usableDefaults(db: Db, accountId: string) {
  return (await accountMode(db, accountId)) === 'live' ? [] : defaultSandboxConnections(accountId);
}

/** Every connection the account may use: the defaults (not for live accounts) and its own of its mode. */
export async function usableConnections(db: Db, accountId: string) {
  const mode = await accountMode(db, accountId);
  const configured = (await listConnections(db, accountId)).filter((c) => usableIn(mode, c.environment)).map((c) => ({ ...c, id: c._id }));
  return { defaults: mode === 'live' ? [] : defaultSandboxConnections(accountId), configured };
}

/**
 * The ordered connections for a payment: the first matching rule's list; an account with
 * no rules at all gets the default sandbox route (none for a live account). Null when no
 * connection can take it.
 */
export async function resolveRoute(db: Db, accountId: string, facts: RoutingFacts): Promise<RoutedConnection[] | null> {
  const [routing, defaults] = await Promise.all([accountRouting(db, accountId), usableDefaults(db, accountId)]);
  const rules = routing?.rules ?? [];
  if (rules.length === 0) return defaults.length ? defaults.map((c) => ({ connectionId: c.id, providerId: c.provider_id, merchantId: c.merchant_id, name: c.name })) : null;
  const rule = selectRule(rules.map((r) => ({ ...r, id: r._id })), facts);
  if (!rule) return null;
  const routed: RoutedConnection[] = [];
  for (const id of rule.connection_ids) {
    const configured = routing!.connections.get(id);
    const fallback = defaults.find((d) => d.id === id);
    if (configured) routed.push(configured);
    else if (fallback) routed.push({ connectionId: fallback.id, providerId: fallback.provider_id, merchantId: fallback.merchant_id, name: fallback.name });
  }
  return routed.length ? routed : null;
}
