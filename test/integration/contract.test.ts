/**
 * Contract consistency across areas, on the real stack: what the service says in one place
 * holds in every other (error vocabularies, messages, returned values accepted back, ids
 * that resolve, tokens and links that work).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { call, getStack, newMerchant, errorBody } from '../support/stack';
import { onboardingBody, recipientBody } from '../support/recipients';
import { dryRunPay, paymentFor, register, registrationBody, uniqueReference, waitForRegistration } from '../support/dry-run';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/**
 * The credential codes per area, as read from the spec's Errors table (see CREDENTIAL_CODES in
 * api/errors.ts for the reasoning): written out here so a change there is a visible decision.
 */
const CREDENTIAL_CODES: Record<string, { missing: string; invalid: string }> = {
  default: { missing: 'NOT_AUTHENTICATED', invalid: 'INVALID_CREDENTIALS' },
  'dry-run': { missing: 'NOT_AUTHENTICATED', invalid: 'AuthenticationFail' },
  banking: { missing: 'NOT_AUTHENTICATED', invalid: 'INVALID_CREDENTIALS' },
  enrollment: { missing: 'INVALID_CREDENTIALS', invalid: 'INVALID_CREDENTIALS' },
  reports: { missing: 'INVALID_CREDENTIALS', invalid: 'INVALID_CREDENTIALS' },
  whitelabel: { missing: 'INVALID_CREDENTIALS', invalid: 'INVALID_CREDENTIALS' },
  sellers: { missing: 'INVALID_CREDENTIALS', invalid: 'INVALID_CREDENTIALS' },
  campaigns: { missing: 'NOT_AUTHENTICATED', invalid: 'INVALID_CREDENTIALS' },
  refunds: { missing: 'NOT_AUTHENTICATED', invalid: 'INVALID_CREDENTIALS' },
};

/** The keys of each area's error body (spec, "Errors"). */
const SHAPES: Record<string, string[]> = {
  default: ['code', 'message', 'request_id'],
  'dry-run': ['code', 'httpCode', 'messages'],
  banking: ['code', 'http_code', 'messages'],
  enrollment: ['code', 'messages'],
  reports: ['code', 'messages'],
  whitelabel: ['code', 'message'],
  sellers: ['code', 'message'],
  campaigns: ['code', 'details', 'message'],
  refunds: ['code', 'detail', 'errors', 'status', 'title', 'trace_id', 'type'],
};

interface Operation {
  method: string;
  path: string;
  operationId: string;
  area: string;
  security?: Array<Record<string, unknown>>;
}

async function operations(): Promise<Operation[]> {
  const doc = (await call('/v1/openapi.json')).body;
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op) out.push({ method: method.toUpperCase(), path, operationId: op.operationId, area: op['x-error-area'], security: op.security });
    }
  }
  return out;
}

/** A concrete URL for an OpenAPI path: every path parameter gets a well-formed UUID. */
function concrete(path: string): string {
  return path.replace(/\{[^}]+\}/g, () => randomUUID());
}

/** Operations that take the merchant key pair (not the system endpoints, not the codec). */
const byMerchantKeys = (op: Operation) => (op.security ?? []).some((s) => 'PublicApiKey' in s || 'PrivateSecretKey' in s);

describe('contract: credentials answer in the vocabulary of the route\'s area', function () {
  before(async function () {
    this.timeout(120_000);
    await getStack();
  });

  it('every operation declares its error area', async () => {
    for (const op of await operations()) assert.ok(op.area && op.area in CREDENTIAL_CODES, `${op.method} ${op.path}: x-error-area ${op.area}`);
  });

  for (const [label, headers, pick] of [
    ['without credentials', {}, 'missing'],
    ['with wrong credentials', { 'public-api-key': 'pk_not_issued', 'private-secret-key': 'sk_not_issued' }, 'invalid'],
  ] as const) {
    it(`every route of the route table answers 401 ${label} with its area's code and body shape`, async () => {
      const ops = (await operations()).filter(byMerchantKeys);
      assert.ok(ops.length > 60, `only ${ops.length} operations take the key pair`);
      const areas = new Set<string>();
      const wrong: string[] = [];
      for (const op of ops) {
        const body = ['POST', 'PUT', 'PATCH'].includes(op.method) ? {} : undefined;
        const response = await call(concrete(op.path), { method: op.method, body, headers: { ...headers } });
        const expected = CREDENTIAL_CODES[op.area][pick];
        const code = op.area === 'campaigns' ? response.body?.details?.error_code : response.body?.code;
        const keys = Object.keys(response.body ?? {}).sort();
        const docUrl = `${(await getStack()).config.publicBaseUrl}/docs#errors-${expected.toLowerCase().replace(/_/g, '-')}`;
        if (response.status !== 401 || code !== expected || JSON.stringify(keys) !== JSON.stringify([...SHAPES[op.area], 'doc_url'].sort()) || response.body.doc_url !== docUrl) {
          wrong.push(`${op.method} ${op.path} (${op.area}): ${response.status} ${JSON.stringify(response.body)}, expected 401 ${expected}`);
        }
        if (op.area === 'campaigns') assert.equal(response.body.code, 401);
        areas.add(op.area);
      }
      assert.deepEqual(wrong, []);
      assert.deepEqual([...areas].sort(), Object.keys(CREDENTIAL_CODES).sort(), 'every area has routes with merchant keys');
    });
  }

  it('the OpenAPI document names each area\'s 401 code', async () => {
    const doc = (await call('/v1/openapi.json')).body;
    for (const op of (await operations()).filter(byMerchantKeys)) {
      const description: string = doc.paths[op.path][op.method.toLowerCase()].responses['401'].description;
      const { missing, invalid } = CREDENTIAL_CODES[op.area];
      assert.ok(description.includes(missing) && description.includes(invalid), `${op.method} ${op.path}: ${description}`);
    }
  });
});

/** Every human-readable string of an error body, whatever the area's shape. */
function messagesIn(body: any): string[] {
  const out: string[] = [];
  if (typeof body?.message === 'string') out.push(body.message);
  if (typeof body?.detail === 'string') out.push(body.detail);
  for (const m of body?.messages ?? []) out.push(m);
  for (const e of [...(body?.errors ?? []), ...(body?.details?.errors ?? [])]) out.push(e.message);
  return out;
}

/** PascalCase words (DryRunEvents, CampaignSchedule) or single-word codec names used across domain/. */
const CODEC_NAME = /\b([A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|Metadata|Uuid|Timestamp|Payment|Campaign)\b|Array<|\{ [a-z_]+: /;

describe('contract: decode failures describe the expected shape, never a codec name', function () {
  let merchant: Awaited<ReturnType<typeof newMerchant>>;
  before(async function () {
    this.timeout(120_000);
    merchant = await newMerchant('Messages merchant');
  });

  it('several areas answer in words a merchant reads', async () => {
    const uuidKey = () => ({ 'x-idempotency-key': randomUUID() });
    const cases: Array<[string, string, unknown, Record<string, string>?]> = [
      ['POST', '/v1/dry-run/provider-events', { merchant_reference: 'ref-words', events: 'x', account_id: merchant.account_id }],
      ['POST', '/v1/dry-run/provider-events', { merchant_reference: 'ref-words', events: [1] }],
      ['POST', '/v1/payments', { metadata: 'x', amount: 5, customer_payer: 'x', payment_method: [] }],
      ['POST', '/v1/subscriptions', { metadata: 5, amount: 'x', frequency: [], availability: 1 }],
      ['POST', '/v1/campaigns', { schedule: 3, duration: 'x', name: 5 }],
      ['POST', `/v1/campaigns/${randomUUID()}/rules`, { rules: {} }],
      ['POST', '/v1/refunds/unreferenced', { payment_method: 'x', amount: [], metadata: {} }, uuidKey()],
      ['POST', '/v1/banking/transfers', { amount: 'x', destination_account: 5 }, uuidKey()],
      ['POST', `/v1/recipients/${randomUUID()}/onboardings`, { provider: 'x', withdrawal_methods: { bank: 3 }, documentation: {} }],
      ['POST', '/v1/split-marketplace/transfers', { metadata: 'x', amount: 1 }, uuidKey()],
      ['POST', '/v1/customers/sessions', { callback_url: 5 }],
      ['POST', '/v1/sellers', { payment_methods: 'x', phone: 1 }],
      ['POST', '/v1/organizations/account-groups', { name: [] }],
    ];
    const all: string[] = [];
    for (const [method, path, body, headers] of cases) {
      const response = await call(path, { method, body, headers, credentials: merchant });
      assert.equal(response.status, 400, `${path}: ${JSON.stringify(response.body)}`);
      const messages = messagesIn(response.body);
      assert.ok(messages.length > 0, path);
      for (const message of messages) assert.doesNotMatch(message, CODEC_NAME, `${path}: ${message}`);
      all.push(...messages);
    }
    assert.ok(all.includes('events must be an array of 1 to 10 {type, http_method, operation_type, headers, ...} objects'), all.join('\n'));
    assert.ok(all.includes('events.0 must be a {type, http_method, operation_type, headers, ...} object'), all.join('\n'));
    assert.ok(all.includes('metadata must be an array of up to 50 {key, value} objects'), all.join('\n'));
    assert.ok(all.some((m) => /^schedule must be a \{daily_start_time, daily_end_time, time_zone\} object( or null)?$/.test(m)), all.join('\n'));
  });

  it('a body that is not an object says so', async () => {
    const response = await call('/v1/payments', { rawBody: '[1, 2]', headers: { 'content-type': 'application/json' }, credentials: merchant });
    assert.equal(response.status, 400);
    for (const message of messagesIn(response.body)) assert.doesNotMatch(message, CODEC_NAME, message);
    assert.match(response.body.message, /the request body must be a \{account_id, /);
  });
});

describe('contract: PATCH on the campaign changes its status', function () {
  let merchant: Awaited<ReturnType<typeof newMerchant>>;
  before(async function () {
    this.timeout(120_000);
    merchant = await newMerchant('Campaign PATCH merchant');
  });

  async function campaign(): Promise<string> {
    const body = { name: 'Declined card follow-up', account_id: merchant.account_id, organization_code: merchant.organization_code, country: 'CO', channel: 'WHATSAPP_MESSAGE' };
    const created = await call('/v1/campaigns', { body, credentials: merchant });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body.id;
  }
  const patch = (id: string, body: unknown) => call(`/v1/campaigns/${id}`, { method: 'PATCH', body, credentials: merchant });
  const statusOf = async (id: string) => (await call(`/v1/campaigns/${id}`, { credentials: merchant })).body.status;

  it('pauses, resumes and cancels; the current status again is a no-op', async () => {
    const id = await campaign();
    const paused = await patch(id, { status: 'PAUSED' });
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    assert.equal(paused.body.status, 'PAUSED');
    assert.equal(await statusOf(id), 'PAUSED');
    const resumed = await patch(id, { status: 'ACTIVE' });
    assert.equal(resumed.status, 200);
    assert.equal(resumed.body.status, 'ACTIVE');
    assert.equal((await patch(id, { status: 'ACTIVE' })).body.status, 'ACTIVE');
    const cancelled = await patch(id, { status: 'CANCELLED' });
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.status, 'CANCELLED');
    assert.equal(await statusOf(id), 'CANCELLED');
  });

  it('completes, and refuses every change of a COMPLETED or CANCELLED campaign with 422', async () => {
    const completed = await campaign();
    await patch(completed, { status: 'PAUSED' });
    assert.equal((await patch(completed, { status: 'COMPLETED' })).body.status, 'COMPLETED');
    const cancelled = await campaign();
    assert.equal((await patch(cancelled, { status: 'CANCELLED' })).status, 200);
    for (const [id, terminal] of [[completed, 'COMPLETED'], [cancelled, 'CANCELLED']]) {
      for (const status of ['ACTIVE', 'PAUSED', 'COMPLETED', 'CANCELLED']) {
        const refused = await patch(id, { status });
        assert.equal(refused.status, 422, `${terminal} -> ${status}: ${JSON.stringify(refused.body)}`);
        assert.equal(refused.body.code, 422);
        assert.equal(refused.body.details.error_code, 'INVALID_STATUS_TRANSITION');
        assert.match(refused.body.message, new RegExp(terminal));
      }
      assert.equal(await statusOf(id), terminal);
    }
  });

  it('400 for an unknown status or none, 404 for an unknown campaign, the same as the /status route', async () => {
    const id = await campaign();
    for (const body of [{ status: 'DELETED' }, {}, { status: 'paused' }]) {
      const refused = await patch(id, body);
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.equal(refused.body.code, 400);
      const alias = await call(`/v1/campaigns/${id}/status`, { method: 'PATCH', body, credentials: merchant });
      assert.deepEqual(alias.status, refused.status);
    }
    assert.equal((await patch(randomUUID(), { status: 'PAUSED' })).status, 404);
    assert.equal((await patch('not-a-uuid', { status: 'PAUSED' })).status, 400);
    assert.equal(await statusOf(id), 'ACTIVE');
  });

  it('is documented in the OpenAPI document with its status values', async () => {
    const doc = (await call('/v1/openapi.json')).body;
    const operation = doc.paths['/v1/campaigns/{campaign_id}'].patch;
    assert.ok(operation, 'PATCH /v1/campaigns/{campaign_id}');
    assert.equal(operation['x-error-area'], 'campaigns');
    const text = JSON.stringify(operation.requestBody) + JSON.stringify(doc.components.schemas);
    for (const status of ['ACTIVE', 'PAUSED', 'COMPLETED', 'CANCELLED']) assert.ok(text.includes(status), status);
    assert.ok(operation.responses['200'] && operation.responses['422'] && operation.responses['404']);
  });
});

describe('contract: connection ids the service returns are accepted back', function () {
  this.timeout(120_000);
  let merchant: Awaited<ReturnType<typeof newMerchant>>;
  before(async function () {
    merchant = await newMerchant('Connection id merchant');
  });

  async function recipient(): Promise<string> {
    const r = await call('/v1/recipients', { body: recipientBody(merchant), credentials: merchant });
    assert.equal(r.status, 201, r.text);
    return r.body.id;
  }
  const onboard = async (provider: Record<string, unknown>) =>
    call(`/v1/recipients/${await recipient()}/onboardings`, { body: onboardingBody(merchant, { provider: { id: 'SANDBOX', recipient_type: 'INDIVIDUAL', ...provider } }), credentials: merchant });

  it('an onboarding\'s provider.connection_id onboards the next recipient on the same connection', async () => {
    const first = await onboard({});
    assert.equal(first.status, 201, first.text);
    const returned = first.body.provider.connection_id;
    assert.equal(returned, 'default-sandbox-1');
    const again = await onboard({ connection_id: returned });
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.status, 'SUCCEEDED');
    assert.equal(again.body.provider.connection_id, returned);
  });

  it('every id of the connection list is accepted by onboardings and routing rules', async () => {
    const configured = await call(`/v1/accounts/${merchant.account_id}/provider-connections`, { body: { provider_id: 'SANDBOX', name: 'Second sandbox contract', merchant_id: 'sbx-contract' }, credentials: merchant });
    assert.equal(configured.status, 201, configured.text);
    const listed = await call(`/v1/accounts/${merchant.account_id}/provider-connections`, { credentials: merchant });
    const ids: string[] = listed.body.map((c: { id: string }) => c.id);
    assert.deepEqual(ids, ['default-sandbox-1', 'default-sandbox-2', configured.body.id]);
    for (const id of ids) {
      const onboarding = await onboard({ connection_id: id });
      assert.equal(onboarding.status, 201, `${id}: ${onboarding.text}`);
      assert.equal(onboarding.body.provider.connection_id, id);
    }
    const upper = await onboard({ connection_id: configured.body.id.toUpperCase() });
    assert.equal(upper.status, 201, upper.text);
    assert.equal(upper.body.provider.connection_id, configured.body.id);

    // A recipient onboarded on a default connection still receives transfers once the account
    // configured its own connection: the onboarding's connection_id is looked up as listed.
    const onDefault = await onboard({ connection_id: 'default-sandbox-2' });
    const topUp = await call('/v1/balances/top-ups', { body: { amount: { value: 50, currency: 'USD' }, description: 'sandbox funding' }, credentials: merchant, headers: { 'x-idempotency-key': randomUUID() } });
    assert.equal(topUp.status, 201, topUp.text);
    const transfer = await call('/v1/split-marketplace/transfers', {
      body: { account_id: merchant.account_id, recipient_id: onDefault.body.recipient.id, provider_id: 'SANDBOX', amount: { value: 10, currency: 'USD' }, description: 'Seller payout', merchant_reference: `payout-${randomUUID()}` },
      credentials: merchant, headers: { 'x-idempotency-key': randomUUID() },
    });
    assert.equal(transfer.status, 201, transfer.text);
    assert.equal(transfer.body.provider.connection_id, 'default-sandbox-2');

    // A routing rule's connection_ids take the same ids, and the rule answers them as sent.
    const other = await newMerchant('Connection id routing merchant');
    const rule = await call(`/v1/accounts/${other.account_id}/routing-rules`, { body: { name: 'defaults in order', priority: 1, connection_ids: ['default-sandbox-2', 'default-sandbox-1'] }, credentials: other });
    assert.equal(rule.status, 201, rule.text);
    assert.deepEqual(rule.body.connection_ids, ['default-sandbox-2', 'default-sandbox-1']);
  });

  it('refuses what is no connection id (400) and an id of no connection (404), and documents the format', async () => {
    const malformed = await onboard({ connection_id: 'sandbox one' });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.errors[0].field, 'provider.connection_id');
    assert.match(malformed.body.errors[0].message, /default-sandbox-1/);
    const unknown = await onboard({ connection_id: randomUUID() });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'CONNECTION_NOT_FOUND');
    assert.equal((await onboard({ connection_id: 'default-sandbox-9' })).status, 404);

    const doc = (await call('/v1/openapi.json')).body;
    const text = JSON.stringify(doc);
    const patterns = [...text.matchAll(/"pattern":"(\^\(\[0-9a-fA-F\][^"]*default-sandbox[^"]*)"/g)].map((m) => new RegExp(JSON.parse(`"${m[1]}"`)));
    assert.ok(patterns.length > 0, 'the connection id format is in the document');
    for (const pattern of patterns) for (const id of ['default-sandbox-1', randomUUID()]) assert.match(id, pattern);
  });
});

describe('contract: a dry-run payment id reads with GET /v1/payments/{id}', function () {
  this.timeout(120_000);
  let merchant: Awaited<ReturnType<typeof newMerchant>>;
  before(async function () {
    merchant = await newMerchant('Dry-run read merchant');
  });

  it('answers what creation answered, marked dry_run, with the pairing as it stands', async () => {
    const reference = uniqueReference('read');
    const created = await dryRunPay(merchant, paymentFor(merchant, reference));
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.dry_run, true);
    assert.equal(created.headers.get('location'), `/v1/payments/${created.body.id}`);

    const read = await call(`/v1/payments/${created.body.id}`, { credentials: merchant });
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body, created.body);
    assert.equal(read.body.dry_run_pairing.status, 'WAITING_FOR_PROVIDER_EVENTS');
    assert.equal((await call(`/v1/payments/${created.body.id}?include_transactions=true&include_raw_response=true`, { credentials: merchant })).status, 200);

    const registration = await register(merchant, registrationBody(reference));
    assert.equal(registration.status, 201, registration.text);
    await waitForRegistration(merchant, registration.body.id, (r) => r.status === 'VALIDATED');
    const paired = await call(`/v1/payments/${created.body.id}`, { credentials: merchant });
    assert.equal(paired.body.dry_run_pairing.status, 'PAIRED');
    assert.equal(paired.body.dry_run_pairing.registration_id, registration.body.id);
    assert.equal(paired.body.status, 'READY_TO_PAY');
  });

  it('is another organization\'s missing payment, is never captured, and is not listed as a routed payment', async () => {
    const reference = uniqueReference('ops');
    const created = await dryRunPay(merchant, paymentFor(merchant, reference));
    assert.equal(created.status, 201, created.text);
    const stranger = await newMerchant('Dry-run stranger');
    const foreign = await call(`/v1/payments/${created.body.id}`, { credentials: stranger });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.code, 'PAYMENT_NOT_FOUND');
    for (const operation of ['capture', 'cancel', 'refunds']) {
      const refused = await call(`/v1/payments/${created.body.id}/${operation}`, { body: {}, credentials: merchant });
      assert.equal(refused.status, 409, `${operation}: ${refused.text}`);
      assert.equal(refused.body.code, 'INVALID_STATUS_TRANSITION');
      assert.match(refused.body.message, /dry-run/);
    }
    const listed = await call(`/v1/payments?merchant_order_id=${encodeURIComponent(reference)}`, { credentials: merchant });
    assert.deepEqual(listed.body, []);
  });

  it('the Payment schema documents dry_run and dry_run_pairing; a routed payment carries neither', async () => {
    const doc = (await call('/v1/openapi.json')).body;
    const documented = JSON.stringify(doc.paths['/v1/payments/{payment_id}'].get.responses['200']) + JSON.stringify(doc.components.schemas);
    for (const text of ['"dry_run"', '"dry_run_pairing"', 'WAITING_FOR_PROVIDER_EVENTS', 'UNMATCHED']) assert.ok(documented.includes(text), text);
    assert.match(doc.paths['/v1/payments/{payment_id}'].get.description, /dry-run payment/);

    const routed = await call('/v1/payments', { body: paymentFor(merchant, uniqueReference('real')), credentials: merchant });
    assert.equal(routed.status, 201, routed.text);
    const read = await call(`/v1/payments/${routed.body.id}`, { credentials: merchant });
    assert.ok(!('dry_run' in read.body) && !('dry_run_pairing' in read.body));
  });
});

/** Tags of the areas README lists for the whitelabel embed token (its read endpoints). */
const EMBED_TAGS = ['Organization administration', 'Sellers', 'Banking connectivity', 'Reports', 'Dry-run'];

describe('contract: the whitelabel embed token works on every read endpoint README lists', function () {
  this.timeout(120_000);

  it('each GET of those areas declares the token and answers 200 with it', async () => {
    const merchant = await newMerchant('Embed token merchant');
    const as = { credentials: merchant };
    const user = await call('/v1/organizations/users', { body: { name: 'Portal viewer', email: `viewer-${randomUUID()}@example.com` }, ...as });
    assert.equal(user.status, 201, user.text);
    const token = await call('/v1/organizations/authenticate', { body: { user_id: user.body.id }, ...as });
    assert.equal(token.status, 200, token.text);
    const group = await call('/v1/organizations/account-groups', { body: { name: `Group ${randomUUID()}`, merchant_id: merchant.account_id }, ...as });
    const sellerId = `seller-${randomUUID()}`;
    const seller = await call('/v1/sellers', { body: { merchant_seller_id: sellerId, name: 'Embed seller', email: 'seller@example.com', country: 'BR', merchant_category_code: '5812' }, ...as });
    const bankAccount = await call('/v1/banking/accounts', { body: { account_id: merchant.account_id, provider: 'SANDBOX_BANK', currency: 'USD', region: 'US', account_number: '000111222333' }, ...as });
    const bankTransfer = await call('/v1/banking/transfers', {
      body: { account_id: merchant.account_id, source_account_id: bankAccount.body.id, direction: 'OUTGOING', amount: { value: 10, currency: 'USD' }, payment_rail: 'ACH_STANDARD', destination_account: { account_number: '123456789', routing_number: '021000021' } },
      headers: { 'x-idempotency-key': randomUUID() }, ...as,
    });
    const report = await call('/v1/reports', { body: { type: 'TRANSACTIONS', from: '2030-01-01T00:00:00Z', to: '2030-01-02T00:00:00Z' }, ...as });
    const registration = await register(merchant, registrationBody(uniqueReference('embed')));
    for (const created of [group, seller, bankAccount, bankTransfer, report, registration]) assert.ok(created.status >= 200 && created.status < 300, created.text);

    const params: Record<string, string> = {
      user_id: user.body.id, account_group_id: group.body.id, merchant_seller_id: sellerId, banking_account_id: bankAccount.body.id,
      account_id: merchant.account_id, transfer_id: bankTransfer.body.id, report_id: report.body.id, registration_id: registration.body.id,
    };
    const doc = (await call('/v1/openapi.json')).body;
    const checked: string[] = [];
    const failures: string[] = [];
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      const op = item.get;
      if (!op || !EMBED_TAGS.includes(op.tags[0]) || !(op.security ?? []).length) continue;
      if (!op.security.some((s: Record<string, unknown>) => 'WhitelabelBearer' in s)) {
        failures.push(`GET ${path}: WhitelabelBearer not in security`);
        continue;
      }
      const url = path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
        assert.ok(params[name], `GET ${path}: no test resource for {${name}}`);
        return encodeURIComponent(params[name]);
      });
      const response = await call(url, { headers: { authorization: `Bearer ${token.body.access_token}`, 'x-organization-code': merchant.organization_code } });
      if (response.status !== 200) failures.push(`GET ${path}: ${response.status} ${response.text}`);
      checked.push(path);
    }
    assert.deepEqual(failures, []);
    for (const listed of [
      '/v1/organizations/users/{user_id}', '/v1/organizations/account-groups', '/v1/organizations/account-groups/{account_group_id}', '/v1/sellers/{merchant_seller_id}',
      '/v1/banking/accounts/{banking_account_id}', '/v1/banking/accounts/{account_id}/transfers/{transfer_id}', '/v1/reports/{report_id}',
      '/v2/reports/{report_id}/download', '/v1/reports/{report_id}/download', '/v1/dry-run/provider-events', '/v1/dry-run/provider-events/{registration_id}',
    ]) {
      assert.ok(checked.includes(listed), `${listed} checked`);
    }
  });

  it('the report download with a token still names the token\'s organization', async () => {
    const merchant = await newMerchant('Embed download merchant');
    const other = await newMerchant('Embed download other');
    const user = await call('/v1/organizations/users', { body: { name: 'Viewer', email: `v-${randomUUID()}@example.com` }, credentials: merchant });
    const token = (await call('/v1/organizations/authenticate', { body: { user_id: user.body.id }, credentials: merchant })).body.access_token;
    const report = await call('/v1/reports', { body: { type: 'TRANSACTIONS', from: '2030-01-01T00:00:00Z', to: '2030-01-02T00:00:00Z' }, credentials: merchant });
    const path = `/v2/reports/${report.body.id}/download`;
    const bearer = { authorization: `Bearer ${token}` };
    const wrongOrg = await call(path, { headers: { ...bearer, 'x-organization-code': other.organization_code } });
    assert.equal(wrongOrg.status, 403);
    assert.deepEqual(wrongOrg.body.code, 'AUTHORIZATION_REQUIRED');
    const noOrg = await call(path, { headers: bearer });
    assert.equal(noOrg.status, 400);
    assert.equal(noOrg.body.code, 'INVALID_REQUEST');
    const bad = await call(path, { headers: { authorization: 'Bearer not.a.token', 'x-organization-code': merchant.organization_code } });
    assert.equal(bad.status, 401);
    assert.deepEqual(errorBody(bad.body), { code: 'INVALID_CREDENTIALS', messages: ['the bearer token is not valid'] });
  });
});

describe('contract: a SUCCEEDED onboarding\'s data reaches the recipient', function () {
  this.timeout(120_000);
  let merchant: Awaited<ReturnType<typeof newMerchant>>;
  before(async function () {
    merchant = await newMerchant('Onboarding data merchant');
  });

  const BANK = { code: '001', branch: '0001', account: '55555-X', account_type: 'SAVINGS', country: 'BR', currency: 'BRL', routing: '00000000' };
  const BANK_VIEW = { code: '001', branch: '0001', branch_digit: null, account: '55555', account_digit: 'X', account_type: 'SAVINGS', routing: '00000000', country: 'BR', currency: 'BRL' };
  const REPRESENTATIVE = { first_name: 'Rui', last_name: 'Silva', ultimate_beneficial_owner: true };

  it('the withdrawal method, legal representatives and documents of the onboarding show on GET /v1/recipients/{id}', async () => {
    const created = await call('/v1/recipients', { body: recipientBody(merchant, { withdrawal_methods: undefined }), credentials: merchant });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.withdrawal_methods.bank, null);
    const onboarding = await call(`/v1/recipients/${created.body.id}/onboardings`, {
      body: onboardingBody(merchant, { withdrawal_methods: { bank: BANK }, legal_representatives: [REPRESENTATIVE] }), credentials: merchant,
    });
    assert.equal(onboarding.status, 201, onboarding.text);
    assert.equal(onboarding.body.status, 'SUCCEEDED');
    const recipient = await call(`/v1/recipients/${created.body.id}`, { credentials: merchant });
    assert.deepEqual(recipient.body.withdrawal_methods.bank, BANK_VIEW);
    assert.deepEqual(recipient.body.legal_representatives, [REPRESENTATIVE]);
    assert.deepEqual(recipient.body.documentation.map((d: any) => d.content), onboarding.body.documentation.map((d: any) => d.content));
    assert.ok(recipient.body.updated_at >= created.body.updated_at);
    // The onboarding's own view of the recipient is the recipient as it now is.
    assert.deepEqual(onboarding.body.recipient, recipient.body);
    const read = await call(`/v1/recipients/${created.body.id}/onboardings/${onboarding.body.id}`, { credentials: merchant });
    assert.deepEqual(read.body.recipient.withdrawal_methods.bank, BANK_VIEW);
  });

  it('a new bank account replaces the one given at creation; an onboarding that does not succeed changes nothing', async () => {
    const created = await call('/v1/recipients', { body: recipientBody(merchant), credentials: merchant });
    assert.equal(created.status, 201, created.text);
    const original = created.body.withdrawal_methods.bank;
    assert.ok(original);
    // Sandbox: NEW without an identification document waits in PENDING_REVIEW.
    const pending = await call(`/v1/recipients/${created.body.id}/onboardings`, { body: onboardingBody(merchant, { documentation: [], withdrawal_methods: { bank: BANK } }), credentials: merchant });
    assert.equal(pending.body.status, 'PENDING_REVIEW', pending.text);
    assert.deepEqual((await call(`/v1/recipients/${created.body.id}`, { credentials: merchant })).body, created.body);

    const succeeded = await call(`/v1/recipients/${created.body.id}/onboardings`, { body: onboardingBody(merchant, { withdrawal_methods: { bank: BANK } }), credentials: merchant });
    assert.equal(succeeded.body.status, 'SUCCEEDED', succeeded.text);
    assert.deepEqual((await call(`/v1/recipients/${created.body.id}`, { credentials: merchant })).body.withdrawal_methods.bank, BANK_VIEW);

    // Without a bank in the onboarding the recipient keeps the one it has.
    const again = await call(`/v1/recipients/${created.body.id}/onboardings`, { body: onboardingBody(merchant), credentials: merchant });
    assert.equal(again.body.status, 'SUCCEEDED', again.text);
    assert.deepEqual((await call(`/v1/recipients/${created.body.id}`, { credentials: merchant })).body.withdrawal_methods.bank, BANK_VIEW);
  });
});

describe('contract: the icon URLs of the enrollable methods resolve', function () {
  this.timeout(60_000);

  it('every icon the list returns is an SVG served with caching headers, revalidated with its ETag', async () => {
    const merchant = await newMerchant('Icon merchant');
    const customer = await call('/v1/customers', { body: { merchant_customer_id: `c-${randomUUID()}`, first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com' }, credentials: merchant });
    assert.equal(customer.status, 201, customer.text);
    const session = await call('/v1/customers/sessions', { body: { account_id: merchant.account_id, customer_id: customer.body.id, country: 'CO', callback_url: 'https://shop.example/enrolled' }, credentials: merchant });
    assert.equal(session.status, 201, session.text);
    const list = await call(`/v1/checkout/customers/sessions/${session.body.customer_session}/payment-methods`, { credentials: merchant });
    assert.equal(list.status, 200, list.text);
    const icons: string[] = list.body.payment_methods.map((m: { icon: string }) => m.icon);
    assert.ok(icons.length > 0);
    const { config } = await getStack();
    for (const icon of icons) {
      const url = new URL(icon);
      assert.equal(url.origin, config.publicBaseUrl, icon);
      // Fetched the way a checkout page's <img> does: no credentials at all.
      const response = await call(`${url.pathname}${url.search}`);
      assert.equal(response.status, 200, `${icon}: ${response.text}`);
      assert.match(response.headers.get('content-type') ?? '', /^image\/svg\+xml/);
      assert.match(response.headers.get('cache-control') ?? '', /\bpublic\b.*\bmax-age=\d+/);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      assert.match(response.text, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>[\s\S]*<\/svg>\s*$/);
      assert.doesNotMatch(response.text, /<script|href=|url\(/i);
      const etag = response.headers.get('etag');
      assert.ok(etag, 'ETag');
      const revalidated = await call(url.pathname, { headers: { 'if-none-match': etag } });
      assert.equal(revalidated.status, 304);
      assert.equal(revalidated.text, '');
    }
    const missing = await call('/static/icons/nothing.svg');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'ICON_NOT_FOUND');
  });

  it('the icon route is in the OpenAPI document', async () => {
    const doc = (await call('/v1/openapi.json')).body;
    const operation = doc.paths['/static/icons/{file}']?.get;
    assert.ok(operation);
    assert.ok(operation.responses['200'].content['image/svg+xml']);
    assert.ok(operation.parameters[0].schema.enum.includes('card.svg'));
  });
});
