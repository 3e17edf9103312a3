/**
 * `npm run bench:banking`: per-request latency of the banking endpoints on the real stack
 * (sequential requests), beside a baseline in the same run: a bare Koa route doing the same
 * MongoDB read over HTTP, and POST /v1/pings (one workflow with one activity).
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import { call, getStack, newMerchant, stopStack } from '../support/stack';
import { load, LoadResult } from './support';

const ROUNDS = Number(process.env.BENCH_ROUNDS || 200);

async function measure(request: () => Promise<unknown>): Promise<LoadResult> {
  await load({ concurrency: 1, total: 10 }, async () => (await request(), true)); // warm-up
  return load({ concurrency: 1, total: ROUNDS }, async () => (await request(), true));
}

async function main(): Promise<void> {
  const stack = await getStack();
  const merchant = await newMerchant('Bench merchant');
  const account = await call('/v1/banking/accounts', { body: { account_id: merchant.account_id, currency: 'USD', region: 'US', provider: 'SANDBOX_BANK' }, credentials: merchant });
  const transferBody = () => ({
    account_id: merchant.account_id, source_account_id: account.body.id, direction: 'OUTGOING', amount: { value: 10, currency: 'USD' },
    payment_rail: 'RTP', destination_account: { account_number: '123456789', routing_number: '021000021' },
  });
  const first = await call('/v1/banking/transfers', { body: transferBody(), credentials: merchant, headers: { 'x-idempotency-key': randomUUID() } });

  const bare = new Koa();
  bare.use(async (ctx) => {
    ctx.body = await stack.db.collection('banking_accounts').findOne({ _id: account.body.id });
  });
  const server = bare.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const bareUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const baseline = await measure(() => fetch(`${bareUrl}/`).then((r) => r.text()));
    const rows: Record<string, LoadResult> = {
      'baseline (bare Koa + findOne)': baseline,
      'GET transfer': await measure(() => call(`/v1/banking/accounts/${merchant.account_id}/transfers/${first.body.id}`, { credentials: merchant })),
      'POST ping (workflow, 1 activity)': await measure(() => call('/v1/pings', { body: { message: 'bench' }, credentials: merchant })),
      'POST transfer (202)': await measure(() => call('/v1/banking/transfers', { body: transferBody(), credentials: merchant, headers: { 'x-idempotency-key': randomUUID() } })),
    };
    console.log(`\nbench:banking (sequential, ${ROUNDS} requests each)`);
    for (const [name, r] of Object.entries(rows)) {
      console.log(`  ${name.padEnd(34)} median ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  median ratio to baseline ${(r.p50 / baseline.p50).toFixed(1)}x`);
    }
  } finally {
    server.close();
    await stopStack();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
