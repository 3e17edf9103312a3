/**
 * bench:payments — every process on its own event loop: API, worker, sandbox gateway and
 * the bare baseline are separate processes; this one only generates load.
 *
 *  (1) POST /v1/payments (approved card, the gateway's fixed latency subtracted) against the
 *      ceiling: an update-with-start of a workflow that only answers, on the same Temporal,
 *      interleaved round by round at each load level.
 *  (2) GET /v1/payments/{id} against a bare Koa route doing the same findOne, in its own
 *      process, at each load level.
 *  (3) (1) again with two API processes and two workers, to show what scaling out gives.
 *
 * Bounded: each round lasts BENCH_ROUND_SECONDS (requests in flight finish) and sends at most
 * BENCH_MAX_PER_ROUND requests. Env: BENCH_LEVELS (default 1,4,16,64), BENCH_ROUNDS (2),
 * BENCH_GATEWAY_LATENCY_MS (25), BENCH_SCALE_OUT (true).
 */
import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { createMerchant } from '../../activities/repositories/merchants';
import { loadConfig } from '../../activities/runtime/config';
import { loadKeyring } from '../../activities/runtime/keys';
import { connectMongo } from '../../activities/runtime/mongo';
import { connectTemporalClient } from '../../activities/runtime/temporal';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import { probeAnswerUpdate } from '../../workflows/probe';
import { spawnApi, spawnServer, spawnWorker, SpawnedProcess } from '../support/processes';
import { load, LoadResult, merge, ms } from './support';

const LEVELS = (process.env.BENCH_LEVELS || '1,4,16,64').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 2);
const ROUND_MS = Number(process.env.BENCH_ROUND_SECONDS || 4) * 1000;
const MAX_PER_ROUND = Number(process.env.BENCH_MAX_PER_ROUND || 300);
const GATEWAY_LATENCY_MS = Number(process.env.BENCH_GATEWAY_LATENCY_MS || 25);
const SCALE_OUT = process.env.BENCH_SCALE_OUT !== 'false';

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
  const stopAll = () => Promise.all(processes.map((p) => p.stop()));
  try {
    const gateway = await spawnServer('activities/sandbox-gateway/server.js', 'sandbox gateway listening', { SANDBOX_GATEWAY_PORT: '0', SANDBOX_GATEWAY_LATENCY_MS: String(GATEWAY_LATENCY_MS) });
    processes.push(gateway);
    const taskQueue = `bench-${randomUUID()}`;
    const env = { SANDBOX_GATEWAY_URL: gateway.url, RATE_LIMIT_REQUESTS: '100000000', PAYMENT_SYNC_WAIT_MS: '30000', LOG_LEVEL: 'info' };
    const [worker, api, bare] = await Promise.all([
      spawnWorker(taskQueue, env),
      spawnApi(taskQueue, env),
      spawnServer('test/bench/bare-server.js', 'bare baseline listening', { PORT: '0', BARE_ORGANIZATION_CODE: merchant.organization_code, MONGODB_DB: config.mongodbDb }),
    ]);
    processes.push(worker, api, bare);
    const temporal = await connectTemporalClient({ ...config, taskQueue }, keyring);
    const headers = { 'content-type': 'application/json', 'public-api-key': merchant.public_api_key, 'private-secret-key': merchant.private_secret_key };
    const ids: string[] = [];
    let orderNumber = 0;

    const body = () => JSON.stringify({
      account_id: merchant.account_id, description: 'bench order', country: 'CO', merchant_order_id: `bench-${orderNumber++}`,
      amount: { currency: 'USD', value: 10 + (orderNumber % 90) }, customer_payer: { email: 'bench@example.com' },
      payment_method: { type: 'CARD', detail: { card: { number: TEST_CARDS.approved, holder_name: 'BENCH', expiration_month: 12, expiration_year: 2031, security_code: '123' } } },
    });
    const payOn = (urls: string[]) => async (i: number) => {
      const r = await fetch(`${urls[i % urls.length]}/v1/payments`, { method: 'POST', headers, body: body() });
      const p = (await r.json()) as { id: string; status: string };
      if (p.id) ids.push(p.id);
      return r.status === 201 && p.status === 'SUCCEEDED';
    };
    const probe = async () => {
      const startWorkflowOperation = new WithStartWorkflowOperation('roundTripProbeWorkflow', { workflowId: `probe-${randomUUID()}`, taskQueue, workflowIdConflictPolicy: 'FAIL' });
      return (await temporal.workflow.executeUpdateWithStart(probeAnswerUpdate, { startWorkflowOperation })) === 'ok';
    };
    const read = (url: string, path: (id: string) => string, withHeaders: boolean) => async (i: number) => {
      const r = await fetch(`${url}${path(ids[i % ids.length])}`, withHeaders ? { headers } : {});
      await r.arrayBuffer();
      return r.status === 200;
    };
    const round = (concurrency: number, request: (i: number) => Promise<boolean>) => load({ concurrency, durationMs: ROUND_MS, total: MAX_PER_ROUND }, request);
    /** Subject and baseline alternate round by round, so the machine's noise hits both alike. */
    const curve = async (subject: (i: number) => Promise<boolean>, baseline: (i: number) => Promise<boolean>): Promise<Level[]> => {
      const levels: Level[] = [];
      for (const concurrency of LEVELS) {
        const s: LoadResult[] = [];
        const b: LoadResult[] = [];
        for (let r = 0; r < ROUNDS; r++) {
          b.push(await round(concurrency, baseline));
          s.push(await round(concurrency, subject));
        }
        levels.push({ concurrency, subject: merge(s), baseline: merge(b) });
      }
      return levels;
    };

    const stage = (what: string) => process.stderr.write(`[bench:payments] ${what}\n`);
    // Warm-up (workflow bundles, pools, JIT), not measured.
    stage('warm-up');
    await load({ concurrency: 4, total: 24 }, payOn([api.url]));
    await load({ concurrency: 4, total: 24 }, probe);

    stage(`payments vs ceiling at ${LEVELS.join(', ')} concurrent`);
    const payments = await curve(payOn([api.url]), probe);
    stage('reads vs bare');
    const reads = await curve(read(api.url, (id) => `/v1/payments/${id}`, true), read(bare.url, (id) => `/payments/${id}`, false));
    let scaled: Level[] | null = null;
    if (SCALE_OUT) {
      const [worker2, api2] = await Promise.all([spawnWorker(taskQueue, env), spawnApi(taskQueue, env)]);
      processes.push(worker2, api2);
      stage('scale-out: two API processes, two workers');
      await load({ concurrency: 4, total: 12 }, payOn([api2.url]));
      scaled = await curve(payOn([api.url, api2.url]), probe);
    }

    const out: string[] = [''];
    out.push(`bench:payments — separate processes (API, worker, gateway, bare baseline); FerretDB at ${config.mongodbUri}; Temporal dev server; ${ROUNDS} interleaved rounds of ${ROUND_MS / 1000} s per level`);
    out.push('');
    const paymentTable = (title: string, levels: Level[]) => {
      out.push(title);
      out.push('  conc | ceiling: req/s   p50      p99     err | payment: req/s   p50*     p99*    err | p50 ×ceil  p99 ×ceil  thr ×ceil | p50 growth');
      const firstP50 = levels[0].subject.p50 - GATEWAY_LATENCY_MS;
      for (const { concurrency, subject, baseline } of levels) {
        const p50 = subject.p50 - GATEWAY_LATENCY_MS;
        const p99 = subject.p99 - GATEWAY_LATENCY_MS;
        out.push(
          `  ${String(concurrency).padStart(4)} | ${baseline.perSecond.toFixed(1).padStart(13)} ${ms(baseline.p50).padStart(9)} ${ms(baseline.p99).padStart(9)} ${String(baseline.errors).padStart(4)} | ` +
            `${subject.perSecond.toFixed(1).padStart(13)} ${ms(p50).padStart(9)} ${ms(p99).padStart(9)} ${String(subject.errors).padStart(4)} | ` +
            `${(p50 / baseline.p50).toFixed(2).padStart(8)}x ${(p99 / baseline.p99).toFixed(2).padStart(9)}x ${(subject.perSecond / baseline.perSecond).toFixed(2).padStart(9)}x | ${(p50 / firstP50).toFixed(2)}x`,
        );
      }
      out.push(`  * gateway fixed latency (${GATEWAY_LATENCY_MS} ms) subtracted; ceiling = update-with-start of roundTripProbeWorkflow; errors = not 201 SUCCEEDED`);
      out.push('');
    };
    paymentTable('(1) POST /v1/payments vs the Temporal ceiling, one API process and one worker', payments);
    out.push('(2) GET /v1/payments/{id} vs a bare Koa findOne in its own process');
    out.push('  conc | bare: req/s   p50      p99     err | API: req/s   p50      p99     err | thr ×bare  p99 ×bare');
    for (const { concurrency, subject, baseline } of reads) {
      out.push(
        `  ${String(concurrency).padStart(4)} | ${baseline.perSecond.toFixed(0).padStart(10)} ${ms(baseline.p50).padStart(9)} ${ms(baseline.p99).padStart(9)} ${String(baseline.errors).padStart(4)} | ` +
          `${subject.perSecond.toFixed(0).padStart(9)} ${ms(subject.p50).padStart(9)} ${ms(subject.p99).padStart(9)} ${String(subject.errors).padStart(4)} | ${(subject.perSecond / baseline.perSecond).toFixed(2).padStart(8)}x ${(subject.p99 / baseline.p99).toFixed(2).padStart(9)}x`,
      );
    }
    out.push('');
    if (scaled) paymentTable('(3) POST /v1/payments vs the ceiling, two API processes and two workers (requests alternate between the APIs)', scaled);
    process.stdout.write(out.join('\n'));
    await temporal.connection.close();
    const errors = [...payments, ...reads, ...(scaled ?? [])].reduce((sum, l) => sum + l.subject.errors + l.baseline.errors, 0);
    process.exitCode = errors > 0 ? 1 : 0;
  } finally {
    await stopAll();
    await mongo.client.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
