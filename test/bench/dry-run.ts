/**
 * `npm run bench:dry-run`: against the real stack started by scripts/bench.js.
 *  1. registration throughput and latency under concurrency, beside a bare Koa route doing
 *     the same MongoDB insert (same process, same run), and their ratio;
 *  2. the pipeline (decode + redact + validate) on a 1 MB provider body;
 *  3. the time from the second leg to a ready report.
 * Options: --requests N (default 400) --concurrency C (default 16) --pairs P (default 20).
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import pino from 'pino';
import { startApi } from '../../api/server';
import { startWorker } from '../../activities/worker';
import { createMerchant } from '../../activities/repositories/merchants';
import { loadConfig } from '../../activities/runtime/config';
import { loadKeyring } from '../../activities/runtime/keys';
import { connectMongo } from '../../activities/runtime/mongo';
import { ingestEvents } from '../../domain/dry-run/decode';
import { runPipeline } from '../../domain/dry-run/pipeline';
import { SANDBOX_PROFILE } from '../../domain/dry-run/profiles';
import { organizationRedactor } from '../../domain/dry-run/redact';
import { requestEvent, responseEvent, sandboxRequestBody, serviceRequest } from '../support/dry-run-fixtures';
import { registrationBody } from '../support/dry-run';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

async function load(total: number, concurrency: number, request: (i: number) => Promise<boolean>) {
  const latencies: number[] = [];
  let issued = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (issued < total) {
      const i = issued++;
      const t0 = performance.now();
      if (!(await request(i).catch(() => false))) errors++;
      latencies.push(performance.now() - t0);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, errors, perSecond: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

const fmt = (n: number, d = 1) => n.toFixed(d);

async function main() {
  const total = arg('requests', 400);
  const concurrency = arg('concurrency', 16);
  const pairs = arg('pairs', 20);
  const base = loadConfig();
  const config = { ...base, port: 0, rateLimit: { points: 1_000_000, windowSeconds: 60 } };
  const logger = pino({ level: 'silent' });
  const keyring = loadKeyring(config.dataDir);
  const mongo = await connectMongo(config.mongodbUri, config.mongodbDb);
  const worker = await startWorker({ config, keyring, logger, mongo });
  const api = await startApi({ config, keyring, logger, db: mongo.db });
  const merchant = await createMerchant(mongo.db, 'Bench merchant');
  const headers = { 'content-type': 'application/json', 'public-api-key': merchant.public_api_key, 'private-secret-key': merchant.private_secret_key };

  // Baseline: a bare Koa route parsing the same JSON and doing the same insert.
  const bare = new Koa();
  bare.use(bodyParser({ jsonLimit: '16mb' }));
  bare.use(async (ctx) => {
    await mongo.db.collection('bench_bare_inserts').insertOne({ ...(ctx.request.body as object), created_at: new Date() });
    ctx.status = 201;
    ctx.body = { ok: true };
  });
  const bareServer: Server = bare.listen(0, '127.0.0.1');
  await once(bareServer, 'listening');
  const bareUrl = `http://127.0.0.1:${(bareServer.address() as { port: number }).port}`;
  const run = `${Date.now().toString(36)}`;
  const body = (i: number, prefix: string) => JSON.stringify(registrationBody(`${prefix}-${run}-${i}`));
  process.stderr.write(`registration body: ${body(0, 'x').length} bytes; ${total} requests, concurrency ${concurrency}\n`);

  // warm-up of both paths
  await load(40, 4, async (i) => (await fetch(`${api.url}/v1/dry-run/provider-events`, { method: 'POST', headers, body: body(i, 'warm') })).status === 201);
  await load(40, 4, async (i) => (await fetch(bareUrl, { method: 'POST', headers, body: body(i, 'warmbare') })).status === 201);

  const baseline = await load(total, concurrency, async (i) => (await fetch(bareUrl, { method: 'POST', headers, body: body(i, 'bare') })).status === 201);
  const subject = await load(total, concurrency, async (i) => (await fetch(`${api.url}/v1/dry-run/provider-events`, { method: 'POST', headers, body: body(i, 'reg') })).status === 201);

  // Pipeline on a 1 MB provider body (decode + redact + validate), in process.
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
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

  // Second leg -> ready report, through the API and the workflow.
  const toReport: number[] = [];
  for (let i = 0; i < pairs; i++) {
    const reference = `pair-${run}-${i}`;
    const reg = await (await fetch(`${api.url}/v1/dry-run/provider-events`, { method: 'POST', headers, body: JSON.stringify(registrationBody(reference)) })).json() as { id: string };
    const payment = { ...serviceRequest({ account_id: merchant.account_id, merchant_order_id: reference }) };
    const t0 = performance.now();
    const answer = await fetch(`${api.url}/v1/payments`, { method: 'POST', headers: { ...headers, 'Dry-run': 'true' }, body: JSON.stringify(payment) });
    if (answer.status !== 201) throw new Error(`dry-run payment answered ${answer.status}: ${await answer.text()}`);
    for (;;) {
      const r = await (await fetch(`${api.url}/v1/dry-run/provider-events/${reg.id}`, { headers })).json() as { status: string };
      if (r.status === 'VALIDATED') break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    toReport.push(performance.now() - t0);
  }
  toReport.sort((a, b) => a - b);

  const lines = [
    '',
    `dry-run benchmark (${total} registrations, concurrency ${concurrency}; ${pairs} pairs)`,
    `  registration   ${fmt(subject.perSecond)} req/s   p50 ${fmt(subject.p50)} ms   p99 ${fmt(subject.p99)} ms   errors ${subject.errors}`,
    `  bare Koa insert ${fmt(baseline.perSecond)} req/s   p50 ${fmt(baseline.p50)} ms   p99 ${fmt(baseline.p99)} ms   errors ${baseline.errors}`,
    `  ratio          throughput ${fmt(subject.perSecond / baseline.perSecond, 2)}x of baseline; p99 ${fmt(subject.p99 / baseline.p99, 2)}x of baseline`,
    `  1 MB body (${bodyBytes} bytes JSON): ingest (base64, parse, redact) median ${fmt(median(timings.ingest))} ms; validation median ${fmt(median(timings.profile))} ms (profile), ${fmt(median(timings.generic))} ms (generic)`,
    `  second leg -> ready report: median ${fmt(percentile(toReport, 50))} ms, p99 ${fmt(percentile(toReport, 99))} ms (max of ${pairs})`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
  bareServer.close();
  await api.close();
  await worker.shutdown();
  await mongo.client.close();
}

main().then(() => process.exit(0), (error) => {
  console.error(error);
  process.exit(1);
});
