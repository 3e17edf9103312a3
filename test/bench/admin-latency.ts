/**
 * Latency of the banking endpoints on the real stack, beside a baseline: a bare Koa route
 * doing the same MongoDB read over HTTP. Run with
 *   npm test -- dist/test/bench/admin-latency.js --grep "bench:"
 * (sequential requests, so the figures are per-request latency, not throughput).
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import { call, getStack, newMerchant } from '../support/stack';

const ROUNDS = Number(process.env.BENCH_ROUNDS || 200);

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p99: at(0.99) };
}

async function measure(run: () => Promise<unknown>): Promise<{ median: number; p99: number }> {
  for (let i = 0; i < 10; i++) await run(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = process.hrtime.bigint();
    await run();
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return summary(samples);
}

describe('bench: banking latency', function () {
  this.timeout(600_000);

  it('POST transfer and GET transfer against a bare Koa + MongoDB baseline', async () => {
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
      const read = await measure(() => call(`/v1/banking/accounts/${merchant.account_id}/transfers/${first.body.id}`, { credentials: merchant }));
      const ping = await measure(() => call('/v1/pings', { body: { message: 'bench' }, credentials: merchant }));
      const create = await measure(() => call('/v1/banking/transfers', { body: transferBody(), credentials: merchant, headers: { 'x-idempotency-key': randomUUID() } }));
      const rows = { 'baseline (bare Koa + findOne)': baseline, 'GET transfer': read, 'POST ping (workflow, 1 activity)': ping, 'POST transfer (202)': create };
      for (const [name, s] of Object.entries(rows)) {
        console.log(`${name.padEnd(32)} median ${s.median.toFixed(2)} ms  p99 ${s.p99.toFixed(2)} ms  ratio to baseline ${(s.median / baseline.median).toFixed(1)}x`);
      }
    } finally {
      server.close();
    }
  });
});
