/**
 * Recorded workflow histories, replayed by `npm test` against the current workflow code so
 * that a change which would break workflows already running fails before it ships.
 *
 * `npm run record:histories` runs the whole suite and then keeps, per workflow type, the
 * longest histories it produced (the ones with the most concurrent operations, retries and
 * cycles) under test/fixtures/histories/<release>/, as the history's protobuf encoding in
 * base64. Payloads are decrypted when recorded: the fixtures hold synthetic test data only
 * and replay with the default data converter.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { EncryptionCodec } from '../../activities/runtime/payload-codec';
import type { Keyring } from '../../domain/crypto';

type History = temporal.api.history.v1.IHistory;
const HistoryMessage = temporal.api.history.v1.History;

export const HISTORY_FIXTURES = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'histories');

/** Workflow types whose histories must be among the fixtures: every entity lifecycle. */
export const LIFECYCLE_WORKFLOW_TYPES = [
  'paymentWorkflow',
  'subscriptionWorkflow',
  'dryRunPairWorkflow',
  'splitTransferWorkflow',
  'campaignWorkflow',
  'campaignEventWorkflow',
  'unreferencedRefundWorkflow',
  'bankingTransferWorkflow',
  'onboardingWorkflow',
  'enrollmentWorkflow',
  'reportWorkflow',
  'webhookDeliveryWorkflow',
];

const PER_TYPE = 3;
const MAX_EVENTS = 1_500;

export interface HistoryFixture {
  workflowId: string;
  workflowType: string;
  history: History;
}

export function loadHistoryFixtures(root = HISTORY_FIXTURES): HistoryFixture[] {
  if (!fs.existsSync(root)) return [];
  const fixtures: HistoryFixture[] = [];
  for (const release of fs.readdirSync(root).sort()) {
    const dir = path.join(root, release);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
      const { workflowId, workflowType, history } = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
      fixtures.push({ workflowId, workflowType, history: HistoryMessage.decode(Buffer.from(history, 'base64')) });
    }
  }
  return fixtures;
}

type PayloadLike = { metadata?: Record<string, Uint8Array>; data?: Uint8Array };

function isPayload(value: unknown): value is PayloadLike {
  return !!value && typeof value === 'object' && !!(value as PayloadLike).metadata && (value as PayloadLike).data instanceof Uint8Array;
}

/** Replaces, in place, every encrypted payload of a decoded history by its plaintext. */
async function decryptPayloads(node: unknown, codec: EncryptionCodec): Promise<void> {
  if (!node || typeof node !== 'object' || node instanceof Uint8Array) return;
  const slots = node as Record<string | number, unknown>;
  for (const key of Object.keys(slots)) {
    const value = slots[key];
    if (isPayload(value)) {
      const [plain] = await codec.decode([{ metadata: value.metadata, data: value.data }]);
      slots[key] = { metadata: plain.metadata, data: plain.data };
    } else {
      await decryptPayloads(value, codec);
    }
  }
}

/** Writes the longest histories of each workflow type this run produced into `<root>/<release>/`. */
export async function recordHistories(client: Client, keyring: Keyring, release: string, root = HISTORY_FIXTURES): Promise<string[]> {
  const codec = new EncryptionCodec(keyring);
  const dir = path.join(root, release);
  fs.mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const workflowType of LIFECYCLE_WORKFLOW_TYPES) {
    const candidates: { workflowId: string; runId: string; events: number }[] = [];
    for await (const execution of client.workflow.list({ query: `WorkflowType = '${workflowType}'` })) {
      if (execution.historyLength > MAX_EVENTS) continue;
      candidates.push({ workflowId: execution.workflowId, runId: execution.runId, events: execution.historyLength });
    }
    candidates.sort((a, b) => b.events - a.events || a.workflowId.localeCompare(b.workflowId));
    let index = 0;
    for (const candidate of candidates) {
      if (index === PER_TYPE) break;
      const history = await client.workflow.getHandle(candidate.workflowId, candidate.runId).fetchHistory();
      // Tests of key rotation run workflows under keyrings of their own: skip what this one cannot open.
      if (!(await decryptPayloads(history, codec).then(() => true, () => false))) continue;
      const encoded = Buffer.from(HistoryMessage.encode(HistoryMessage.fromObject(history)).finish()).toString('base64');
      const file = path.join(dir, `${workflowType}-${++index}.json`);
      fs.writeFileSync(file, `${JSON.stringify({ workflowId: candidate.workflowId, workflowType, events: candidate.events, history: encoded }, null, 1)}\n`);
      written.push(file);
    }
  }
  return written;
}
