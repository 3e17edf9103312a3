import assert from 'node:assert/strict';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import { call, getStack, newMerchant } from '../support/stack';
import { historyContains, key, sleep, waitForResource } from '../support/money';
import { pay } from '../support/payments';
import type { IssuedCredentials } from '../../domain/credentials';

const PATH = '/v1/subscriptions';

async function customer(m: IssuedCredentials): Promise<string> {
  const r = await call('/v1/customers', { body: { merchant_customer_id: `c-${Math.random().toString(36).slice(2, 10)}`, first_name: 'Ana', last_name: 'Gomez', email: 'ana@example.com', country: 'CO' }, credentials: m });
  assert.equal(r.status, 201, r.text);
  return r.body.id;
}

/** A card enrolled through the checkout form (no customer-initiated payment before). */
async function enrolledCard(m: IssuedCredentials, pan: string = TEST_CARDS.approved): Promise<{ customerId: string; vaultedToken: string }> {
  const customerId = await customer(m);
  const session = await call('/v1/customers/sessions', { body: { account_id: m.account_id, customer_id: customerId, country: 'CO' }, credentials: m });
  const enrolled = await call(`/v1/checkout/customers/sessions/${session.body.customer_session}/payment-methods`, {
    body: { type: 'CARD', card: { number: pan, holder_name: 'ANA GOMEZ', expiration_month: 12, expiration_year: 2031 } }, credentials: m,
  });
  assert.equal(enrolled.status, 201, enrolled.text);
  return { customerId, vaultedToken: enrolled.body.vaulted_token };
}

/** A card enrolled by a successful customer-initiated payment (vault_on_success). */
async function citEnrolledCard(m: IssuedCredentials): Promise<{ customerId: string; vaultedToken: string }> {
  const customerId = await customer(m);
  const p = await pay(m, '5555555555554444', { customer_payer: { id: customerId }, payment_method: { type: 'CARD', vault_on_success: true, detail: { card: { number: '5555555555554444', holder_name: 'ANA GOMEZ', expiration_month: 12, expiration_year: 2031, security_code: '737' } } } });
  assert.equal(p.body.status, 'SUCCEEDED', p.text);
  const read = await waitForResource(m, `/v1/payments/${p.body.id}`, (b) => Boolean(b.payment_method.vaulted_token));
  return { customerId, vaultedToken: read.payment_method.vaulted_token };
}

function subscriptionBody(m: IssuedCredentials, card: { customerId: string; vaultedToken: string }, overrides: Record<string, unknown> = {}) {
  return {
    name: 'Gold plan',
    description: 'Monthly gold plan',
    merchant_reference: 'plan-gold',
    account_id: m.account_id,
    country: 'CO',
    amount: { currency: 'USD', value: 9.99 },
    payment_method: { type: 'CARD', vaulted_token: card.vaultedToken, card: { installments: 1 } },
    customer_payer: { id: card.customerId },
    frequency: { type: 'MONTH', value: 1 },
    billing_cycles: { total: 3 },
    ...overrides,
  };
}

const create = (m: IssuedCredentials, body: unknown, headers: Record<string, string> = {}) => call(PATH, { body, credentials: m, headers });

describe('subscriptions', function () {
  this.timeout(120_000);

  it('creates an ACTIVE subscription (200) and charges every cycle through payments until billing_cycles.total, then COMPLETED', async () => {
    const m = await newMerchant();
    const card = await enrolledCard(m);
    const r = await create(m, subscriptionBody(m, card, {
      trial_period: { billing_cycles: 1, amount: { currency: 'USD', value: 0 } },
      metadata: [{ key: 'plan', value: 'gold' }, { key: 'dropped', value: '' }],
      payment_method: { type: 'CARD', vaulted_token: card.vaultedToken, card: { installments: 1, stored_credentials: { usage: 'FIRST' }, unknown_field: 1 } },
      additional_data: { channel: 'web' },
    }));
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), ['account_id', 'additional_data', 'amount', 'availability', 'billing_cycles', 'billing_date', 'charges', 'country', 'created_at', 'customer_payer', 'description', 'frequency', 'id', 'initial_payment_validation', 'merchant_reference', 'metadata', 'name', 'payment_method', 'retries', 'status', 'trial_period', 'updated_at']);
    assert.equal(r.body.status, 'ACTIVE');
    assert.equal(r.body.billing_cycles.total, 3);
    assert.equal(r.body.billing_cycles.current, 1);
    assert.ok(r.body.billing_cycles.next_at);
    assert.deepEqual(r.body.metadata, [{ key: 'plan', value: 'gold' }]);
    assert.deepEqual(r.body.payment_method.card, { installments: 1, usage: null, network_transaction_id: null }, 'a stored_credentials wrapper is ignored');
    assert.deepEqual(r.body.frequency, { type: 'MONTH', value: 1 });

    const done = await waitForResource(m, `${PATH}/${r.body.id}`, (b) => b.status === 'COMPLETED', 60_000);
    assert.equal(done.billing_cycles.current, 3);
    assert.equal(done.billing_cycles.next_at, null);
    assert.deepEqual(done.charges.map((c: any) => [c.cycle, c.amount, c.status]), [[1, 0, 'NOT_CHARGED'], [2, 9.99, 'SUCCEEDED'], [3, 9.99, 'SUCCEEDED']]);
    const payment = await call(`/v1/payments/${done.charges[1].payment_id}`, { credentials: m });
    assert.equal(payment.body.status, 'SUCCEEDED');
    assert.equal(payment.body.amount.value, 9.99);
    assert.equal(payment.body.payment_method.vaulted_token, card.vaultedToken);
    assert.ok(payment.body.metadata.some((e: any) => e.key === 'subscription_id' && e.value === r.body.id));
    assert.equal(await historyContains(`subscription-${r.body.id}`, TEST_CARDS.approved), false);
  });

  it('never catches up on missed cycles: a start six months in the past charges once, now, and bills the next cycle a period later', async () => {
    const m = await newMerchant();
    const card = await enrolledCard(m);
    const sixMonthsAgo = new Date(Date.now() - 182 * 86_400_000).toISOString();
    // Test clock: a period of MONTH x 30 lasts 30 s, so the second cycle is far enough to tell apart.
    const before = Date.now();
    const r = await create(m, subscriptionBody(m, card, { frequency: { type: 'MONTH', value: 30 }, billing_cycles: { total: 6 }, availability: { start_at: sixMonthsAgo } }));
    assert.equal(r.status, 200, r.text);
    assert.ok(Date.parse(r.body.availability.start_at) >= before - 1_000, `start_at ${r.body.availability.start_at} is not the creation time`);
    assert.ok(Date.parse(r.body.billing_cycles.next_at) >= before - 1_000, `next_at ${r.body.billing_cycles.next_at} is in the past`);
    const charged = await waitForResource(m, `${PATH}/${r.body.id}`, (b) => b.charges.length >= 1 && b.billing_cycles.current === 2, 20_000);
    await sleep(4_000);
    const later = (await call(`${PATH}/${r.body.id}`, { credentials: m })).body;
    assert.equal(later.status, 'ACTIVE');
    assert.deepEqual(later.charges.map((c: any) => [c.cycle, c.status]), [[1, 'SUCCEEDED']], 'exactly one charge, not one per missed cycle');
    assert.equal(later.billing_cycles.current, 2);
    const nextAt = Date.parse(later.billing_cycles.next_at);
    const firstChargeAt = Date.parse(charged.charges[0].created_at);
    assert.ok(nextAt > Date.now(), 'next_at is ahead');
    assert.ok(Math.abs(nextAt - (Date.parse(r.body.availability.start_at) + 30_000)) < 1_000, `next_at ${later.billing_cycles.next_at} is one period after the start`);
    assert.ok(firstChargeAt - before < 10_000, 'the first charge is made at once');
    await call(`${PATH}/${r.body.id}/cancel`, { method: 'POST', credentials: m });
  });

  it('shows the pending retry\'s time in billing_cycles.next_at while a declined charge waits to be retried', async () => {
    const m = await newMerchant();
    const card = await enrolledCard(m, TEST_CARDS.insufficientFunds);
    // Test clock: one retry-interval unit lasts 1 s, so a 6 MINUTE interval waits 6 s.
    const r = await create(m, subscriptionBody(m, card, { frequency: { type: 'MONTH', value: 30 }, billing_cycles: { total: 2 }, retries: { max_attempts: 1, interval: { type: 'MINUTE', value: 6 } } }));
    assert.equal(r.status, 200, r.text);
    const waiting = await waitForResource(m, `${PATH}/${r.body.id}`, (b) => b.charges.length === 1, 20_000);
    const declinedAt = Date.parse(waiting.charges[0].created_at);
    const nextAt = Date.parse(waiting.billing_cycles.next_at);
    assert.equal(waiting.charges[0].status, 'DECLINED');
    assert.ok(nextAt > Date.now(), `next_at ${waiting.billing_cycles.next_at} is in the past while the retry waits`);
    assert.ok(nextAt - declinedAt >= 6_000 && nextAt - declinedAt < 12_000, `next_at ${waiting.billing_cycles.next_at} is not the retry time`);
    const retried = await waitForResource(m, `${PATH}/${r.body.id}`, (b) => b.charges.length === 2 && b.billing_cycles.current === 2, 30_000);
    assert.ok(Math.abs(Date.parse(retried.charges[1].created_at) - nextAt) < 2_000, 'the retry ran when next_at said');
    assert.ok(Date.parse(retried.billing_cycles.next_at) > Date.now(), 'after the retries, next_at is the next cycle');
    await call(`${PATH}/${r.body.id}/cancel`, { method: 'POST', credentials: m });
  });

  it('completes at availability.finish_at when it comes before billing_cycles.total', async () => {
    const m = await newMerchant();
    const card = await enrolledCard(m);
    const finish = new Date(Date.now() + 2_500).toISOString();
    const r = await create(m, subscriptionBody(m, card, { frequency: { type: 'DAY', value: 1 }, billing_cycles: { total: 50 }, availability: { finish_at: finish } }));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.availability.finish_at, finish);
    const done = await waitForResource(m, `${PATH}/${r.body.id}`, (b) => b.status === 'COMPLETED', 30_000);
    assert.ok(done.charges.length >= 2 && done.charges.length <= 3, JSON.stringify(done.charges));
    assert.ok(done.charges.every((c: any) => c.status === 'SUCCEEDED' && c.created_at <= finish), JSON.stringify(done.charges));
  });

  it('retries declined charges per the retries config, and FAILS when initial_payment_validation is never met', async () => {
    const m = await newMerchant();
    const card = await enrolledCard(m, TEST_CARDS.insufficientFunds);
    const r = await create(m, subscriptionBody(m, card, { billing_cycles: { total: 1 }, retries: { max_attempts: 2, interval: { type: 'MINUTE', value: 1 }, amount: { currency: 'USD', value: 5 } } }));
    const done = await waitForResource(m, `${PATH}/${r.body.id}`, (b) => b.status === 'COMPLETED', 60_000);
    assert.deepEqual(done.charges.map((c: any) => [c.cycle, c.attempt, c.amount, c.status]), [[1, 1, 9.99, 'DECLINED'], [1, 2, 5, 'DECLINED'], [1, 3, 5, 'DECLINED']]);

    const validated = await create(m, subscriptionBody(m, card, { initial_payment_validation: true, retries: { max_attempts: 0 } }));
    assert.equal(validated.status, 200);
    assert.equal(validated.body.status, 'FAILED', 'the create call waits for the validating first payment');
    assert.equal(validated.body.charges.length, 1);

    const good = await enrolledCard(m);
    const ok = await create(m, subscriptionBody(m, good, { initial_payment_validation: true }));
    assert.equal(ok.body.status, 'ACTIVE');
    assert.equal(ok.body.charges[0].status, 'SUCCEEDED');
    await call(`${PATH}/${ok.body.id}/cancel`, { method: 'POST', credentials: m });
  });

  it('bills on a billing_date schedule and marks a CIT credential USED with its network transaction id after the first charge', async () => {
    const m = await newMerchant();
    const cit = await citEnrolledCard(m);
    const r = await create(m, subscriptionBody(m, cit, { frequency: undefined, billing_date: { type: 'DAY_OF_MONTH', day: 15 }, billing_cycles: { total: 2 }, payment_method: { type: 'CARD', vaulted_token: cit.vaultedToken, card: { usage: 'FIRST' } } }));
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.billing_date, { type: 'DAY_OF_MONTH', day: 15 });
    assert.equal(r.body.frequency, null);
    assert.equal(r.body.payment_method.card.usage, 'FIRST');
    const done = await waitForResource(m, `${PATH}/${r.body.id}`, (b) => b.status === 'COMPLETED', 30_000);
    assert.deepEqual(done.charges.map((c: any) => c.status), ['SUCCEEDED', 'SUCCEEDED']);
    assert.equal(done.payment_method.card.usage, 'USED');
    assert.match(done.payment_method.card.network_transaction_id, /^ntid_/);
  });

  it('pauses, resumes and cancels, refusing other transitions with 409', async () => {
    const m = await newMerchant();
    const card = await enrolledCard(m);
    const r = await create(m, subscriptionBody(m, card, { frequency: { type: 'DAY', value: 2 }, billing_cycles: { total: 100 }, availability: { start_at: new Date(Date.now() + 2_000).toISOString() } }));
    try {
    const paused = await call(`${PATH}/${r.body.id}/pause`, { method: 'POST', credentials: m });
    assert.equal(paused.status, 200, paused.text);
    assert.equal(paused.body.status, 'PAUSED');
    const again = await call(`${PATH}/${r.body.id}/pause`, { method: 'POST', credentials: m });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'INVALID_STATUS_TRANSITION');
    await sleep(4_500);
    assert.equal((await call(`${PATH}/${r.body.id}`, { credentials: m })).body.charges.length, 0, 'no charge while paused');
    const resumed = await call(`${PATH}/${r.body.id}/resume`, { method: 'POST', credentials: m });
    assert.equal(resumed.body.status, 'ACTIVE');
    assert.ok(new Date(resumed.body.billing_cycles.next_at).getTime() >= Date.now() - 1_000, 'periods that fell due while paused are skipped');
    const canceled = await call(`${PATH}/${r.body.id}/cancel`, { method: 'POST', credentials: m });
    assert.equal(canceled.body.status, 'CANCELED');
    assert.equal(canceled.body.billing_cycles.next_at, null);
    const resumeCanceled = await call(`${PATH}/${r.body.id}/resume`, { method: 'POST', credentials: m });
    assert.equal(resumeCanceled.status, 409);
    const count = canceled.body.charges.length;
    await sleep(2_500);
    assert.equal((await call(`${PATH}/${r.body.id}`, { credentials: m })).body.charges.length, count, 'no charge after cancel');
    } finally {
      await call(`${PATH}/${r.body.id}/cancel`, { method: 'POST', credentials: m });
    }
  });

  it('merges metadata changes, an empty value unsetting its key', async () => {
    const m = await newMerchant();
    const card = await enrolledCard(m);
    const r = await create(m, subscriptionBody(m, card, { frequency: { type: 'YEAR', value: 1 }, metadata: [{ key: 'a', value: '1' }, { key: 'b', value: '2' }] }));
    const patched = await call(`${PATH}/${r.body.id}`, { method: 'PATCH', body: { metadata: [{ key: 'a', value: '' }, { key: 'c', value: '3' }] }, credentials: m });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.metadata, [{ key: 'b', value: '2' }, { key: 'c', value: '3' }]);
    await call(`${PATH}/${r.body.id}/cancel`, { method: 'POST', credentials: m });
    const closed = await call(`${PATH}/${r.body.id}`, { method: 'PATCH', body: { metadata: [{ key: 'd', value: '4' }] }, credentials: m });
    assert.equal(closed.status, 409);
  });

  it('validates every rule at its boundary', async () => {
    const m = await newMerchant();
    const card = await enrolledCard(m);
    const base = subscriptionBody(m, card);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'ab' }, 'name'],
      [{ name: 'x'.repeat(256) }, 'name'],
      [{ description: 'ab' }, 'description'],
      [{ merchant_reference: 'ab' }, 'merchant_reference'],
      [{ account_id: 'nope' }, 'account_id'],
      [{ country: 'col' }, 'country'],
      [{ amount: { currency: 'USD', value: 0 } }, 'amount.value'],
      [{ billing_date: { type: 'DAY_OF_MONTH', day: 1 } }, 'frequency'],
      [{ frequency: undefined }, 'frequency'],
      [{ frequency: { type: 'FORTNIGHT', value: 1 } }, 'frequency.type'],
      [{ frequency: { type: 'DAY', value: 0 } }, 'frequency.value'],
      [{ frequency: undefined, billing_date: { type: 'DAY_OF_WEEK', day: 8 } }, 'billing_date.day'],
      [{ frequency: undefined, billing_date: { type: 'DAY_OF_MONTH' } }, 'billing_date.day'],
      [{ billing_cycles: { total: 0 } }, 'billing_cycles.total'],
      [{ payment_method: { type: 'WALLET', vaulted_token: card.vaultedToken } }, 'payment_method.type'],
      [{ payment_method: { type: 'CARD', vaulted_token: card.vaultedToken, card: { network_transaction_id: 'abc' } } }, 'payment_method.card.network_transaction_id'],
      [{ payment_method: { type: 'CARD', vaulted_token: card.vaultedToken, card: { usage: 'SECOND' } } }, 'payment_method.card.usage'],
      [{ metadata: Array.from({ length: 51 }, (_v, i) => ({ key: `k${i}`, value: 'v' })) }, 'metadata'],
      [{ trial_period: { billing_cycles: 1, amount: { currency: 'EUR', value: 1 } } }, 'trial_period.amount.currency'],
      [{ trial_period: { billing_cycles: 4, amount: { currency: 'USD', value: 1 } } }, 'trial_period.billing_cycles'],
      [{ availability: { start_at: '2030-01-01T00:00:00Z', finish_at: '2029-01-01T00:00:00Z' } }, 'availability.finish_at'],
      [{ retries: { max_attempts: 11 } }, 'retries.max_attempts'],
      [{ retries: { max_attempts: 1, amount: { currency: 'USD', value: 10 } } }, 'retries.amount'],
    ];
    for (const [overrides, field] of cases) {
      const r = await create(m, { ...base, ...overrides });
      assert.equal(r.status, 400, `${JSON.stringify(overrides)}: ${r.text}`);
      assert.ok(r.body.errors.some((e: any) => e.field === field), `${JSON.stringify(overrides)}: expected ${field}, got ${JSON.stringify(r.body.errors)}`);
    }
    const fifty = await create(m, { ...base, frequency: { type: 'YEAR', value: 1 }, metadata: Array.from({ length: 50 }, (_v, i) => ({ key: `k${i}`, value: 'v' })) });
    assert.equal(fifty.status, 200, fifty.text);
    await call(`${PATH}/${fifty.body.id}/cancel`, { method: 'POST', credentials: m });
    const badKey = await create(m, base, { 'x-idempotency-key': 'not-a-uuid' });
    assert.equal(badKey.status, 400);

    const cit = await citEnrolledCard(m);
    const noUsage = await create(m, subscriptionBody(m, cit));
    assert.equal(noUsage.status, 400);
    assert.equal(noUsage.body.errors[0].field, 'payment_method.card.usage');
    const withUsage = await create(m, subscriptionBody(m, cit, { frequency: { type: 'YEAR', value: 1 }, payment_method: { type: 'CARD', vaulted_token: cit.vaultedToken, card: { usage: 'USED', network_transaction_id: 'ntid_123' } } }));
    assert.equal(withUsage.status, 200, withUsage.text);
    assert.deepEqual(withUsage.body.payment_method.card, { installments: null, usage: 'USED', network_transaction_id: withUsage.body.payment_method.card.network_transaction_id });
    await call(`${PATH}/${withUsage.body.id}/cancel`, { method: 'POST', credentials: m });
    const unknownToken = await create(m, subscriptionBody(m, { customerId: card.customerId, vaultedToken: '00000000-0000-4000-8000-000000000000' }));
    assert.equal(unknownToken.status, 404);
    assert.equal(unknownToken.body.code, 'PAYMENT_METHOD_NOT_FOUND');
  });

  it('creates one subscription per idempotency key (replay and concurrent duplicates) and hides other organizations\' subscriptions', async () => {
    const m = await newMerchant();
    const other = await newMerchant();
    const card = await enrolledCard(m);
    const body = subscriptionBody(m, card, { frequency: { type: 'YEAR', value: 1 }, merchant_reference: `plan-${Math.random().toString(36).slice(2, 8)}` });
    const k = key();
    const answers = await Promise.all([1, 2, 3].map(() => create(m, body, { 'x-idempotency-key': k })));
    const ids = answers.filter((a) => a.status === 200).map((a) => a.body.id);
    for (const a of answers) assert.ok(a.status === 200 || a.body.code === 'REQUEST_IN_PROCESS', a.text);
    assert.equal(new Set(ids).size, 1);
    const replay = await create(m, body, { 'x-idempotency-key': k });
    assert.equal(replay.body.id, ids[0]);
    const { db } = await getStack();
    assert.equal(await db.collection('subscriptions').countDocuments({ merchant_reference: body.merchant_reference }), 1);

    const foreign = await call(`${PATH}/${ids[0]}`, { credentials: other });
    const missing = await call(`${PATH}/00000000-0000-4000-8000-000000000000`, { credentials: other });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.code, 'SUBSCRIPTION_NOT_FOUND');
    assert.equal(foreign.body.message, missing.body.message);
    assert.equal((await call(`${PATH}/${ids[0]}/cancel`, { method: 'POST', credentials: other })).status, 404);
    assert.equal((await create(other, body)).body.code, 'ACCOUNT_NOT_FOUND');
    assert.equal((await call(`${PATH}/${ids[0]}`, { credentials: m })).body.status, 'ACTIVE');
    await call(`${PATH}/${ids[0]}/cancel`, { method: 'POST', credentials: m });
  });
});
