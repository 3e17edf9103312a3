/**
 * Bank and wallet destinations of credits, sealed at rest (AES-256-GCM, vault subkey) and
 * written by the API before the workflow starts, so account numbers and wallet tokens stay
 * out of workflow history; the credit activity opens them for the one provider call.
 */
import type { Db } from 'mongodb';
import { Keyring, openString, sealString } from '../../domain/crypto';
import type { CreditDestination } from '../providers/money-movement';

type StoredDestination = Exclude<CreditDestination, { type: 'CARD' }>;

export async function sealDestination(db: Db, keyring: Keyring, id: string, organizationCode: string, destination: StoredDestination): Promise<void> {
  await db.collection('payout_destinations').replaceOne(
    { _id: id as never },
    { organization_code: organizationCode, sealed: sealString(keyring, 'vault', JSON.stringify(destination), `destination:${id}`), created_at: new Date() },
    { upsert: true },
  );
}

export async function openDestination(db: Db, keyring: Keyring, id: string): Promise<StoredDestination | null> {
  const doc = await db.collection('payout_destinations').findOne({ _id: id as never });
  return doc ? (JSON.parse(openString(keyring, 'vault', doc.sealed as string, `destination:${id}`)) as StoredDestination) : null;
}
