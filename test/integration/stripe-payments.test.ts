/**
 * STRIPE connections end to end: an account adds a STRIPE connection, routes payments to it
 * and authorizes, captures, cancels and refunds through the API, against stripe-mock (which
 * validates every request against Stripe's OpenAPI document) behind the test proxy
 * (test/support/stripe-mock-proxy.ts, which fills in the PaymentIntent states stripe-mock's
 * fixtures cannot).
 */
import assert from 'node:assert/strict';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import { connectorFor } from '../../activities/providers';
import { ProviderTimeout } from '../../activities/providers/connector';
import { EncryptionCodec } from '../../activities/runtime/payload-codec';
import { paymentWorkflowId } from '../../api/routers/payments';
import type { IssuedCredentials } from '../../domain/credentials';
import { call, getStack, newMerchant } from '../support/stack';
import { pay } from '../support/payments';
import { STRIPE_TEST_CARDS, StripeExchange } from '../support/stripe-mock-proxy';

const SECRET_KEY = `sk_test_${'51SwitchyardStripeKey'}${Math.random().toString(36).slice(2, 12)}`;

async function stripeProxy() {
  const s = await getStack();
  assert.ok(s.stripe, 'STRIPE_MOCK_URL is not set: run the suite with npm test, which starts stripe-mock');
  return s.stripe;
}

async function addStripeConnection(m: IssuedCredentials, name = 'Stripe US') {
  const created = await call(`/v1/accounts/${m.account_id}/provider-connections`, {
    body: { provider_id: 'STRIPE', name, merchant_id: 'acct_1SwitchyardTest', credentials: { secret_key: SECRET_KEY } },
    credentials: m,
  });
  assert.equal(created.status, 201, created.text);
  return created.body;
}

async function route(m: IssuedCredentials, connectionIds: string[], conditions: Record<string, unknown> = {}) {
  const rule = await call(`/v1/accounts/${m.account_id}/routing-rules`, { body: { name: 'Stripe first', priority: 1, conditions, connection_ids: connectionIds }, credentials: m });
  assert.equal(rule.status, 201, rule.text);
}

/** The exchanges the connector had with Stripe for one payment (its ids are in every idempotency key). */
function exchangesOf(exchanges: StripeExchange[], paymentId: string): StripeExchange[] {
  return exchanges.filter((e) => e.idempotencyKey?.startsWith(`${paymentId}:`));
}

function assertAcceptedByStripeMock(exchanges: StripeExchange[]): void {
  assert.ok(exchanges.length > 0, 'no request reached Stripe');
  for (const e of exchanges) {
    assert.ok(e.mockStatus >= 200 && e.mockStatus < 300, `stripe-mock refused ${e.method} ${e.path}: ${e.mockStatus}`);
    assert.equal(e.stripeVersion, '2026-08-26.dahlia', 'the SDK speaks the API version of stripe-mock\'s document');
    assert.ok(e.idempotencyKey, `${e.method} ${e.path} has no idempotency key`);
  }
  const keys = exchanges.filter((e) => !e.replayed).map((e) => e.idempotencyKey);
  assert.equal(new Set(keys).size, keys.length, 'one idempotency key per request');
}

describe('STRIPE connections (stripe-mock)', function () {
  this.timeout(60_000);

  it('stores the secret key sealed, never returns it, and refuses credentials that do not fit', async () => {
    const m = await newMerchant();
    const s = await getStack();
    const connection = await addStripeConnection(m);
    assert.deepEqual(
      { provider_id: connection.provider_id, status: connection.status, credentials_configured: connection.credentials_configured, default: connection.default },
      { provider_id: 'STRIPE', status: 'ACTIVE', credentials_configured: true, default: false },
    );
    const list = await call(`/v1/accounts/${m.account_id}/provider-connections`, { credentials: m });
    assert.equal(list.status, 200);
    assert.ok(!list.text.includes(SECRET_KEY) && !list.text.includes('secret_key') && !list.text.includes('credentials_sealed'));
    assert.deepEqual(list.body.map((c: any) => [c.provider_id, c.credentials_configured]), [['SANDBOX', false], ['SANDBOX', false], ['STRIPE', true]]);

    const doc = await s.db.collection('provider_connections').findOne({ _id: connection.id });
    assert.ok(doc?.credentials_sealed, 'sealed credentials stored');
    assert.ok(!JSON.stringify(doc).includes(SECRET_KEY), 'no plaintext key in MongoDB');

    const missing = await call(`/v1/accounts/${m.account_id}/provider-connections`, { body: { provider_id: 'STRIPE', name: 'No key', merchant_id: 'acct_x' }, credentials: m });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.errors[0].field, 'credentials');
    const sandboxWithKey = await call(`/v1/accounts/${m.account_id}/provider-connections`, { body: { provider_id: 'SANDBOX', name: 'Sandbox', merchant_id: 'sbx', credentials: { secret_key: SECRET_KEY } }, credentials: m });
    assert.equal(sandboxWithKey.status, 400);
    const publishable = 'pk_test_51NotASecretKeyButPublishable';
    const wrongKind = await call(`/v1/accounts/${m.account_id}/provider-connections`, { body: { provider_id: 'STRIPE', name: 'Wrong key', merchant_id: 'acct_x', credentials: { secret_key: publishable } }, credentials: m });
    assert.equal(wrongKind.status, 400);
    assert.equal(wrongKind.body.errors[0].field, 'credentials.secret_key');
    assert.ok(!wrongKind.text.includes(publishable), 'the refused key is not echoed');
  });

  it('authorizes, captures partially and refunds partially through Stripe PaymentIntents', async () => {
    const m = await newMerchant();
    const s = await getStack();
    const proxy = await stripeProxy();
    const connection = await addStripeConnection(m);
    await route(m, [connection.id], { currencies: ['USD'] });

    const auth = await pay(m, STRIPE_TEST_CARDS.visa, { country: 'US', capture: false, amount: { currency: 'USD', value: 50.25 } });
    assert.equal(auth.status, 201, auth.text);
    assert.deepEqual([auth.body.status, auth.body.sub_status, auth.body.amount.value, auth.body.amount.captured], ['SUCCEEDED', 'AUTHORIZED', 50.25, 0]);
    const authorization = auth.body.transactions[0];
    assert.deepEqual(
      [authorization.type, authorization.status, authorization.category, authorization.provider_id, authorization.response_code, authorization.amount],
      ['AUTHORIZE', 'SUCCEEDED', 'APPROVED', 'STRIPE', 'APPROVED', 50.25],
    );
    assert.match(authorization.provider_data.transaction_id, /^pi_/);
    assert.deepEqual(
      [authorization.provider_data.status, authorization.provider_data.account_id, authorization.provider_data.response_code, authorization.provider_data.iso8583_response_code, authorization.provider_data.iso8583_response_message],
      ['APPROVED', connection.id, '200', '00', 'Approved'],
    );
    const paymentIntent = authorization.provider_data.transaction_id;

    const capture = await call(`/v1/payments/${auth.body.id}/capture`, { body: { amount: 30.1 }, credentials: m });
    assert.equal(capture.status, 200, capture.text);
    assert.deepEqual([capture.body.status, capture.body.sub_status, capture.body.amount.captured, capture.body.transactions[0].type, capture.body.transactions[0].status], ['SUCCEEDED', 'PARTIALLY_CAPTURED', 30.1, 'CAPTURE', 'SUCCEEDED']);
    assert.equal(capture.body.transactions[0].provider_data.transaction_id, paymentIntent);

    const refund = await call(`/v1/payments/${auth.body.id}/refunds`, { body: { amount: 10.05, reason: 'REQUESTED_BY_CUSTOMER' }, credentials: m });
    assert.equal(refund.status, 201, refund.text);
    assert.deepEqual([refund.body.status, refund.body.sub_status, refund.body.amount.refunded, refund.body.amount.captured], ['SUCCEEDED', 'PARTIALLY_REFUNDED', 10.05, 30.1]);
    assert.match(refund.body.transactions[0].provider_data.transaction_id, /^re_/);
    assert.deepEqual([refund.body.transactions[0].type, refund.body.transactions[0].amount, refund.body.transactions[0].reason], ['REFUND', 10.05, 'REQUESTED_BY_CUSTOMER']);

    const full = await call(`/v1/payments/${auth.body.id}?include_transactions=true&include_raw_response=true`, { credentials: m });
    assert.deepEqual(full.body.transactions.map((t: any) => `${t.type}:${t.amount}:${t.provider_id}:${t.status}`), ['AUTHORIZE:50.25:STRIPE:SUCCEEDED', 'CAPTURE:30.1:STRIPE:SUCCEEDED', 'REFUND:10.05:STRIPE:SUCCEEDED']);
    const [rawAuth, rawCapture, rawRefund] = full.body.transactions.map((t: any) => t.provider_data.raw_response);
    assert.deepEqual([rawAuth.object, rawAuth.id, rawAuth.status, rawAuth.amount, rawAuth.currency, rawAuth.capture_method], ['payment_intent', paymentIntent, 'requires_capture', 5025, 'usd', 'manual']);
    assert.equal(rawAuth.client_secret, undefined, 'the client_secret is not kept');
    assert.deepEqual([rawCapture.status, rawCapture.amount_received], ['succeeded', 3010]);
    assert.deepEqual([rawRefund.object, rawRefund.amount, rawRefund.payment_intent, rawRefund.status], ['refund', 1005, paymentIntent, 'succeeded']);
    assert.ok(!full.text.includes(STRIPE_TEST_CARDS.visa), 'no card number in the payment');

    // What the connector sent, and stripe-mock accepted every request of it.
    const sent = exchangesOf(proxy.exchanges, auth.body.id);
    assertAcceptedByStripeMock(sent);
    assert.deepEqual(sent.map((e) => `${e.method} ${e.path}`), ['POST /v1/payment_methods', 'POST /v1/payment_intents', `POST /v1/payment_intents/${paymentIntent}/capture`, 'POST /v1/refunds']);
    const [method, intent, captured, refunded] = sent;
    assert.deepEqual([method.params.type, method.params['card[number]'], method.params['card[exp_month]'], method.params['card[exp_year]'], method.params['billing_details[name]']], ['card', '****4242', '12', '2031', 'ANA GOMEZ']);
    assert.deepEqual(
      [intent.params.amount, intent.params.currency, intent.params.capture_method, intent.params.confirm, intent.params['payment_method_types[0]'], intent.params.payment_method, intent.params['metadata[switchyard_reference]']],
      ['5025', 'usd', 'manual', 'true', 'card', method.body.id, auth.body.id],
    );
    assert.equal(intent.idempotencyKey, `${auth.body.id}:attempt:1`);
    assert.equal(captured.params.amount_to_capture, '3010');
    assert.deepEqual([refunded.params.amount, refunded.params.payment_intent], ['1005', paymentIntent]);

    // The key is opened by the activity: it is nowhere in the workflow's history, decrypted
    // or not; neither is the card number.
    const history = await s.temporal.workflow.getHandle(paymentWorkflowId(auth.body.id)).fetchHistory();
    const payloads: any[] = [];
    const walk = (node: any) => {
      if (!node || typeof node !== 'object') return;
      if (node.metadata && node.data && typeof node.metadata === 'object') payloads.push(node);
      for (const child of Object.values(node)) walk(child);
    };
    walk(history);
    const decoded = await new EncryptionCodec(s.keyring).decode(payloads.map((p) => ({ metadata: p.metadata, data: p.data })));
    const plain = decoded.map((p) => Buffer.from(p.data ?? []).toString('utf8')).join('\n');
    assert.match(plain, new RegExp(paymentIntent), 'decrypted history is readable');
    for (const text of [JSON.stringify(history), plain]) {
      assert.ok(!text.includes(SECRET_KEY), 'no Stripe key in workflow history');
      assert.ok(!text.includes(STRIPE_TEST_CARDS.visa), 'no card number in workflow history');
    }
  });

  it('sells with automatic capture in a zero-decimal currency, then refunds in full', async () => {
    const m = await newMerchant();
    const proxy = await stripeProxy();
    const connection = await addStripeConnection(m, 'Stripe JP');
    await route(m, [connection.id]);
    const sale = await pay(m, STRIPE_TEST_CARDS.visa, { country: 'JP', amount: { currency: 'JPY', value: 1234 } });
    assert.equal(sale.status, 201, sale.text);
    assert.deepEqual([sale.body.status, sale.body.sub_status, sale.body.amount.captured, sale.body.transactions[0].type], ['SUCCEEDED', 'CAPTURED', 1234, 'PURCHASE']);
    const refund = await call(`/v1/payments/${sale.body.id}/refunds`, { body: {}, credentials: m });
    assert.deepEqual([refund.status, refund.body.status, refund.body.sub_status, refund.body.amount.refunded], [201, 'REFUNDED', 'REFUNDED', 1234]);
    const sent = exchangesOf(proxy.exchanges, sale.body.id);
    assertAcceptedByStripeMock(sent);
    const intent = sent.find((e) => e.path === '/v1/payment_intents')!;
    assert.deepEqual([intent.params.amount, intent.params.currency, intent.params.capture_method], ['1234', 'jpy', 'automatic']);
    assert.equal(sent.find((e) => e.path === '/v1/refunds')!.params.amount, '1234');
  });

  it('cancels an authorization with a PaymentIntent cancel', async () => {
    const m = await newMerchant();
    const proxy = await stripeProxy();
    const connection = await addStripeConnection(m);
    await route(m, [connection.id]);
    const auth = await pay(m, STRIPE_TEST_CARDS.visa, { country: 'DE', capture: false, amount: { currency: 'EUR', value: 19.99 } });
    assert.equal(auth.body.sub_status, 'AUTHORIZED', auth.text);
    const cancel = await call(`/v1/payments/${auth.body.id}/cancel`, { body: { reason: 'out of stock' }, credentials: m });
    assert.equal(cancel.status, 200, cancel.text);
    assert.deepEqual([cancel.body.status, cancel.body.transactions[0].type, cancel.body.transactions[0].status], ['CANCELED', 'CANCEL', 'SUCCEEDED']);
    const sent = exchangesOf(proxy.exchanges, auth.body.id);
    assertAcceptedByStripeMock(sent);
    assert.equal(sent[sent.length - 1].path, `/v1/payment_intents/${auth.body.transactions[0].provider_data.transaction_id}/cancel`);
    assert.equal(sent.find((e) => e.path === '/v1/payment_intents')!.params.amount, '1999');
  });

  it('maps Stripe declines: a soft decline fails over to the sandbox, a hard one stops, 3-D Secure waits', async () => {
    const m = await newMerchant();
    const proxy = await stripeProxy();
    const connection = await addStripeConnection(m);
    await route(m, [connection.id, 'default-sandbox-1']);

    // insufficient_funds is soft: the sandbox (same test card number: its own 51) is tried next.
    const soft = await pay(m, STRIPE_TEST_CARDS.insufficientFunds, { country: 'US' });
    const softFull = await call(`/v1/payments/${soft.body.id}?include_transactions=true`, { credentials: m });
    const [stripeTry] = softFull.body.transactions;
    assert.deepEqual(
      [stripeTry.provider_id, stripeTry.status, stripeTry.category, stripeTry.response_code, stripeTry.provider_data.iso8583_response_code, stripeTry.provider_data.response_code],
      ['STRIPE', 'DECLINED', 'SOFT_DECLINE', 'INSUFFICIENT_FUNDS', '51', '402'],
    );
    assert.deepEqual(softFull.body.transactions.map((t: any) => t.provider_id), ['STRIPE', 'SANDBOX']);

    const hard = await pay(m, STRIPE_TEST_CARDS.stolenCard, { country: 'US' });
    assert.deepEqual([hard.body.status, hard.body.transactions.length, hard.body.transactions[0].category, hard.body.transactions[0].response_code, hard.body.transactions[0].provider_data.iso8583_response_code], ['DECLINED', 1, 'HARD_DECLINE', 'STOLEN_CARD', '43']);

    const threeDs = await pay(m, STRIPE_TEST_CARDS.authenticationRequired, { country: 'US' });
    assert.deepEqual([threeDs.body.status, threeDs.body.sub_status, threeDs.body.transactions[0].category, threeDs.body.transactions[0].three_d_secure_action_required], ['PENDING', 'WAITING_ADDITIONAL_STEP', 'THREE_D_SECURE', true]);
    assert.equal(threeDs.body.transactions[0].provider_data.iso8583_response_code, '1A');

    for (const id of [soft.body.id, hard.body.id, threeDs.body.id]) {
      for (const e of exchangesOf(proxy.exchanges, id)) assert.ok(e.mockStatus < 300, `stripe-mock refused ${e.path}`);
    }
  });

  it('fails over from a rate-limited Stripe to the sandbox, and from a sandbox outage to Stripe', async () => {
    const m = await newMerchant();
    const s = await getStack();
    const proxy = await stripeProxy();
    const stripe = await addStripeConnection(m);
    const outageId = `outage-${m.account_id}`;
    const sandbox = await call(`/v1/accounts/${m.account_id}/provider-connections`, { body: { provider_id: 'SANDBOX', name: 'Sandbox in outage', merchant_id: outageId }, credentials: m });
    await route(m, [stripe.id, 'default-sandbox-1'], { countries: ['US'] });
    await route(m, [sandbox.body.id, stripe.id], { countries: ['MX'] });

    proxy.failure = 'rate_limit';
    try {
      const first = await pay(m, TEST_CARDS.approved, { country: 'US' });
      assert.equal(first.body.status, 'SUCCEEDED', first.text);
      const full = await call(`/v1/payments/${first.body.id}?include_transactions=true`, { credentials: m });
      assert.deepEqual(full.body.transactions.map((t: any) => [t.provider_id, t.status, t.response_code]), [['STRIPE', 'ERROR', 'RATE_LIMITED'], ['SANDBOX', 'SUCCEEDED', 'APPROVED']]);
    } finally {
      proxy.failure = null;
    }

    await fetch(`${s.gateway.url}/_sandbox/merchants/${outageId}`, { method: 'PUT', body: JSON.stringify({ mode: 'OUTAGE' }) });
    const second = await pay(m, STRIPE_TEST_CARDS.visa, { country: 'MX', amount: { currency: 'MXN', value: 250.5 } });
    const full = await call(`/v1/payments/${second.body.id}?include_transactions=true`, { credentials: m });
    assert.deepEqual(full.body.transactions.map((t: any) => [t.provider_id, t.status]), [['SANDBOX', 'ERROR'], ['STRIPE', 'SUCCEEDED']]);
    assert.equal(exchangesOf(proxy.exchanges, second.body.id).find((e) => e.path === '/v1/payment_intents')!.idempotencyKey, `${second.body.id}:attempt:2`);
  });

  it('reverses an authorization whose answer was lost: the replay finds it, then it is canceled', async () => {
    const s = await getStack();
    const proxy = await stripeProxy();
    const connector = connectorFor('STRIPE');
    const paymentId = crypto.randomUUID();
    const callTo = { target: { connectionId: 'c-timeout', providerId: 'STRIPE', merchantId: 'acct_x' }, credentials: { secretKey: SECRET_KEY }, baseUrl: s.stripe!.url, timeoutMs: 1_500 };
    const request = {
      idempotencyKey: `${paymentId}:attempt:1`, reference: paymentId, amount: 12, currency: 'USD', capture: false, installments: null, softDescriptor: null,
      card: { number: STRIPE_TEST_CARDS.visa, holderName: null, expirationMonth: 1, expirationYear: 2031, securityCode: null },
    };
    proxy.failure = 'hang_once';
    await assert.rejects(connector.authorize(callTo, request), ProviderTimeout);
    const reversal = (await connector.reverse(callTo, request)) as any;
    assert.equal(reversal.payment_intent.status, 'requires_capture');
    assert.deepEqual(reversal.reversal, { action: 'cancel', status: 'canceled' });
    const sent = exchangesOf(proxy.exchanges, paymentId);
    assert.deepEqual(sent.map((e) => [e.path.replace(/pi_\w+/, 'pi'), e.replayed]), [
      ['/v1/payment_methods', false],
      ['/v1/payment_intents', false],
      ['/v1/payment_methods', true],
      ['/v1/payment_intents', true],
      ['/v1/payment_intents/pi/cancel', false],
    ]);
  });

  it('answers an unreachable Stripe as a provider error of the attempt', async () => {
    const connector = connectorFor('STRIPE');
    const callTo = { target: { connectionId: 'c-down', providerId: 'STRIPE', merchantId: 'acct_x' }, credentials: { secretKey: SECRET_KEY }, baseUrl: 'http://127.0.0.1:9', timeoutMs: 2_000 };
    const request = {
      idempotencyKey: `${crypto.randomUUID()}:attempt:1`, reference: 'r', amount: 1, currency: 'USD', capture: true, installments: null, softDescriptor: null,
      card: { number: STRIPE_TEST_CARDS.visa, holderName: null, expirationMonth: 1, expirationYear: 2031, securityCode: null },
    };
    await assert.rejects(connector.authorize(callTo, request), (error: Error) => !(error instanceof ProviderTimeout) && /Stripe unreachable/.test(error.message));
  });
});
