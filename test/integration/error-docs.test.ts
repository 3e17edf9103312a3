/**
 * Errors that say what to do: every 4xx body, in its area's shape, links (doc_url) to the
 * docs page section of its code, and that section exists; field errors name the field path
 * and what was expected.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { call, CallResult, getStack, newMerchant } from '../support/stack';
import { paymentBody } from '../support/payments';

describe('error bodies link to the docs (integration)', function () {
  this.timeout(60_000);

  it('each area answers in its shape plus doc_url, whose anchor exists on /docs', async () => {
    const s = await getStack();
    const m = await newMerchant();
    const base = s.config.publicBaseUrl;
    const docs = await call('/docs');
    assert.equal(docs.status, 200);
    const cases: Array<{ label: string; response: CallResult; status: number; anchor: string; shape: string[] }> = [
      { label: 'payments 400', response: await call('/v1/payments', { body: paymentBody(m, '4111111111111111', { amount: { currency: 'USD', value: 'ten' }, account_id: 'nope' }), credentials: m }), status: 400, anchor: 'errors-validation-error', shape: ['code', 'message', 'errors', 'request_id'] },
      { label: 'payments 404', response: await call(`/v1/payments/${randomUUID()}`, { credentials: m }), status: 404, anchor: 'errors-payment-not-found', shape: ['code', 'message', 'request_id'] },
      { label: 'dry-run 401', response: await call('/v1/dry-run/provider-events', { body: {} }), status: 401, anchor: 'errors-not-authenticated', shape: ['code', 'messages', 'httpCode'] },
      { label: 'dry-run 400', response: await call('/v1/dry-run/provider-events', { body: { merchant_reference: 'abc', events: [] }, credentials: m }), status: 400, anchor: 'errors-traffic-log-validation-failed', shape: ['code', 'messages', 'httpCode'] },
      { label: 'refunds 400', response: await call('/v1/refunds/unreferenced', { body: { account_id: m.account_id }, credentials: m, headers: { 'x-idempotency-key': randomUUID() } }), status: 400, anchor: 'errors-validation-error', shape: ['type', 'code', 'title', 'status', 'detail', 'trace_id', 'errors'] },
      { label: 'sellers 404', response: await call('/v1/sellers/nobody-here', { credentials: m }), status: 404, anchor: 'errors-seller-not-found', shape: ['code', 'message'] },
      { label: 'campaigns 404', response: await call(`/v1/campaigns/${randomUUID()}`, { credentials: m }), status: 404, anchor: 'errors-campaign-not-found', shape: ['code', 'message', 'details'] },
      { label: 'banking 404', response: await call(`/v1/banking/accounts/${randomUUID()}/transfers/${randomUUID()}`, { credentials: m }), status: 404, anchor: 'errors-account-not-found', shape: ['code', 'messages', 'http_code'] },
      { label: 'unknown route', response: await call('/v1/nowhere', { credentials: m }), status: 404, anchor: 'errors-route-not-found', shape: ['code', 'message', 'request_id'] },
      { label: '405', response: await call('/v1/accounts', { method: 'DELETE', credentials: m }), status: 405, anchor: 'errors-method-not-allowed', shape: ['code', 'message', 'request_id'] },
    ];
    for (const { label, response, status, anchor, shape } of cases) {
      assert.equal(response.status, status, `${label}: ${response.text}`);
      assert.equal(response.body.doc_url, `${base}/docs#${anchor}`, label);
      assert.deepEqual(Object.keys(response.body).sort(), [...shape, 'doc_url'].sort(), label);
      assert.ok(docs.text.includes(`id="${anchor}"`), `${label}: /docs has no section ${anchor}`);
    }

    // Field errors: the path and what was expected.
    const fields = cases[0].response.body.errors as Array<{ field: string; code: string; message: string; expected?: string }>;
    const amount = fields.find((f) => f.field === 'amount.value');
    assert.ok(amount, JSON.stringify(fields));
    assert.equal(amount.code, 'INVALID');
    assert.match(amount.expected!, /number/);
    assert.match(amount.message, /^amount\.value must be /);
    const account = fields.find((f) => f.field === 'account_id');
    assert.match(account!.expected!, /UUID/);
    const refund = cases[4].response.body.errors as Array<{ field: string; code: string; expected?: string }>;
    assert.ok(refund.some((f) => f.field === 'merchant_order_id' && f.code === 'REQUIRED' && f.expected), JSON.stringify(refund));
  });

  it('the OpenAPI error schemas document doc_url and the field errors\' expected', async () => {
    const { body } = await call('/v1/openapi.json');
    for (const name of ['Error', 'DryRunError', 'BankingError', 'EnrollmentError', 'ReportError', 'WhitelabelError', 'SellerError', 'CampaignError', 'ProblemDetails']) {
      const schema = body.components.schemas[name];
      assert.ok(schema.required.includes('doc_url'), name);
      assert.equal(schema.properties.doc_url.format, 'uri', name);
    }
    assert.ok(body.components.schemas.FieldError.properties.expected);
  });
});
