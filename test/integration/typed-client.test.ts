/**
 * @switchyard/client: its generated schema matches the app's OpenAPI document (regenerated
 * into a temporary file and compared), and it pays, reads and fails typed against the stack.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSwitchyardClient, type PaymentCreate } from '../../packages/client/src';
import { buildOpenApiOffline } from '../../api/openapi-document';
import { call, getStack, newMerchant } from '../support/stack';

const ROOT = path.resolve(__dirname, '..', '..', '..');

describe('@switchyard/client (integration)', function () {
  this.timeout(120_000);

  it('src/schema.d.ts is what npm run client:generate writes today (not stale)', () => {
    const { generateSchema, SCHEMA } = require(path.join(ROOT, 'scripts', 'client-generate.js')) as { generateSchema(out: string): string; SCHEMA: string };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-client-'));
    try {
      const fresh = fs.readFileSync(generateSchema(path.join(dir, 'schema.d.ts')), 'utf8');
      const committed = fs.readFileSync(SCHEMA, 'utf8');
      assert.ok(fresh === committed, 'packages/client/src/schema.d.ts is stale: run `npm run client:generate` and commit it');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the offline document is the one the API serves (but for its server URL)', async () => {
    const served = (await call('/v1/openapi.json')).body;
    const offline = buildOpenApiOffline(served.servers[0].url);
    assert.deepEqual(offline, served);
  });

  it('creates, captures and reads a payment, and reads a typed error, through the client', async () => {
    const { url } = await getStack();
    const merchant = await newMerchant('Client merchant');
    const client = createSwitchyardClient({ baseUrl: url, publicKey: merchant.public_api_key, secretKey: merchant.private_secret_key });

    const accounts = await client.GET('/v1/accounts');
    assert.equal(accounts.data?.accounts[0].id, merchant.account_id);

    const body: PaymentCreate = {
      account_id: merchant.account_id,
      description: 'Typed client order',
      country: 'US',
      merchant_order_id: `client-${Date.now()}`,
      amount: { currency: 'USD', value: 12.5 },
      capture: false,
      payment_method: { type: 'CARD', detail: { card: { number: '4111111111111111', holder_name: 'ANA GOMEZ', expiration_month: 12, expiration_year: 2031, security_code: '123' } } },
    };
    const created = await client.POST('/v1/payments', { body, params: { header: { 'X-Idempotency-Key': crypto.randomUUID() } } });
    assert.equal(created.response.status, 201, JSON.stringify(created.error));
    const payment = created.data!;
    assert.equal(`${payment.status}/${payment.sub_status}`, 'SUCCEEDED/AUTHORIZED');

    const captured = await client.POST('/v1/payments/{payment_id}/capture', { params: { path: { payment_id: payment.id } }, body: { amount: 10 } });
    assert.equal(captured.data?.amount.captured, 10, JSON.stringify(captured.error));

    const read = await client.GET('/v1/payments/{payment_id}', { params: { path: { payment_id: payment.id }, query: { include_transactions: true } } });
    assert.equal(read.data?.id, payment.id);
    assert.ok(read.data!.transactions.length >= 2);

    const missing = await client.GET('/v1/payments/{payment_id}', { params: { path: { payment_id: crypto.randomUUID() } } });
    assert.equal(missing.response.status, 404);
    assert.equal(missing.error?.code, 'PAYMENT_NOT_FOUND');
    assert.match(missing.error!.doc_url, /\/docs#errors-payment-not-found$/);

    const wrongKeys = createSwitchyardClient({ baseUrl: url, publicKey: merchant.public_api_key, secretKey: 'sk_wrong' });
    const refused = await wrongKeys.GET('/v1/accounts');
    assert.equal(refused.response.status, 401);
    assert.equal(refused.error?.code, 'INVALID_CREDENTIALS');
  });
});
