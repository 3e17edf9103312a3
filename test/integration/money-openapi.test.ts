import assert from 'node:assert/strict';
import { call } from '../support/stack';

describe('money movement: OpenAPI document', () => {
  it('documents refunds, recipients, onboardings, transfers, balances and subscriptions with their codecs', async () => {
    const doc = (await call('/v1/openapi.json')).body;
    const text = (v: unknown) => JSON.stringify(v);
    const refund = doc.paths['/v1/refunds/unreferenced'].post;
    assert.equal(refund.operationId, 'createUnreferencedRefund');
    assert.match(refund.description, /UNREFERENCED_REFUND_NOT_SUPPORTED/);
    assert.ok(refund.parameters.some((p: any) => p.name === 'X-Idempotency-Key' && p.required), text(refund.parameters));
    for (const field of ['merchant_order_id', 'payment_method', 'fraud_screening', 'callback_url', 'provider_data']) assert.ok(text(refund.requestBody).includes(field) || text(doc.components).includes(field), field);
    assert.ok(refund.responses['201'] && refund.responses['422']);
    const subscription = doc.paths['/v1/subscriptions'].post;
    assert.ok(subscription.responses['200'], 'subscriptions answer 200 as the contract says');
    assert.match(subscription.description, /SUBSCRIPTION_PERIOD_SECONDS/);
    for (const path of [
      '/v1/refunds/unreferenced/{refund_id}', '/v1/recipients', '/v1/recipients/{recipient_id}', '/v1/recipients/{recipient_id}/onboardings',
      '/v1/recipients/{recipient_id}/onboardings/{onboarding_id}', '/v1/split-marketplace/transfers', '/v1/split-marketplace/transfers/{transfer_id}', '/v1/balances',
      '/v1/balances/top-ups', '/v1/subscriptions/{subscription_id}', '/v1/subscriptions/{subscription_id}/pause', '/v1/subscriptions/{subscription_id}/resume', '/v1/subscriptions/{subscription_id}/cancel',
    ]) {
      assert.ok(doc.paths[path], path);
    }
    assert.ok(doc.paths['/v1/subscriptions/{subscription_id}'].patch);
    assert.match(doc.paths['/v1/split-marketplace/transfers'].post.description, /one atomic ledger step/);
    assert.match(doc.paths['/v1/split-marketplace/transfers'].post.description, /DUPLICATE_MERCHANT_REFERENCE/);
  });
});
