/**
 * The STRIPE connector's mapping of answers stripe-mock cannot produce (declines, 3-D
 * Secure, rate limits, Stripe errors, network failures) and of amounts, on objects built the
 * way the stripe SDK builds them. No I/O.
 */
import assert from 'node:assert/strict';
import Stripe from 'stripe';
import { ProviderTimeout } from '../../activities/providers/connector';
import { descriptorSuffix, errorResult, intentResult, refundResult, sanitize } from '../../activities/providers/stripe';
import { categoryOfIsoCode, failoverAllowed } from '../../domain/payments/provider-codes';
import { stripeAmount, stripeCurrency, stripeDecline } from '../../domain/providers/stripe';

const cardError = (code: string, declineCode?: string, message = 'Your card was declined.') =>
  new Stripe.errors.StripeCardError({ type: 'card_error', code, decline_code: declineCode, message, statusCode: 402, payment_intent: { id: 'pi_123', status: 'requires_payment_method', client_secret: 'pi_123_secret_abc' } } as never);

function intent(fields: Record<string, unknown>): Stripe.PaymentIntent {
  return { id: 'pi_123', object: 'payment_intent', amount: 5025, currency: 'usd', client_secret: 'pi_123_secret_abc', last_payment_error: null, next_action: null, cancellation_reason: null, ...fields } as unknown as Stripe.PaymentIntent;
}

describe('STRIPE connector mapping (unit)', () => {
  describe('card declines', () => {
    const cases: Array<[string, string | undefined, string, string, string]> = [
      // code, decline_code, category, ISO 8583, response_code
      ['card_declined', 'insufficient_funds', 'SOFT_DECLINE', '51', 'INSUFFICIENT_FUNDS'],
      ['card_declined', 'do_not_honor', 'SOFT_DECLINE', '05', 'DO_NOT_HONOR'],
      ['card_declined', 'generic_decline', 'SOFT_DECLINE', '05', 'GENERIC_DECLINE'],
      ['card_declined', 'stolen_card', 'HARD_DECLINE', '43', 'STOLEN_CARD'],
      ['card_declined', 'lost_card', 'HARD_DECLINE', '41', 'LOST_CARD'],
      ['card_declined', 'fraudulent', 'HARD_DECLINE', '59', 'FRAUDULENT'],
      ['card_declined', 'authentication_required', 'SOFT_DECLINE', '1A', 'AUTHENTICATION_REQUIRED'],
      ['card_declined', 'processing_error', 'PROVIDER_ERROR', '96', 'PROCESSING_ERROR'],
      ['processing_error', undefined, 'PROVIDER_ERROR', '96', 'PROCESSING_ERROR'],
      ['expired_card', undefined, 'HARD_DECLINE', '54', 'EXPIRED_CARD'],
      ['incorrect_cvc', undefined, 'HARD_DECLINE', 'N7', 'INCORRECT_CVC'],
      ['card_declined', 'duplicate_transaction', 'HARD_DECLINE', '94', 'DUPLICATE_TRANSACTION'],
      ['card_declined', 'a_code_stripe_adds_later', 'SOFT_DECLINE', '05', 'A_CODE_STRIPE_ADDS_LATER'],
    ];
    for (const [code, declineCode, category, iso, responseCode] of cases) {
      it(`${declineCode ? `${code}/${declineCode}` : code} -> ${category} ${iso}`, () => {
        const r = errorResult(cardError(code, declineCode), 5_000);
        assert.deepEqual([r.category, r.iso8583Code, r.responseCode, r.httpStatus, r.providerTransactionId], [category, iso, responseCode, 402, 'pi_123']);
        assert.equal(r.providerStatus, category === 'PROVIDER_ERROR' ? 'ERROR' : 'DECLINED');
        assert.ok(r.iso8583Message, 'an ISO 8583 message for every mapped code');
        assert.equal(r.responseMessage, 'Your card was declined.');
      });
    }

    it('keeps Stripe\'s error fields, never the client_secret of the PaymentIntent inside', () => {
      const r = errorResult(cardError('card_declined', 'insufficient_funds'), 5_000);
      const raw = r.rawResponse as any;
      assert.deepEqual([raw.error.type, raw.error.code, raw.error.decline_code], ['card_error', 'card_declined', 'insufficient_funds']);
      assert.deepEqual(raw.payment_intent, { id: 'pi_123', status: 'requires_payment_method' });
      assert.ok(!JSON.stringify(raw).includes('secret'));
    });

    it('agrees with the shared ISO 8583 categories, except a decline asking for authentication', () => {
      for (const code of ['insufficient_funds', 'do_not_honor', 'stolen_card', 'lost_card', 'pickup_card', 'expired_card', 'incorrect_number', 'invalid_cvc', 'fraudulent', 'processing_error', 'issuer_not_available', 'card_velocity_exceeded', 'duplicate_transaction', 'security_violation']) {
        const decline = stripeDecline(code);
        assert.equal(decline.category, categoryOfIsoCode(decline.iso8583Code), code);
      }
      // A 1A decline carries no challenge to complete: soft (may pass elsewhere), not a 3-D Secure wait.
      assert.equal(stripeDecline('authentication_required').category, 'SOFT_DECLINE');
      assert.ok(failoverAllowed(stripeDecline('authentication_required').category));
      assert.ok(!failoverAllowed(stripeDecline('stolen_card').category));
    });
  });

  describe('PaymentIntent states', () => {
    it('requires_capture and succeeded are approvals (00)', () => {
      for (const status of ['requires_capture', 'succeeded']) {
        const r = intentResult('authorize', intent({ status }));
        assert.deepEqual([r.category, r.providerStatus, r.iso8583Code, r.responseCode, r.providerTransactionId], ['APPROVED', 'APPROVED', '00', 'APPROVED', 'pi_123']);
        assert.equal((r.rawResponse as any).client_secret, undefined);
        assert.equal((r.rawResponse as any).amount, 5025);
      }
    });

    it('requires_action is 3-D Secure (1A) with the redirect when Stripe gives one', () => {
      const redirect = intentResult('authorize', intent({ status: 'requires_action', next_action: { type: 'redirect_to_url', redirect_to_url: { url: 'https://hooks.stripe.com/3ds/abc', return_url: null } } }));
      assert.deepEqual([redirect.category, redirect.providerStatus, redirect.iso8583Code, redirect.responseCode, redirect.threeDsRedirectUrl], ['THREE_D_SECURE', 'PENDING', '1A', 'THREE_D_SECURE_REQUIRED', 'https://hooks.stripe.com/3ds/abc']);
      const sdk = intentResult('authorize', intent({ status: 'requires_action', next_action: { type: 'use_stripe_sdk', use_stripe_sdk: {} } }));
      assert.deepEqual([sdk.category, sdk.threeDsRedirectUrl], ['THREE_D_SECURE', null]);
    });

    it('a confirmed PaymentIntent back in requires_payment_method carries the decline', () => {
      const declined = intentResult('authorize', intent({ status: 'requires_payment_method', last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'do_not_honor', message: 'Your card was declined.' } }));
      assert.deepEqual([declined.category, declined.iso8583Code, declined.responseCode], ['SOFT_DECLINE', '05', 'DO_NOT_HONOR']);
      // stripe-mock's fixture: not a card error, so not a decline
      const fixture = intentResult('authorize', intent({ status: 'requires_payment_method', last_payment_error: { type: 'idempotency_error' } }));
      assert.deepEqual([fixture.category, fixture.responseCode], ['PROVIDER_ERROR', 'UNEXPECTED_STATUS']);
    });

    it('capture, void and refund answers', () => {
      assert.equal(intentResult('capture', intent({ status: 'succeeded' })).category, 'APPROVED');
      assert.equal(intentResult('capture', intent({ status: 'requires_capture' })).category, 'PROVIDER_ERROR');
      assert.equal(intentResult('void', intent({ status: 'canceled' })).category, 'APPROVED');
      assert.equal(intentResult('void', intent({ status: 'succeeded' })).category, 'PROVIDER_ERROR');
      const refund = (status: string, failure_reason: string | null = null) => ({ id: 're_1', object: 'refund', amount: 1005, status, failure_reason }) as unknown as Stripe.Refund;
      assert.deepEqual([refundResult(refund('succeeded')).category, refundResult(refund('succeeded')).providerTransactionId], ['APPROVED', 're_1']);
      assert.equal(refundResult(refund('pending')).category, 'APPROVED');
      assert.deepEqual([refundResult(refund('failed', 'expired_or_canceled_card')).category, refundResult(refund('failed', 'expired_or_canceled_card')).responseCode], ['PROVIDER_ERROR', 'EXPIRED_OR_CANCELED_CARD']);
    });
  });

  describe('Stripe errors and the network', () => {
    it('a rate limit (429, or 400 rate_limit) is a provider error the route fails over from', () => {
      for (const raw of [{ type: 'invalid_request_error', message: 'Too many requests', statusCode: 429 }, { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests', statusCode: 400 }]) {
        const error = Stripe.errors.StripeError.generate(raw as never);
        assert.ok(error instanceof Stripe.errors.StripeRateLimitError);
        const r = errorResult(error, 5_000);
        assert.deepEqual([r.category, r.responseCode, r.iso8583Code, r.httpStatus], ['PROVIDER_ERROR', 'RATE_LIMITED', '91', raw.statusCode]);
        assert.ok(failoverAllowed(r.category));
      }
    });

    it('Stripe\'s own failures, a refused key and invalid requests are provider errors', () => {
      const of = (raw: Record<string, unknown>) => errorResult(Stripe.errors.StripeError.generate(raw as never), 5_000);
      assert.deepEqual([of({ type: 'api_error', message: 'boom', statusCode: 500 }).responseCode, of({ type: 'api_error', message: 'boom', statusCode: 500 }).iso8583Code], ['PROVIDER_ERROR', '96']);
      assert.equal(of({ type: 'invalid_request_error', message: 'Invalid API Key provided', statusCode: 401 }).responseCode, 'PROVIDER_AUTHENTICATION_FAILED');
      assert.ok(!of({ type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****1234', statusCode: 401 }).responseMessage.includes('sk_test'));
      assert.equal(of({ type: 'invalid_request_error', message: 'not allowed', statusCode: 403 }).responseCode, 'PROVIDER_PERMISSION_DENIED');
      assert.equal(of({ type: 'invalid_request_error', code: 'amount_too_small', message: 'Amount must be at least 50 cents', statusCode: 400 }).responseCode, 'AMOUNT_TOO_SMALL');
      assert.equal(of({ type: 'idempotency_error', message: 'Keys for idempotent requests can only be used with the same parameters', statusCode: 400 }).responseCode, 'IDEMPOTENCY_CONFLICT');
      for (const raw of [{ type: 'api_error', message: 'x', statusCode: 500 }, { type: 'invalid_request_error', message: 'x', statusCode: 400 }]) assert.equal(of(raw).category, 'PROVIDER_ERROR');
    });

    it('a timeout throws ProviderTimeout (the attempt is reversed); a refused connection throws as unreachable', () => {
      const timeout = new Stripe.errors.StripeConnectionError({ message: 'Request aborted due to timeout being reached (5000ms)', detail: Object.assign(new TypeError('ETIMEDOUT'), { code: 'ETIMEDOUT' }) } as never);
      assert.throws(() => errorResult(timeout, 5_000), ProviderTimeout);
      const refused = new Stripe.errors.StripeConnectionError({ message: 'An error occurred with our connection to Stripe.', detail: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) } as never);
      assert.throws(() => errorResult(refused, 5_000), (e: Error) => !(e instanceof ProviderTimeout) && /Stripe unreachable/.test(e.message));
      assert.throws(() => errorResult(new TypeError('not from Stripe'), 5_000), TypeError);
    });
  });

  describe('amounts and request fields', () => {
    it('converts to Stripe\'s unit with integer maths, per the ISO 4217 exponent and Stripe\'s exceptions', () => {
      assert.equal(stripeAmount(50.25, 'USD'), 5025);
      assert.equal(stripeAmount(0.07, 'USD'), 7); // 0.07 * 100 is 7.000000000000001 in floats
      assert.equal(stripeAmount(1.1, 'EUR'), 110);
      assert.equal(stripeAmount(9999999999999.99, 'USD'), 999999999999999);
      assert.equal(stripeAmount(1234, 'JPY'), 1234);
      assert.equal(stripeAmount(1.5, 'JPY'), null);
      assert.equal(stripeAmount(1.23, 'KWD'), 1230);
      assert.equal(stripeAmount(1.234, 'KWD'), null, 'Stripe wants the last digit of three-decimal amounts to be 0: never rounded');
      assert.equal(stripeAmount(100, 'ISK'), 10000, 'ISK stays two-decimal at Stripe');
      assert.equal(stripeAmount(100, 'MGA'), 100, 'MGA is zero-decimal at Stripe');
      assert.equal(stripeAmount(100.5, 'MGA'), null);
      assert.equal(stripeAmount(999999999999999, 'ISK'), null, 'beyond 2^53 once shifted');
      assert.equal(stripeAmount(12.345, 'USD'), null);
      assert.equal(stripeCurrency('USD'), 'usd');
    });

    it('keeps the statement descriptor suffix within Stripe\'s rules', () => {
      assert.equal(descriptorSuffix('SHOP*ONE "X"'), 'SHOPONE X');
      assert.equal(descriptorSuffix('A very long soft descriptor'), 'A very lon');
      assert.equal(descriptorSuffix('***'), null);
      assert.equal(descriptorSuffix(null), null);
    });

    it('stores Stripe objects without their client_secret', () => {
      assert.deepEqual(sanitize({ id: 'pi_1', client_secret: 'pi_1_secret_x', amount: 1 }), { id: 'pi_1', amount: 1 });
      assert.equal(sanitize(null), null);
    });
  });
});
