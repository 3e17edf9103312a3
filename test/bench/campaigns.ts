/**
 * Campaign latencies on the real stack, each beside a baseline doing the same MongoDB work
 * without Switchyard's layers, in the same run:
 * - POST /v1/campaigns (auth, workflow update-with-start, activity insert) vs a bare Koa
 *   route doing the insert + read;
 * - PATCH /v1/campaigns/{id}/status (workflow update, activity update) vs a bare Koa route
 *   doing the update + read;
 * - declined event -> communication SENT (trigger poll, claim, event workflow, rules,
 *   delivery) vs a bare in-process poller with the same interval writing the same record.
 *
 * Run: npm run bench:campaigns
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { call, getStack, newMerchant, stopStack } from '../support/stack';

const ROUNDS = Number(process.env.BENCH_ROUNDS || 60);
const TRIGGER_ROUNDS = Number(process.env.BENCH_TRIGGER_ROUNDS || 25);

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { n: sorted.length, median: at(0.5), p99: at(0.99) };
}

function report(name: string, subject: number[], baseline: number[]) {
  const s = stats(subject);
  const b = stats(baseline);
  const line = `${name}: subject median ${s.median.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms | baseline median ${b.median.toFixed(1)} ms, p99 ${b.p99.toFixed(1)} ms | ratio (median) ${(s.median / b.median).toFixed(1)}x (n=${s.n})`;
  console.log(`      ${line}`);
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** API: create and status change vs bare Koa routes with the same MongoDB calls. */
async function apiLatency(): Promise<void> {
  {
    const stack = await getStack();
    const merchant = await newMerchant('Bench merchant');
    const bare = stack.db.collection<{ _id: string; status: string; name: string; created_at: Date; updated_at: Date }>('bench_bare_campaigns');
    const router = new Router();
    router.post('/bare/campaigns', async (ctx) => {
      const now = new Date();
      const id = randomUUID();
      await bare.insertOne({ _id: id, status: 'ACTIVE', name: (ctx.request.body as { name: string }).name, created_at: now, updated_at: now });
      ctx.status = 201;
      ctx.body = await bare.findOne({ _id: id });
    });
    router.patch('/bare/campaigns/:id/status', async (ctx) => {
      await bare.updateOne({ _id: ctx.params.id }, { $set: { status: (ctx.request.body as { status: string }).status, updated_at: new Date() } });
      ctx.body = await bare.findOne({ _id: ctx.params.id });
    });
    const koa = new Koa().use(bodyParser()).use(router.routes());
    const server = koa.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const bareUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const body = { name: 'Bench campaign', account_id: merchant.account_id, organization_code: merchant.organization_code, country: 'CO', channel: 'WHATSAPP_MESSAGE' };
    const creates: number[] = [];
    const bareCreates: number[] = [];
    const patches: number[] = [];
    const barePatches: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      let id = '';
      let bareId = '';
      creates.push(await timed(async () => {
        const r = await call('/v1/campaigns', { body, credentials: merchant });
        assert.equal(r.status, 201);
        id = r.body.id;
      }));
      bareCreates.push(await timed(async () => {
        const r = await call('/bare/campaigns', { body }, bareUrl);
        assert.equal(r.status, 201);
        bareId = r.body._id;
      }));
      patches.push(await timed(async () => {
        const r = await call(`/v1/campaigns/${id}/status`, { method: 'PATCH', body: { status: 'PAUSED' }, credentials: merchant });
        assert.equal(r.body.status, 'PAUSED');
      }));
      barePatches.push(await timed(async () => {
        const r = await call(`/bare/campaigns/${bareId}/status`, { method: 'PATCH', body: { status: 'PAUSED' } }, bareUrl);
        assert.equal(r.body.status, 'PAUSED');
      }));
    }
    server.close();
    report('POST /v1/campaigns', creates, bareCreates);
    report('PATCH /v1/campaigns/{id}/status', patches, barePatches);
  }
}

/** Trigger: declined event -> communication SENT vs a bare poller with the same interval. */
async function triggerLatency(): Promise<void> {
  {
    const stack = await getStack();
    const merchant = await newMerchant('Bench trigger merchant');
    const campaign = await call('/v1/campaigns', {
      body: { name: 'Bench trigger', account_id: merchant.account_id, organization_code: merchant.organization_code, country: 'CO', channel: 'PHONE_CALL' },
      credentials: merchant,
    });
    await call(`/v1/campaigns/${campaign.body.id}/rules`, { body: { rules: [{ rule_type: 'AMOUNT', conditional: 'GREATER_THAN', values: ['10'] }] }, credentials: merchant });
    const events = stack.db.collection('domain_events');
    const communications = stack.db.collection('communications');
    const bareOut = stack.db.collection<{ _id: string }>('bench_bare_communications');
    const bareIn = stack.db.collection<{ _id: string; at: Date }>('bench_bare_events');

    // The baseline: poll at the same interval, write the same kind of record, nothing else.
    let since = new Date();
    const poller = setInterval(async () => {
      const found = await bareIn.find({ at: { $gte: since } }).toArray();
      for (const e of found) {
        await bareOut.insertOne({ _id: e._id }).catch(() => undefined);
        if (e.at > since) since = e.at;
      }
    }, stack.config.campaignEventPollMs);

    const waitFor = async (probe: () => Promise<unknown>) => {
      while (!(await probe())) await new Promise((r) => setTimeout(r, 10));
    };
    const trigger: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < TRIGGER_ROUNDS; i++) {
      const eventId = randomUUID();
      trigger.push(await timed(async () => {
        await events.insertOne({
          _id: eventId as never, type: 'payment.declined', organization_code: merchant.organization_code, account_id: merchant.account_id,
          payment_id: randomUUID(), occurred_at: new Date(),
          payload: { amount: { value: 50, currency: 'COP' }, metadata: [{ key: 'user_id', value: `u-${i}` }], customer: { phone: '+573001234567' } },
        });
        await waitFor(() => communications.findOne({ _id: `${campaign.body.id}:${eventId}` as never, status: 'SENT' }));
      }));
      const bareId = randomUUID();
      baseline.push(await timed(async () => {
        await bareIn.insertOne({ _id: bareId, at: new Date() });
        await waitFor(() => bareOut.findOne({ _id: bareId }));
      }));
    }
    clearInterval(poller);
    report(`declined event -> communication (poll ${stack.config.campaignEventPollMs} ms)`, trigger, baseline);
  }
}

apiLatency()
  .then(triggerLatency)
  .then(stopStack)
  .then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
