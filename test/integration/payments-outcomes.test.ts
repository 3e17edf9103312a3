import assert from 'node:assert/strict';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import { call, newMerchant } from '../support/stack';
import { chargesFor, pay, waitForPayment } from '../support/payments';

describe('payments: test card outcomes', function () {
  this.timeout(60_000);

  it('approves and captures the approved card', async () => {
    const m = await newMerchant();
    const r = await pay(m, TEST_CARDS.approved);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.status, 'SUCCEEDED');
    assert.equal(r.body.sub_status, 'CAPTURED');
    assert.equal(r.body.amount.captured, 49.99);
    assert.equal(r.headers.get('location'), `/v1/payments/${r.body.id}`);
    const [tx] = r.body.transactions;
    assert.equal(tx.type, 'PURCHASE');
    assert.equal(tx.status, 'SUCCEEDED');
    assert.equal(tx.provider_data.iso8583_response_code, '00');
    assert.equal(tx.provider_data.status, 'APPROVED');
    assert.equal(tx.provider_data.raw_response, null);
    const charges = await chargesFor(r.body.id);
    assert.equal(charges.length, 1);
    assert.equal(charges[0].status, 'APPROVED');
  });

  for (const [name, card, iso, connections] of [
    ['insufficient funds (soft decline, tries both connections)', TEST_CARDS.insufficientFunds, '51', 2],
    ['do not honor (soft decline, tries both connections)', TEST_CARDS.doNotHonor, '05', 2],
    ['stolen card (hard decline, never fails over)', TEST_CARDS.stolen, '43', 1],
  ] as const) {
    it(`declines ${name}`, async () => {
      const m = await newMerchant();
      const r = await pay(m, card);
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.status, 'DECLINED');
      assert.equal(r.body.sub_status, 'DECLINED');
      assert.equal(r.body.amount.captured, 0);
      const full = await call(`/v1/payments/${r.body.id}?include_transactions=true&include_raw_response=true`, { credentials: m });
      assert.equal(full.body.transactions.length, connections);
      for (const tx of full.body.transactions) {
        assert.equal(tx.status, 'DECLINED');
        assert.equal(tx.provider_data.iso8583_response_code, iso);
        assert.equal(tx.provider_data.raw_response.iso8583_response_code, iso);
      }
      assert.deepEqual(full.body.transactions.map((t: any) => t.provider_data.account_id), ['default-sandbox-1', 'default-sandbox-2'].slice(0, connections));
      assert.equal((await chargesFor(r.body.id)).length, connections);
    });
  }

  it('waits for 3-D Secure on the 3DS card', async () => {
    const m = await newMerchant();
    const r = await pay(m, TEST_CARDS.threeDSecure);
    assert.equal(r.body.status, 'PENDING');
    assert.equal(r.body.sub_status, 'WAITING_ADDITIONAL_STEP');
    assert.equal(r.body.checkout.sdk_action_required, true);
    assert.equal(r.body.transactions[0].three_d_secure_action_required, true);
    assert.equal(r.body.transactions[0].provider_data.iso8583_response_code, '1A');
    const canceled = await call(`/v1/payments/${r.body.id}/cancel`, { body: {}, credentials: m });
    assert.equal(canceled.status, 200, canceled.text);
    assert.equal(canceled.body.status, 'CANCELED');
  });

  it('fails over on provider 5xx and ends ERROR when every connection fails', async () => {
    const m = await newMerchant();
    const r = await pay(m, TEST_CARDS.serverError);
    assert.equal(r.body.status, 'ERROR');
    assert.equal(r.body.sub_status, 'PROVIDER_ERROR');
    const full = await call(`/v1/payments/${r.body.id}?include_transactions=true`, { credentials: m });
    assert.deepEqual(full.body.transactions.map((t: any) => [t.status, t.category, t.provider_data.response_code]), [['ERROR', 'PROVIDER_ERROR', '500'], ['ERROR', 'PROVIDER_ERROR', '500']]);
  });

  it('answers PENDING for the slow card, then completes', async () => {
    const m = await newMerchant();
    const r = await pay(m, TEST_CARDS.slow);
    assert.equal(r.status, 201);
    assert.equal(r.body.status, 'PENDING');
    assert.equal(r.body.sub_status, 'PROCESSING');
    const done = await waitForPayment(m, r.body.id, (p) => p.status === 'SUCCEEDED');
    assert.equal(done.sub_status, 'CAPTURED');
    assert.equal((await chargesFor(r.body.id)).length, 1);
  });

  it('reverses a timed-out attempt before failing over (timeout card)', async function () {
    this.timeout(90_000);
    const m = await newMerchant();
    const r = await pay(m, TEST_CARDS.timeout);
    assert.equal(r.body.status, 'PENDING');
    const done = await waitForPayment(m, r.body.id, (p) => p.status === 'ERROR', 60_000);
    assert.deepEqual(done.transactions.map((t: any) => t.category), ['TIMEOUT', 'TIMEOUT']);
    await new Promise((resolve) => setTimeout(resolve, 4_000)); // let the gateway finish its late answers
    const charges = await chargesFor(r.body.id);
    assert.equal(charges.length, 2);
    assert.ok(charges.every((c) => c.status === 'REVERSED'), JSON.stringify(charges));
  });
});
