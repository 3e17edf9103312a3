import assert from 'node:assert/strict';
import { call, getStack, newMerchant } from '../support/stack';
import { key, waitForResource } from '../support/money';
import { pay } from '../support/payments';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import type { IssuedCredentials } from '../../domain/credentials';
import { onboardedRecipient, onboardingBody, recipientBody } from '../support/recipients';

const PATH = '/v1/split-marketplace/transfers';

async function topUp(m: IssuedCredentials, value: number, currency = 'USD') {
  const r = await call('/v1/balances/top-ups', { body: { amount: { value, currency }, description: 'sandbox funding' }, credentials: m, headers: { 'x-idempotency-key': key() } });
  assert.equal(r.status, 201, r.text);
  return r;
}

async function available(m: IssuedCredentials, currency = 'USD'): Promise<number> {
  const r = await call('/v1/balances', { credentials: m });
  return r.body.balances.find((b: any) => b.currency === currency)?.available ?? 0;
}

const transferBody = (m: IssuedCredentials, recipientId: string, value: number, overrides: Record<string, unknown> = {}) => ({
  account_id: m.account_id, recipient_id: recipientId, provider_id: 'SANDBOX', amount: { value, currency: 'USD' }, description: 'Seller payout', merchant_reference: `payout-${key()}`, metadata: [{ key: 'batch', value: '7' }], ...overrides,
});

async function transfer(m: IssuedCredentials, body: unknown, idempotencyKey = key()) {
  return call(PATH, { body, credentials: m, headers: { 'x-idempotency-key': idempotencyKey } });
}

describe('split-marketplace transfers', function () {
  this.timeout(90_000);

  it('pays an onboarded recipient from the balance: 201 SUCCEEDED with a SPLIT_TRANSFER transaction, replayed for the same key', async () => {
    const m = await newMerchant();
    const recipientId = await onboardedRecipient(m);
    await topUp(m, 100);
    const k = key();
    const r = await transfer(m, transferBody(m, recipientId, 40.5), k);
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), ['amount', 'completed_at', 'created_at', 'description', 'id', 'merchant_reference', 'metadata', 'provider', 'recipient_id', 'status', 'transactions', 'updated_at']);
    assert.equal(r.body.status, 'SUCCEEDED');
    assert.ok(r.body.completed_at);
    assert.deepEqual(r.body.amount, { currency: 'USD', value: 40.5 });
    assert.deepEqual(r.body.metadata, [{ key: 'batch', value: '7' }]);
    const [tx] = r.body.transactions;
    assert.equal(tx.type, 'SPLIT_TRANSFER');
    assert.equal(tx.status, 'SUCCEEDED');
    assert.equal(tx.code, 'APPROVED');
    assert.match(tx.provider_transfer_id, /^tr_/);
    assert.equal(JSON.parse(tx.provider_raw_response).amount, 4050);
    assert.equal(await available(m), 59.5);

    const again = await transfer(m, transferBody(m, recipientId, 40.5), k);
    assert.equal(again.body.id, r.body.id);
    assert.equal(await available(m), 59.5);
    const read = await call(`${PATH}/${r.body.id}`, { credentials: m });
    assert.equal(read.body.status, 'SUCCEEDED');
  });

  it('answers concurrent transfers over the balance exactly like sequential ones: 422 INSUFFICIENT_BALANCE, never 201 FAILED', async () => {
    const m = await newMerchant();
    const recipientId = await onboardedRecipient(m);
    await topUp(m, 100);
    const answers = await Promise.all(Array.from({ length: 8 }, () => transfer(m, transferBody(m, recipientId, 30))));
    const succeeded = answers.filter((a) => a.status === 201 && a.body.status === 'SUCCEEDED');
    const refused = answers.filter((a) => a.status === 422 && a.body.code === 'INSUFFICIENT_BALANCE');
    assert.equal(succeeded.length, 3, answers.map((a) => a.text).join('\n'));
    assert.equal(refused.length, 5, answers.map((a) => a.text).join('\n'));
    assert.equal(await available(m), 10);
    const { db } = await getStack();
    assert.equal(await db.collection('split_transfers').countDocuments({ organization_code: m.organization_code }), 3, 'a refused transfer creates nothing');
    const entries = await db.collection('balance_entries').find({ organization_code: m.organization_code }).sort({ sequence: 1 }).toArray();
    assert.ok(entries.every((e) => BigInt(e.balance_units) >= 0n));
    assert.deepEqual(entries.map((e) => e.sequence), entries.map((_e, i) => i + 1));
  });

  it('refuses recipients that are not onboarded, short balances and invalid requests; credits back a declined transfer', async () => {
    const m = await newMerchant();
    await topUp(m, 100);
    const fresh = await call('/v1/recipients', { body: recipientBody(m), credentials: m });
    const notOnboarded = await transfer(m, transferBody(m, fresh.body.id, 10));
    assert.equal(notOnboarded.status, 422);
    assert.equal(notOnboarded.body.code, 'RECIPIENT_NOT_ONBOARDED');
    const review = await call(`/v1/recipients/${fresh.body.id}/onboardings`, { body: onboardingBody(m, { documentation: [] }), credentials: m });
    assert.equal(review.body.status, 'PENDING_REVIEW');
    assert.equal((await transfer(m, transferBody(m, fresh.body.id, 10))).body.code, 'RECIPIENT_NOT_ONBOARDED');

    const recipientId = await onboardedRecipient(m);
    const tooMuch = await transfer(m, transferBody(m, recipientId, 100.01));
    assert.equal(tooMuch.status, 422);
    assert.equal(tooMuch.body.code, 'INSUFFICIENT_BALANCE');
    assert.equal((await transfer(m, transferBody(m, recipientId, 10, { description: 'ab' }))).body.errors[0].field, 'description');
    assert.equal((await transfer(m, transferBody(m, recipientId, 0))).status, 400);
    assert.equal((await transfer(m, transferBody(m, '00000000-0000-4000-8000-000000000000', 10))).body.code, 'RECIPIENT_NOT_FOUND');
    const noKey = await call(PATH, { body: transferBody(m, recipientId, 10), credentials: m });
    assert.equal(noKey.status, 400);
    assert.equal(noKey.body.errors[0].field, 'X-Idempotency-Key');

    const declined = await transfer(m, transferBody(m, recipientId, 66.66));
    assert.equal(declined.status, 201);
    assert.equal(declined.body.status, 'FAILED');
    assert.equal(declined.body.transactions[0].code, 'DO_NOT_HONOR');
    assert.ok(declined.body.completed_at, 'a FAILED transfer is final: completed_at is set');
    assert.ok(Date.parse(declined.body.completed_at) >= Date.parse(declined.body.created_at));
    assert.equal(await available(m), 100);
    const exact = await transfer(m, transferBody(m, recipientId, 100));
    assert.equal(exact.body.status, 'SUCCEEDED');
    assert.equal(await available(m), 0);
  });

  it('keeps merchant_reference unique per account: 409 with the existing transfer\'s id, also for concurrent requests, and debits once', async () => {
    const m = await newMerchant();
    const recipientId = await onboardedRecipient(m);
    await topUp(m, 100);
    const first = await transfer(m, transferBody(m, recipientId, 10, { merchant_reference: 'payout-2026-11' }));
    assert.equal(first.status, 201, first.text);
    const again = await transfer(m, transferBody(m, recipientId, 10, { merchant_reference: 'payout-2026-11' }));
    assert.equal(again.status, 409, again.text);
    assert.equal(again.body.code, 'DUPLICATE_MERCHANT_REFERENCE');
    assert.equal(again.body.details.existing_id, first.body.id);
    assert.equal(again.headers.get('location'), `${PATH}/${first.body.id}`);
    assert.equal(await available(m), 90);

    const racing = await Promise.all(Array.from({ length: 6 }, () => transfer(m, transferBody(m, recipientId, 5, { merchant_reference: 'payout-race' }))));
    const created = racing.filter((a) => a.status === 201);
    const conflicts = racing.filter((a) => a.status === 409);
    assert.equal(created.length, 1, racing.map((a) => a.text).join('\n'));
    assert.equal(conflicts.length, 5);
    for (const c of conflicts) assert.equal(c.body.details.existing_id, created[0].body.id);
    assert.equal(await available(m), 85);

    // A transfer refused at the door (balance too low) does not hold its reference.
    const tooMuch = await transfer(m, transferBody(m, recipientId, 1000, { merchant_reference: 'payout-later' }));
    assert.equal(tooMuch.body.code, 'INSUFFICIENT_BALANCE');
    assert.equal((await transfer(m, transferBody(m, recipientId, 5, { merchant_reference: 'payout-later' }))).status, 201);
    // References are per account: another organization may use the same one.
    const other = await newMerchant();
    const otherRecipient = await onboardedRecipient(other);
    await topUp(other, 20);
    assert.equal((await transfer(other, transferBody(other, otherRecipient, 10, { merchant_reference: 'payout-2026-11' }))).status, 201);
  });

  it('credits the balance with the split entries of captured payments, once each, only when captured', async () => {
    const m = await newMerchant();
    const recipientId = await onboardedRecipient(m);
    const split = [{ recipient_id: recipientId, amount: { currency: 'USD', value: 30 } }, { recipient_id: 'seller-b', amount: { currency: 'USD', value: 10.25 } }];
    const captured = await pay(m, TEST_CARDS.approved, { amount: { currency: 'USD', value: 50 }, split });
    assert.equal(captured.body.sub_status, 'CAPTURED', captured.text);
    const { db } = await getStack();
    const waitBalance = async (value: number) => {
      const started = Date.now();
      while ((await available(m)) !== value) {
        if (Date.now() - started > 15_000) assert.fail(`balance never reached ${value}; it is ${await available(m)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    await waitBalance(40.25);
    const authorized = await pay(m, TEST_CARDS.approved, { amount: { currency: 'USD', value: 50 }, split, capture: false });
    assert.equal(authorized.body.sub_status, 'AUTHORIZED');
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal(await available(m), 40.25, 'an authorization alone credits nothing');
    const capture = await call(`/v1/payments/${authorized.body.id}/capture`, { body: {}, credentials: m });
    assert.equal(capture.body.sub_status, 'CAPTURED', capture.text);
    await waitBalance(80.5);
    await waitForResource(m, `/v1/payments/${authorized.body.id}`, (p) => p.sub_status === 'CAPTURED');
    assert.equal(await db.collection('balance_entries').countDocuments({ organization_code: m.organization_code, kind: 'SPLIT_CREDIT' }), 4);
    const paid = await transfer(m, transferBody(m, recipientId, 60));
    assert.equal(paid.body.status, 'SUCCEEDED');
    assert.equal(await available(m), 20.5);
  });

  it('answers another organization\'s transfers and recipients as missing', async () => {
    const owner = await newMerchant();
    const other = await newMerchant();
    const recipientId = await onboardedRecipient(owner);
    await topUp(owner, 50);
    await topUp(other, 50);
    const r = await transfer(owner, transferBody(owner, recipientId, 5));
    const foreign = await call(`${PATH}/${r.body.id}`, { credentials: other });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.code, 'TRANSFER_NOT_FOUND');
    const foreignRecipient = await transfer(other, transferBody(other, recipientId, 5));
    assert.equal(foreignRecipient.status, 404);
    assert.equal(foreignRecipient.body.code, 'RECIPIENT_NOT_FOUND');
    assert.equal(await available(other), 50);
  });
});
