/**
 * Activities of the dry-run pairing workflow. Each reads the current state from MongoDB
 * and writes the next one, so running twice (activity retries, workflow replays after a
 * worker restart) gives the same result.
 */
import { findByIdWithin } from './runtime/mongo';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { ActivityDeps } from './index';
import { runPipeline } from '../domain/dry-run/pipeline';
import { BUILT_IN_PROFILES, MappingProfile, profileProblems } from '../domain/dry-run/profiles';
import { partnerLegFacts, serviceViewOfPayment } from '../domain/dry-run/service-leg';
import { defaultSandboxConnections } from '../domain/payments/routing';
import { resolveRoute } from './repositories/routing';
import type { RegistrationStatus, Verdict } from '../domain/dry-run/codecs';
import { dryRunPayments, eventBatches, latestDryRunPayment, registrationByReference, registrations, StoredReport } from './repositories/dry-run';
import { toRecord } from './repositories/payments';

export interface PairKey {
  organizationCode: string;
  accountId: string;
  merchantReference: string;
}

export interface PairInput extends PairKey {
  registrationId?: string | null;
  paymentId?: string | null;
  batchIds?: string[];
  /** First round of a run that did not continue an earlier one: look legs up by reference. */
  fresh: boolean;
}

export interface PairState {
  status: RegistrationStatus | 'WAITING_FOR_PROVIDER_EVENTS';
  registrationId: string | null;
  dryRunPaymentId: string | null;
  /** Both legs are there and the report does not cover the current input yet. */
  needsValidation: boolean;
}

export interface ValidationOutcome {
  registrationId: string;
  verdict: Verdict;
  score: number;
  reportVersion: number;
  findings: number;
  durationMs: number;
  changed: boolean;
}

/** Built-in profiles plus those of DRY_RUN_PROFILES_FILE, by provider_id. */
export function loadProfiles(file: string): Map<string, MappingProfile> {
  const profiles = new Map(BUILT_IN_PROFILES.map((p) => [p.provider_id, p]));
  if (!file) return profiles;
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown[];
  for (const [i, profile] of parsed.entries()) {
    const problems = profileProblems(profile);
    if (problems.length) throw new Error(`${file}: profile ${i}: ${problems.join('; ')}`);
    profiles.set((profile as MappingProfile).provider_id, profile as MappingProfile);
  }
  return profiles;
}

export function createDryRunActivities(deps: ActivityDeps) {
  const { db } = deps;
  const profiles = loadProfiles(deps.config.dryRun.profilesFile);

  /** A service leg by id: a dry-run payment, or a real payment named by the registration. */
  async function serviceLegById(organizationCode: string, id: string | null) {
    if (!id) return null;
    const dryRun = await findByIdWithin(dryRunPayments(db), id, { organization_code: organizationCode });
    if (dryRun) return { id, request: dryRun.request, source: 'dry_run_payment' as const };
    const payment = await findByIdWithin(db.collection('payments'), id as never, { organization_code: organizationCode });
    return payment ? { id, request: serviceViewOfPayment(toRecord(payment as never)), source: 'payment' as const } : null;
  }

  /**
   * A dry-run payment's payment method type, and the provider it would be routed to: the first
   * connection of the account's matching routing rule (not the default sandbox route an
   * account without rules gets, which says nothing about the traffic registered).
   */
  async function inheritedFromPartner(accountId: string, request: Record<string, unknown>): Promise<{ paymentMethodType: string | null; providerId: string | null }> {
    const facts = partnerLegFacts(request);
    if (!facts.routing) return { paymentMethodType: facts.paymentMethodType, providerId: null };
    const route = await resolveRoute(db, accountId, facts.routing);
    const defaults = new Set(defaultSandboxConnections(accountId).map((c) => c.id));
    const first = route?.find((c) => !defaults.has(c.connectionId));
    return { paymentMethodType: facts.paymentMethodType, providerId: first?.providerId ?? null };
  }

  return {
    /**
     * Merges late events, links the legs and marks the pair PAIRED when both are there. The
     * workflow passes the ids its signals carried; a fresh run (a leg arriving after an
     * earlier run completed) also looks the other leg up by account + reference.
     */
    async pairDryRun(input: PairInput): Promise<PairState> {
      const registration = input.registrationId
        ? await registrations(db).findOne({ _id: input.registrationId })
        : await registrationByReference(db, input.accountId, input.merchantReference);
      let paymentId = input.paymentId ?? null;
      if (!paymentId && input.fresh) paymentId = (await latestDryRunPayment(db, input.accountId, input.merchantReference))?._id ?? null;
      if (!paymentId && registration?.payment_id) paymentId = registration.payment_id;
      if (!registration) {
        return { status: 'WAITING_FOR_PROVIDER_EVENTS', registrationId: null, dryRunPaymentId: paymentId, needsValidation: false };
      }
      // Batches come by the ids the signals carried; a fresh run also looks for batches stored
      // while no run listened (a crash between the insert and the signal), but only when late
      // events were ever added: that lookup is a scan on FerretDB.
      const scan = input.fresh && registration.has_late_events;
      const wanted = scan ? { registration_id: registration._id } : { _id: { $in: input.batchIds ?? [] } };
      const late = scan || input.batchIds?.length
        ? (await eventBatches(db).find(wanted).sort({ created_at: 1, _id: 1 }).toArray()).filter((b) => !registration.batch_ids.includes(b._id))
        : [];
      let events = registration.events;
      const batchIds = [...registration.batch_ids, ...late.map((b) => b._id)];
      if (late.length) {
        events = [...events, ...late.flatMap((b) => b.events)];
        await registrations(db).updateOne({ _id: registration._id }, { $set: { events, batch_ids: batchIds, updated_at: new Date() } });
      }
      const service = await serviceLegById(input.organizationCode, paymentId);
      if (!service) return { status: registration.status, registrationId: registration._id, dryRunPaymentId: null, needsValidation: false };
      const fingerprint = inputFingerprint(service.id, batchIds.length, events.length);
      const now = new Date();
      if (registration.dry_run_payment_id !== service.id || registration.status === 'REGISTERED' || registration.status === 'UNMATCHED') {
        await registrations(db).updateOne({ _id: registration._id }, { $set: { status: registration.status === 'VALIDATED' ? 'VALIDATED' : 'PAIRED', dry_run_payment_id: service.id, paired_at: registration.paired_at ?? now, updated_at: now } });
      }
      if (service.source === 'dry_run_payment') {
        await dryRunPayments(db).updateOne({ _id: service.id }, { $set: { pairing_status: 'PAIRED', registration_id: registration._id } });
        // Paired by merchant_reference: what the registration omitted comes from its partner leg.
        if (registration.provider_id === null || registration.payment_method_type === null) {
          const inherited = await inheritedFromPartner(registration.account_id, service.request);
          const set: Record<string, string> = {};
          if (registration.payment_method_type === null && inherited.paymentMethodType) set.payment_method_type = inherited.paymentMethodType;
          if (registration.provider_id === null && inherited.providerId) set.provider_id = inherited.providerId;
          if (Object.keys(set).length) await registrations(db).updateOne({ _id: registration._id }, { $set: { ...set, updated_at: now } });
        }
      }
      const needsValidation = registration.report?.input_fingerprint !== fingerprint;
      return { status: registration.status === 'VALIDATED' && !needsValidation ? 'VALIDATED' : 'PAIRED', registrationId: registration._id, dryRunPaymentId: service.id, needsValidation };
    },

    /** Runs the pipeline on the pair and stores the report (VALIDATED). */
    async validateDryRun(input: PairKey & { registrationId: string }): Promise<ValidationOutcome> {
      const registration = await registrations(db).findOne({ _id: input.registrationId });
      if (!registration) throw new Error(`registration ${input.registrationId} disappeared`);
      const service = await serviceLegById(input.organizationCode, registration.dry_run_payment_id);
      if (!service) throw new Error(`registration ${input.registrationId} has no service leg to validate against`);
      const fingerprint = inputFingerprint(service.id, registration.batch_ids.length, registration.events.length);
      if (registration.report?.input_fingerprint === fingerprint) {
        const r = registration.report;
        return { registrationId: registration._id, verdict: r.verdict, score: r.score, reportVersion: r.version, findings: r.findings.length, durationMs: r.duration_ms, changed: false };
      }
      const started = process.hrtime.bigint();
      const profile = registration.provider_id ? profiles.get(registration.provider_id) ?? null : null;
      const report = runPipeline({ serviceRequest: service.request, events: registration.events, profile, declaredPaymentMethodType: registration.payment_method_type, providerId: registration.provider_id });
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const version = (registration.report?.version ?? 0) + 1;
      const stored: StoredReport = { ...report, version, generated_at: new Date(), duration_ms: Math.round(durationMs * 100) / 100, input_fingerprint: fingerprint, service_source: service.source };
      const now = new Date();
      await registrations(db).updateOne({ _id: registration._id }, { $set: { status: 'VALIDATED', report: stored, verdict: report.verdict, score: report.score, validated_at: now, updated_at: now } });
      return { registrationId: registration._id, verdict: report.verdict, score: report.score, reportVersion: version, findings: report.findings.length, durationMs, changed: true };
    },

    /** The pairing window closed with one leg only. */
    async expireDryRunPair(input: PairKey & { registrationId: string | null; paymentId: string | null }): Promise<void> {
      const now = new Date();
      if (input.registrationId) await registrations(db).updateOne({ _id: input.registrationId, status: 'REGISTERED' }, { $set: { status: 'UNMATCHED', unmatched_at: now, updated_at: now } });
      if (input.paymentId) await dryRunPayments(db).updateOne({ _id: input.paymentId, pairing_status: 'WAITING_FOR_PROVIDER_EVENTS' }, { $set: { pairing_status: 'UNMATCHED' } });
    },
  };
}

function inputFingerprint(serviceId: string, batches: number, events: number): string {
  return createHash('sha256').update(`${serviceId}|${batches}|${events}`).digest('hex').slice(0, 32);
}
