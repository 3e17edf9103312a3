/**
 * Derived documents that API and worker processes rely on, written at start-up for data
 * stored before they existed (each step is safe to run again and by several processes).
 */
import type { Db } from 'mongodb';
import type { Logger } from '../runtime/logger';
import { backfillLatestDryRunPayments } from './dry-run';
import { backfillRoutingVersions } from './routing';

export async function backfillDerivedDocuments(db: Db, logger?: Logger): Promise<void> {
  const [dryRunPointers, routingVersions] = [await backfillLatestDryRunPayments(db), await backfillRoutingVersions(db)];
  if (dryRunPointers || routingVersions) logger?.info({ dryRunPointers, routingVersions }, 'derived documents backfilled');
}
