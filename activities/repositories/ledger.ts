/**
 * The organization balance: an append-only ledger per (organization, currency).
 *
 * Each entry carries the balance after it and the next sequence number; its _id is
 * <organization>:<currency>:<sequence>. Appending reads the latest entry and inserts the
 * next one: two concurrent appends race for the same _id and exactly one wins (a unique-key
 * insert is atomic on FerretDB and MongoDB, unlike conditional updates or $inc), the loser
 * re-reads and retries. A debit that would take the balance below zero is refused, so the
 * balance can never be overdrawn. operation_key (unique) makes every operation idempotent.
 * Amounts are integers of 0.0001 (domain/money), computed as bigint and stored as decimal
 * strings: exact at any size (a double stops counting 0.0001 units exactly above 9×10^11).
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
  /** signed, 0.0001 units, a decimal integer string (older entries: a number) */
  amount_units: string;
  balance_units: string;
  reference: string;
  description: string | null;
  created_at: Date;
}

export type AppendResult = { applied: true; entry: LedgerEntryDoc } | { applied: false; reason: 'INSUFFICIENT_BALANCE'; balanceUnits: bigint };

/** The balance after an entry, in 0.0001 units. */
export function balanceUnitsOf(entry: LedgerEntryDoc | null): bigint {
  return entry ? BigInt(entry.balance_units) : 0n;
}

const entries = (db: Db) => db.collection<LedgerEntryDoc>('balance_entries');

export async function latestEntry(db: Db, organizationCode: string, currency: string): Promise<LedgerEntryDoc | null> {
  return entries(db).findOne({ organization_code: organizationCode, currency }, { sort: { sequence: -1 } });
}

export async function appendEntry(
  db: Db,
  op: { organizationCode: string; currency: string; operationKey: string; kind: LedgerEntryKind; amountUnits: bigint; reference: string; description?: string | null },
): Promise<AppendResult> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const done = await entries(db).findOne({ operation_key: op.operationKey });
    if (done) return { applied: true, entry: done };
    const latest = await latestEntry(db, op.organizationCode, op.currency);
    const balance = balanceUnitsOf(latest);
    const next = balance + op.amountUnits;
    if (next < 0n) return { applied: false, reason: 'INSUFFICIENT_BALANCE', balanceUnits: balance };
    const sequence = (latest?.sequence ?? 0) + 1;
    const entry: LedgerEntryDoc = {
      _id: `${op.organizationCode}:${op.currency}:${sequence}`,
      organization_code: op.organizationCode,
      currency: op.currency,
      sequence,
      operation_key: op.operationKey,
      kind: op.kind,
      amount_units: op.amountUnits.toString(),
      balance_units: next.toString(),
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
