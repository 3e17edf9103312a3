/**
 * ADYEN connections end to end: an account adds an ADYEN connection, routes payments to it
 * and authorizes, captures and refunds through the API; the connector runs through the
 * library's services and HTTP client to the local Checkout API stand-in
 * (test/support/adyen-test-server.ts), which checks every request with the library's models.
 */
import assert from 'node:assert/strict';
import type { IssuedCredentials } from '../../domain/credentials';
import { paymentWorkflowId } from '../../api/routers/payments';
import { call, getStack, newMerchant } from '../support/stack';
import { pay } from '../support/payments';
import { ADYEN_TEST_CARDS, AdyenExchange } from '../support/adyen-test-server';

export const ADYEN_API_KEY = `AQEyhmfxK4_switchyard_${Math.random().toString(36).slice(2, 12)}`;
export const ADYEN_HMAC_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';

export async function addAdyenConnection(m: IssuedCredentials, hmacKey: string | null = ADYEN_HMAC_KEY, name = 'Adyen EU') {
  const created = await call(`/v1/accounts/${m.account_id}/provider-connections`, {
    body: { provider_id: 'ADYEN', name, merchant_id: 'SwitchyardECOM', credentials: { api_key: ADYEN_API_KEY, environment: 'TEST', ...(hmacKey ? { hmac_key: hmacKey } : {}) } },
    credentials: m,
  });
  assert.equal(created.status, 201, created.text);
  return created.body;
}

export async function routeTo(m: IssuedCredentials, connectionIds: string[], conditions: Record<string, unknown> = {}) {
  const rule = await call(`/v1/accounts/${m.account_id}/routing-rules`, { body: { name: 'Provider first', priority: 1, conditions, connection_ids: connectionIds }, credentials: m });
  assert.equal(rule.status, 201, rule.text);
}

async function exchangesOf(paymentId: string): Promise<AdyenExchange[]> {
  return (await getStack()).adyen.exchanges.filter((e) => e.idempotencyKey?.startsWith(`${paymentId}:`));
}

describe('ADYEN connections (library against the Checkout API stand-in)', function () {
  this.timeout(60_000);

  it('stores the credentials sealed, never returns them, and refuses credentials that do not fit', async () => {
    const m = await newMerchant();
    const s = await getStack();
    const connection = await addAdyenConnection(m);
    assert.deepEqual([connection.provider_id, connection.credentials_configured, connection.merchant_id], ['ADYEN', true, 'SwitchyardECOM']);
    const list = await call(`/v1/accounts/${m.account_id}/provider-connections`, { credentials: m });
    assert.ok(!list.text.includes(ADYEN_API_KEY) && !list.text.includes(ADYEN_HMAC_KEY) && !list.text.includes('api_key'));
    const doc = await s.db.collection('provider_connections').findOne({ _id: connection.id });
    assert.ok(doc?.credentials_sealed && !JSON.stringify(doc).includes(ADYEN_API_KEY) && !JSON.stringify(doc).includes(ADYEN_HMAC_KEY));

    const refused = async (credentials: Record<string, unknown> | undefined, field: string) => {
      const answer = await call(`/v1/accounts/${m.account_id}/provider-connections`, { body: { provider_id: 'ADYEN', name: 'Wrong', merchant_id: 'M', ...(credentials ? { credentials } : {}) }, credentials: m });
      assert.equal(answer.status, 400, answer.text);
      assert.equal(answer.body.errors[0].field, field);
      assert.ok(!answer.text.includes(ADYEN_API_KEY));
    };
    await refused(undefined, 'credentials');
    await refused({ api_key: ADYEN_API_KEY }, 'credentials.environment');
    await refused({ api_key: ADYEN_API_KEY, environment: 'LIVE' }, 'credentials.live_endpoint_url_prefix');
    await refused({ api_key: ADYEN_API_KEY, environment: 'TEST', hmac_key: 'not hex' }, 'credentials.hmac_key');
    await refused({ api_key: ADYEN_API_KEY, environment: 'TEST', secret_key: 'sk_test_1234567890' }, 'credentials.secret_key');
    // LIVE credentials belong on the live account (live keys); the test account refuses them.
    const liveBody = { provider_id: 'ADYEN', name: 'Adyen live', merchant_id: 'M', credentials: { api_key: ADYEN_API_KEY, environment: 'LIVE', live_endpoint_url_prefix: '1797a841fbb37ca7-AdyenDemo' } };
    const liveOnTest = await call(`/v1/accounts/${m.account_id}/provider-connections`, { body: liveBody, credentials: m });
    assert.equal(liveOnTest.status, 400, liveOnTest.text);
    assert.equal(liveOnTest.body.errors[0].field, 'credentials.environment');
    const live = await call(`/v1/accounts/${m.live.account_id}/provider-connections`, { body: liveBody, credentials: m.live });
    assert.equal(live.status, 201, live.text);
  });

  it('authorizes, captures partially and refunds through Adyen Checkout', async () => {
    const m = await newMerchant();
    const s = await getStack();
    const connection = await addAdyenConnection(m);
    await routeTo(m, [connection.id]);

    const auth = await pay(m, ADYEN_TEST_CARDS.mastercard, { country: 'NL', capture: false, amount: { currency: 'EUR', value: 80.5 } });
    assert.equal(auth.status, 201, auth.text);
    assert.deepEqual([auth.body.status, auth.body.sub_status], ['SUCCEEDED', 'AUTHORIZED']);
    const authorization = auth.body.transactions[0];
    assert.deepEqual([authorization.type, authorization.category, authorization.provider_id, authorization.response_code, authorization.provider_data.iso8583_response_code], ['AUTHORIZE', 'APPROVED', 'ADYEN', 'APPROVED', '00']);
    const psp = authorization.provider_data.transaction_id;
    assert.match(psp, /^SW\d{14}$/);

    const capture = await call(`/v1/payments/${auth.body.id}/capture`, { body: { amount: 50 }, credentials: m });
    assert.equal(capture.status, 200, capture.text);
    assert.deepEqual([capture.body.sub_status, capture.body.amount.captured, capture.body.transactions[0].response_code], ['PARTIALLY_CAPTURED', 50, 'RECEIVED']);
    const refund = await call(`/v1/payments/${auth.body.id}/refunds`, { body: { amount: 20.25 }, credentials: m });
    assert.equal(refund.status, 201, refund.text);
    assert.deepEqual([refund.body.sub_status, refund.body.amount.refunded], ['PARTIALLY_REFUNDED', 20.25]);

    const full = await call(`/v1/payments/${auth.body.id}?include_transactions=true&include_raw_response=true`, { credentials: m });
    assert.deepEqual(full.body.transactions.map((t: any) => `${t.type}:${t.amount}:${t.status}`), ['AUTHORIZE:80.5:SUCCEEDED', 'CAPTURE:50:SUCCEEDED', 'REFUND:20.25:SUCCEEDED']);
    const raw = full.body.transactions[0].provider_data.raw_response;
    assert.deepEqual([raw.resultCode, raw.pspReference, raw.amount], ['Authorised', psp, { currency: 'EUR', value: 8050 }]);
    assert.equal(raw.additionalData.cardHolderName, '[REDACTED]');
    assert.equal(raw.additionalData.expiryDate, '[REDACTED]');
    assert.ok(!full.text.includes(ADYEN_TEST_CARDS.mastercard));

    const sent = await exchangesOf(auth.body.id);
    assert.deepEqual(sent.map((e) => `${e.path.replace(psp, 'PSP')} ${e.status}`), ['/v72/payments 200', '/v72/payments/PSP/captures 201', '/v72/payments/PSP/refunds 201']);
    for (const e of sent) {
      assert.deepEqual(e.problems, [], `${e.path} is a valid ${e.model}`);
      assert.equal(e.apiKey, ADYEN_API_KEY);
    }
    assert.equal(sent[0].idempotencyKey, `${auth.body.id}:attempt:1`);
    assert.deepEqual([sent[0].body.merchantAccount, sent[0].body.reference, sent[0].body.amount, sent[0].body.additionalData, sent[0].body.paymentMethod.type, sent[0].body.paymentMethod.cvc], ['SwitchyardECOM', auth.body.id, { currency: 'EUR', value: 8050 }, { manualCapture: 'true' }, 'scheme', '737']);
    assert.deepEqual([sent[1].body.amount, sent[2].body.amount], [{ currency: 'EUR', value: 5000 }, { currency: 'EUR', value: 2025 }]);

    // The API key and the card number stay out of the workflow's history.
    const history = JSON.stringify(await s.temporal.workflow.getHandle(paymentWorkflowId(auth.body.id)).fetchHistory());
    assert.ok(!history.includes(ADYEN_API_KEY) && !history.includes(ADYEN_TEST_CARDS.mastercard));
  });

  it('sells with immediate capture in a zero-decimal currency', async () => {
    const m = await newMerchant();
    const connection = await addAdyenConnection(m);
    await routeTo(m, [connection.id]);
    const sale = await pay(m, ADYEN_TEST_CARDS.visa, { country: 'JP', amount: { currency: 'JPY', value: 4321 } });
    assert.deepEqual([sale.status, sale.body.status, sale.body.sub_status, sale.body.amount.captured], [201, 'SUCCEEDED', 'CAPTURED', 4321], sale.text);
    const [sent] = await exchangesOf(sale.body.id);
    assert.deepEqual([sent.body.amount, sent.body.captureDelayHours, sent.body.additionalData], [{ currency: 'JPY', value: 4321 }, 0, undefined]);
  });

  it('declines: a soft refusal fails over to the sandbox, a hard one stops', async () => {
    const m = await newMerchant();
    const connection = await addAdyenConnection(m);
    await routeTo(m, [connection.id, 'default-sandbox-1']);
    const card = { number: '4111111111111111', holder_name: 'CVC DECLINED', expiration_month: 12, expiration_year: 2031, security_code: '737' };
    const hard = await call('/v1/payments', {
      body: { account_id: m.account_id, description: 'Test order', country: 'DE', merchant_order_id: 'order-hard-1', amount: { currency: 'EUR', value: 12 }, payment_method: { type: 'CARD', detail: { card } } },
      credentials: m,
    });
    assert.equal(hard.status, 201, hard.text);
    assert.deepEqual(
      [hard.body.status, hard.body.transactions.length, hard.body.transactions[0].category, hard.body.transactions[0].response_code, hard.body.transactions[0].provider_data.iso8583_response_code, hard.body.transactions[0].response_message],
      ['DECLINED', 1, 'HARD_DECLINE', 'CVC_DECLINED', 'N7', 'CVC Declined'],
    );
    const soft = await call('/v1/payments', {
      body: { account_id: m.account_id, description: 'Test order', country: 'DE', merchant_order_id: 'order-soft-1', amount: { currency: 'EUR', value: 12 }, payment_method: { type: 'CARD', detail: { card: { ...card, holder_name: 'NOT ENOUGH BALANCE' } } } },
      credentials: m,
    });
    const full = await call(`/v1/payments/${soft.body.id}?include_transactions=true`, { credentials: m });
    assert.deepEqual(full.body.transactions.map((t: any) => [t.provider_id, t.category, t.response_code]), [['ADYEN', 'SOFT_DECLINE', 'NOT_ENOUGH_BALANCE'], ['SANDBOX', 'APPROVED', 'APPROVED']]);
  });
});
