import assert from 'node:assert/strict';
import { generateKeyring } from '../../domain/crypto';
import type { DryRunEvent } from '../../domain/dry-run/codecs';
import { ingestEvent } from '../../domain/dry-run/decode';
import { runPipeline, ValidationReport } from '../../domain/dry-run/pipeline';
import { MappingProfile, SANDBOX_PROFILE } from '../../domain/dry-run/profiles';
import { organizationRedactor } from '../../domain/dry-run/redact';
import { ACME_PROFILE, b64, sandboxRequestBody, sandboxResponseBody, providerRequestBody, providerResponseBody, requestEvent, responseEvent, serviceRequest, webhookBody, webhookEvent } from '../support/dry-run-fixtures';

const redactor = organizationRedactor(generateKeyring('t1'), 'org-a');

function grade(service: Record<string, unknown>, events: DryRunEvent[], profile: MappingProfile | null = ACME_PROFILE, declared?: string): ValidationReport {
  return runPipeline({ serviceRequest: redactor.value(service) as Record<string, unknown>, events: events.map((e) => ingestEvent(e, redactor)), profile, declaredPaymentMethodType: declared });
}

const exchange = (req = providerRequestBody(), res = providerResponseBody(), hook = webhookBody()) => [requestEvent(req), responseEvent(res), webhookEvent(hook)];

function codes(report: ValidationReport): string[] {
  return report.findings.map((f) => f.code);
}

describe('unit: dry-run validation pipeline (declarative profile)', () => {
  it('a consistent pair passes with score 100', () => {
    const report = grade(serviceRequest(), exchange());
    assert.deepEqual(report.findings, []);
    assert.equal(report.verdict, 'PASS');
    assert.equal(report.score, 100);
    assert.equal(report.mode, 'profile');
    assert.ok(report.mapping.some((m) => m.concept === 'amount' && m.provider.path === 'amount'));
  });

  it('missing field: the provider got an e-mail the service request lacks', () => {
    const s = serviceRequest();
    delete s.customer_payer.email;
    const report = grade(s, exchange());
    const f = report.findings.find((x) => x.code === 'MISSING_FIELD')!;
    assert.equal(f.service_path, 'customer_payer.email');
    assert.deepEqual(f.provider, { leg: 'REQUEST', event_index: 0, path: 'customer.email' });
    assert.equal(f.severity, 'WARNING');
    assert.equal(report.verdict, 'WARN');
    assert.match(f.suggested_fix, /customer_payer\.email/);
  });

  it('missing required field is an error', () => {
    const s = serviceRequest();
    delete s.merchant_order_id;
    const f = grade(s, exchange()).findings.find((x) => x.code === 'MISSING_FIELD')!;
    assert.equal(f.severity, 'ERROR');
    assert.equal(f.provider?.path, 'reference');
  });

  it('shape mismatch: the provider amount is a decimal string, not minor-unit integer', () => {
    const report = grade(serviceRequest(), exchange(providerRequestBody({ amount: '150.50' })));
    const f = report.findings.find((x) => x.code === 'SHAPE_MISMATCH')!;
    assert.equal(f.provider?.path, 'amount');
    assert.equal(f.expected, 'integer');
    assert.equal(f.actual, 'string');
  });

  it('wrong enum value: payment_method.type vs the provider method', () => {
    const report = grade(serviceRequest({ payment_method: { ...serviceRequest().payment_method, type: 'DEBIT_CARD' } }), exchange(providerRequestBody({ method: 'credit' })));
    const f = report.findings.find((x) => x.code === 'ENUM_MISMATCH')!;
    assert.equal(f.category, 'ENUM_MISMATCH');
    assert.equal(f.actual, 'DEBIT_CARD');
    assert.equal(f.expected, 'CREDIT_CARD');
    assert.equal(report.verdict, 'FAIL');
  });

  it('wrong enum value against the registration declaration', () => {
    const f = grade(serviceRequest(), exchange(), ACME_PROFILE, 'DEBIT_CARD').findings.find((x) => x.code === 'ENUM_MISMATCH')!;
    assert.equal(f.service_path, 'payment_method.type');
    assert.equal(f.expected, 'DEBIT_CARD');
  });

  it('unmapped metadata: a provider metadata key the service request does not carry is information only', () => {
    const report = grade(serviceRequest(), exchange(providerRequestBody({ metadata: { campaign: 'spring', channel: 'app' } })));
    const f = report.findings.find((x) => x.code === 'UNMAPPED_METADATA')!;
    assert.equal(f.provider?.path, 'metadata.channel');
    assert.equal(f.severity, 'INFO');
    assert.equal(report.verdict, 'PASS');
  });

  it('unmapped metadata: merchant metadata that never reached the provider is a finding', () => {
    const report = grade(serviceRequest({ metadata: [{ key: 'campaign', value: 'spring' }, { key: 'store', value: 'sp-01' }] }), exchange());
    const f = report.findings.find((x) => x.code === 'UNMAPPED_METADATA')!;
    assert.equal(f.service_path, 'metadata');
    assert.equal(f.severity, 'WARNING');
    assert.deepEqual(f.expected, { key: 'store', value: 'sp-01' });
  });

  it('amount in minor units instead of major units', () => {
    const s = serviceRequest({ amount: { currency: 'BRL', value: 15050 } });
    const f = grade(s, exchange()).findings.find((x) => x.code === 'AMOUNT_UNIT_MISMATCH')!;
    assert.equal(f.service_path, 'amount.value');
    assert.equal(f.actual, 15050);
    assert.equal(f.expected, 150.5);
    assert.match(f.suggested_fix, /150\.50/);
  });

  it('value inconsistencies: currency, country, capture, installments, customer data, card', () => {
    const cases: Array<[Record<string, any>, string, string]> = [
      [{ amount: { currency: 'USD', value: 150.5 } }, 'CURRENCY_MISMATCH', 'amount.currency'],
      [{ country: 'AR' }, 'COUNTRY_MISMATCH', 'country'],
      [{ customer_payer: { ...serviceRequest().customer_payer, email: 'other@example.com' } }, 'CUSTOMER_DATA_MISMATCH', 'customer_payer.email'],
      [{ payment_method: { type: 'CARD', detail: { card: { ...serviceRequest().payment_method.detail.card, installments: 6 } } } }, 'INSTALLMENTS_MISMATCH', 'payment_method.detail.card.installments'],
      [{ capture: false }, 'CAPTURE_MISMATCH', 'capture'],
      [{ payment_method: { type: 'CARD', detail: { card: { ...serviceRequest().payment_method.detail.card, number: '4012888888881881' } } } }, 'CARD_LAST4_MISMATCH', 'payment_method.detail.card.number'],
      [{ payment_method: { type: 'CARD', detail: { card: { ...serviceRequest().payment_method.detail.card, number: '5555555555554444' } } } }, 'CARD_BRAND_MISMATCH', 'payment_method.detail.card.number'],
    ];
    for (const [override, code, path] of cases) {
      const report = grade(serviceRequest(override), exchange());
      const f = report.findings.find((x) => x.code === code);
      assert.ok(f, `${code}: got ${codes(report)}`);
      assert.equal(f.service_path, path, code);
      assert.equal(f.category, 'VALUE_INCONSISTENCY');
    }
  });

  it('capture vs operation type of the provider request', () => {
    const report = grade(serviceRequest(), [requestEvent(undefined, { operation_type: 'AUTHORIZE' }), responseEvent()]);
    const f = report.findings.find((x) => x.code === 'CAPTURE_OPERATION_MISMATCH')!;
    assert.equal(f.expected, false);
    assert.equal(f.provider?.path, 'operation_type');
  });

  it('provider errors: a 4xx answer with an error object', () => {
    const report = grade(serviceRequest(), [requestEvent(), responseEvent(providerResponseBody({ status: 'DECLINED', error: { code: 'card_expired', message: 'expired' } }), { http_status_code: 402 })]);
    const f = report.findings.find((x) => x.code === 'PROVIDER_ERROR')!;
    assert.equal(f.category, 'PROVIDER_ERROR');
    assert.equal(f.provider?.path, 'error.code');
    assert.equal(f.actual, 'card_expired');
  });

  it('response / webhook disagreement on status and amount', () => {
    const report = grade(serviceRequest(), exchange(undefined, undefined, webhookBody({ status: 'DECLINED', amount: 100 })));
    assert.ok(codes(report).includes('RESPONSE_WEBHOOK_STATUS_DISAGREEMENT'), codes(report).join());
    const v = report.findings.find((x) => x.code === 'RESPONSE_WEBHOOK_VALUE_DISAGREEMENT')!;
    assert.equal(v.provider?.path, 'data.amount');
    assert.equal(v.category, 'LEG_DISAGREEMENT');
  });

  it('a pending response confirmed by a webhook is not a disagreement', () => {
    const report = grade(serviceRequest(), exchange(undefined, providerResponseBody({ status: 'PENDING' })));
    assert.deepEqual(codes(report), []);
  });
});

describe('unit: dry-run validation pipeline (sandbox gateway profile)', () => {
  const sandbox = (req = sandboxRequestBody(), res = sandboxResponseBody(), status = 201) => [requestEvent(req, { endpoint: '/v1/authorizations' }), responseEvent(res, { http_status_code: status })];

  it('passes a matching exchange', () => {
    const report = grade(serviceRequest(), sandbox(), SANDBOX_PROFILE);
    assert.deepEqual(codes(report), []);
    assert.equal(report.profile_id, 'sandbox-gateway-v1');
  });

  it('reports a sandbox decline as a provider error with the decline code', () => {
    const report = grade(serviceRequest(), sandbox(undefined, sandboxResponseBody({ status: 'DECLINED', decline_code: 'insufficient_funds', iso8583_response_code: '51' }), 402), SANDBOX_PROFILE);
    const f = report.findings.find((x) => x.code === 'PROVIDER_ERROR')!;
    assert.equal(f.actual, 'insufficient_funds');
    assert.equal(report.verdict, 'FAIL');
  });

  it('catches capture and amount unit slips against the sandbox format', () => {
    const report = grade(serviceRequest({ capture: false, amount: { currency: 'BRL', value: 15050 } }), sandbox(), SANDBOX_PROFILE);
    assert.ok(codes(report).includes('CAPTURE_MISMATCH'));
    assert.ok(codes(report).includes('AMOUNT_UNIT_MISMATCH'));
  });
});

describe('unit: dry-run validation pipeline (generic mode)', () => {
  const genericRequest = {
    order: { orderId: 'order-1001', totalCents: 15050, currencyCode: 'brl' },
    payer: { mail: 'ana@example.com', countryCode: 'BRA', birth: '15/03/1990' },
    payment: { pan: '4111111111111111', installmentCount: 3 },
  };
  const service = () => serviceRequest({ customer_payer: { ...serviceRequest().customer_payer, date_of_birth: '1990-03-15' } });

  it('infers the mapping by matching values under unit, case, country and date conversions', () => {
    const report = grade(service(), [requestEvent(genericRequest)], null);
    assert.equal(report.mode, 'generic');
    const byService = new Map(report.mapping.filter((m) => m.service_path).map((m) => [m.service_path, m]));
    assert.equal(byService.get('amount.value')?.transform, 'minor_units');
    assert.equal(byService.get('amount.value')?.provider.path, 'order.totalCents');
    assert.equal(byService.get('amount.currency')?.provider.path, 'order.currencyCode');
    assert.equal(byService.get('country')?.transform, 'country_alpha3');
    assert.equal(byService.get('customer_payer.date_of_birth')?.transform, 'date_format');
    assert.equal(byService.get('customer_payer.email')?.provider.path, 'payer.mail');
    assert.ok(!report.findings.some((f) => f.severity === 'ERROR'), JSON.stringify(report.findings));
  });

  it('finds inconsistencies by key names: currency and installments differ', () => {
    const report = grade(service(), [requestEvent({ ...genericRequest, order: { ...genericRequest.order, currencyCode: 'usd' }, payment: { ...genericRequest.payment, installmentCount: 2 } })], null);
    assert.ok(codes(report).includes('CURRENCY_MISMATCH'), codes(report).join());
    assert.ok(codes(report).includes('INSTALLMENTS_MISMATCH'), codes(report).join());
    assert.equal(report.verdict, 'FAIL');
  });

  it('detects amounts sent in minor units in generic mode', () => {
    const report = grade(serviceRequest({ amount: { currency: 'BRL', value: 15050 } }), [requestEvent({ amount: 150.5, currency: 'BRL' })], null);
    assert.ok(codes(report).includes('AMOUNT_UNIT_MISMATCH'), codes(report).join());
  });

  it('reports a missing REQUEST leg', () => {
    const report = grade(serviceRequest(), [responseEvent()], null);
    assert.equal(report.findings[0].code, 'NO_PROVIDER_REQUEST');
  });

  it('validates a 1 MB provider body well under a second', function () {
    this.timeout(10_000);
    const items = Array.from({ length: 11000 }, (_, i) => ({ sku: `SKU-${i}`, name: `Item number ${i}`, qty: i % 5, price: { amount: 1000 + i, currency: 'BRL' } }));
    const big = { ...providerRequestBody(), items };
    const body = JSON.stringify(big);
    assert.ok(body.length > 900_000 && body.length < 1_048_576, `body is ${body.length} bytes`);
    const events = [requestEvent(big), responseEvent()];
    for (const profile of [ACME_PROFILE, SANDBOX_PROFILE, null]) {
      const started = process.hrtime.bigint();
      const stored = events.map((e) => ingestEvent(e, redactor));
      const report = runPipeline({ serviceRequest: redactor.value(serviceRequest()) as Record<string, unknown>, events: stored, profile });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      assert.ok(ms < 1000, `${profile ? 'profile' : 'generic'} took ${ms} ms`);
      assert.ok(['PASS', 'WARN'].includes(report.verdict), JSON.stringify(report.findings.slice(0, 3)));
    }
  });
});

// keeps b64 import used for ad-hoc bodies
void b64;
