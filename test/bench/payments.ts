/**
 * bench:payments
 *  (a) GET /v1/payments/{id} (auth, rate limit, MongoDB read, rendering) against a bare Koa
 *      route doing the same MongoDB read on the same database, same run, same load.
 *  (b) POST /v1/payments latency minus the sandbox gateway's fixed latency: what routing,
 *      the workflow, activities, vault and read-model writes add on top of the provider.
 * Everything (API, worker, gateway, load generator) runs in this one process against the
 * Temporal dev server and FerretDB started by scripts/bench.js.
 */
import { once } from 'node:events';
import Koa from 'koa';
import { startApi } from '../../api/server';
import { startWorker } from '../../activities/worker';
import { createMerchant } from '../../activities/repositories/merchants';
import { loadConfig } from '../../activities/runtime/config';
import { loadKeyring } from '../../activities/runtime/keys';
import { createLogger } from '../../activities/runtime/logger';
import { connectMongo } from '../../activities/runtime/mongo';
import { startSandboxGateway } from '../../activities/sandbox-gateway/server';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import { load, merge, ms } from './support';

const GATEWAY_LATENCY_MS = Number(process.env.BENCH_GATEWAY_LATENCY_MS || 25);
const READ_SECONDS = Number(process.env.BENCH_READ_SECONDS || 8);
const READ_CONCURRENCY = Number(process.env.BENCH_READ_CONCURRENCY || 4);
const CREATE_COUNT = Number(process.env.BENCH_CREATE_COUNT || 120);
const CREATE_CONCURRENCY = Number(process.env.BENCH_CREATE_CONCURRENCY || 4);

async function main() {
  const logger = createLogger('silent');
  const gateway = await startSandboxGateway({ latencyMs: GATEWAY_LATENCY_MS });
  const config = { ...loadConfig(), port: 0, sandboxGatewayUrl: gateway.url, rateLimit: { points: 10_000_000, windowSeconds: 60 }, paymentSyncWaitMs: 30_000 };
  const keyring = loadKeyring(config.dataDir);
  const mongo = await connectMongo(config.mongodbUri, config.mongodbDb);
  const worker = await startWorker({ config, keyring, logger, mongo });
  const api = await startApi({ config, keyring, logger, db: mongo.db });
  const merchant = await createMerchant(mongo.db, 'Bench merchant');
  const headers = { 'content-type': 'application/json', 'public-api-key': merchant.public_api_key, 'private-secret-key': merchant.private_secret_key };

  const body = (i: number) => JSON.stringify({
    account_id: merchant.account_id, description: 'bench order', country: 'CO', merchant_order_id: `bench-${i}`,
    amount: { currency: 'USD', value: 10 + (i % 90) }, customer_payer: { email: 'bench@example.com' },
    payment_method: { type: 'CARD', detail: { card: { number: TEST_CARDS.approved, holder_name: 'BENCH', expiration_month: 12, expiration_year: 2031, security_code: '123' } } },
  });

  // Warm up (workflow bundle, connection pools, JIT), not measured.
  const ids: string[] = [];
  await load({ concurrency: 4, total: 20 }, async (i) => {
    const r = await fetch(`${api.url}/v1/payments`, { method: 'POST', headers, body: body(100_000 + i) });
    ids.push(((await r.json()) as { id: string }).id);
    return r.status === 201;
  });

  // (b) creation latency minus the gateway's fixed latency
  const create = await load({ concurrency: CREATE_CONCURRENCY, total: CREATE_COUNT }, async (i) => {
    const r = await fetch(`${api.url}/v1/payments`, { method: 'POST', headers, body: body(i) });
    const p = (await r.json()) as { id: string; status: string };
    ids.push(p.id);
    return r.status === 201 && p.status === 'SUCCEEDED';
  });
  const added = create.latencies.map((l) => l - GATEWAY_LATENCY_MS);

  // (a) reads: the API route vs a bare Koa route doing the same findOne
  const bare = new Koa();
  const payments = mongo.db.collection('payments');
  bare.use(async (ctx) => {
    const doc = await payments.findOne({ _id: ctx.path.split('/').pop() as never, organization_code: merchant.organization_code });
    ctx.body = doc;
  });
  const bareServer = bare.listen(0, '127.0.0.1');
  await once(bareServer, 'listening');
  const bareUrl = `http://127.0.0.1:${(bareServer.address() as { port: number }).port}`;
  const pick = (i: number) => ids[i % ids.length];
  const statuses: Record<string, number> = {};
  const readApi = () => load({ concurrency: READ_CONCURRENCY, durationMs: (READ_SECONDS * 1000) / 4 }, async (i) => {
    const r = await fetch(`${api.url}/v1/payments/${pick(i)}`, { headers });
    await r.arrayBuffer();
    statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    return r.status === 200;
  });
  const readBare = () => load({ concurrency: READ_CONCURRENCY, durationMs: (READ_SECONDS * 1000) / 4 }, async (i) => {
    const r = await fetch(`${bareUrl}/payments/${pick(i)}`);
    await r.arrayBuffer();
    return r.status === 200;
  });
  // Interleaved rounds, so background work and a shared machine's noise hit both alike.
  const apiRounds = [];
  const bareRounds = [];
  for (let round = 0; round < 4; round++) {
    apiRounds.push(await readApi());
    bareRounds.push(await readBare());
  }
  const apiRead = merge(apiRounds);
  const bareRead = merge(bareRounds);

  const lines = [
    '',
    `bench:payments (one process: API + worker + gateway + load; ${process.env.MONGODB_URI ? 'FerretDB' : 'MongoDB'}; Temporal dev server)`,
    '',
    `(a) GET /v1/payments/{id}, ${READ_CONCURRENCY} concurrent callers, ${READ_SECONDS} s each, ${ids.length} payments`,
    `    Switchyard route : ${apiRead.perSecond.toFixed(0)} req/s, p50 ${ms(apiRead.p50)}, p99 ${ms(apiRead.p99)}, errors ${apiRead.errors}`,
    `    bare Koa findOne : ${bareRead.perSecond.toFixed(0)} req/s, p50 ${ms(bareRead.p50)}, p99 ${ms(bareRead.p99)}, errors ${bareRead.errors}`,
    `    API statuses     : ${JSON.stringify(statuses)}`,
    `    ratio            : throughput ${(apiRead.perSecond / bareRead.perSecond).toFixed(2)}x of bare, p99 ${(apiRead.p99 / bareRead.p99).toFixed(2)}x of bare`,
    '',
    `(b) POST /v1/payments (approved card), ${CREATE_CONCURRENCY} concurrent callers, ${CREATE_COUNT} payments, gateway fixed latency ${GATEWAY_LATENCY_MS} ms`,
    `    end to end       : p50 ${ms(create.p50)}, p99 ${ms(create.p99)}, ${create.perSecond.toFixed(1)} payments/s, errors ${create.errors}`,
    `    added by service : p50 ${ms(added[Math.ceil(added.length * 0.5) - 1])}, p99 ${ms(added[Math.ceil(added.length * 0.99) - 1])}`,
    '',
  ];
  process.stdout.write(lines.join('\n'));

  bareServer.close();
  await api.close();
  await worker.shutdown();
  await mongo.client.close();
  await gateway.close();
  process.exit(create.errors + apiRead.errors + bareRead.errors > 0 ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
