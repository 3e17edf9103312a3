/**
 * One source of truth for Stripe: the STRIPE connector's own traffic (its PaymentMethod and
 * PaymentIntent calls, captured against stripe-mock through the test proxy) is a dry-run
 * registration, and the equivalent Switchyard payment must validate as PASS under the STRIPE
 * profile; the same payment with one field altered must be reported on that field.
 */
import assert from 'node:assert/strict';
import { stripeConnector } from '../../activities/providers/stripe';
import type { AuthorizeRequest, ProviderCall } from '../../activities/providers/connector';
import { generateKeyring } from '../../domain/crypto';
import type { DryRunEvent } from '../../domain/dry-run/codecs';
import { ingestEvent } from '../../domain/dry-run/decode';
import { runPipeline, ValidationReport } from '../../domain/dry-run/pipeline';
import { STRIPE_PROFILE } from '../../domain/dry-run/profiles';
import { organizationRedactor } from '../../domain/dry-run/redact';
import { RunningStripeMockProxy, startStripeMockProxy, STRIPE_TEST_CARDS, StripeExchange } from '../support/stripe-mock-proxy';

const redactor = organizationRedactor(generateKeyring('stripe-dry-run'), 'org-stripe');
const b64 = (value: string) => Buffer.from(value).toString('base64');

/** The proxy's record of each call as the dry-run events a merchant would register. */
function eventsOf(exchanges: StripeExchange[], operation: 'PURCHASE' | 'AUTHORIZE'): DryRunEvent[] {
  return exchanges.flatMap((x): DryRunEvent[] => [
    { type: 'REQUEST', http_method: 'POST', operation_type: operation, base_url: 'https://api.stripe.com', endpoint: x.path, headers: b64(JSON.stringify({ 'Content-Type': 'application/x-www-form-urlencoded', 'Idempotency-Key': x.idempotencyKey ?? '' })), body: b64(new URLSearchParams(x.params).toString()) },
    { type: 'RESPONSE', http_method: 'POST', operation_type: operation, http_status_code: x.status, headers: b64(JSON.stringify({ 'Content-Type': 'application/json' })), body: b64(JSON.stringify(x.body)) },
  ]);
}

function servicePayment(reference: string, capture: boolean, overrides: { value?: number; currency?: string; number?: string; capture?: boolean } = {}): Record<string, unknown> {
  return {
    account_id: '00000000-0000-4000-8000-000000000000',
    merchant_order_id: reference,
    description: 'Two tickets',
    country: 'DE',
    amount: { currency: overrides.currency ?? 'EUR', value: overrides.value ?? 150.5 },
    capture: overrides.capture ?? capture,
    payment_method: { type: 'CARD', detail: { card: { number: overrides.number ?? STRIPE_TEST_CARDS.visa, holder_name: 'ANA SILVA', expiration_month: 12, expiration_year: 2030, security_code: '123' } } },
  };
}

function grade(service: Record<string, unknown>, events: DryRunEvent[]): ValidationReport {
  return runPipeline({ serviceRequest: redactor.value(service) as Record<string, unknown>, events: events.map((e) => ingestEvent(e, redactor)), profile: STRIPE_PROFILE, providerId: 'STRIPE' });
}

const findingsOf = (report: ValidationReport) => report.findings.filter((f) => f.severity !== 'INFO');

describe('dry-run: the STRIPE connector\'s own traffic under the STRIPE profile (stripe-mock)', function () {
  this.timeout(60_000);
  let proxy: RunningStripeMockProxy;

  before(async function () {
    if (!process.env.STRIPE_MOCK_URL) this.skip();
    proxy = await startStripeMockProxy(process.env.STRIPE_MOCK_URL!);
  });

  after(async () => {
    await proxy?.close();
  });

  async function connectorTraffic(capture: boolean): Promise<{ reference: string; events: DryRunEvent[] }> {
    const reference = `order-${capture ? 'sale' : 'auth'}-${Date.now()}`;
    const call: ProviderCall = { target: { connectionId: 'conn_dry_run', providerId: 'STRIPE', merchantId: 'acct_dry_run' }, credentials: { secretKey: 'sk_test_123' }, baseUrl: proxy.url, timeoutMs: 10_000 };
    const request: AuthorizeRequest = {
      idempotencyKey: `dry-run-${reference}`, reference, amount: 150.5, currency: 'EUR', capture, installments: null, softDescriptor: null,
      card: { number: STRIPE_TEST_CARDS.visa, holderName: 'ANA SILVA', expirationMonth: 12, expirationYear: 2030, securityCode: '123' },
    };
    const before = proxy.exchanges.length;
    const result = await stripeConnector.authorize(call, request);
    assert.equal(result.category, 'APPROVED', JSON.stringify(result));
    const exchanges = proxy.exchanges.slice(before);
    assert.deepEqual(exchanges.map((x) => x.path), ['/v1/payment_methods', '/v1/payment_intents']);
    assert.ok(exchanges.every((x) => x.mockStatus < 300), 'stripe-mock accepted every call');
    return { reference, events: eventsOf(exchanges, capture ? 'PURCHASE' : 'AUTHORIZE') };
  }

  for (const capture of [true, false]) {
    it(`${capture ? 'a sale' : 'an authorization'}: the equivalent payment passes; one altered field is reported on that field`, async () => {
      const { reference, events } = await connectorTraffic(capture);
      const clean = grade(servicePayment(reference, capture), events);
      assert.deepEqual(findingsOf(clean), [], JSON.stringify(clean.findings, null, 2));
      assert.equal(clean.verdict, 'PASS');
      assert.equal(clean.profile_id, STRIPE_PROFILE.id);

      const altered: Array<[string, Record<string, unknown>, string]> = [
        ['amount', servicePayment(reference, capture, { value: 151.5 }), 'amount.value'],
        ['amount in cents', servicePayment(reference, capture, { value: 15050 }), 'amount.value'],
        ['currency', servicePayment(reference, capture, { currency: 'USD' }), 'amount.currency'],
        ['capture flag', servicePayment(reference, capture, { capture: !capture }), 'capture'],
        ['card last 4', servicePayment(reference, capture, { number: '4000056655665556' }), 'payment_method.detail.card.number'],
      ];
      for (const [what, service, path] of altered) {
        const report = grade(service, events);
        assert.ok(findingsOf(report).some((f) => f.service_path === path), `${what}: expected a finding on ${path}, got ${JSON.stringify(report.findings.map((f) => [f.code, f.service_path, f.provider?.path]))}`);
        assert.notEqual(report.verdict, 'PASS', what);
      }
    });
  }
});
