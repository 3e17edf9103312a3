/**
 * POST /v1/provider-webhooks/{connection_id} over real HTTP: events signed with the
 * providers' own helpers (Stripe's generateTestHeaderString, the Adyen library's
 * HmacValidator) move waiting payments, record chargebacks, are applied once, and bad
 * signatures or another organization's connection change nothing.
 */
import assert from 'node:assert/strict';
import { hmacValidator as HmacValidator } from '@adyen/api-library';
import Stripe from 'stripe';
import type { IssuedCredentials } from '../../domain/credentials';
import { call, getStack, newMerchant } from '../support/stack';
import { pay, waitForPayment } from '../support/payments';
import { ADYEN_TEST_CARDS } from '../support/adyen-test-server';
import { STRIPE_TEST_CARDS } from '../support/stripe-mock-proxy';
import { addAdyenConnection, ADYEN_HMAC_KEY, routeTo } from './adyen-payments.test';

const STRIPE_KEY = `sk_test_51SwitchyardWebhooks${Math.random().toString(36).slice(2, 10)}`;
const STRIPE_WEBHOOK_SECRET = `whsec_${Math.random().toString(36).slice(2, 14)}Switchyard`;
const stripe = new Stripe(STRIPE_KEY);

function adyenItem(fields: Record<string, unknown>, hmacKey = ADYEN_HMAC_KEY) {
  const item: Record<string, any> = {
    additionalData: {},
    amount: { currency: 'EUR', value: 1000 },
    eventDate: '2026-11-22T21:00:00+01:00',
    merchantAccountCode: 'SwitchyardECOM',
    paymentMethod: 'visa',
    reason: '',
    success: 'true',
    ...fields,
  };
  item.additionalData = { ...item.additionalData, hmacSignature: new HmacValidator().calculateHmac(item as never, hmacKey) };
  return item;
}

const adyenBody = (...items: Record<string, unknown>[]) => ({ live: 'false', notificationItems: items.map((NotificationRequestItem) => ({ NotificationRequestItem })) });

function postAdyen(connectionId: string, body: unknown) {
  return call(`/v1/provider-webhooks/${connectionId}`, { body });
}

function postStripe(connectionId: string, event: Record<string, unknown>, secret = STRIPE_WEBHOOK_SECRET, header?: string) {
  const payload = JSON.stringify(event);
  const signature = header ?? stripe.webhooks.generateTestHeaderString({ payload, secret });
  return call(`/v1/provider-webhooks/${connectionId}`, { rawBody: payload, headers: { 'content-type': 'application/json; charset=utf-8', ...(signature ? { 'stripe-signature': signature } : {}) } });
}

const stripeEvent = (type: string, object: Record<string, unknown>) => ({ id: `evt_${Math.random().toString(36).slice(2, 16)}`, object: 'event', api_version: '2026-08-26.dahlia', created: 1795000000, livemode: false, type, data: { object } });

async function threeDsAdyenPayment(m: IssuedCredentials, capture: boolean) {
  const waiting = await pay(m, ADYEN_TEST_CARDS.threeDs, { country: 'NL', capture, amount: { currency: 'EUR', value: 10 } });
  assert.equal(waiting.status, 201, waiting.text);
  assert.deepEqual([waiting.body.status, waiting.body.sub_status, waiting.body.transactions[0].category], ['PENDING', 'WAITING_ADDITIONAL_STEP', 'THREE_D_SECURE']);
  return { id: waiting.body.id as string, psp: waiting.body.transactions[0].provider_data.transaction_id as string };
}

describe('Provider webhooks (POST /v1/provider-webhooks/{connection_id})', function () {
  this.timeout(60_000);

  it('ADYEN: a signed AUTHORISATION completes a 3-D Secure payment once; a chargeback is recorded; bad signatures are refused', async () => {
    const m = await newMerchant();
    const s = await getStack();
    const connection = await addAdyenConnection(m);
    await routeTo(m, [connection.id]);
    const { id, psp } = await threeDsAdyenPayment(m, true);

    const authorisation = adyenItem({ eventCode: 'AUTHORISATION', pspReference: psp, merchantReference: id });
    const accepted = await postAdyen(connection.id, adyenBody(authorisation));
    assert.deepEqual([accepted.status, accepted.text], [200, '[accepted]']);
    const paid = await waitForPayment(m, id, (p) => p.status === 'SUCCEEDED');
    assert.deepEqual([paid.sub_status, paid.amount.captured, paid.checkout.sdk_action_required], ['CAPTURED', 10, false]);
    assert.deepEqual(paid.transactions.map((t: any) => `${t.type}:${t.status}:${t.category}`), ['PURCHASE:PENDING:THREE_D_SECURE', 'PURCHASE:SUCCEEDED:APPROVED']);
    assert.equal(paid.transactions[1].provider_data.transaction_id, psp);

    // The same notification again: 200, nothing changes.
    const again = await postAdyen(connection.id, adyenBody(authorisation));
    assert.deepEqual([again.status, again.text], [200, '[accepted]']);
    const after = await call(`/v1/payments/${id}?include_transactions=true`, { credentials: m });
    assert.equal(after.body.transactions.length, 2);
    assert.equal(await s.db.collection('provider_events').countDocuments({ connection_id: connection.id, event_id: `AUTHORISATION:${psp}:` }), 1);

    const chargeback = await postAdyen(connection.id, adyenBody(adyenItem({ eventCode: 'NOTIFICATION_OF_CHARGEBACK', pspReference: `CB${psp.slice(2)}`, originalReference: psp, merchantReference: id, reason: 'Fraudulent', amount: { currency: 'EUR', value: 1000 } })));
    assert.equal(chargeback.status, 200);
    const disputed = await waitForPayment(m, id, (p) => p.transactions.length === 3);
    assert.deepEqual([disputed.transactions[2].type, disputed.transactions[2].status, disputed.transactions[2].amount, disputed.transactions[2].reason, disputed.status], ['CHARGEBACK', 'PENDING', 10, 'Fraudulent', 'SUCCEEDED']);

    const forged = adyenItem({ eventCode: 'AUTHORISATION', pspReference: 'SW00000000000001', merchantReference: id }, 'AA'.repeat(32));
    const bad = await postAdyen(connection.id, adyenBody(forged));
    assert.deepEqual([bad.status, bad.body.code], [401, 'INVALID_SIGNATURE']);
    const unsigned = { ...forged, additionalData: {} };
    const missing = await postAdyen(connection.id, adyenBody(unsigned));
    assert.deepEqual([missing.status, missing.body.code], [400, 'SIGNATURE_MISSING']);
    const notAdyen = await postAdyen(connection.id, { hello: 'world' });
    assert.deepEqual([notAdyen.status, notAdyen.body.code], [400, 'INVALID_PROVIDER_EVENT']);
    const unknown = await postAdyen(crypto.randomUUID(), adyenBody(authorisation));
    assert.deepEqual([unknown.status, unknown.body.code], [401, 'INVALID_SIGNATURE']);
    assert.equal((await s.db.collection('provider_events').countDocuments({ connection_id: connection.id })), 2);
  });

  it('ADYEN: a refused AUTHORISATION declines a waiting authorization', async () => {
    const m = await newMerchant();
    const connection = await addAdyenConnection(m);
    await routeTo(m, [connection.id]);
    const { id, psp } = await threeDsAdyenPayment(m, false);
    const refused = await postAdyen(connection.id, adyenBody(adyenItem({ eventCode: 'AUTHORISATION', pspReference: psp, merchantReference: id, success: 'false', reason: '3D Not Authenticated' })));
    assert.equal(refused.status, 200);
    const declined = await waitForPayment(m, id, (p) => p.status === 'DECLINED');
    const last = declined.transactions[declined.transactions.length - 1];
    assert.deepEqual([last.type, last.status, last.category, last.response_code], ['AUTHORIZE', 'DECLINED', 'HARD_DECLINE', 'THREE_D_NOT_AUTHENTICATED']);
  });

  it('one organization\'s connection cannot touch another organization\'s payment', async () => {
    const a = await newMerchant('Org A');
    const b = await newMerchant('Org B');
    const s = await getStack();
    const connectionA = await addAdyenConnection(a);
    await routeTo(a, [connectionA.id]);
    const connectionB = await addAdyenConnection(b, ADYEN_HMAC_KEY, 'Adyen of B');
    const { id, psp } = await threeDsAdyenPayment(a, true);
    // B signs, with its own (valid) key, an event naming A's payment and PSP reference.
    const answer = await postAdyen(connectionB.id, adyenBody(adyenItem({ eventCode: 'AUTHORISATION', pspReference: psp, merchantReference: id })));
    assert.deepEqual([answer.status, answer.text], [200, '[accepted]']);
    const kept = await s.db.collection('provider_events').findOne({ connection_id: connectionB.id });
    assert.deepEqual([kept?.status, kept?.payment_id], ['UNMATCHED', null]);
    const untouched = await call(`/v1/payments/${id}?include_transactions=true`, { credentials: a });
    assert.deepEqual([untouched.body.status, untouched.body.sub_status, untouched.body.transactions.length], ['PENDING', 'WAITING_ADDITIONAL_STEP', 1]);
  });

  it('STRIPE: payment_intent.succeeded completes 3-D Secure once, a dispute is recorded, bad signatures are refused', async () => {
    const s = await getStack();
    assert.ok(s.stripe, 'STRIPE_MOCK_URL is not set: run the suite with npm test, which starts stripe-mock');
    const m = await newMerchant();
    const created = await call(`/v1/accounts/${m.account_id}/provider-connections`, {
      body: { provider_id: 'STRIPE', name: 'Stripe US', merchant_id: 'acct_1Switchyard', credentials: { secret_key: STRIPE_KEY, webhook_secret: STRIPE_WEBHOOK_SECRET } },
      credentials: m,
    });
    assert.equal(created.status, 201, created.text);
    const connection = created.body;
    await routeTo(m, [connection.id]);
    const waiting = await pay(m, STRIPE_TEST_CARDS.authenticationRequired, { country: 'US' });
    assert.equal(waiting.body.sub_status, 'WAITING_ADDITIONAL_STEP', waiting.text);
    const intent = waiting.body.transactions[0].provider_data.transaction_id;

    const succeeded = stripeEvent('payment_intent.succeeded', { id: intent, object: 'payment_intent', status: 'succeeded', amount: 4999, currency: 'usd', client_secret: `${intent}_secret_abc`, metadata: { switchyard_reference: waiting.body.id } });
    const first = await postStripe(connection.id, succeeded);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body.events, [{ event_id: succeeded.id, status: 'APPLIED' }]);
    const paid = await call(`/v1/payments/${waiting.body.id}?include_transactions=true&include_raw_response=true`, { credentials: m });
    assert.deepEqual([paid.body.status, paid.body.sub_status, paid.body.amount.captured, paid.body.transactions.length], ['SUCCEEDED', 'CAPTURED', 49.99, 2]);
    assert.equal(paid.body.transactions[1].provider_data.raw_response.data.object.client_secret, undefined, 'no client_secret kept');

    const repeat = await postStripe(connection.id, succeeded);
    assert.deepEqual([repeat.status, repeat.body.events], [200, [{ event_id: succeeded.id, status: 'DUPLICATE' }]]);

    const dispute = stripeEvent('charge.dispute.created', { id: 'dp_1Switchyard', object: 'dispute', amount: 4999, currency: 'usd', payment_intent: intent, charge: 'ch_1', reason: 'fraudulent', status: 'needs_response' });
    const disputed = await postStripe(connection.id, dispute);
    assert.deepEqual(disputed.body.events, [{ event_id: dispute.id, status: 'APPLIED' }]);
    const after = await call(`/v1/payments/${waiting.body.id}?include_transactions=true`, { credentials: m });
    const chargeback = after.body.transactions[2];
    assert.deepEqual([chargeback.type, chargeback.status, chargeback.amount, chargeback.reason, chargeback.provider_data.transaction_id], ['CHARGEBACK', 'PENDING', 49.99, 'fraudulent', 'dp_1Switchyard']);

    const other = stripeEvent('payment_intent.succeeded', { id: intent, object: 'payment_intent', metadata: { switchyard_reference: waiting.body.id } });
    const forged = await postStripe(connection.id, other, 'whsec_notTheRightSecret');
    assert.deepEqual([forged.status, forged.body.code], [401, 'INVALID_SIGNATURE']);
    const missing = await postStripe(connection.id, other, STRIPE_WEBHOOK_SECRET, '');
    assert.deepEqual([missing.status, missing.body.code], [400, 'SIGNATURE_MISSING']);
    assert.equal(await s.db.collection('provider_events').countDocuments({ connection_id: connection.id }), 2);
  });
});
