import assert from 'node:assert/strict';
import { outcomeOfDecisiveFirstAttempt, ProviderResult } from '../../domain/payments/attempts';
import { normalizePaymentCreate, PaymentCreateRequest } from '../../domain/payments/codecs';
import { applyEvent, newPaymentRecord, PaymentRecord, sanitizePaymentRequest } from '../../domain/payments/record';
import type { TransactionCategory } from '../../domain/payments/states';

const AT = '2026-11-24T10:00:00.000Z';
const CONNECTION = { connectionId: 'conn-1', providerId: 'SANDBOX' };

function started(capture: boolean): PaymentRecord {
  const request = normalizePaymentCreate({
    account_id: 'acc', description: 'order', country: 'CO', merchant_order_id: 'order-1', capture,
    amount: { currency: 'USD', value: '10.50' },
    payment_method: { type: 'CARD' },
  } as unknown as PaymentCreateRequest);
  const record = newPaymentRecord({ paymentId: 'pay-1', organizationCode: 'org', accountId: 'acc', createdAt: AT, request: sanitizePaymentRequest(request), card: null, customer: null, vaultedToken: null });
  return applyEvent(record, { type: 'attempt_started' }, AT);
}

function answer(category: TransactionCategory): ProviderResult {
  return {
    category, providerStatus: category, providerTransactionId: 'ptx-1', responseCode: category, responseMessage: category.toLowerCase(),
    iso8583Code: null, iso8583Message: null, httpStatus: 200, rawResponse: { ok: true }, threeDsRedirectUrl: null,
  };
}

describe('a decisive first attempt (the outcome its activity stores)', () => {
  it('settles a captured approval with its transaction, captured amount and new version', () => {
    const before = started(true);
    const outcome = outcomeOfDecisiveFirstAttempt(before, answer('APPROVED'), CONNECTION, 2, 'tx-1', AT)!;
    assert.equal(`${outcome.status}/${outcome.sub_status}`, 'SUCCEEDED/CAPTURED');
    assert.equal(outcome.amount.captured, outcome.amount.value);
    assert.deepEqual(outcome.transactions.map((t) => [t.id, t.type, t.status, t.connection_id, t.provider_data?.transaction_id]), [['tx-1', 'PURCHASE', 'SUCCEEDED', 'conn-1', 'ptx-1']]);
    assert.ok(outcome.version > before.version);
  });

  it('authorizes only when capture is false, and asks for the SDK on 3-D Secure', () => {
    const authorized = outcomeOfDecisiveFirstAttempt(started(false), answer('APPROVED'), CONNECTION, 1, 'tx-1', AT)!;
    assert.equal(`${authorized.status}/${authorized.sub_status}`, 'SUCCEEDED/AUTHORIZED');
    assert.equal(authorized.amount.captured, 0);
    assert.equal(authorized.transactions[0].type, 'AUTHORIZE');
    const waiting = outcomeOfDecisiveFirstAttempt(started(true), answer('THREE_D_SECURE'), CONNECTION, 2, 'tx-1', AT)!;
    assert.equal(waiting.sub_status, 'WAITING_ADDITIONAL_STEP');
    assert.equal(waiting.checkout.sdk_action_required, true);
  });

  it('leaves a failover-eligible answer to the workflow when another connection is routed, and settles it on the last one', () => {
    for (const category of ['SOFT_DECLINE', 'TIMEOUT', 'PROVIDER_ERROR'] as const) {
      assert.equal(outcomeOfDecisiveFirstAttempt(started(true), answer(category), CONNECTION, 2, 'tx-1', AT), null, category);
      assert.notEqual(outcomeOfDecisiveFirstAttempt(started(true), answer(category), CONNECTION, 1, 'tx-1', AT), null, category);
    }
    const hard = outcomeOfDecisiveFirstAttempt(started(true), answer('HARD_DECLINE'), CONNECTION, 2, 'tx-1', AT)!;
    assert.equal(`${hard.status}/${hard.sub_status}`, 'DECLINED/DECLINED');
  });
});
