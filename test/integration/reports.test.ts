/**
 * Reports on the real stack: creation and the report workflow (AVAILABLE and FAILED), the
 * TRANSACTIONS CSV content from the payments collection, the v2 download result and its
 * errors, the deprecated v1 answer, and the signed file link (expiry and tampering).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createAccount } from '../../activities/repositories/merchants';
import type { IssuedCredentials } from '../../domain/credentials';
import { TRANSACTIONS_CSV_HEADER } from '../../domain/reports';
import { call, getStack, newMerchant, TestStack, errorBody } from '../support/stack';

describe('reports (integration)', function () {
  let stack: TestStack;
  let merchant: IssuedCredentials;
  let other: IssuedCredentials;

  const headersFor = (credentials: IssuedCredentials) => ({ 'x-organization-code': credentials.organization_code });

  async function requestReport(credentials: IssuedCredentials, body: Record<string, unknown>) {
    const response = await call('/v1/reports', { body: { type: 'TRANSACTIONS', ...body }, credentials });
    assert.equal(response.status, 202, response.text);
    return response.body;
  }

  async function finished(credentials: IssuedCredentials, id: string) {
    for (let i = 0; i < 100; i++) {
      const response = await call(`/v1/reports/${id}`, { credentials });
      if (response.body.status !== 'PENDING') return response.body;
      await new Promise((r) => setTimeout(r, 150));
    }
    throw new Error(`report ${id} stayed PENDING`);
  }

  /** Opens download_link the way a browser would: no headers at all. */
  async function openLink(link: string) {
    const url = new URL(link);
    return call(`${url.pathname}${url.search}`);
  }

  /** A payment document as the payments feature stores it (PaymentRecord: ISO string timestamps). */
  function payment(owner: IssuedCredentials, accountId: string, createdAt: Date, overrides: Record<string, unknown> = {}) {
    return {
      _id: randomUUID(),
      organization_code: owner.organization_code,
      account_id: accountId,
      merchant_order_id: `order-${randomUUID().slice(0, 8)}`,
      status: 'SUCCEEDED',
      sub_status: 'CAPTURED',
      amount: { value: 10.5, currency: 'USD', captured: 10.5, refunded: 0 },
      country: 'US',
      payment_method: { type: 'CARD' },
      created_at: createdAt.toISOString(),
      updated_at: createdAt.toISOString(),
      ...overrides,
    };
  }

  before(async function () {
    this.timeout(120_000);
    stack = await getStack();
    merchant = await newMerchant('Report merchant');
    other = await newMerchant('Report other');
  });

  describe('creation and the report workflow', () => {
    it('202 PENDING, then AVAILABLE with an empty CSV (header only) when there are no payments', async () => {
      const created = await requestReport(merchant, { from: '2030-01-01T00:00:00Z', to: '2030-02-01T00:00:00Z' });
      assert.equal(created.status, 'PENDING');
      assert.equal(created.type, 'TRANSACTIONS');
      assert.equal(created.from, '2030-01-01T00:00:00.000Z');
      assert.equal(created.to, '2030-02-01T00:00:00.000Z');
      assert.equal(created.account_id, null);
      assert.equal(created.row_count, null);
      const done = await finished(merchant, created.id);
      assert.equal(done.status, 'AVAILABLE');
      assert.equal(done.row_count, 0);
      assert.equal(done.size_bytes, Buffer.byteLength(TRANSACTIONS_CSV_HEADER));
      const result = await call(`/v2/reports/${created.id}/download`, { credentials: merchant, headers: headersFor(merchant) });
      const file = await openLink(result.body.download_link);
      assert.equal(file.status, 200);
      assert.equal(file.text, 'payment_id,account_id,merchant_order_id,status,sub_status,amount,currency,captured,refunded,country,payment_method_type,created_at,updated_at\r\n');
    });

    it('lists the payments of the period and organization, oldest first, with CSV escaping', async () => {
      const fresh = await newMerchant('Report rows');
      const second = await createAccount(stack.db, fresh.organization_code, 'second');
      const inRange1 = payment(fresh, fresh.account_id, new Date('2031-03-01T10:00:00Z'), { merchant_order_id: 'A,"quoted"' });
      const inRange2 = payment(fresh, second._id, new Date('2031-03-02T10:00:00.000Z'), { merchant_order_id: '=HYPERLINK("x")', amount: { value: 99.9999, currency: 'BRL', captured: 0, refunded: 0 }, country: 'BR' });
      const atStart = payment(fresh, fresh.account_id, new Date('2031-03-01T00:00:00Z'));
      const atEnd = payment(fresh, fresh.account_id, new Date('2031-04-01T00:00:00Z'));
      const beforeStart = payment(fresh, fresh.account_id, new Date('2031-02-28T23:59:59.999Z'));
      const foreign = payment(other, other.account_id, new Date('2031-03-05T00:00:00Z'));
      await stack.db.collection('payments').insertMany([inRange1, inRange2, atStart, atEnd, beforeStart, foreign] as never[]);

      const all = await requestReport(fresh, { from: '2031-03-01T00:00:00Z', to: '2031-04-01T00:00:00Z' });
      const done = await finished(fresh, all.id);
      assert.equal(done.status, 'AVAILABLE', JSON.stringify(done));
      assert.equal(done.row_count, 3);
      const link = (await call(`/v2/reports/${all.id}/download`, { credentials: fresh, headers: headersFor(fresh) })).body.download_link;
      const file = await openLink(link);
      assert.equal(file.headers.get('content-type'), 'text/csv; charset=utf-8');
      assert.equal(file.headers.get('content-disposition'), `attachment; filename="transactions-${all.id}.csv"`);
      assert.equal(Number(file.headers.get('content-length')), done.size_bytes);
      const lines = file.text.split('\r\n');
      assert.equal(lines.pop(), '');
      assert.deepEqual(lines, [
        TRANSACTIONS_CSV_HEADER.trimEnd(),
        `${atStart._id},${fresh.account_id},${atStart.merchant_order_id},SUCCEEDED,CAPTURED,10.5,USD,10.5,0,US,CARD,2031-03-01T00:00:00.000Z,2031-03-01T00:00:00.000Z`,
        `${inRange1._id},${fresh.account_id},"A,""quoted""",SUCCEEDED,CAPTURED,10.5,USD,10.5,0,US,CARD,2031-03-01T10:00:00.000Z,2031-03-01T10:00:00.000Z`,
        `${inRange2._id},${second._id},"'=HYPERLINK(""x"")",SUCCEEDED,CAPTURED,99.9999,BRL,0,0,BR,CARD,2031-03-02T10:00:00.000Z,2031-03-02T10:00:00.000Z`,
      ]);

      const oneAccount = await requestReport(fresh, { from: '2031-03-01T00:00:00Z', to: '2031-04-01T00:00:00Z', account_id: second._id });
      assert.equal(oneAccount.account_id, second._id);
      assert.equal((await finished(fresh, oneAccount.id)).row_count, 1);
    });

    it('FAILED with TOO_MANY_ROWS past REPORT_MAX_ROWS (200 in tests), AVAILABLE at exactly the limit', async () => {
      const fresh = await newMerchant('Report big');
      const base = new Date('2032-01-01T00:00:00Z').getTime();
      await stack.db.collection('payments').insertMany(Array.from({ length: 201 }, (_, i) => payment(fresh, fresh.account_id, new Date(base + i * 1000))) as never[]);
      const atLimit = await requestReport(fresh, { from: '2032-01-01T00:00:00Z', to: new Date(base + 200 * 1000).toISOString() });
      const over = await requestReport(fresh, { from: '2032-01-01T00:00:00Z', to: '2032-01-02T00:00:00Z' });
      const [atLimitDone, overDone] = await Promise.all([finished(fresh, atLimit.id), finished(fresh, over.id)]);
      assert.equal(atLimitDone.status, 'AVAILABLE');
      assert.equal(atLimitDone.row_count, 200);
      assert.equal(overDone.status, 'FAILED');
      assert.match(overDone.failure_reason, /^TOO_MANY_ROWS: /);
      const result = await call(`/v2/reports/${over.id}/download`, { credentials: fresh, headers: headersFor(fresh) });
      assert.deepEqual(result.body, { type: 'TRANSACTIONS', download_link: null, status: 'FAILED' });
      const files = await stack.db.collection('report_files.files').countDocuments({ _id: over.id as never });
      assert.equal(files, 0, 'no partial file is left behind');
    });

    it('validates the request in the {code, messages} shape', async () => {
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ type: 'SETTLEMENTS', from: '2030-01-01T00:00:00Z', to: '2030-01-02T00:00:00Z' }, /type must be one of TRANSACTIONS/],
        [{ type: 'TRANSACTIONS', to: '2030-01-02T00:00:00Z' }, /from is required/],
        [{ type: 'TRANSACTIONS', from: '2030-01-01', to: '2030-01-02T00:00:00Z' }, /from must be an ISO 8601 timestamp/],
        [{ type: 'TRANSACTIONS', from: '2030-01-02T00:00:00Z', to: '2030-01-02T00:00:00Z' }, /to must be after from/],
        [{ type: 'TRANSACTIONS', from: '2030-01-01T00:00:00Z', to: '2031-01-02T00:00:01Z' }, /at most 366 days/],
        [{ type: 'TRANSACTIONS', from: '2030-01-01T00:00:00Z', to: '2030-01-02T00:00:00Z', account_id: 'x' }, /account_id must be a UUID/],
      ];
      for (const [body, message] of cases) {
        const response = await call('/v1/reports', { body, credentials: merchant });
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.deepEqual(Object.keys(response.body).sort(), ['code', 'doc_url', 'messages']);
        assert.equal(response.body.code, 'INVALID_REQUEST');
        assert.ok(response.body.messages.some((m: string) => message.test(m)), JSON.stringify(response.body.messages));
      }
      const longest = await call('/v1/reports', { body: { type: 'TRANSACTIONS', from: '2030-01-01T00:00:00Z', to: '2031-01-02T00:00:00Z' }, credentials: merchant });
      assert.equal(longest.status, 202);
      const foreign = await call('/v1/reports', { body: { type: 'TRANSACTIONS', from: '2030-01-01T00:00:00Z', to: '2030-01-02T00:00:00Z', account_id: other.account_id }, credentials: merchant });
      assert.equal(foreign.status, 404);
      assert.deepEqual(errorBody(foreign.body), { code: 'ACCOUNT_NOT_FOUND', messages: ['account_id not found'] });
    });

    it('replays the same report for a repeated X-Idempotency-Key', async () => {
      const key = randomUUID();
      const body = { type: 'TRANSACTIONS', from: '2030-01-01T00:00:00Z', to: '2030-01-02T00:00:00Z' };
      const first = await call('/v1/reports', { body, credentials: merchant, headers: { 'x-idempotency-key': key } });
      const second = await call('/v1/reports', { body, credentials: merchant, headers: { 'x-idempotency-key': key } });
      assert.equal(second.status, 202);
      assert.equal(second.body.id, first.body.id);
      assert.equal(second.headers.get('idempotent-replayed'), 'true');
    });
  });

  describe('GET /v2/reports/{report_id}/download', () => {
    let available: any;

    before(async () => {
      available = await finished(merchant, (await requestReport(merchant, { from: '2030-05-01T00:00:00Z', to: '2030-05-02T00:00:00Z' })).id);
    });

    it('200 {type, download_link, status} with a link served by Switchyard that expires', async () => {
      const response = await call(`/v2/reports/${available.id}/download`, { credentials: merchant, headers: headersFor(merchant) });
      assert.equal(response.status, 200);
      assert.deepEqual(Object.keys(response.body).sort(), ['download_link', 'status', 'type']);
      assert.equal(response.body.type, 'TRANSACTIONS');
      assert.equal(response.body.status, 'AVAILABLE');
      assert.equal(response.headers.get('deprecation'), null);
      const link = new URL(response.body.download_link);
      assert.equal(`${link.origin}`, stack.config.publicBaseUrl);
      assert.equal(link.pathname, `/v2/reports/${available.id}/file`);
      const expires = Number(link.searchParams.get('expires'));
      const now = Math.floor(Date.now() / 1000);
      assert.ok(expires > now + 890 && expires <= now + 901, `expires in ${expires - now} s`);
    });

    it('answers PENDING with a null link while the report is being built', async () => {
      const fresh = await newMerchant('Report pending');
      const { reports } = await import('../../activities/repositories/reports');
      const id = randomUUID();
      const now = new Date();
      await reports(stack.db).insertOne({ _id: id, organization_code: fresh.organization_code, type: 'TRANSACTIONS', from: now, to: now, account_id: null, status: 'PENDING', row_count: null, size_bytes: null, sha256: null, failure_reason: null, created_at: now, updated_at: now });
      const response = await call(`/v2/reports/${id}/download`, { credentials: fresh, headers: headersFor(fresh) });
      assert.deepEqual(response.body, { type: 'TRANSACTIONS', download_link: null, status: 'PENDING' });
    });

    it('400 INVALID_REQUEST without X-Organization-Code, 403 AUTHORIZATION_REQUIRED for another organization\'s code', async () => {
      const missing = await call(`/v2/reports/${available.id}/download`, { credentials: merchant });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.code, 'INVALID_REQUEST');
      assert.ok(Array.isArray(missing.body.messages));
      const malformed = await call(`/v2/reports/${available.id}/download`, { credentials: merchant, headers: { 'x-organization-code': 'acme' } });
      assert.equal(malformed.status, 400);
      const wrongOrg = await call(`/v2/reports/${available.id}/download`, { credentials: merchant, headers: headersFor(other) });
      assert.equal(wrongOrg.status, 403);
      assert.deepEqual(errorBody(wrongOrg.body), { code: 'AUTHORIZATION_REQUIRED', messages: ['these credentials are not authorized for this organization'] });
      const upper = await call(`/v2/reports/${available.id}/download`, { credentials: merchant, headers: { 'x-organization-code': merchant.organization_code.toUpperCase() } });
      assert.equal(upper.status, 200);
    });

    it('401 INVALID_CREDENTIALS for missing or wrong keys', async () => {
      const none = await call(`/v2/reports/${available.id}/download`, { headers: headersFor(merchant) });
      assert.equal(none.status, 401);
      assert.equal(none.body.code, 'INVALID_CREDENTIALS');
      assert.deepEqual(Object.keys(none.body).sort(), ['code', 'doc_url', 'messages']);
      const wrong = await call(`/v2/reports/${available.id}/download`, { credentials: { ...merchant, private_secret_key: other.private_secret_key }, headers: headersFor(merchant) });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.code, 'INVALID_CREDENTIALS');
    });

    it("another organization's report answers exactly like a missing one", async () => {
      const foreign = await call(`/v2/reports/${available.id}/download`, { credentials: other, headers: headersFor(other) });
      const missing = await call(`/v2/reports/${randomUUID()}/download`, { credentials: other, headers: headersFor(other) });
      assert.equal(foreign.status, 404);
      assert.deepEqual(foreign.body, missing.body);
      assert.deepEqual(errorBody(foreign.body), { code: 'REPORT_NOT_FOUND', messages: ['report not found'] });
      assert.equal((await call(`/v1/reports/${available.id}`, { credentials: other })).status, 404);
    });

    it('v1 answers the same body, marked deprecated with a successor link', async () => {
      const v1 = await call(`/v1/reports/${available.id}/download`, { credentials: merchant, headers: headersFor(merchant) });
      assert.equal(v1.status, 200);
      assert.equal(v1.headers.get('deprecation'), 'true');
      assert.equal(v1.headers.get('link'), `</v2/reports/${available.id}/download>; rel="successor-version"`);
      assert.deepEqual(Object.keys(v1.body).sort(), ['download_link', 'status', 'type']);
      assert.equal(v1.body.status, 'AVAILABLE');
      assert.equal((await openLink(v1.body.download_link)).status, 200);
      const doc = (await call('/v1/openapi.json')).body;
      assert.equal(doc.paths['/v1/reports/{report_id}/download'].get.deprecated, true);
      assert.equal(doc.paths['/v2/reports/{report_id}/download'].get.deprecated, undefined);
      assert.ok(doc.paths['/v2/reports/{report_id}/download'].get.parameters.some((p: { name: string; required: boolean }) => p.name === 'X-Organization-Code' && p.required));
    });

    it('the file link refuses tampering, another report id and expiry', async () => {
      const response = await call(`/v2/reports/${available.id}/download`, { credentials: merchant, headers: headersFor(merchant) });
      const link = new URL(response.body.download_link);
      const expires = link.searchParams.get('expires')!;
      const signature = link.searchParams.get('signature')!;
      const otherReport = await finished(merchant, (await requestReport(merchant, { from: '2030-06-01T00:00:00Z', to: '2030-06-02T00:00:00Z' })).id);
      const attempts: Record<string, string> = {
        'later expiry': `/v2/reports/${available.id}/file?expires=${Number(expires) + 3600}&signature=${signature}`,
        'flipped signature': `/v2/reports/${available.id}/file?expires=${expires}&signature=${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`,
        'other report': `/v2/reports/${otherReport.id}/file?expires=${expires}&signature=${signature}`,
        'no signature': `/v2/reports/${available.id}/file?expires=${expires}`,
        'no parameters': `/v2/reports/${available.id}/file`,
      };
      for (const [label, path] of Object.entries(attempts)) {
        const denied = await call(path);
        assert.equal(denied.status, 403, label);
        assert.deepEqual(errorBody(denied.body), { code: 'INVALID_SIGNATURE', messages: ['the download link is not valid'] }, label);
      }
      const { signedDownloadQuery } = await import('../../domain/reports');
      const past = Math.floor(Date.now() / 1000) - 1;
      const expired = await call(`/v2/reports/${available.id}/file?${signedDownloadQuery(stack.keyring, available.id, past)}`);
      assert.equal(expired.status, 403);
      assert.equal(expired.body.code, 'LINK_EXPIRED');
      assert.equal((await call(`${link.pathname}${link.search}`)).status, 200);
    });

    it('a link expires after REPORT_LINK_TTL_SECONDS', async function () {
      this.timeout(20_000);
      const { startApi } = await import('../../api/server');
      const { testConfig } = await import('../support/stack');
      const { createLogger } = await import('../../activities/runtime/logger');
      const api = await startApi({ config: testConfig({ reportLinkTtlSeconds: 1 }), keyring: stack.keyring, db: stack.db, temporal: stack.temporal, logger: createLogger('silent') });
      try {
        const response = await call(`/v2/reports/${available.id}/download`, { credentials: merchant, headers: headersFor(merchant) }, api.url);
        const link = new URL(response.body.download_link);
        assert.equal((await call(`${link.pathname}${link.search}`, {}, api.url)).status, 200);
        await new Promise((r) => setTimeout(r, 2_100));
        const late = await call(`${link.pathname}${link.search}`, {}, api.url);
        assert.equal(late.status, 403);
        assert.equal(late.body.code, 'LINK_EXPIRED');
      } finally {
        await api.close();
      }
    });

    it('GET /v1/reports/{id} accepts a whitelabel embed token of the organization', async () => {
      const user = await call('/v1/organizations/users', { body: { name: 'Report viewer', email: `r-${randomUUID()}@example.com` }, credentials: merchant });
      const token = await call('/v1/organizations/authenticate', { body: { user_id: user.body.id }, credentials: merchant });
      const read = await call(`/v1/reports/${available.id}`, { headers: { authorization: `Bearer ${token.body.access_token}` } });
      assert.equal(read.status, 200);
      assert.equal(read.body.id, available.id);
      assert.equal(read.body.status, 'AVAILABLE');
    });
  });
});
