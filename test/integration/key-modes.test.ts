/**
 * Test and live key pairs: every merchant gets both; test keys reach only the sandbox and
 * providers' test environments, live keys never reach them and refuse the sandbox's test
 * cards; data of one mode is never read with the other's keys.
 */
import assert from 'node:assert/strict';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import type { KeyPair } from '../../domain/credentials';
import { call, getStack, newMerchant } from '../support/stack';
import { chargesFor, pay } from '../support/payments';

const liveSecret = () => `sk_live_${'51SwitchyardLiveKey'}${Math.random().toString(36).slice(2, 12)}`;
const testSecret = () => `sk_test_${'51SwitchyardTestKey'}${Math.random().toString(36).slice(2, 12)}`;
const REAL_LOOKING_CARD = '4012888888881881'; // Luhn-valid, not one of the sandbox's test cards

function stripeConnection(m: KeyPair, secretKey: string) {
  return call(`/v1/accounts/${m.account_id}/provider-connections`, {
    body: { provider_id: 'STRIPE', name: 'Stripe', merchant_id: 'acct_1SwitchyardModes', credentials: { secret_key: secretKey } },
    credentials: m,
  });
}

describe('test and live keys', function () {
  this.timeout(90_000);

  it('a merchant gets a test pair and a live pair, each in an organization and account of its own', async () => {
    const m = await newMerchant();
    assert.match(m.public_api_key, /^pk_test_/);
    assert.match(m.private_secret_key, /^sk_test_/);
    assert.match(m.live.public_api_key, /^pk_live_/);
    assert.match(m.live.private_secret_key, /^sk_live_/);
    assert.notEqual(m.live.organization_code, m.organization_code);
    assert.notEqual(m.live.account_id, m.account_id);
    // Each pair authenticates; a mixed pair does not.
    const mixed = await call(`/v1/payments/${'00000000-0000-4000-8000-000000000000'}`, { credentials: { public_api_key: m.public_api_key, private_secret_key: m.live.private_secret_key } });
    assert.equal(mixed.status, 401, mixed.text);
  });

  it('test keys pay with sandbox cards; the payment is invisible to the live keys and the other way round', async () => {
    const m = await newMerchant();
    const paid = await pay(m, TEST_CARDS.approved);
    assert.equal(paid.status, 201, paid.text);
    assert.deepEqual([paid.body.status, paid.body.transactions[0].provider_id], ['SUCCEEDED', 'SANDBOX']);
    assert.equal((await call(`/v1/payments/${paid.body.id}`, { credentials: m })).status, 200);
    const fromLive = await call(`/v1/payments/${paid.body.id}`, { credentials: m.live });
    assert.equal(fromLive.status, 404, 'a test payment read with the live keys is missing');
    const captureFromLive = await call(`/v1/payments/${paid.body.id}/refunds`, { body: { amount: 1 }, credentials: m.live });
    assert.equal(captureFromLive.status, 404, 'the live keys cannot refund a test payment');

    const s = await getStack();
    const stored = await s.db.collection('payments').findOne({ _id: paid.body.id });
    assert.equal(stored?.organization_code, m.organization_code, 'stored under the test organization');
  });

  it('live keys refuse the sandbox test cards at the door and, without a live connection, every card; nothing is stored', async () => {
    const m = await newMerchant();
    const s = await getStack();
    const testCard = await pay(m.live, TEST_CARDS.approved);
    assert.equal(testCard.status, 400, testCard.text);
    assert.ok(testCard.text.includes('live keys refuse test cards'), testCard.text);
    assert.ok(JSON.stringify(testCard.body).includes('payment_method.detail.card.number'), testCard.text);

    const noConnection = await pay(m.live, REAL_LOOKING_CARD);
    assert.equal(noConnection.status, 422, noConnection.text);
    assert.equal(noConnection.body.code, 'NO_LIVE_CONNECTION', noConnection.text);
    assert.equal(await s.db.collection('payments').countDocuments({ organization_code: m.live.organization_code }), 0, 'nothing stored');

    // Live accounts list no default sandbox connection and take none.
    const listed = await call(`/v1/accounts/${m.live.account_id}/provider-connections`, { credentials: m.live });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body, []);
    const sandbox = await call(`/v1/accounts/${m.live.account_id}/provider-connections`, { body: { provider_id: 'SANDBOX', name: 'Sandbox', merchant_id: 'sbx-live' }, credentials: m.live });
    assert.equal(sandbox.status, 400, sandbox.text);
    const rule = await call(`/v1/accounts/${m.live.account_id}/routing-rules`, { body: { name: 'to the sandbox', priority: 1, connection_ids: ['default-sandbox-1'] }, credentials: m.live });
    assert.equal(rule.status, 400, 'a live rule cannot name the default sandbox connections');
  });

  it('a connection must fit the keys\' mode: test credentials on the test account, live credentials on the live account', async () => {
    const m = await newMerchant();
    const liveOnTest = await stripeConnection(m, liveSecret());
    assert.equal(liveOnTest.status, 400, liveOnTest.text);
    assert.ok(JSON.stringify(liveOnTest.body).includes('credentials.secret_key'), liveOnTest.text);
    const testOnLive = await stripeConnection(m.live, testSecret());
    assert.equal(testOnLive.status, 400, testOnLive.text);
    assert.equal((await stripeConnection(m, testSecret())).status, 201);
    assert.equal((await stripeConnection(m.live, liveSecret())).status, 201);
  });

  it('live keys route to the live connection (Stripe, via stripe-mock), never to the sandbox', async function () {
    const s = await getStack();
    if (!s.stripe) this.skip();
    const m = await newMerchant();
    const connection = await stripeConnection(m.live, liveSecret());
    assert.equal(connection.status, 201, connection.text);
    const rule = await call(`/v1/accounts/${m.live.account_id}/routing-rules`, { body: { name: 'Stripe live', priority: 1, connection_ids: [connection.body.id] }, credentials: m.live });
    assert.equal(rule.status, 201, rule.text);
    const paid = await pay(m.live, REAL_LOOKING_CARD, { country: 'US', amount: { currency: 'USD', value: 12.5 } });
    assert.equal(paid.status, 201, paid.text);
    // stripe-mock takes test-mode keys only, so Stripe's answer to a live key is 401: the
    // payment went to the live connection, and nowhere else (no sandbox failover).
    assert.deepEqual(paid.body.transactions.map((t: { provider_id: string }) => t.provider_id), ['STRIPE'], paid.text);
    assert.equal(paid.body.transactions[0].provider_data.account_id, connection.body.id);
    assert.equal(paid.body.transactions[0].response_code, 'PROVIDER_AUTHENTICATION_FAILED', paid.text);
    assert.deepEqual(await chargesFor(paid.body.id), [], 'the sandbox acquirer never saw it');
  });
});
