/**
 * Read models of the money-movement lifecycles (unreferenced refunds, onboardings, split
 * transfers, subscriptions): one document per resource, written only by its workflow's
 * activities (versioned, so a late retry never rolls a document back) and read by the API.
 */
import { findByIdWithin, replaceIfNewer } from '../runtime/mongo';
import type { Db } from 'mongodb';

export const RECORD_COLLECTIONS = ['unreferenced_refunds', 'recipient_onboardings', 'split_transfers', 'subscriptions'] as const;
export type RecordCollection = (typeof RECORD_COLLECTIONS)[number];

export interface VersionedRecord {
  id: string;
  version: number;
  organization_code: string;
}

export async function saveVersioned(db: Db, collection: RecordCollection, record: VersionedRecord): Promise<void> {
  const { id, ...rest } = record;
  await replaceIfNewer(db.collection(collection), id, rest);
}

/** The record when it belongs to the organization; null otherwise (indistinguishable from missing). */
export async function findOwnedRecord<R extends VersionedRecord>(db: Db, collection: RecordCollection, organizationCode: string, id: string): Promise<R | null> {
  const doc = await findByIdWithin(db.collection(collection), id, { organization_code: organizationCode });
  if (!doc) return null;
  const { _id, ...rest } = doc;
  return { id: _id, ...rest } as unknown as R;
}
