/**
 * Provider connections and routing rules per account.
 */
import type { Db } from 'mongodb';
import { newId } from '../../domain/credentials';
import { defaultSandboxConnections, ProviderConnectionCreate, RoutingFacts, RoutingRuleCreate, selectRule } from '../../domain/payments/routing';

export interface ConnectionDoc {
  _id: string;
  organization_code: string;
  account_id: string;
  provider_id: string;
  name: string;
  merchant_id: string;
  status: 'ACTIVE';
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

export async function createConnection(db: Db, organizationCode: string, accountId: string, input: ProviderConnectionCreate): Promise<ConnectionDoc> {
  const doc: ConnectionDoc = { _id: newId(), organization_code: organizationCode, account_id: accountId, ...input, status: 'ACTIVE', created_at: new Date() };
  await db.collection<ConnectionDoc>('provider_connections').insertOne(doc);
  return doc;
}

export function listConnections(db: Db, accountId: string): Promise<ConnectionDoc[]> {
  return db.collection<ConnectionDoc>('provider_connections').find({ account_id: accountId }).sort({ created_at: 1 }).toArray();
}

export async function createRule(db: Db, organizationCode: string, accountId: string, input: RoutingRuleCreate): Promise<RoutingRuleDoc> {
  const doc: RoutingRuleDoc = { _id: newId(), organization_code: organizationCode, account_id: accountId, ...input, conditions: input.conditions ?? {}, created_at: new Date() };
  await db.collection<RoutingRuleDoc>('routing_rules').insertOne(doc);
  return doc;
}

export function listRules(db: Db, accountId: string): Promise<RoutingRuleDoc[]> {
  return db.collection<RoutingRuleDoc>('routing_rules').find({ account_id: accountId }).sort({ priority: 1, created_at: 1 }).toArray();
}

export async function deleteRule(db: Db, accountId: string, ruleId: string): Promise<boolean> {
  const result = await db.collection<RoutingRuleDoc>('routing_rules').deleteOne({ _id: ruleId, account_id: accountId });
  return result.deletedCount === 1;
}

/**
 * The ordered connections for a payment: the first matching rule's list; an account with
 * no rules at all gets the default sandbox route. Null when rules exist but none matches.
 */
export async function resolveRoute(db: Db, accountId: string, facts: RoutingFacts): Promise<RoutedConnection[] | null> {
  const rules = await listRules(db, accountId);
  const defaults = defaultSandboxConnections(accountId);
  if (rules.length === 0) return defaults.map((c) => ({ connectionId: c.id, providerId: c.provider_id, merchantId: c.merchant_id, name: c.name }));
  const rule = selectRule(rules.map((r) => ({ ...r, id: r._id })), facts);
  if (!rule) return null;
  const connections = new Map((await listConnections(db, accountId)).map((c) => [c._id, c]));
  const routed: RoutedConnection[] = [];
  for (const id of rule.connection_ids) {
    const configured = connections.get(id);
    const fallback = defaults.find((d) => d.id === id);
    if (configured) routed.push({ connectionId: configured._id, providerId: configured.provider_id, merchantId: configured.merchant_id, name: configured.name });
    else if (fallback) routed.push({ connectionId: fallback.id, providerId: fallback.provider_id, merchantId: fallback.merchant_id, name: fallback.name });
  }
  return routed.length ? routed : null;
}
