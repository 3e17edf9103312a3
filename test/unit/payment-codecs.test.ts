import assert from 'node:assert/strict';
import { Payment, PaymentCreateRequest, normalizePaymentCreate, paymentCreateProblems, luhnValid } from '../../domain/payments/codecs';
import { nextState, transition, InvalidTransition } from '../../domain/payments/states';
import { fieldErrorsOf } from '../../domain/errors';
import { SchemaRegistry } from '../../domain/codecs/json-schema';

const valid = {
  account_id: '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b',
  description: 'Order 1001',
  country: 'CO',
  merchant_order_id: 'order-1001',
  amount: { currency: 'COP', value: 125000.5 },
  payment_method: {
    type: 'CARD',
    detail: { card: { number: '4111111111111111', holder_name: 'ANA GOMEZ', expiration_month: 12, expiration_year: 2030, security_code: '123', installments: 3 } },
  },
};

describe('unit: payment creation codec', () => {
  it('decodes a valid request, drops unknown fields and applies defaults', () => {
    const decoded = PaymentCreateRequest.decode({ ...valid, surprise: true });
    assert.equal(decoded._tag, 'Right');
    if (decoded._tag !== 'Right') return;
    assert.equal((decoded.right as Record<string, unknown>).surprise, undefined);
    const normalized = normalizePaymentCreate(decoded.right);
    assert.equal(normalized.merchant_reference, 'order-1001');
    assert.equal(normalized.capture, true);
    assert.equal(normalized.workflow, 'DIRECT');
    assert.equal(normalized.payment_method.vault_on_success, false);
    assert.deepEqual(paymentCreateProblems(decoded.right, new Date()), []);
  });

  it('names each failing field', () => {
    const decoded = PaymentCreateRequest.decode({ ...valid, merchant_order_id: 'ab', amount: { currency: 'COP', value: 1.00001 }, workflow: 'FAX' });
    assert.equal(decoded._tag, 'Left');
    if (decoded._tag !== 'Left') return;
    const fields = fieldErrorsOf(decoded.left).map((e) => e.field).sort();
    assert.deepEqual(fields, ['amount.value', 'merchant_order_id', 'workflow']);
  });

  it('rejects a bad check digit and requires exactly one card source', () => {
    assert.equal(luhnValid('4111111111111111'), true);
    assert.equal(luhnValid('4111111111111112'), false);
    const bad = PaymentCreateRequest.decode({ ...valid, payment_method: { type: 'CARD', detail: { card: { ...valid.payment_method.detail.card, number: '4111111111111112' } } } });
    assert.equal(bad._tag, 'Left');
    const two = PaymentCreateRequest.decode({ ...valid, payment_method: { ...valid.payment_method, token: 'tok_1' } });
    assert.equal(two._tag, 'Right');
    if (two._tag === 'Right') assert.equal(paymentCreateProblems(two.right, new Date())[0].code, 'INVALID_PAYMENT_METHOD_SOURCE');
    const partial = PaymentCreateRequest.decode({ ...valid, payment_method: { type: 'CARD', detail: { card: { number: '4111111111111111' } } } });
    if (partial._tag === 'Right') assert.deepEqual(paymentCreateProblems(partial.right, new Date()).map((p) => p.field), ['payment_method.detail.card.holder_name', 'payment_method.detail.card.expiration_month', 'payment_method.detail.card.expiration_year']);
  });

  it('produces an OpenAPI schema for the request and the Payment resource', () => {
    const registry = new SchemaRegistry();
    registry.named('PaymentCreateRequest', PaymentCreateRequest);
    registry.named('Payment', Payment);
    const payment = registry.components.Payment as { properties: Record<string, unknown>; required: string[] };
    for (const field of ['id', 'account_id', 'description', 'country', 'status', 'sub_status', 'merchant_order_id', 'created_at', 'updated_at', 'amount', 'checkout', 'payment_method', 'customer_payer', 'additional_data', 'taxes', 'transactions', 'split', 'callback_url', 'workflow', 'metadata']) {
      assert.ok(payment.required.includes(field), field);
    }
  });
});

describe('unit: payment transition table', () => {
  it('follows the documented lifecycle', () => {
    let s = { status: 'READY_TO_PAY', sub_status: 'CREATED' } as const as Parameters<typeof transition>[0];
    s = transition(s, { type: 'attempt_started' });
    assert.deepEqual(s, { status: 'PENDING', sub_status: 'PROCESSING' });
    s = transition(s, { type: 'approved', captured: false });
    assert.deepEqual(s, { status: 'SUCCEEDED', sub_status: 'AUTHORIZED' });
    s = transition(s, { type: 'capture', full: true });
    s = transition(s, { type: 'refund', full: false });
    assert.deepEqual(s, { status: 'SUCCEEDED', sub_status: 'PARTIALLY_REFUNDED' });
    s = transition(s, { type: 'refund', full: true });
    assert.deepEqual(s, { status: 'REFUNDED', sub_status: 'REFUNDED' });
    assert.throws(() => transition(s, { type: 'refund', full: false }), InvalidTransition);
  });

  it('refuses to cancel a captured payment or capture a declined one', () => {
    assert.equal(nextState({ status: 'SUCCEEDED', sub_status: 'CAPTURED' }, { type: 'cancel' }), null);
    assert.equal(nextState({ status: 'DECLINED', sub_status: 'DECLINED' }, { type: 'capture', full: true }), null);
    assert.equal(nextState({ status: 'SUCCEEDED', sub_status: 'AUTHORIZED' }, { type: 'refund', full: true }), null);
  });
});
