/**
 * Delivery of the dry-run legs' pairing signals (a transactional outbox). A leg's request
 * stores the signal it owes beside the leg and answers; this pump then delivers it
 * (signal-with-start of the pairing workflow) off the request's path, a few at a time, and
 * deletes it. A signal whose process stopped first is delivered by the sweep of any API
 * process once its claim lapses. A signal delivered twice is harmless: legs carry ids only
 * and the pairing activities read the state from MongoDB.
 */
import type { Logger } from 'pino';
import { WorkflowIdConflictPolicy } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';
import { claimLapsedPairingSignals, forgetPairingSignal, owePairingSignal, PairingSignalDoc, pairingWorkflowId } from '../../activities/repositories/dry-run';
import type { DryRunLeg, DryRunPairInput } from '../../workflows/dry-run';
import type { AppDeps } from '../context';

const key = {
  account: defineSearchAttributeKey('AccountId', SearchAttributeType.KEYWORD),
  reference: defineSearchAttributeKey('MerchantReference', SearchAttributeType.KEYWORD),
  type: defineSearchAttributeKey('ResourceType', SearchAttributeType.KEYWORD),
  organization: defineSearchAttributeKey('OrganizationCode', SearchAttributeType.KEYWORD),
  status: defineSearchAttributeKey('ResourceStatus', SearchAttributeType.KEYWORD),
  id: defineSearchAttributeKey('ResourceId', SearchAttributeType.KEYWORD),
};

/** Signal-with-start: the first leg starts the pairing workflow, any later one wakes it. */
export async function signalPairing(deps: AppDeps, pair: { organizationCode: string; accountId: string; merchantReference: string }, leg: DryRunLeg, initialStatus: string): Promise<string> {
  const workflowId = pairingWorkflowId(pair.accountId, pair.merchantReference);
  const input: DryRunPairInput = { ...pair, pairingTimeoutSeconds: deps.config.dryRun.pairingTimeoutSeconds, settleSeconds: deps.config.dryRun.settleSeconds };
  await deps.temporal.workflow.signalWithStart('dryRunPairWorkflow', {
    workflowId,
    taskQueue: deps.config.taskQueue,
    args: [input],
    signal: 'dryRunLeg',
    signalArgs: [leg],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    typedSearchAttributes: new TypedSearchAttributes([
      { key: key.account, value: pair.accountId },
      { key: key.reference, value: pair.merchantReference },
      { key: key.type, value: 'dry_run' },
      { key: key.organization, value: pair.organizationCode },
      { key: key.status, value: initialStatus },
      // The registration id when its leg starts the workflow; else the workflow sets it when the registration arrives.
      ...(leg.kind === 'registration' ? [{ key: key.id, value: leg.id }] : []),
    ]),
  });
  return workflowId;
}

export interface OwedPairingSignal {
  organizationCode: string;
  accountId: string;
  merchantReference: string;
  leg: DryRunLeg;
  initialStatus: string;
}

export class PairingSignalPump {
  private readonly queue: PairingSignalDoc[] = [];
  private readonly queued = new Set<string>();
  private running = 0;
  private sweeper: NodeJS.Timeout | null = null;
  private idle: Array<() => void> = [];
  private stopped = false;

  constructor(private readonly deps: AppDeps, private readonly logger: Logger = deps.logger) {}

  /** Stores the signal (durable once this returns), then queues its delivery. */
  async owe(signal: OwedPairingSignal): Promise<void> {
    this.deliver(await this.store(signal));
  }

  /** Stores the signal without delivering it yet (for a leg stored at the same time: `deliver` once both are). */
  async store(signal: OwedPairingSignal): Promise<PairingSignalDoc> {
    const now = new Date();
    const doc: PairingSignalDoc = {
      _id: `${signal.leg.kind}:${signal.leg.id}`,
      organization_code: signal.organizationCode,
      account_id: signal.accountId,
      merchant_reference: signal.merchantReference,
      leg: signal.leg,
      initial_status: signal.initialStatus,
      created_at: now,
      claimed_until: new Date(now.getTime() + this.deps.config.dryRun.signalLeaseMs),
    };
    await owePairingSignal(this.deps.db, doc);
    return doc;
  }

  /** Queues the delivery of a stored signal; it starts after the current request has answered. */
  deliver(doc: PairingSignalDoc): void {
    if (this.queued.has(doc._id)) return;
    this.queued.add(doc._id);
    this.queue.push(doc);
    // Preparing a signal-with-start (payload encoding and encryption) is synchronous work:
    // deferred, it does not delay the answer being written.
    setImmediate(() => this.drain());
  }

  /** Sweeps for lapsed signals every quarter lease, and once now. */
  start(): void {
    const every = Math.max(250, Math.floor(this.deps.config.dryRun.signalLeaseMs / 4));
    this.sweeper = setInterval(() => void this.sweep(), every);
    this.sweeper.unref();
    void this.sweep();
  }

  /**
   * Stops sweeping and waits for the deliveries under way and queued, at most `graceMs`: what
   * is left stays stored and is delivered by another API process (or this one, restarted).
   */
  async stop(graceMs = 5_000): Promise<void> {
    this.stopped = true;
    if (this.sweeper) clearInterval(this.sweeper);
    if (this.running === 0 && this.queue.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.idle.push(resolve)),
      new Promise<void>((resolve) => { timer = setTimeout(resolve, graceMs); }),
    ]);
    clearTimeout(timer);
  }

  async sweep(): Promise<void> {
    if (this.stopped) return;
    try {
      const claimed = await claimLapsedPairingSignals(this.deps.db, this.deps.config.dryRun.signalLeaseMs, 100);
      for (const doc of claimed) this.deliver(doc);
    } catch (error) {
      this.logger.warn({ err: error }, 'could not sweep the owed dry-run pairing signals; retrying at the next sweep');
    }
  }

  private drain(): void {
    while (this.running < this.deps.config.dryRun.signalConcurrency && this.queue.length) {
      const doc = this.queue.shift()!;
      this.running++;
      void this.signal(doc).finally(() => {
        this.running--;
        this.queued.delete(doc._id);
        this.drain();
        if (this.running === 0 && this.queue.length === 0) this.idle.splice(0).forEach((resolve) => resolve());
      });
    }
  }

  private async signal(doc: PairingSignalDoc): Promise<void> {
    try {
      await signalPairing(this.deps, { organizationCode: doc.organization_code, accountId: doc.account_id, merchantReference: doc.merchant_reference }, doc.leg, doc.initial_status);
      await forgetPairingSignal(this.deps.db, doc._id);
    } catch (error) {
      // Stays stored: a sweep delivers it once its claim lapses.
      this.logger.warn({ err: error, signal: doc._id }, 'could not deliver a dry-run pairing signal; it stays owed');
    }
  }
}
