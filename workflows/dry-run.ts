/**
 * Dry-run pairing: one workflow per (account, merchant_reference), id
 * `dry-run:<account_id>:<merchant_reference>`. Both legs (the provider-events registration
 * and the `Dry-run: true` payment) and late events reach it by signal-with-start, so the
 * pair forms in either order and survives worker restarts. Inputs and signals carry ids
 * only; the redacted payloads stay in MongoDB.
 *
 * States (ResourceStatus search attribute):
 *   WAITING_FOR_PROVIDER_EVENTS  only the dry-run payment is there
 *   REGISTERED                   only the registration is there
 *   PAIRED                       both legs are there; the pipeline runs
 *   VALIDATED                    a report is stored (a new event or payment re-runs it)
 *   UNMATCHED                    the pairing window closed with one leg (a late leg still pairs)
 * After validation the workflow keeps listening for `settleSeconds`, then completes; a
 * later leg starts a new run that picks the state up from MongoDB.
 */
import { condition, continueAsNew, defineSignal, patched, proxyActivities, proxyLocalActivities, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { Activities } from '../activities';
import { startWebhookDelivery } from './webhook-delivery';

const DRY_RUN_ACTIVITY_OPTIONS = {
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
} as const;
const { pairDryRun, validateDryRun, expireDryRunPair } = proxyActivities<Activities>(DRY_RUN_ACTIVITY_OPTIONS);
// Since 'local-dry-run-steps': pairing and validation (a few keyed MongoDB calls and the
// pipeline, in-process work) run as local activities, in the workflow task the leg's signal
// brought: no task-queue round trip through the server for each, so the report is ready
// sooner after the second leg. Both are idempotent, like every activity.
const localDryRun = proxyLocalActivities<Activities>(DRY_RUN_ACTIVITY_OPTIONS);

export const ResourceStatusKey = defineSearchAttributeKey('ResourceStatus', SearchAttributeType.KEYWORD);
export const ResourceIdKey = defineSearchAttributeKey('ResourceId', SearchAttributeType.KEYWORD);

export interface DryRunLeg {
  kind: 'registration' | 'payment' | 'events';
  id: string;
}

export const dryRunLegSignal = defineSignal<[DryRunLeg]>('dryRunLeg');

export interface DryRunPairInput {
  organizationCode: string;
  accountId: string;
  merchantReference: string;
  pairingTimeoutSeconds: number;
  settleSeconds: number;
  /** Set by continue-as-new: epoch ms when an unpaired leg becomes UNMATCHED. */
  unmatchedAtMs?: number;
  /** Set by continue-as-new: the state reached so far. */
  status?: string;
  settleUntilMs?: number | null;
  /** Set by continue-as-new: the legs known so far. */
  registrationId?: string | null;
  paymentId?: string | null;
}

const MAX_ROUNDS_PER_RUN = 100;

export async function dryRunPairWorkflow(input: DryRunPairInput): Promise<string> {
  let pending = 1; // the signal that started the run (or the state carried over) is processed first
  let registrationId = input.registrationId ?? null;
  let paymentId = input.paymentId ?? null;
  let batchIds: string[] = [];
  // The first round of every run (also after continue-as-new) also looks legs up by reference.
  let fresh = true;
  setHandler(dryRunLegSignal, (leg) => {
    if (leg.kind === 'registration') registrationId = leg.id;
    else if (leg.kind === 'payment') paymentId = leg.id; // the latest dry-run payment is the one graded
    else batchIds.push(leg.id);
    pending++;
  });
  const key = { organizationCode: input.organizationCode, accountId: input.accountId, merchantReference: input.merchantReference };
  const unmatchedAtMs = input.unmatchedAtMs ?? workflowInfo().startTime.getTime() + input.pairingTimeoutSeconds * 1000;
  let status = input.status ?? 'WAITING';
  let settleUntilMs: number | null = input.settleUntilMs ?? null;
  const setStatus = (next: string) => {
    if (next === status) return;
    status = next;
    upsertSearchAttributes([{ key: ResourceStatusKey, value: next }]);
  };
  // ResourceId is the registration's public id, known once its leg arrives (the payment leg
  // may start the workflow). Patched: runs recorded before it have no such command.
  let shownRegistrationId: string | null = null;
  const showRegistration = () => {
    if (!registrationId || registrationId === shownRegistrationId || !patched('resource-id-search-attribute')) return;
    shownRegistrationId = registrationId;
    upsertSearchAttributes([{ key: ResourceIdKey, value: registrationId }]);
  };

  for (let round = 0; round < MAX_ROUNDS_PER_RUN; round++) {
    const deadline = settleUntilMs ?? (status === 'UNMATCHED' ? unmatchedAtMs + input.settleSeconds * 1000 : unmatchedAtMs);
    const signalled = pending > 0 || (await condition(() => pending > 0, Math.max(1, deadline - Date.now())));
    if (!signalled) {
      if (settleUntilMs !== null || status === 'UNMATCHED') return status; // quiet long enough
      await expireDryRunPair({ ...key, registrationId, paymentId });
      setStatus('UNMATCHED');
      continue;
    }
    pending = 0;
    const batches = batchIds;
    batchIds = [];
    const local = patched('local-dry-run-steps');
    const pair = await (local ? localDryRun.pairDryRun : pairDryRun)({ ...key, registrationId, paymentId, batchIds: batches, fresh });
    fresh = false;
    registrationId = pair.registrationId ?? registrationId;
    paymentId = pair.dryRunPaymentId ?? paymentId;
    showRegistration();
    setStatus(pair.status === 'PAIRED' || pair.status === 'VALIDATED' || status !== 'UNMATCHED' ? pair.status : status);
    if (pair.needsValidation && pair.registrationId) {
      const outcome = await (local ? localDryRun.validateDryRun : validateDryRun)({ ...key, registrationId: pair.registrationId });
      setStatus('VALIDATED');
      if (outcome.changed) {
        await startWebhookDelivery({
          deliveryId: `dry-run-report-${outcome.registrationId}-v${outcome.reportVersion}`,
          eventId: `dry-run-report-${outcome.registrationId}-v${outcome.reportVersion}`,
          eventType: 'dry_run.report_ready',
          organizationCode: key.organizationCode,
          accountId: key.accountId,
          resourceType: 'dry_run_registration',
          resourceId: outcome.registrationId,
          callbackUrl: null,
          occurredAt: new Date(Date.now()).toISOString(),
          data: { id: outcome.registrationId, merchant_reference: key.merchantReference, status: 'VALIDATED', verdict: outcome.verdict, score: outcome.score, report_version: outcome.reportVersion, findings: outcome.findings },
        });
      }
    }
    if (status === 'VALIDATED') settleUntilMs = Date.now() + input.settleSeconds * 1000;
  }
  return continueAsNew<typeof dryRunPairWorkflow>({ ...input, unmatchedAtMs, status, settleUntilMs, registrationId, paymentId });
}
