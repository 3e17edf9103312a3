/**
 * Connections of one provider for an account, for operations that name their provider
 * instead of being routed (pinned refunds, onboardings, split transfers).
 */
import { RoutedConnection, usableConnections } from '../activities/repositories/routing';
import { sameConnectionId } from '../domain/payments/connections';
import type { AppDeps } from './context';

const toRouted = (c: { id: string; provider_id: string; merchant_id: string; name: string }): RoutedConnection => ({ connectionId: c.id, providerId: c.provider_id, merchantId: c.merchant_id, name: c.name });

/** The account's connections of one provider (the default sandbox ones when none is configured; never for a live account). */
export async function pinnedConnections(deps: AppDeps, accountId: string, providerId: string): Promise<RoutedConnection[]> {
  const { defaults, configured } = await usableConnections(deps.db, accountId);
  const own = configured.filter((c) => c.provider_id === providerId).map(toRouted);
  if (own.length) return own;
  return defaults.filter((c) => c.provider_id === providerId).map(toRouted);
}

/**
 * A connection named by id, among every connection GET .../provider-connections lists (the
 * defaults stay there, and usable by id, once the account configures its own).
 */
export async function namedConnection(deps: AppDeps, accountId: string, providerId: string, connectionId: string): Promise<RoutedConnection | null> {
  const { defaults, configured } = await usableConnections(deps.db, accountId);
  const all = [...defaults, ...configured];
  const found = all.find((c) => c.provider_id === providerId && sameConnectionId(c.id, connectionId));
  return found ? toRouted(found) : null;
}
