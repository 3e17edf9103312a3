/**
 * The organization balance: an append-only ledger per (organization, currency).
 *
 * Each entry carries the balance after it and the next sequence number; its _id is
 * <organization>:<currency>:<sequence>. Appending reads the latest entry and inserts the
 * next one: two concurrent appends race for the same _id and exactly one wins (a unique-key
 * insert is atomic on FerretDB and MongoDB, unlike conditional updates or $inc), the loser
 * re-reads and retries. A debit that would take the balance below zero is refused, so the
 * balance can never be overdrawn. operation_key (unique) makes every operation idempotent.
 * Amounts are integers of 0.0001 (domain/money).
 */
import type { Db } from 'mongodb';

export type LedgerEntryKind = 'TOP_UP' | 'TRANSFER_DEBIT' | 'TRANSFER_REVERSAL' | 'SPLIT_CREDIT';

export interface LedgerEntryDoc {
  _id: string;
  organization_code: string;
  currency: string;
  sequence: number;
  operation_key: string;
  kind: LedgerEntryKind;
  /** signed, 0.0001 units */
  amount_units: number;
  balance_units: number;
  reference: string;
  description: string | null;
  created_at: Date;
}

export type AppendResult = { applied: true; entry: LedgerEntryDoc } | { applied: false; reason: 'INSUFFICIENT_BALANCE'; balanceUnits: number };

const entries = (db: Db) => db.collection<LedgerEntryDoc>('balance_entries');

export async function latestEntry(db: Db, organizationCode: string, currency: string): Promise<LedgerEntryDoc | null> {
  return entries(db).findOne({ organization_code: organizationCode, currency }, { sort: { sequence: -1 } });
}

export async function appendEntry(
  db: Db,
  op: { organizationCode: string; currency: string; operationKey: string; kind: LedgerEntryKind; amountUnits: number; reference: string; description?: string | null },
): Promise<AppendResult> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const done = await entries(db).findOne({ operation_key: op.operationKey });
    if (done) return { applied: true, entry: done };
    const latest = await latestEntry(db, op.organizationCode, op.currency);
    const balance = latest?.balance_units ?? 0;
    const next = balance + op.amountUnits;
    if (next < 0) return { applied: false, reason: 'INSUFFICIENT_BALANCE', balanceUnits: balance };
    const sequence = (latest?.sequence ?? 0) + 1;
    const entry: LedgerEntryDoc = {
      _id: `${op.organizationCode}:${op.currency}:${sequence}`,
      organization_code: op.organizationCode,
      currency: op.currency,
      sequence,
      operation_key: op.operationKey,
      kind: op.kind,
      amount_units: op.amountUnits,
      balance_units: next,
      reference: op.reference,
      description: op.description ?? null,
      created_at: new Date(),
    };
    try {
      await entries(db).insertOne(entry);
      return { applied: true, entry };
    } catch (error) {
      if ((error as { code?: number }).code !== 11000) throw error;
      // Lost the race for this sequence (or the operation landed meanwhile): read again.
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 20)));
    }
  }
  throw new Error('the balance ledger is too contended; retry');
}

export async function balancesOf(db: Db, organizationCode: string): Promise<LedgerEntryDoc[]> {
  const currencies: string[] = await entries(db).distinct('currency', { organization_code: organizationCode });
  const latest = await Promise.all(currencies.sort().map((c) => latestEntry(db, organizationCode, c)));
  return latest.filter((e): e is LedgerEntryDoc => e !== null);
}
