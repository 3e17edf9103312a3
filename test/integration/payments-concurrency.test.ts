import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import { dataConverterFor } from '../../activities/runtime/temporal';
import { paymentWorkflowId } from '../../api/routers/payments';
import { paymentQuery } from '../../workflows/payment';
import { call, getStack, newMerchant } from '../support/stack';
import { chargesFor, pay, waitForPayment } from '../support/payments';

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() - started > timeoutMs) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Replays the payment's history as it stands against the current workflow code. */
async function replays(paymentId: string): Promise<void> {
  const s = await getStack();
  const history = await s.temporal.workflow.getHandle(paymentWorkflowId(paymentId)).fetchHistory();
  await Worker.runReplayHistory({ workflowsPath: require.resolve('../../workflows'), dataConverter: dataConverterFor(s.keyring), replayName: 'live' }, history);
}

describe('payments: operations sent at once run one at a time', function () {
  this.timeout(120_000);

  it('ten refunds at once: each is answered with its own refund, and record, workflow, acquirer and webhooks agree', async () => {
    const s = await getStack();
    const m = await newMerchant();
    const paid = await pay(m, TEST_CARDS.approved, { amount: { currency: 'USD', value: 10 } });
    assert.equal(paid.body.sub_status, 'CAPTURED', paid.text);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => call(`/v1/payments/${paid.body.id}/refunds`, { body: { amount: 1 }, credentials: m, headers: { 'x-idempotency-key': randomUUID() } })),
    );
    assert.deepEqual(answers.map((a) => a.status), Array(10).fill(201), answers.map((a) => a.text).join('\n'));
    // Each answer shows its own refund as the latest transaction, after the ones before it.
    for (const a of answers) assert.deepEqual([a.body.transactions.at(-1).type, a.body.transactions.at(-1).status, a.body.transactions.at(-1).amount], ['REFUND', 'SUCCEEDED', 1]);
    assert.deepEqual(answers.map((a) => a.body.amount.refunded).sort((x, y) => x - y), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.equal(new Set(answers.map((a) => a.body.transactions.at(-1).id)).size, 10);

    const stored = await waitForPayment(m, paid.body.id, (p) => p.status === 'REFUNDED');
    assert.equal(stored.amount.refunded, 10);
    assert.equal(stored.transactions.filter((t: any) => t.type === 'REFUND' && t.status === 'SUCCEEDED').length, 10);
    const workflowView = await s.temporal.workflow.getHandle(paymentWorkflowId(paid.body.id)).query(paymentQuery);
    assert.equal(workflowView.amount.refunded, 10);
    assert.equal(workflowView.transactions.length, stored.transactions.length);
    const [charge] = (await chargesFor(paid.body.id)) as any[];
    assert.equal(charge.refunded_amount, 1000, 'the acquirer refunded 10.00 (in cents)');

    // One webhook per refund: nine payment.refunded at PARTIALLY_REFUNDED and the last at REFUNDED.
    const deliveries = await until(
      () => s.db.collection('webhook_deliveries').find({ resource_id: paid.body.id, event_type: 'payment.refunded' }).toArray(),
      (d) => d.length >= 10,
    );
    assert.equal(deliveries.length, 10);

    const late = await call(`/v1/payments/${paid.body.id}/refunds`, { body: { amount: 1 }, credentials: m });
    assert.equal(late.status, 409);
    await replays(paid.body.id);
  });

  it('twelve refunds of 1.00 on 10.00 at once: ten go through, two are refused, nothing is refunded twice', async () => {
    const m = await newMerchant();
    const paid = await pay(m, TEST_CARDS.approved, { amount: { currency: 'USD', value: 10 } });
    const answers = await Promise.all(Array.from({ length: 12 }, () => call(`/v1/payments/${paid.body.id}/refunds`, { body: { amount: 1 }, credentials: m })));
    const ok = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status !== 201);
    assert.equal(ok.length, 10, answers.map((a) => a.text).join('\n'));
    for (const r of refused) {
      assert.ok([400, 409].includes(r.status), r.text);
      assert.ok(['INVALID_STATUS_TRANSITION', 'INVALID_AMOUNT'].includes(r.body.code), r.text);
    }
    const [charge] = (await chargesFor(paid.body.id)) as any[];
    assert.equal(charge.refunded_amount, 1000, 'the acquirer refunded 10.00 (in cents)');
    const stored = await waitForPayment(m, paid.body.id, (p) => p.status === 'REFUNDED');
    assert.equal(stored.amount.refunded, 10);
    await replays(paid.body.id);
  });

  it('capture and cancel at once on an authorization: exactly one wins and the acquirer agrees', async () => {
    const m = await newMerchant();
    const paid = await pay(m, TEST_CARDS.approved, { capture: false, amount: { currency: 'USD', value: 20 } });
    assert.equal(paid.body.sub_status, 'AUTHORIZED', paid.text);
    const [capture, cancel, capture2] = await Promise.all([
      call(`/v1/payments/${paid.body.id}/capture`, { body: { amount: 15 }, credentials: m }),
      call(`/v1/payments/${paid.body.id}/cancel`, { body: {}, credentials: m }),
      call(`/v1/payments/${paid.body.id}/capture`, { body: {}, credentials: m }),
    ]);
    const winners = [capture, cancel, capture2].filter((a) => a.status === 200);
    assert.equal(winners.length, 1, [capture, cancel, capture2].map((a) => a.text).join('\n'));
    for (const loser of [capture, cancel, capture2].filter((a) => a.status !== 200)) assert.equal(loser.body.code, 'INVALID_STATUS_TRANSITION', loser.text);
    const stored = await waitForPayment(m, paid.body.id, (p) => p.status === winners[0].body.status && p.sub_status === winners[0].body.sub_status);
    const [charge] = (await chargesFor(paid.body.id)) as any[];
    if (stored.status === 'CANCELED') assert.equal(charge.captured_amount ?? 0, 0);
    else assert.equal(charge.captured_amount, Math.round(stored.amount.captured * 100));
    await replays(paid.body.id);
  });
});
