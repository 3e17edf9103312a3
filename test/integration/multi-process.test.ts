import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import { call, getStack, newMerchant } from '../support/stack';
import { chargesFor, paymentBody } from '../support/payments';
import { spawnApi, spawnWorker, SpawnedProcess } from '../support/processes';

describe('several processes at once: two API processes and two workers on one Temporal and one FerretDB', function () {
  this.timeout(180_000);
  const processes: SpawnedProcess[] = [];
  let urls: string[] = [];

  before(async () => {
    const stack = await getStack();
    const taskQueue = `multi-${randomUUID()}`;
    const env = { SANDBOX_GATEWAY_URL: stack.gateway.url, PAYMENT_SYNC_WAIT_MS: '8000' };
    const started = await Promise.all([spawnWorker(taskQueue, env), spawnWorker(taskQueue, env), spawnApi(taskQueue, env), spawnApi(taskQueue, env)]);
    processes.push(...started);
    urls = started.slice(2).map((p) => (p as SpawnedProcess & { url: string }).url);
  });

  after(async () => {
    await Promise.all(processes.map((p) => p.stop()));
  });

  it('a payment sent through both API processes with one key exists once and is charged once', async () => {
    const m = await newMerchant();
    const keys = Array.from({ length: 6 }, () => randomUUID());
    const answers = await Promise.all(
      keys.flatMap((key) => {
        const body = paymentBody(m, TEST_CARDS.approved, { amount: { currency: 'USD', value: 5 } });
        return urls.map((url) => call('/v1/payments', { body, credentials: m, headers: { 'x-idempotency-key': key } }, url));
      }),
    );
    for (const [i, key] of keys.entries()) {
      const pair = answers.slice(i * 2, i * 2 + 2);
      const created = pair.filter((a) => a.status === 201);
      assert.ok(created.length >= 1, `${key}: ${pair.map((a) => a.text).join(' | ')}`);
      for (const a of pair) assert.ok(a.status === 201 || (a.status === 400 && a.body.code === 'REQUEST_IN_PROCESS'), a.text);
      assert.equal(new Set(created.map((a) => a.body.id)).size, 1);
      const charges = await chargesFor(created[0].body.id);
      assert.equal(charges.length, 1, `one authorization for ${key}`);
    }
  });

  it('refunds on one payment through both API processes: each answered with its own refund, never more than captured', async () => {
    const m = await newMerchant();
    const paid = await call('/v1/payments', { body: paymentBody(m, TEST_CARDS.approved, { amount: { currency: 'USD', value: 5 } }), credentials: m }, urls[0]);
    assert.equal(paid.body.sub_status, 'CAPTURED', paid.text);
    const refundKeys = Array.from({ length: 6 }, () => randomUUID());
    // Six refunds of 1.00 on 5.00, alternating processes; the first key is also retried on the other process.
    const sends = [
      ...refundKeys.map((key, i) => ({ key, url: urls[i % 2] })),
      { key: refundKeys[0], url: urls[1] },
    ];
    const answers = await Promise.all(sends.map(({ key, url }) => call(`/v1/payments/${paid.body.id}/refunds`, { body: { amount: 1 }, credentials: m, headers: { 'x-idempotency-key': key } }, url)));
    const refundIds = new Map<string, string>();
    for (const [i, answer] of answers.entries()) {
      if (answer.status !== 201) continue;
      const own = answer.body.transactions.at(-1);
      assert.deepEqual([own.type, own.status, own.amount], ['REFUND', 'SUCCEEDED', 1]);
      const previous = refundIds.get(sends[i].key);
      if (previous) assert.equal(own.id, previous, 'a retried key answers with the same refund');
      refundIds.set(sends[i].key, own.id);
    }
    assert.equal(new Set(refundIds.values()).size, 5, answers.map((a) => a.text).join('\n'));
    for (const refused of answers.filter((a) => a.status !== 201)) assert.ok(['INVALID_STATUS_TRANSITION', 'INVALID_AMOUNT', 'REQUEST_IN_PROCESS'].includes(refused.body.code), refused.text);
    const [charge] = (await chargesFor(paid.body.id)) as any[];
    assert.equal(charge.refunded_amount, 500, 'the acquirer refunded 5.00 (in cents)');
    // Both processes read the same record, and it agrees with the acquirer.
    for (const url of urls) {
      const read = await call(`/v1/payments/${paid.body.id}?include_transactions=true`, { credentials: m }, url);
      assert.deepEqual([read.body.status, read.body.amount.refunded], ['REFUNDED', 5]);
      assert.equal(read.body.transactions.filter((t: any) => t.type === 'REFUND' && t.status === 'SUCCEEDED').length, 5);
    }
  });
});
