/**
 * The Adyen connector: every request it builds checked with the library's own models and
 * ObjectSerializer, answers from Adyen's documented response shapes mapped to our
 * categories, and the whole call path (the library's services and HTTP client) run against
 * a local HTTPS stand-in answering those shapes (test/support/adyen-test-server.ts).
 */
import assert from 'node:assert/strict';
import { HttpClientException, Types } from '@adyen/api-library';
import {
  adyenConnector,
  cancelRequest,
  captureRequest,
  errorResult,
  modificationResult,
  paymentIdOfKey,
  paymentRequest,
  paymentResult,
  refundRequest,
  shopperStatement,
} from '../../activities/providers/adyen';
import { ProviderTimeout } from '../../activities/providers/connector';
import { adyenAmount, adyenRefusal, adyenRefusalByText, adyenResult, redactAdyen } from '../../domain/providers/adyen';
import { ADYEN_TEST_CARDS, checkWithModels, RunningAdyenTestServer, startAdyenTestServer } from '../support/adyen-test-server';

const { ObjectSerializer } = Types.checkout;

const target = { connectionId: 'c-adyen', providerId: 'ADYEN', merchantId: 'SwitchyardECOM' };
const paymentId = '0b8f6a53-6d2a-4a44-9a3c-5b7f4c2a1d10';
const authorize = (overrides: Partial<Parameters<typeof paymentRequest>[1]> = {}) => ({
  idempotencyKey: `${paymentId}:attempt:1`,
  reference: paymentId,
  amount: 10.99,
  currency: 'EUR',
  capture: false,
  installments: null,
  softDescriptor: 'Switchyard* shop <1>',
  card: { number: ADYEN_TEST_CARDS.visa, holderName: 'Ana Gomez', expirationMonth: 3, expirationYear: 2030, securityCode: '737' },
  ...overrides,
});

describe('Adyen connector: requests checked with the library models', () => {
  it('builds an authorization with manual capture, a sale with captureDelayHours 0, both valid PaymentRequests', () => {
    const auth = paymentRequest(target, authorize(), 1099, 'https://switchyard.example');
    assert.deepEqual(checkWithModels('PaymentRequest', JSON.parse(JSON.stringify(auth))), []);
    const serialized = ObjectSerializer.serialize(auth, 'PaymentRequest');
    assert.deepEqual(ObjectSerializer.deserialize(serialized, 'PaymentRequest'), ObjectSerializer.deserialize(JSON.parse(JSON.stringify(serialized)), 'PaymentRequest'));
    assert.deepEqual(
      [auth.merchantAccount, auth.reference, auth.amount, auth.returnUrl, auth.shopperInteraction, auth.additionalData, auth.captureDelayHours, auth.metadata],
      ['SwitchyardECOM', paymentId, { currency: 'EUR', value: 1099 }, 'https://switchyard.example', 'Ecommerce', { manualCapture: 'true' }, undefined, { switchyardPayment: paymentId }],
    );
    assert.deepEqual(auth.paymentMethod, { type: 'scheme', number: ADYEN_TEST_CARDS.visa, expiryMonth: '03', expiryYear: '2030', cvc: '737', holderName: 'Ana Gomez' });
    assert.equal(auth.shopperStatement, 'Switchyard* shop 1');

    const sale = paymentRequest(target, authorize({ capture: true, installments: 3, softDescriptor: null, card: { ...authorize().card, securityCode: null, holderName: null } }), 1099, 'https://switchyard.example');
    assert.deepEqual(checkWithModels('PaymentRequest', JSON.parse(JSON.stringify(sale))), []);
    assert.deepEqual([sale.captureDelayHours, sale.additionalData, sale.installments, sale.shopperStatement], [0, undefined, { value: 3 }, undefined]);
    assert.equal('cvc' in sale.paymentMethod, false);
  });

  it('builds captures, cancels and refunds as valid modification requests referencing the payment', () => {
    const followUp = { idempotencyKey: `${paymentId}:capture:op-1`, providerTransactionId: 'PSP1', amount: 5.5, currency: 'eur' };
    const capture = captureRequest(target, followUp, 550);
    const cancel = cancelRequest(target, followUp);
    const refund = refundRequest(target, followUp, 550);
    assert.deepEqual(checkWithModels('PaymentCaptureRequest', capture), []);
    assert.deepEqual(checkWithModels('PaymentCancelRequest', cancel), []);
    assert.deepEqual(checkWithModels('PaymentRefundRequest', refund), []);
    assert.deepEqual(capture, { merchantAccount: 'SwitchyardECOM', amount: { currency: 'EUR', value: 550 }, reference: paymentId });
    assert.deepEqual(cancel, { merchantAccount: 'SwitchyardECOM', reference: paymentId });
    assert.equal(paymentIdOfKey(`${paymentId}:refund:x`), paymentId);
    // A request missing a required field is caught by the same check.
    assert.deepEqual(checkWithModels('PaymentCaptureRequest', { merchantAccount: 'M' }), ['PaymentCaptureRequest.amount is required']);
    assert.match(checkWithModels('PaymentCancelRequest', { merchantAccount: 'M', unknownField: 1 })[0], /round trip/);
  });

  it('sends amounts in the currency\'s ISO 4217 minor unit, never rounded', () => {
    assert.equal(adyenAmount(10.99, 'EUR'), 1099);
    assert.equal(adyenAmount(1234, 'JPY'), 1234);
    assert.equal(adyenAmount(1.234, 'KWD'), 1234);
    assert.equal(adyenAmount(0.1, 'USD'), 10);
    assert.equal(adyenAmount(10.999, 'EUR'), null);
    assert.equal(adyenAmount(1.5, 'JPY'), null);
    assert.equal(shopperStatement('   '), null);
  });
});

describe('Adyen connector: documented answers in our terms', () => {
  it('maps result codes: Authorised, 3-D Secure redirects, pending, Cancelled, Error, the unexpected', () => {
    assert.deepEqual(adyenResult('Authorised'), { category: 'APPROVED', iso8583Code: '00', responseCode: 'APPROVED' });
    for (const code of ['RedirectShopper', 'IdentifyShopper', 'ChallengeShopper']) assert.deepEqual(adyenResult(code), { category: 'THREE_D_SECURE', iso8583Code: '1A', responseCode: 'THREE_D_SECURE_REQUIRED' });
    assert.deepEqual(adyenResult('Pending'), { category: 'THREE_D_SECURE', iso8583Code: null, responseCode: 'PENDING' });
    assert.deepEqual(adyenResult('Received').responseCode, 'PENDING');
    assert.deepEqual(adyenResult('Cancelled'), { category: 'HARD_DECLINE', iso8583Code: '05', responseCode: 'CANCELLED' });
    assert.deepEqual(adyenResult('Error'), { category: 'PROVIDER_ERROR', iso8583Code: '96', responseCode: 'PROVIDER_ERROR' });
    assert.equal(adyenResult('PartiallyAuthorised').responseCode, 'UNEXPECTED_RESULT');
  });

  it('maps refusal reasons to soft, hard and error categories with ISO 8583 codes', () => {
    const cases: Array<[string, string, string, string]> = [
      ['2', 'SOFT_DECLINE', '05', 'REFUSED'],
      ['12', 'SOFT_DECLINE', '51', 'NOT_ENOUGH_BALANCE'],
      ['38', 'SOFT_DECLINE', '1A', 'AUTHENTICATION_REQUIRED'],
      ['5', 'HARD_DECLINE', '62', 'BLOCKED_CARD'],
      ['6', 'HARD_DECLINE', '54', 'EXPIRED_CARD'],
      ['8', 'HARD_DECLINE', '14', 'INVALID_CARD_NUMBER'],
      ['11', 'HARD_DECLINE', '05', 'THREE_D_NOT_AUTHENTICATED'],
      ['20', 'HARD_DECLINE', '59', 'FRAUD'],
      ['24', 'HARD_DECLINE', 'N7', 'CVC_DECLINED'],
      ['9', 'PROVIDER_ERROR', '91', 'ISSUER_UNAVAILABLE'],
      ['4', 'PROVIDER_ERROR', '96', 'ACQUIRER_ERROR'],
      ['999', 'SOFT_DECLINE', '05', 'REFUSED'],
    ];
    for (const [code, category, iso, responseCode] of cases) {
      assert.deepEqual(adyenRefusal(code), { category, iso8583Code: iso, responseCode }, `refusal ${code}`);
      assert.deepEqual(adyenResult('Refused', code).responseCode, responseCode);
    }
    assert.equal(adyenRefusalByText('CVC Declined').responseCode, 'CVC_DECLINED');
    assert.equal(adyenRefusalByText('Not enough balance').category, 'SOFT_DECLINE');
    assert.equal(adyenRefusalByText(null).responseCode, 'REFUSED');
  });

  it('keeps the raw answer without card data, tokens or 3-D Secure payloads', () => {
    const refused = ObjectSerializer.deserialize({ additionalData: { cardSummary: '1111', cardHolderName: 'Ana Gomez', expiryDate: '3/2030' }, pspReference: 'V4HZ4RBFJGXXGN82', refusalReason: 'CVC Declined', refusalReasonCode: '24', resultCode: 'Refused' }, 'PaymentResponse');
    const r = paymentResult(refused);
    assert.deepEqual([r.category, r.providerStatus, r.responseCode, r.iso8583Code, r.iso8583Message, r.providerTransactionId, r.responseMessage], ['HARD_DECLINE', 'DECLINED', 'CVC_DECLINED', 'N7', 'Decline for CVV2 failure', 'V4HZ4RBFJGXXGN82', 'CVC Declined']);
    assert.deepEqual((r.rawResponse as any).additionalData, { cardSummary: '1111', cardHolderName: '[REDACTED]', expiryDate: '[REDACTED]' });

    const redirect = ObjectSerializer.deserialize({ resultCode: 'RedirectShopper', action: { paymentMethodType: 'scheme', url: 'https://checkoutshopper-test.adyen.com/threeDS/redirect?MD=x', method: 'GET', type: 'redirect', paymentData: 'Ab02b4c0!BQAB' }, pspReference: 'P1' }, 'PaymentResponse');
    const three = paymentResult(redirect);
    assert.deepEqual([three.category, three.threeDsRedirectUrl, three.iso8583Code], ['THREE_D_SECURE', 'https://checkoutshopper-test.adyen.com/threeDS/redirect?MD=x', '1A']);
    // The library's redirect action model has no paymentData: it does not even reach us; redaction covers it anyway.
    assert.ok(!JSON.stringify(three.rawResponse).includes('Ab02b4c0'));
    assert.equal((redactAdyen({ action: { type: 'redirect', paymentData: 'Ab02b4c0!BQAB', data: { MD: 'm', PaReq: 'p' } } }) as any).action.paymentData, '[REDACTED]');
    assert.equal((three.rawResponse as any).action.type, 'redirect');
    assert.deepEqual(redactAdyen({ threeDSPaymentData: 'x', donationToken: 'y', amount: { value: 1, currency: 'EUR' } }), { threeDSPaymentData: '[REDACTED]', donationToken: '[REDACTED]', amount: { value: 1, currency: 'EUR' } });

    const capture = modificationResult('capture', ObjectSerializer.deserialize({ merchantAccount: 'M', paymentPspReference: 'P1', pspReference: 'C1', reference: 'r', status: 'received', amount: { currency: 'EUR', value: 500 } }, 'PaymentCaptureResponse'));
    assert.deepEqual([capture.category, capture.responseCode, capture.providerTransactionId, capture.httpStatus], ['APPROVED', 'RECEIVED', 'C1', 201]);
  });

  it('maps Adyen error answers to provider errors, a lost connection to a throw', () => {
    const error = (status: number, errorCode: string, message: string) =>
      new HttpClientException({ message: 'x', statusCode: status, errorCode, apiError: { status, errorCode, message, errorType: 'validation', pspReference: 'E1' } });
    assert.deepEqual([errorResult(error(401, '000', 'Unauthorized')).responseCode, errorResult(error(401, '000', 'x')).category], ['PROVIDER_AUTHENTICATION_FAILED', 'PROVIDER_ERROR']);
    assert.equal(errorResult(error(403, '010', 'Not allowed')).responseCode, 'PROVIDER_PERMISSION_DENIED');
    const invalid = errorResult(error(422, '101', 'Invalid card number'));
    assert.deepEqual([invalid.responseCode, invalid.responseMessage, invalid.httpStatus, invalid.providerTransactionId], ['INVALID_REQUEST', '101 Invalid card number', 422, 'E1']);
    assert.equal(errorResult(error(422, '704', 'request already processed or in progress')).responseCode, 'IDEMPOTENCY_CONFLICT');
    assert.deepEqual([errorResult(error(429, '', 'slow down')).responseCode, errorResult(error(429, '', '')).iso8583Code], ['RATE_LIMITED', '91']);
    assert.deepEqual([errorResult(error(500, '905', 'x')).responseCode, errorResult(error(500, '905', 'x')).iso8583Code], ['PROVIDER_ERROR', '96']);
    assert.throws(() => errorResult({ name: 'ApiException', message: 'connect ECONNREFUSED', statusCode: 500 }), /Adyen unreachable/);
    assert.throws(() => errorResult(new ProviderTimeout(5)), ProviderTimeout);
  });
});

describe('Adyen connector: through the library against a local Checkout API stand-in', function () {
  this.timeout(30_000);
  let server: RunningAdyenTestServer;
  before(async () => {
    server = await startAdyenTestServer();
  });
  after(async () => {
    await server.close();
  });
  const call = () => ({ target, credentials: { apiKey: 'AQE_test_key', environment: 'TEST' as const }, baseUrl: server.url, timeoutMs: 3_000, returnUrl: 'https://switchyard.example' });
  const sent = (key: string) => server.exchanges.filter((e) => e.idempotencyKey?.startsWith(key));

  it('authorizes, captures partially and refunds, every request valid with an API key and its own idempotency key', async () => {
    const id = crypto.randomUUID();
    const auth = await adyenConnector.authorize(call(), authorize({ idempotencyKey: `${id}:attempt:1`, reference: id }));
    assert.deepEqual([auth.category, auth.responseCode, auth.httpStatus, auth.iso8583Code], ['APPROVED', 'APPROVED', 200, '00']);
    assert.ok(auth.providerTransactionId);
    assert.equal((auth.rawResponse as any).additionalData.cardHolderName, '[REDACTED]');
    const capture = await adyenConnector.followUp(call(), 'capture', { idempotencyKey: `${id}:capture:a`, providerTransactionId: auth.providerTransactionId!, amount: 5, currency: 'EUR' });
    const refund = await adyenConnector.followUp(call(), 'refund', { idempotencyKey: `${id}:refund:b`, providerTransactionId: auth.providerTransactionId!, amount: 2.5, currency: 'EUR' });
    assert.deepEqual([capture.category, capture.responseCode, refund.category, refund.responseCode], ['APPROVED', 'RECEIVED', 'APPROVED', 'RECEIVED']);
    const exchanges = sent(id);
    assert.deepEqual(exchanges.map((e) => `${e.path.replace(auth.providerTransactionId!, 'PSP')} ${e.status}`), ['/v72/payments 200', '/v72/payments/PSP/captures 201', '/v72/payments/PSP/refunds 201']);
    for (const e of exchanges) {
      assert.deepEqual(e.problems, [], `${e.path} is valid for the library's ${e.model}`);
      assert.equal(e.apiKey, 'AQE_test_key');
    }
    assert.deepEqual(exchanges.map((e) => e.idempotencyKey), [`${id}:attempt:1`, `${id}:capture:a`, `${id}:refund:b`]);
    assert.deepEqual([exchanges[1].body.amount, exchanges[2].body.amount, exchanges[1].body.reference], [{ currency: 'EUR', value: 500 }, { currency: 'EUR', value: 250 }, id]);
  });

  it('answers declines, 3-D Secure and cancels as the documented shapes say', async () => {
    const id = crypto.randomUUID();
    const declined = await adyenConnector.authorize(call(), authorize({ idempotencyKey: `${id}:attempt:1`, reference: id, card: { ...authorize().card, holderName: 'NOT ENOUGH BALANCE' } }));
    assert.deepEqual([declined.category, declined.responseCode, declined.iso8583Code], ['SOFT_DECLINE', 'NOT_ENOUGH_BALANCE', '51']);
    const three = await adyenConnector.authorize(call(), authorize({ idempotencyKey: `${id}:attempt:2`, reference: id, card: { ...authorize().card, number: ADYEN_TEST_CARDS.threeDs } }));
    assert.equal(three.category, 'THREE_D_SECURE');
    assert.match(three.threeDsRedirectUrl!, /^https:\/\/checkoutshopper-test\.adyen\.com\//);
    const auth = await adyenConnector.authorize(call(), authorize({ idempotencyKey: `${id}:attempt:3`, reference: id }));
    const cancel = await adyenConnector.followUp(call(), 'void', { idempotencyKey: `${id}:void:c`, providerTransactionId: auth.providerTransactionId!, amount: 10.99, currency: 'EUR' });
    assert.deepEqual([cancel.category, cancel.responseCode], ['APPROVED', 'RECEIVED']);
    assert.ok(sent(id).every((e) => e.problems.length === 0));
  });

  it('reverses an authorization whose answer was lost: the replay finds it, then it is reversed', async () => {
    const id = crypto.randomUUID();
    server.failure = 'hang_once';
    const request = authorize({ idempotencyKey: `${id}:attempt:1`, reference: id });
    await assert.rejects(adyenConnector.authorize({ ...call(), timeoutMs: 800 }, request), ProviderTimeout);
    const reversal = (await adyenConnector.reverse(call(), request)) as any;
    assert.equal(reversal.payment.resultCode, 'Authorised');
    assert.equal(reversal.reversal.status, 'received');
    assert.deepEqual(sent(id).map((e) => [e.path.replace(/\/payments\/\w+\//, '/payments/PSP/'), e.replayed]), [['/v72/payments', false], ['/v72/payments', true], ['/v72/payments/PSP/reversals', false]]);
  });

  it('answers a 5xx as a provider error and an unreachable Adyen with a throw; no key is not sent', async () => {
    server.failure = 'server_error';
    try {
      const failed = await adyenConnector.authorize(call(), authorize({ idempotencyKey: `${crypto.randomUUID()}:attempt:1` }));
      assert.deepEqual([failed.category, failed.httpStatus, failed.responseMessage], ['PROVIDER_ERROR', 500, '905 Payment details are not supported']);
    } finally {
      server.failure = null;
    }
    await assert.rejects(adyenConnector.authorize({ ...call(), baseUrl: 'https://127.0.0.1:9' }, authorize()), /Adyen unreachable/);
    const missing = await adyenConnector.authorize({ ...call(), credentials: null }, authorize());
    assert.equal(missing.responseCode, 'MISSING_CREDENTIALS');
  });
});
