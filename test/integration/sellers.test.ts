/**
 * Sellers on the real stack: creation, retrieval by merchant_seller_id, uniqueness per
 * organization, validation boundaries and cross-organization isolation.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { IssuedCredentials } from '../../domain/credentials';
import { call, getStack, newMerchant, errorBody } from '../support/stack';

const fullSeller = (merchantSellerId: string) => ({
  merchant_seller_id: merchantSellerId,
  name: 'Franchise Downtown',
  email: 'downtown@example.com',
  phone: { code: '55', number: '11987654321' },
  document: { type: 'CNPJ', number: '12345678000190' },
  address: { line_1: 'Av. Paulista 1000', line_2: 'Sala 12', city: 'Sao Paulo', state: 'SP', country: 'BR', zip_code: '01310-100' },
  country: 'BR',
  website: 'https://downtown.example.com',
  industry: 'Restaurants',
  merchant_category_code: '5812',
  payment_methods: [
    { provider_id: 'SANDBOX', payment_method_type: 'CARD', merchant_id: 'prov-merchant-1', wallet_details: null },
    { provider_id: 'SANDBOX_WALLET', payment_method_type: 'WALLET', merchant_id: 'prov-merchant-2', wallet_details: { store_id: 'abc' } },
  ],
});

describe('sellers (integration)', function () {
  let merchant: IssuedCredentials;
  let other: IssuedCredentials;

  before(async function () {
    this.timeout(120_000);
    await getStack();
    merchant = await newMerchant('Seller merchant');
    other = await newMerchant('Seller other');
  });

  it('creates a seller with every field and reads it back by merchant_seller_id', async () => {
    const id = `store-${randomUUID()}`;
    const created = await call('/v1/sellers', { body: fullSeller(id), credentials: merchant });
    assert.equal(created.status, 201, created.text);
    const { seller_id, created_at, updated_at, ...fields } = created.body;
    assert.match(seller_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(created_at, updated_at);
    assert.deepEqual(fields, fullSeller(id));
    assert.equal(created.headers.get('location'), `/v1/sellers/${id}`);
    const read = await call(`/v1/sellers/${id}`, { credentials: merchant });
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, created.body);
    assert.deepEqual(Object.keys(read.body).sort(), [
      'address', 'country', 'created_at', 'document', 'email', 'industry', 'merchant_category_code', 'merchant_seller_id',
      'name', 'payment_methods', 'phone', 'seller_id', 'updated_at', 'website',
    ]);
  });

  it('answers optional fields as null and payment_methods as [] when not sent', async () => {
    const id = `min-${randomUUID()}`;
    const created = await call('/v1/sellers', {
      body: { merchant_seller_id: id, name: 'Min', email: 'min@example.com', country: 'US', merchant_category_code: '0742', unknown_field: 'dropped' },
      credentials: merchant,
    });
    assert.equal(created.status, 201, created.text);
    for (const field of ['phone', 'document', 'address', 'website', 'industry']) assert.equal(created.body[field], null, field);
    assert.deepEqual(created.body.payment_methods, []);
    assert.equal(created.body.unknown_field, undefined);
  });

  it('409 SELLER_ALREADY_EXISTS for a duplicate merchant_seller_id in one organization, allowed in another', async () => {
    const id = `dup-${randomUUID()}`;
    assert.equal((await call('/v1/sellers', { body: fullSeller(id), credentials: merchant })).status, 201);
    const duplicate = await call('/v1/sellers', { body: { ...fullSeller(id), name: 'Another name' }, credentials: merchant });
    assert.equal(duplicate.status, 409);
    assert.deepEqual(errorBody(duplicate.body), { code: 'SELLER_ALREADY_EXISTS', message: 'a seller with this merchant_seller_id already exists' });
    const elsewhere = await call('/v1/sellers', { body: fullSeller(id), credentials: other });
    assert.equal(elsewhere.status, 201);
    const mine = await call(`/v1/sellers/${id}`, { credentials: merchant });
    assert.equal(mine.body.name, 'Franchise Downtown');
    assert.notEqual(mine.body.seller_id, elsewhere.body.seller_id);
  });

  it('20 concurrent creations of one merchant_seller_id store exactly one seller', async () => {
    const id = `race-${randomUUID()}`;
    const responses = await Promise.all(Array.from({ length: 20 }, () => call('/v1/sellers', { body: fullSeller(id), credentials: merchant })));
    assert.equal(responses.filter((r) => r.status === 201).length, 1);
    assert.equal(responses.filter((r) => r.status === 409).length, 19);
    const stack = await getStack();
    assert.equal(await stack.db.collection('sellers').countDocuments({ merchant_seller_id: id }), 1);
  });

  it('404 SELLER_NOT_FOUND for a missing seller and for another organization\'s seller, with the same body', async () => {
    const id = `hidden-${randomUUID()}`;
    await call('/v1/sellers', { body: fullSeller(id), credentials: other });
    const foreign = await call(`/v1/sellers/${id}`, { credentials: merchant });
    const missing = await call(`/v1/sellers/nobody-${randomUUID()}`, { credentials: merchant });
    assert.equal(foreign.status, 404);
    assert.deepEqual(errorBody(foreign.body), { code: 'SELLER_NOT_FOUND', message: 'seller not found' });
    assert.deepEqual(missing.body, foreign.body);
  });

  it('validates required fields and limits at their boundaries, in the {code, message} shape', async () => {
    const base = fullSeller(`v-${randomUUID()}`);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, merchant_seller_id: undefined }, 'merchant_seller_id'],
      [{ ...base, merchant_seller_id: 'has space' }, 'merchant_seller_id'],
      [{ ...base, merchant_seller_id: 'x'.repeat(256) }, 'merchant_seller_id'],
      [{ ...base, name: 'ab' }, 'name'],
      [{ ...base, email: 'nope' }, 'email'],
      [{ ...base, country: 'BRA' }, 'country'],
      [{ ...base, merchant_category_code: '581' }, 'merchant_category_code'],
      [{ ...base, merchant_category_code: '58120' }, 'merchant_category_code'],
      [{ ...base, phone: { code: '55' } }, 'phone.number'],
      [{ ...base, address: { ...base.address, country: 'Brazil' } }, 'address.country'],
      [{ ...base, website: 'not a url' }, 'website'],
      [{ ...base, payment_methods: [{ provider_id: 'sandbox', payment_method_type: 'CARD', merchant_id: 'm' }] }, 'payment_methods.0.provider_id'],
      [{ ...base, payment_methods: Array.from({ length: 51 }, () => base.payment_methods[0]) }, 'payment_methods'],
      [{ ...base, payment_methods: [{ ...base.payment_methods[1], wallet_details: { $where: 'x' } }] }, 'payment_methods.0.wallet_details'],
      [{ ...base, payment_methods: [{ ...base.payment_methods[1], wallet_details: { nested: { 'a.b': 1 } } }] }, 'payment_methods.0.wallet_details'],
      [{ ...base, payment_methods: [{ ...base.payment_methods[1], wallet_details: { big: 'x'.repeat(4100) } }] }, 'payment_methods.0.wallet_details'],
    ];
    for (const [body, field] of cases) {
      const response = await call('/v1/sellers', { body, credentials: merchant });
      assert.equal(response.status, 400, field);
      assert.deepEqual(Object.keys(response.body).sort(), ['code', 'doc_url', 'message'], field);
      assert.equal(response.body.code, 'VALIDATION_ERROR');
      assert.match(response.body.message, new RegExp(field.replace(/\./g, '\\.')), field);
    }
    const edge = await call('/v1/sellers', { body: { ...base, merchant_seller_id: 'x'.repeat(255), payment_methods: Array.from({ length: 50 }, () => base.payment_methods[0]) }, credentials: merchant });
    assert.equal(edge.status, 201, edge.text);
    assert.equal(edge.body.payment_methods.length, 50);
  });

  it('reads a seller with a whitelabel embed token of the organization', async () => {
    const id = `embed-${randomUUID()}`;
    await call('/v1/sellers', { body: fullSeller(id), credentials: merchant });
    const user = await call('/v1/organizations/users', { body: { name: 'Viewer', email: `v-${randomUUID()}@example.com` }, credentials: merchant });
    const token = await call('/v1/organizations/authenticate', { body: { user_id: user.body.id }, credentials: merchant });
    const read = await call(`/v1/sellers/${id}`, { headers: { authorization: `Bearer ${token.body.access_token}` } });
    assert.equal(read.status, 200);
    assert.equal(read.body.merchant_seller_id, id);
    const unauthenticated = await call(`/v1/sellers/${id}`);
    assert.equal(unauthenticated.status, 401);
    assert.deepEqual(Object.keys(unauthenticated.body).sort(), ['code', 'doc_url', 'message']);
  });
});
