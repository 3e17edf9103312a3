/**
 * `npm run bench:dry-run`: against the private stack started by scripts/bench.js, with the
 * API, the worker and the bare baseline each in a process of its own (this one only
 * generates load).
 *  (1) POST /v1/dry-run/provider-events as a load curve (BENCH_LEVELS, default 1,4,16)
 *      beside a bare Koa route parsing the same JSON and doing one insert, in its own
 *      process; rounds alternate so the machine's noise hits both alike; then it waits for the
 *      pairing signals the registrations stored to be delivered and for API and worker to go
 *      quiet, and prints how long that took, so the next stages are not measured beside it;
 *  (2) the pipeline (decode + redact + validate) on a 1 MB provider body, in process;
 *  (3) second leg -> ready report, on an empty database and again after BENCH_STORED
 *      (default 10,000) further registrations are stored, to show whether it stays flat.
 * Bounded: each round lasts BENCH_ROUND_SECONDS (4) and sends at most BENCH_MAX_PER_ROUND
 * (300) requests; BENCH_ROUNDS (2) per level; BENCH_PAIRS (20) pairs per report stage.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { createMerchant } from '../../activities/repositories/merchants';
import { dryRunPayments, latestDryRunPayments, pairingSignals, referenceClaims, referenceKey, registrations } from '../../activities/repositories/dry-run';
import { loadConfig } from '../../activities/runtime/config';
import { loadKeyring } from '../../activities/runtime/keys';
import { connectMongo } from '../../activities/runtime/mongo';
import { ingestEvents } from '../../domain/dry-run/decode';
import { runPipeline } from '../../domain/dry-run/pipeline';
import { SANDBOX_PROFILE } from '../../domain/dry-run/profiles';
import { organizationRedactor } from '../../domain/dry-run/redact';
import { requestEvent, responseEvent, sandboxRequestBody, serviceRequest } from '../support/dry-run-fixtures';
import { registrationBody } from '../support/dry-run';
import { spawnApi, spawnServer, spawnWorker, SpawnedProcess } from '../support/processes';
import { load, LoadResult, merge, ms, percentile, untilQuiet } from './support';

const LEVELS = (process.env.BENCH_LEVELS || '1,4,16').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 2);
const ROUND_MS = Number(process.env.BENCH_ROUND_SECONDS || 4) * 1000;
const MAX_PER_ROUND = Number(process.env.BENCH_MAX_PER_ROUND || 300);
const PAIRS = Number(process.env.BENCH_PAIRS || 20);
const STORED = Number(process.env.BENCH_STORED || 10_000);

const stage = (what: string) => process.stderr.write(`[bench:dry-run] ${what}\n`);
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

/** Stores `count` copies of a real registration (with its claim, dry-run payment and pointer), as if registered. */
async function storeCopies(db: Db, template: { registrationId: string; paymentId: string }, count: number, run: string): Promise<void> {
  const registration = (await registrations(db).findOne({ _id: template.registrationId }))!;
  const payment = (await dryRunPayments(db).findOne({ _id: template.paymentId }))!;
  const batch = 500;
  for (let start = 0; start < count; start += batch) {
    const size = Math.min(batch, count - start);
    const copies = Array.from({ length: size }, (_, k) => {
      const reference = `stored-${run}-${start + k}`;
      const id = `st${run}${start + k}`.slice(0, 21).padEnd(21, 'x');
      const paymentId = randomUUID();
      const claim = referenceKey(registration.account_id, reference);
      return {
        registration: { ...registration, _id: id, merchant_reference: reference, dry_run_payment_id: paymentId, workflow_id: `dry-run:${registration.account_id}:${reference}` },
        claim: { _id: claim, registration_id: id, organization_code: registration.organization_code, created_at: new Date() },
        payment: { ...payment, _id: paymentId, merchant_reference: reference, registration_id: id },
        pointer: { _id: claim, payment_id: paymentId, created_at: new Date() },
      };
    });
    await registrations(db).insertMany(copies.map((c) => c.registration));
    await referenceClaims(db).insertMany(copies.map((c) => c.claim));
    await dryRunPayments(db).insertMany(copies.map((c) => c.payment));
    await latestDryRunPayments(db).insertMany(copies.map((c) => c.pointer));
  }
}

interface Level {
  concurrency: number;
  subject: LoadResult;
  baseline: LoadResult;
}

async function main() {
  const config = loadConfig();
  const keyring = loadKeyring(config.dataDir);
  const mongo = await connectMongo(config.mongodbUri, config.mongodbDb);
  const merchant = await createMerchant(mongo.db, 'Bench merchant');
  const processes: SpawnedProcess[] = [];
  try {
    const taskQueue = `bench-${randomUUID()}`;
    const env = { RATE_LIMIT_REQUESTS: '100000000', LOG_LEVEL: 'info' };
    const [worker, api, bare] = await Promise.all([
      spawnWorker(taskQueue, env),
      spawnApi(taskQueue, env),
      spawnServer('test/bench/bare-server.js', 'bare baseline listening', { PORT: '0', BARE_MODE: 'insert', BARE_ORGANIZATION_CODE: merchant.organization_code, MONGODB_DB: config.mongodbDb }),
    ]);
    processes.push(worker, api, bare);
    const headers = { 'content-type': 'application/json', 'public-api-key': merchant.public_api_key, 'private-secret-key': merchant.private_secret_key };
    const run = Date.now().toString(36);
    const body = (i: number, prefix: string) => JSON.stringify(registrationBody(`${prefix}-${run}-${i}`));
    const post = (url: string, prefix: string) => async (i: number) => (await fetch(url, { method: 'POST', headers, body: body(i, prefix) }).then(async (r) => (await r.arrayBuffer(), r.status))) === 201;
    const registrationUrl = `${api.url}/v1/dry-run/provider-events`;

    stage('warm-up');
    await load({ concurrency: 4, total: 40 }, post(registrationUrl, 'warm'));
    await load({ concurrency: 4, total: 40 }, post(bare.url, 'warmbare'));

    stage(`registrations vs bare insert at ${LEVELS.join(', ')} concurrent`);
    const levels: Level[] = [];
    for (const concurrency of LEVELS) {
      const s: LoadResult[] = [];
      const b: LoadResult[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        b.push(await load({ concurrency, durationMs: ROUND_MS, total: MAX_PER_ROUND }, post(bare.url, `bare${concurrency}r${r}`)));
        s.push(await load({ concurrency, durationMs: ROUND_MS, total: MAX_PER_ROUND }, post(registrationUrl, `reg${concurrency}r${r}`)));
      }
      levels.push({ concurrency, subject: merge(s), baseline: merge(b) });
    }

    // The registrations' pairing signals are delivered after their answers (a stored backlog):
    // let it drain before the next stage, so that stage is not measured beside it.
    stage('pairing signals owed by the registrations: waiting for delivery');
    const drainStarted = Date.now();
    while ((await pairingSignals(mongo.db).countDocuments({})) > 0 && Date.now() - drainStarted < 300_000) await new Promise((r) => setTimeout(r, 200));
    const drainMs = Date.now() - drainStarted;
    const undelivered = await pairingSignals(mongo.db).countDocuments({});
    // ...and the pairing workflows those signals started, so the next stages run on a quiet worker.
    const settleMs = await untilQuiet([worker.child.pid!, api.child.pid!]);

    stage('pipeline on a 1 MB body');
    const items = Array.from({ length: 11_000 }, (_, i) => ({ sku: `SKU-${i}`, name: `Item number ${i}`, qty: i % 5, price: { amount: 1000 + i, currency: 'BRL' } }));
    const big = sandboxRequestBody({ reference: 'order-1001', items });
    const events = [requestEvent(big, { endpoint: '/v1/authorizations' }), responseEvent()];
    const bodyBytes = JSON.stringify(big).length;
    const redactor = organizationRedactor(keyring, merchant.organization_code);
    const timings = { ingest: [] as number[], profile: [] as number[], generic: [] as number[] };
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      const result = ingestEvents(events, redactor);
      const t1 = performance.now();
      if (!result.ok) throw new Error(result.message);
      const service = redactor.value(serviceRequest()) as Record<string, unknown>;
      runPipeline({ serviceRequest: service, events: result.events, profile: SANDBOX_PROFILE });
      const t2 = performance.now();
      runPipeline({ serviceRequest: service, events: result.events, profile: null });
      const t3 = performance.now();
      timings.ingest.push(t1 - t0);
      timings.profile.push(t2 - t1);
      timings.generic.push(t3 - t2);
    }

    /** Registration first, then the dry-run payment: from the payment's answer to the stored report. */
    const pairs = async (label: string) => {
      const latencies: number[] = [];
      let last = { registrationId: '', paymentId: '' };
      for (let i = 0; i < PAIRS; i++) {
        const reference = `pair-${label}-${run}-${i}`;
        const reg = (await (await fetch(registrationUrl, { method: 'POST', headers, body: JSON.stringify(registrationBody(reference)) })).json()) as { id: string };
        const payment = serviceRequest({ account_id: merchant.account_id, merchant_order_id: reference });
        const t0 = performance.now();
        const answer = await fetch(`${api.url}/v1/payments`, { method: 'POST', headers: { ...headers, 'Dry-run': 'true' }, body: JSON.stringify(payment) });
        if (answer.status !== 201) throw new Error(`dry-run payment answered ${answer.status}: ${await answer.text()}`);
        const paymentId = ((await answer.json()) as { id: string }).id;
        for (;;) {
          const r = (await (await fetch(`${registrationUrl}/${reg.id}`, { headers })).json()) as { status: string };
          if (r.status === 'VALIDATED') break;
          if (performance.now() - t0 > 60_000) throw new Error(`registration ${reg.id} not VALIDATED within 60 s`);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        latencies.push(performance.now() - t0);
        last = { registrationId: reg.id, paymentId };
      }
      return { sorted: latencies.sort((a, b) => a - b), last };
    };
    stage('second leg -> report, few registrations stored');
    const before = await pairs('empty');
    const storedBefore = await registrations(mongo.db).countDocuments({});
    stage(`storing ${STORED} registrations`);
    await storeCopies(mongo.db, before.last, STORED, run);
    const storedAfter = await registrations(mongo.db).countDocuments({});
    stage('second leg -> report, after storing');
    const after = await pairs('stored');

    const out: string[] = [''];
    out.push(`bench:dry-run — separate processes (API, worker, bare baseline); FerretDB at ${config.mongodbUri}; ${ROUNDS} interleaved rounds of ${ROUND_MS / 1000} s per level`);
    out.push(`registration body ${body(0, 'x').length} bytes (sandbox REQUEST + RESPONSE)`);
    out.push('');
    out.push('(1) POST /v1/dry-run/provider-events vs a bare Koa JSON insert in its own process');
    out.push('  conc | bare: req/s   p50      p99     err | API: req/s   p50      p99     err | thr ×bare  p99 ×bare');
    for (const { concurrency, subject, baseline } of levels) {
      out.push(
        `  ${String(concurrency).padStart(4)} | ${baseline.perSecond.toFixed(1).padStart(10)} ${ms(baseline.p50).padStart(9)} ${ms(baseline.p99).padStart(9)} ${String(baseline.errors).padStart(4)} | ` +
          `${subject.perSecond.toFixed(1).padStart(9)} ${ms(subject.p50).padStart(9)} ${ms(subject.p99).padStart(9)} ${String(subject.errors).padStart(4)} | ${(subject.perSecond / baseline.perSecond).toFixed(2).padStart(8)}x ${(subject.p99 / baseline.p99).toFixed(2).padStart(9)}x`,
      );
    }
    out.push('');
    out.push(`    pairing signals owed after the last round delivered within ${(drainMs / 1000).toFixed(1)} s${undelivered ? ` (${undelivered} still owed after 300 s)` : ''}; API and worker quiet ${(settleMs / 1000).toFixed(1)} s later`);
    out.push('');
    out.push(`(2) 1 MB body (${bodyBytes} bytes JSON), median of 7: ingest (base64, parse, redact) ${ms(median(timings.ingest))}; validation ${ms(median(timings.profile))} (profile), ${ms(median(timings.generic))} (generic)`);
    out.push('');
    out.push('(3) second leg (dry-run payment) -> report VALIDATED, sequential pairs');
    const line = (label: string, r: { sorted: number[] }, stored: number) => `  ${label.padEnd(34)} ${String(stored).padStart(6)} stored | p50 ${ms(percentile(r.sorted, 50)).padStart(9)}  p99 ${ms(percentile(r.sorted, 99)).padStart(9)}  (${r.sorted.length} pairs)`;
    out.push(line('before storing', before, storedBefore));
    out.push(line(`after storing ${STORED} more`, after, storedAfter));
    out.push(`  growth: p50 ${(percentile(after.sorted, 50) / percentile(before.sorted, 50)).toFixed(2)}x, p99 ${(percentile(after.sorted, 99) / percentile(before.sorted, 99)).toFixed(2)}x`);
    out.push('');
    process.stdout.write(out.join('\n'));
    const errors = levels.reduce((sum, l) => sum + l.subject.errors + l.baseline.errors, 0);
    process.exitCode = errors > 0 ? 1 : 0;
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
    await mongo.client.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
