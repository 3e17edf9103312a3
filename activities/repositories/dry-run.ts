/**
 * Dry-run storage. A registration document is inserted by the API (the creation of the
 * resource; its redacted events are in it); every later change (late events merged,
 * PAIRED, VALIDATED, UNMATCHED, the report) is written by the pairing workflow's
 * activities. Late events and dry-run payments are their own inserted documents, picked up
 * by the workflow. Nothing here holds a PAN, CVV or credential: only redacted forms.
 */
import { findByIdWithin } from '../runtime/mongo';
import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import type { RegistrationStatus, Verdict } from '../../domain/dry-run/codecs';
import type { StoredEvent } from '../../domain/dry-run/decode';
import type { ValidationReport } from '../../domain/dry-run/pipeline';

export interface StoredReport extends ValidationReport {
  version: number;
  generated_at: Date;
  duration_ms: number;
  /** What was graded, so a re-run on unchanged input is skipped. */
  input_fingerprint: string;
  service_source: 'dry_run_payment' | 'payment';
}

export interface RegistrationDoc {
  _id: string; // 21-char nano id
  organization_code: string;
  account_id: string;
  merchant_reference: string;
  payment_id: string | null;
  provider_id: string | null;
  payment_method_type: string | null;
  operation_type: string | null;
  status: RegistrationStatus;
  events: StoredEvent[];
  batch_ids: string[];
  /**
   * Set when late events were added: only then does a new pairing run look for event batches
   * its signals did not name (a scan by registration_id on FerretDB, so not on every run).
   */
  has_late_events?: boolean;
  request_hash: string;
  workflow_id: string;
  dry_run_payment_id: string | null;
  paired_at: Date | null;
  validated_at: Date | null;
  unmatched_at: Date | null;
  verdict: Verdict | null;
  score: number | null;
  report: StoredReport | null;
  created_at: Date;
  updated_at: Date;
}

export interface EventBatchDoc {
  _id: string;
  registration_id: string;
  organization_code: string;
  account_id: string;
  events: StoredEvent[];
  event_count: number;
  created_at: Date;
}

export interface DryRunPaymentDoc {
  _id: string; // payment-shaped id (UUID)
  organization_code: string;
  account_id: string;
  merchant_reference: string;
  /** The payment request, redacted. */
  request: Record<string, unknown>;
  /**
   * The payment-shaped answer (card as IIN, last 4 and fingerprint; no PAN), so GET
   * /v1/payments/{id} answers what creation answered. Absent on documents stored before.
   */
  view?: Record<string, unknown>;
  workflow_id: string;
  pairing_status: 'WAITING_FOR_PROVIDER_EVENTS' | 'PAIRED' | 'UNMATCHED';
  registration_id: string | null;
  created_at: Date;
}

/**
 * One document per (account, merchant_reference), _id derived from both: inserting it is
 * the atomic uniqueness check, and it finds the registration by _id. (FerretDB's SQLite
 * backend answers queries on other fields by scanning, which large registrations make slow.)
 */
export interface ReferenceClaimDoc {
  _id: string;
  registration_id: string;
  organization_code: string;
  created_at: Date;
}

export const referenceClaims = (db: Db) => db.collection<ReferenceClaimDoc>('dry_run_references');

export function referenceKey(accountId: string, merchantReference: string): string {
  return createHash('sha256').update(`${accountId}\u0000${merchantReference}`).digest('hex');
}

/** The registration of (account, merchant_reference), found through its claim. */
export async function registrationByReference(db: Db, accountId: string, merchantReference: string): Promise<RegistrationDoc | null> {
  const claim = await referenceClaims(db).findOne({ _id: referenceKey(accountId, merchantReference) });
  return claim ? registrations(db).findOne({ _id: claim.registration_id }) : null;
}

export const registrations = (db: Db) => db.collection<RegistrationDoc>('dry_run_registrations');
export const eventBatches = (db: Db) => db.collection<EventBatchDoc>('dry_run_event_batches');
export const dryRunPayments = (db: Db) => db.collection<DryRunPaymentDoc>('dry_run_payments');

/** Deterministic: both legs of one (account, merchant_reference) reach the same workflow. */
export function pairingWorkflowId(accountId: string, merchantReference: string): string {
  return `dry-run:${accountId}:${merchantReference}`;
}

export function findRegistration(db: Db, organizationCode: string, id: string) {
  return findByIdWithin(registrations(db), id, { organization_code: organizationCode });
}

/** A dry-run payment of the organization by id (another organization's reads as missing). */
export function findDryRunPayment(db: Db, organizationCode: string, id: string) {
  return findByIdWithin(dryRunPayments(db), id, { organization_code: organizationCode });
}

/**
 * The latest dry-run payment of (account, merchant_reference), by a pointer document whose
 * _id derives from both (like the reference claim), so pairing never scans dry_run_payments.
 */
export interface LatestDryRunPaymentDoc {
  _id: string;
  payment_id: string;
  created_at: Date;
}

export const latestDryRunPayments = (db: Db) => db.collection<LatestDryRunPaymentDoc>('dry_run_latest_payments');

/** Points (account, merchant_reference) at its newest dry-run payment; the last writer wins. */
export async function pointToLatestDryRunPayment(db: Db, doc: Pick<DryRunPaymentDoc, '_id' | 'account_id' | 'merchant_reference' | 'created_at'>): Promise<void> {
  const filter = { _id: referenceKey(doc.account_id, doc.merchant_reference) };
  const update = { $set: { payment_id: doc._id, created_at: doc.created_at } };
  try {
    await latestDryRunPayments(db).updateOne(filter, update, { upsert: true });
  } catch (error) {
    if ((error as { code?: number }).code !== 11000) throw error;
    await latestDryRunPayments(db).updateOne(filter, update); // a concurrent upsert created it
  }
}

export async function latestDryRunPayment(db: Db, accountId: string, merchantReference: string): Promise<DryRunPaymentDoc | null> {
  const pointer = await latestDryRunPayments(db).findOne({ _id: referenceKey(accountId, merchantReference) });
  return pointer ? dryRunPayments(db).findOne({ _id: pointer.payment_id }) : null;
}

/**
 * Once per database: pointers for dry-run payments stored before pointers existed, so a late
 * registration still pairs with them. A marker document records that it ran.
 */
export async function backfillLatestDryRunPayments(db: Db): Promise<number> {
  const marker = '2026-11-22-dry-run-latest-payments';
  const migrations = db.collection<{ _id: string; completed_at: Date }>('migrations');
  if (await migrations.findOne({ _id: marker })) return 0;
  let written = 0;
  const newest = new Map<string, DryRunPaymentDoc>();
  for await (const doc of dryRunPayments(db).find({}, { projection: { request: 0, view: 0 } })) {
    const key = referenceKey(doc.account_id, doc.merchant_reference);
    const known = newest.get(key);
    if (!known || known.created_at < doc.created_at) newest.set(key, doc);
  }
  for (const doc of newest.values()) {
    if (await latestDryRunPayments(db).findOne({ _id: referenceKey(doc.account_id, doc.merchant_reference) })) continue;
    await pointToLatestDryRunPayment(db, doc);
    written++;
  }
  await migrations.updateOne({ _id: marker }, { $set: { completed_at: new Date() } }, { upsert: true }).catch(() => undefined);
  return written;
}

/**
 * A pairing signal owed to a dry-run pairing workflow (the transactional outbox of the
 * dry-run legs): stored with the leg, before the API answers, and deleted once the
 * signal-with-start is delivered. A small collection: only undelivered signals stay in it.
 */
export interface PairingSignalDoc {
  /** `<leg kind>:<leg id>`: one entry per leg, so a retried request owes one signal. */
  _id: string;
  organization_code: string;
  account_id: string;
  merchant_reference: string;
  leg: { kind: 'registration' | 'payment' | 'events'; id: string };
  /** The ResourceStatus the workflow shows if this signal starts it. */
  initial_status: string;
  created_at: Date;
  /** The API process that stored it delivers it until then; past it, any API process may take it over. */
  claimed_until: Date;
}

export const pairingSignals = (db: Db) => db.collection<PairingSignalDoc>('dry_run_pairing_signals');

/** Stores the owed signal; a retried request's signal is already there. */
export async function owePairingSignal(db: Db, doc: PairingSignalDoc): Promise<void> {
  try {
    await pairingSignals(db).insertOne(doc);
  } catch (error) {
    if ((error as { code?: number }).code !== 11000) throw error;
  }
}

/**
 * Claims up to `limit` signals whose claim lapsed (the API process that stored them stopped
 * before delivering, or failed to). A claim is a compare-and-set on `claimed_until`, so two
 * processes never take the same one at once.
 */
export async function claimLapsedPairingSignals(db: Db, leaseMs: number, limit: number): Promise<PairingSignalDoc[]> {
  const now = new Date();
  const lapsed = await pairingSignals(db).find({ claimed_until: { $lt: now } }).limit(limit).toArray();
  const claimed: PairingSignalDoc[] = [];
  for (const doc of lapsed) {
    const taken = await pairingSignals(db).updateOne({ _id: doc._id, claimed_until: doc.claimed_until }, { $set: { claimed_until: new Date(now.getTime() + leaseMs) } });
    if (taken.modifiedCount === 1) claimed.push(doc);
  }
  return claimed;
}

export async function forgetPairingSignal(db: Db, id: string): Promise<void> {
  await pairingSignals(db).deleteOne({ _id: id });
}
