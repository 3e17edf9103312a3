import assert from 'node:assert/strict';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import { call, getStack, newMerchant } from '../support/stack';
import { chargesFor, pay, paymentBody } from '../support/payments';

describe('payments: routing, failover, idempotency, capture / cancel / refund', function () {
  this.timeout(60_000);

  it('fails over from a connection in outage to the second one of the rule', async () => {
    const m = await newMerchant();
    const s = await getStack();
    const outageId = `outage-${m.account_id}`;
    const a = await call(`/v1/accounts/${m.account_id}/provider-connections`, { body: { provider_id: 'SANDBOX', name: 'Acquirer A', merchant_id: outageId }, credentials: m });
    const b = await call(`/v1/accounts/${m.account_id}/provider-connections`, { body: { provider_id: 'SANDBOX', name: 'Acquirer B', merchant_id: `ok-${m.account_id}` }, credentials: m });
    assert.equal(a.status, 201, a.text);
    const rule = await call(`/v1/accounts/${m.account_id}/routing-rules`, {
      body: { name: 'Visa in Colombia', priority: 10, conditions: { countries: ['CO'], card_brands: ['VISA'], currencies: ['USD'], amount_min: 1, amount_max: 1000 }, connection_ids: [a.body.id, b.body.id] },
      credentials: m,
    });
    assert.equal(rule.status, 201, rule.text);
    await fetch(`${s.gateway.url}/_sandbox/merchants/${outageId}`, { method: 'PUT', body: JSON.stringify({ mode: 'OUTAGE' }) });

    const r = await pay(m, TEST_CARDS.approved);
    assert.equal(r.body.status, 'SUCCEEDED', r.text);
    const full = await call(`/v1/payments/${r.body.id}?include_transactions=true`, { credentials: m });
    assert.deepEqual(full.body.transactions.map((t: any) => [t.provider_data.account_id, t.status, t.provider_data.response_code]), [[a.body.id, 'ERROR', '503'], [b.body.id, 'SUCCEEDED', '201']]);

    // No rule matches a payment in BR: the account has rules, so no default route applies.
    const br = await pay(m, TEST_CARDS.approved, { country: 'BR' });
    assert.deepEqual([br.body.status, br.body.sub_status, br.body.transactions.length], ['ERROR', 'NO_ROUTE', 0]);
    const unknown = await call(`/v1/accounts/${m.account_id}/routing-rules`, { body: { name: 'bad rule', priority: 1, connection_ids: ['nope'] }, credentials: m });
    assert.equal(unknown.status, 400);
  });

  it('connections name catalogue providers; routing skips those without a connector', async () => {
    const m = await newMerchant();
    const connect = (provider_id: string) => call(`/v1/accounts/${m.account_id}/provider-connections`, { body: { provider_id, name: `${provider_id} connection`, merchant_id: `mid-${provider_id}` }, credentials: m });
    const adyen = await connect('CHECKOUT');
    assert.equal(adyen.status, 201, adyen.text);
    assert.equal(adyen.body.provider_id, 'CHECKOUT');
    const unknown = await connect('ACME');
    assert.equal(unknown.status, 400, unknown.text);
    assert.deepEqual(unknown.body.errors.map((e: any) => e.field), ['provider_id']);

    // CHECKOUT first in the rule: no connector yet, so the card goes to the sandbox connection behind it.
    await call(`/v1/accounts/${m.account_id}/routing-rules`, { body: { name: 'Checkout then sandbox', priority: 10, conditions: { countries: ['CO'] }, connection_ids: [adyen.body.id, 'default-sandbox-1'] }, credentials: m });
    await call(`/v1/accounts/${m.account_id}/routing-rules`, { body: { name: 'Checkout only', priority: 20, conditions: { countries: ['MX'] }, connection_ids: [adyen.body.id] }, credentials: m });
    const co = await pay(m, TEST_CARDS.approved);
    assert.equal(co.body.status, 'SUCCEEDED', co.text);
    assert.deepEqual(co.body.transactions.map((t: any) => [t.provider_id, t.provider_data.account_id]), [['SANDBOX', 'default-sandbox-1']]);
    // Nothing can take it: NO_ROUTE, never a workflow failing on a missing connector.
    const mx = await pay(m, TEST_CARDS.approved, { country: 'MX' });
    assert.deepEqual([mx.body.status, mx.body.sub_status, mx.body.transactions.length], ['ERROR', 'NO_ROUTE', 0], mx.text);
  });

  it('judges non-card methods at the door: 422 PAYMENT_METHOD_NOT_SUPPORTED, nothing stored; dry-run accepts them', async () => {
    const m = await newMerchant();
    const s = await getStack();
    const nonCard = (type: string, overrides: Record<string, unknown> = {}) => ({
      ...paymentBody(m, TEST_CARDS.approved, { country: 'BR', amount: { currency: 'BRL', value: 120.5 }, ...overrides }),
      payment_method: { type, ...(overrides.payment_method as object | undefined) },
    });
    for (const [type, extra] of [['PIX', {}], ['OXXO', {}], ['APPLE_PAY', { payment_method: { token: 'eyJ3YWxsZXQiOiJkYXRhIn0=' } }], ['PAYPAL', {}]] as const) {
      const r = await call('/v1/payments', { body: nonCard(type, extra), credentials: m });
      assert.equal(r.status, 422, `${type}: ${r.text}`);
      assert.equal(r.body.code, 'PAYMENT_METHOD_NOT_SUPPORTED');
      assert.match(r.body.message, new RegExp(`no connection of this account can take ${type} payments in BR`));
      assert.match(r.body.message, new RegExp(`SANDBOX does not take ${type} payments in BR`));
      assert.deepEqual(r.body.errors.map((e: any) => [e.field, e.code]), [['payment_method.type', 'UNSUPPORTED']]);
    }
    // A route to a provider that takes PIX in BR but has no connector says so.
    const adyen = await call(`/v1/accounts/${m.account_id}/provider-connections`, { body: { provider_id: 'ADYEN', name: 'Adyen BR', merchant_id: 'mid-adyen', credentials: { api_key: 'AQE_test_key', environment: 'TEST' } }, credentials: m });
    await call(`/v1/accounts/${m.account_id}/routing-rules`, { body: { name: 'Pix', priority: 1, conditions: { payment_method_types: ['PIX'] }, connection_ids: [adyen.body.id] }, credentials: m });
    const pix = await call('/v1/payments', { body: nonCard('PIX'), credentials: m });
    assert.equal(pix.status, 422, pix.text);
    assert.match(pix.body.message, /no ADYEN connector for bank_transfer payments yet/);
    const nequi = await call('/v1/payments', { body: nonCard('NEQUI', { country: 'CO', amount: { currency: 'COP', value: 50000 } }), credentials: m });
    assert.equal(nequi.status, 422, nequi.text);
    assert.match(nequi.body.message, /no routing rule of the account matches this payment/);
    assert.equal(await s.db.collection('payments').countDocuments({ account_id: m.account_id }), 0);

    // Sources that belong to cards are refused on other methods (400, field by field).
    const withCard = await call('/v1/payments', { body: { ...nonCard('PIX'), payment_method: { type: 'PIX', detail: paymentBody(m, TEST_CARDS.approved).payment_method.detail } }, credentials: m });
    assert.equal(withCard.status, 400, withCard.text);
    assert.deepEqual(withCard.body.errors.map((e: any) => e.field), ['payment_method.detail.card']);
    const noToken = await call('/v1/payments', { body: nonCard('GOOGLE_PAY'), credentials: m });
    assert.deepEqual([noToken.status, noToken.body.errors?.[0]?.field], [400, 'payment_method.token']);

    // Dry-run validates and stores without routing, for every method of the vocabulary.
    const dry = await call('/v1/payments', { body: nonCard('PIX'), credentials: m, headers: { 'Dry-run': 'true' } });
    assert.equal(dry.status, 201, dry.text);
  });

  it('creates exactly one payment for 20 concurrent duplicates with one X-Idempotency-Key', async () => {
    const m = await newMerchant();
    const key = crypto.randomUUID();
    const body = paymentBody(m, TEST_CARDS.approved);
    const answers = await Promise.all(Array.from({ length: 20 }, () => call('/v1/payments', { body, credentials: m, headers: { 'x-idempotency-key': key } })));
    const created = answers.filter((a) => a.status === 201);
    const inProcess = answers.filter((a) => a.status === 400);
    // The shared rate limiter can shed a request under a burst of identical concurrent claims (429): also not a payment.
    const shed = answers.filter((a) => a.status === 429);
    assert.ok(created.length >= 1);
    assert.equal(created.length + inProcess.length + shed.length, 20, JSON.stringify(answers.map((a) => a.status)));
    assert.ok(inProcess.every((a) => a.body.code === 'REQUEST_IN_PROCESS'));
    assert.equal(new Set(created.map((a) => a.body.id)).size, 1);
    const replay = await call('/v1/payments', { body, credentials: m, headers: { 'x-idempotency-key': key } });
    assert.equal(replay.body.id, created[0].body.id);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    const s = await getStack();
    assert.equal(await s.db.collection('payments').countDocuments({ merchant_order_id: body.merchant_order_id }), 1);
    assert.equal((await chargesFor(created[0].body.id)).length, 1);
  });

  it('captures partially, refunds in parts, never more than captured', async () => {
    const m = await newMerchant();
    const r = await pay(m, TEST_CARDS.approved, { capture: false, amount: { currency: 'USD', value: 50 } });
    assert.deepEqual([r.body.status, r.body.sub_status, r.body.transactions[0].type], ['SUCCEEDED', 'AUTHORIZED', 'AUTHORIZE']);
    const early = await call(`/v1/payments/${r.body.id}/refunds`, { body: { amount: 1 }, credentials: m });
    assert.equal(early.status, 409);
    assert.equal(early.body.code, 'INVALID_STATUS_TRANSITION');
    const tooMuch = await call(`/v1/payments/${r.body.id}/capture`, { body: { amount: 50.01 }, credentials: m });
    assert.equal(tooMuch.status, 400);
    const cap = await call(`/v1/payments/${r.body.id}/capture`, { body: { amount: 30 }, credentials: m });
    assert.equal(cap.status, 200, cap.text);
    assert.deepEqual([cap.body.sub_status, cap.body.amount.captured, cap.body.transactions[0].type], ['PARTIALLY_CAPTURED', 30, 'CAPTURE']);
    const again = await call(`/v1/payments/${r.body.id}/capture`, { body: {}, credentials: m });
    assert.equal(again.status, 409);
    const r1 = await call(`/v1/payments/${r.body.id}/refunds`, { body: { amount: 10.1 }, credentials: m });
    assert.equal(r1.status, 201, r1.text);
    assert.deepEqual([r1.body.status, r1.body.sub_status, r1.body.amount.refunded], ['SUCCEEDED', 'PARTIALLY_REFUNDED', 10.1]);
    const over = await call(`/v1/payments/${r.body.id}/refunds`, { body: { amount: 19.91 }, credentials: m });
    assert.equal(over.status, 400);
    assert.equal(over.body.code, 'INVALID_AMOUNT');
    const r2 = await call(`/v1/payments/${r.body.id}/refunds`, { body: { amount: 19.9, reason: 'REQUESTED_BY_CUSTOMER' }, credentials: m });
    assert.deepEqual([r2.body.status, r2.body.sub_status, r2.body.amount.refunded, r2.body.amount.captured], ['REFUNDED', 'REFUNDED', 30, 30]);
    assert.equal(r2.body.transactions[0].reason, 'REQUESTED_BY_CUSTOMER');
    const after = await call(`/v1/payments/${r.body.id}/refunds`, { body: {}, credentials: m });
    assert.equal(after.status, 409);
    const history = await call(`/v1/payments/${r.body.id}?include_transactions=true`, { credentials: m });
    assert.deepEqual(history.body.transactions.map((t: any) => `${t.type}:${t.amount}`), ['AUTHORIZE:50', 'CAPTURE:30', 'REFUND:10.1', 'REFUND:19.9']);
  });

  it('cancels (voids) an authorization and then refuses to capture it', async () => {
    const m = await newMerchant();
    const r = await pay(m, TEST_CARDS.approved, { capture: false });
    const cancel = await call(`/v1/payments/${r.body.id}/cancel`, { body: { reason: 'out of stock' }, credentials: m });
    assert.equal(cancel.status, 200, cancel.text);
    assert.deepEqual([cancel.body.status, cancel.body.sub_status, cancel.body.transactions[0].type, cancel.body.transactions[0].status], ['CANCELED', 'CANCELED', 'CANCEL', 'SUCCEEDED']);
    assert.equal((await chargesFor(r.body.id))[0].status, 'VOIDED');
    const capture = await call(`/v1/payments/${r.body.id}/capture`, { body: {}, credentials: m });
    assert.equal(capture.status, 409);
    const captured = await pay(m, TEST_CARDS.approved);
    const cancelCaptured = await call(`/v1/payments/${captured.body.id}/cancel`, { body: {}, credentials: m });
    assert.equal(cancelCaptured.status, 409);
  });

  it('answers another organization\'s payment exactly like a missing one', async () => {
    const owner = await newMerchant();
    const other = await newMerchant();
    const r = await pay(owner, TEST_CARDS.approved);
    const foreign = await call(`/v1/payments/${r.body.id}`, { credentials: other });
    const missing = await call(`/v1/payments/${crypto.randomUUID()}`, { credentials: other });
    assert.equal(foreign.status, 404);
    assert.deepEqual({ ...foreign.body, request_id: null }, { ...missing.body, request_id: null });
    const list = await call(`/v1/payments?merchant_order_id=${r.body.merchant_order_id}`, { credentials: other });
    assert.deepEqual(list.body, []);
    const mine = await call(`/v1/payments?merchant_order_id=${r.body.merchant_order_id}`, { credentials: owner });
    assert.deepEqual(mine.body.map((p: any) => p.id), [r.body.id]);
    assert.equal((await call(`/v1/payments/${r.body.id}/refunds`, { body: { amount: 1 }, credentials: other })).status, 404);
    const payOnForeignAccount = await pay(other, TEST_CARDS.approved, { account_id: owner.account_id });
    assert.equal(payOnForeignAccount.status, 404);
  });

  it('rejects invalid requests with field paths', async () => {
    const m = await newMerchant();
    const bad = await call('/v1/payments', { body: { ...paymentBody(m, '4111111111111112'), merchant_order_id: 'x', amount: { currency: 'USD', value: -1 } }, credentials: m });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.errors.map((e: any) => e.field).sort(), ['amount.value', 'merchant_order_id', 'payment_method.detail.card.number']);
    assert.ok(!bad.text.includes('4111111111111112'), 'the rejected PAN is not echoed');
    const bool = await call(`/v1/payments/${crypto.randomUUID()}?include_transactions=yes`, { credentials: m });
    assert.equal(bool.status, 400);
  });
});
