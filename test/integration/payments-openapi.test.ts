import assert from 'node:assert/strict';
import { call } from '../support/stack';

describe('payments: OpenAPI document', () => {
  it('documents the payment contract, the transition table, test cards and webhook signing', async () => {
    const doc = (await call('/v1/openapi.json')).body;
    const create = doc.paths['/v1/payments'].post;
    assert.equal(create.operationId, 'createPayment');
    assert.match(create.description, /READY_TO_PAY\/CREATED -> PENDING\/PROCESSING/);
    assert.match(create.description, /4000000000009979 hard decline 43/);
    const get = doc.paths['/v1/payments/{payment_id}'].get;
    assert.deepEqual(get.parameters.filter((p: any) => p.in === 'query').map((p: any) => p.name), ['include_raw_response', 'include_transactions']);
    for (const path of ['/v1/payments/{payment_id}/capture', '/v1/payments/{payment_id}/cancel', '/v1/payments/{payment_id}/refunds', '/v1/customers/sessions', '/v1/checkout/customers/sessions/{customer_session}/payment-methods', '/v1/customers/{customer_id}/payment-methods/{payment_method_id}', '/v1/accounts/{account_id}/routing-rules', '/v1/webhooks/deliveries']) {
      assert.ok(doc.paths[path], path);
    }
    assert.match(doc.paths['/v1/accounts/{account_id}/webhook'].put.description, /HMAC-SHA256/);
    assert.ok(doc.components.schemas.PaymentCreateRequest || JSON.stringify(create.requestBody).includes('merchant_order_id'));
  });
});
