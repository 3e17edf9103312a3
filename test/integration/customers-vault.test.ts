import assert from 'node:assert/strict';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import { call, getStack, newMerchant } from '../support/stack';
import { chargesFor, pay } from '../support/payments';
import { waitForResource } from '../support/money';
import type { IssuedCredentials } from '../../domain/credentials';

const PAYER = {
  merchant_customer_id: 'cust-001',
  first_name: 'Ana',
  last_name: 'Gomez',
  gender: 'F',
  date_of_birth: '1990-02-28',
  email: 'ana@example.com',
  nationality: 'CO',
  document: { document_type: 'CC', document_number: '1032456789' },
  phone: { number: '3001234567', country_code: '57' },
  billing_address: { address_line_1: 'Calle 1 # 2-3', address_line_2: 'Apto 4', city: 'Bogota', state: 'DC', country: 'CO', zip_code: '110111' },
};

async function customerAndSession(m: IssuedCredentials) {
  const customer = await call('/v1/customers', { body: PAYER, credentials: m });
  assert.equal(customer.status, 201, customer.text);
  const session = await call('/v1/customers/sessions', { body: { account_id: m.account_id, customer_id: customer.body.id, country: 'CO', callback_url: 'https://shop.example/enrolled' }, credentials: m });
  assert.equal(session.status, 201, session.text);
  return { customer: customer.body, session: session.body };
}

describe('customers, sessions, enrollment and the vault', function () {
  this.timeout(60_000);

  it('validates sessions: the 17 countries, callback_url length, an existing customer', async () => {
    const m = await newMerchant();
    const { customer, session } = await customerAndSession(m);
    assert.deepEqual(Object.keys(session).sort(), ['account_id', 'callback_url', 'country', 'created_at', 'customer_id', 'customer_session', 'expires_at']);
    const base = { account_id: m.account_id, customer_id: customer.id, country: 'CO', callback_url: 'https://shop.example/x' };
    assert.equal((await call('/v1/customers/sessions', { body: { ...base, country: 'DE' }, credentials: m })).status, 400);
    assert.equal((await call('/v1/customers/sessions', { body: { ...base, callback_url: `https://a.example/${'x'.repeat(520)}` }, credentials: m })).status, 400);
    const noCustomer = await call('/v1/customers/sessions', { body: { ...base, customer_id: crypto.randomUUID() }, credentials: m });
    assert.equal(noCustomer.status, 404);
    const methods = await call(`/v1/checkout/customers/sessions/${session.customer_session}/payment-methods`, { credentials: m });
    assert.equal(methods.status, 200);
    assert.deepEqual(Object.keys(methods.body.payment_methods[0]).sort(), ['category', 'description', 'enrollment', 'icon', 'name', 'type']);
    assert.deepEqual(methods.body.payment_methods[0].enrollment, { session: session.customer_session, sdk_required_action: false });
    const missing = await call(`/v1/checkout/customers/sessions/${crypto.randomUUID()}/payment-methods`, { credentials: m });
    assert.equal(missing.status, 404);
    assert.deepEqual(Object.keys(missing.body).sort(), ['code', 'doc_url', 'messages'], 'enrollment area error shape');
  });

  it('refuses an expired card (01/2020, last month) at enrollment, tokenization and payment creation with 400 on the expiry field', async () => {
    const m = await newMerchant();
    const { customer, session } = await customerAndSession(m);
    const now = new Date();
    const lastMonth = now.getUTCMonth() === 0 ? { month: 12, year: now.getUTCFullYear() - 1 } : { month: now.getUTCMonth(), year: now.getUTCFullYear() };
    const expired: Array<[number, number, string]> = [[1, 2020, 'expiration_year'], [1, 20, 'expiration_year'], [lastMonth.month, lastMonth.year, lastMonth.year < now.getUTCFullYear() ? 'expiration_year' : 'expiration_month']];
    for (const [month, year, field] of expired) {
      const card = { number: TEST_CARDS.approved, holder_name: 'ANA GOMEZ', expiration_month: month, expiration_year: year, security_code: '123' };
      const enrolled = await call(`/v1/checkout/customers/sessions/${session.customer_session}/payment-methods`, { body: { type: 'CARD', card }, credentials: m });
      assert.equal(enrolled.status, 400, `${month}/${year}: ${enrolled.text}`);
      assert.equal(enrolled.body.code, 'INVALID_REQUEST');
      assert.ok(enrolled.body.messages.some((msg: string) => msg.startsWith(`card.${field}`)), enrolled.text);
      const token = await call('/v1/payment-method-tokens', { body: { account_id: m.account_id, card }, credentials: m });
      assert.equal(token.status, 400, token.text);
      assert.deepEqual(token.body.errors.map((e: any) => e.field), [`card.${field}`]);
      const payment = await pay(m, TEST_CARDS.approved, { payment_method: { type: 'CARD', detail: { card } } });
      assert.equal(payment.status, 400, payment.text);
      assert.deepEqual(payment.body.errors.map((e: any) => [e.field, e.code]), [[`payment_method.detail.card.${field}`, 'CARD_EXPIRED']]);
    }
    const { db } = await getStack();
    assert.equal(await db.collection('payment_methods').countDocuments({ organization_code: m.organization_code, customer_id: customer.id }), 0);
    const current = await call(`/v1/checkout/customers/sessions/${session.customer_session}/payment-methods`, {
      body: { type: 'CARD', card: { number: TEST_CARDS.approved, holder_name: 'ANA GOMEZ', expiration_month: now.getUTCMonth() + 1, expiration_year: now.getUTCFullYear() } }, credentials: m,
    });
    assert.equal(current.status, 201, 'a card is valid through its expiration month');
  });

  it('updates last_successfully_used(_at) of an enrolled method with every approved payment made with its vaulted_token', async () => {
    const m = await newMerchant();
    const { customer, session } = await customerAndSession(m);
    const enrolled = await call(`/v1/checkout/customers/sessions/${session.customer_session}/payment-methods`, {
      body: { type: 'CARD', card: { number: TEST_CARDS.approved, holder_name: 'ANA GOMEZ', expiration_month: 7, expiration_year: 2031 } }, credentials: m,
    });
    assert.equal(enrolled.status, 201, enrolled.text);
    assert.deepEqual([enrolled.body.last_successfully_used, enrolled.body.last_successfully_used_at], [null, null]);
    const method = { type: 'CARD', vaulted_token: enrolled.body.vaulted_token };
    const path = `/v1/customers/${customer.id}/payment-methods/${enrolled.body.vaulted_token}`;
    const first = await pay(m, TEST_CARDS.approved, { customer_payer: { id: customer.id }, payment_method: method });
    assert.equal(first.body.status, 'SUCCEEDED', first.text);
    const afterFirst = await waitForResource(m, path, (b) => b.last_successfully_used !== null, 10_000);
    assert.equal(afterFirst.last_successfully_used, true);
    assert.ok(afterFirst.last_successfully_used_at, 'set by the first payment');
    await new Promise((r) => setTimeout(r, 20));
    const second = await pay(m, TEST_CARDS.approved, { customer_payer: { id: customer.id }, payment_method: method, capture: false });
    assert.equal(second.body.sub_status, 'AUTHORIZED', second.text);
    const afterSecond = await waitForResource(m, path, (b) => b.last_successfully_used_at !== afterFirst.last_successfully_used_at, 10_000);
    assert.ok(Date.parse(afterSecond.last_successfully_used_at) > Date.parse(afterFirst.last_successfully_used_at), 'moved forward by the second payment');
    assert.equal(afterSecond.last_successfully_used_at, second.body.transactions[second.body.transactions.length - 1].created_at);
  });

  it('enrolls a card with every field of the enrolled method, and pays with its vaulted_token', async () => {
    const m = await newMerchant();
    const { customer, session } = await customerAndSession(m);
    const enrolled = await call(`/v1/checkout/customers/sessions/${session.customer_session}/payment-methods`, {
      body: { type: 'CARD', card: { number: TEST_CARDS.approvedMastercard, holder_name: 'ANA GOMEZ', expiration_month: 7, expiration_year: 2031, security_code: '321' } },
      credentials: m,
    });
    assert.equal(enrolled.status, 201, enrolled.text);
    const got = await call(`/v1/customers/${customer.id}/payment-methods/${enrolled.body.vaulted_token}`, { credentials: m });
    assert.equal(got.status, 200);
    const pm = got.body;
    assert.deepEqual(Object.keys(pm).sort(), [
      'account_id', 'action', 'card_data', 'category', 'country', 'created_at', 'customer_payer', 'description', 'enrollment', 'id', 'idempotency_key',
      'last_successfully_used', 'last_successfully_used_at', 'name', 'preferred', 'provider', 'redirect_url', 'status', 'sub_status', 'type', 'updated_at', 'vaulted_token', 'verify',
    ]);
    assert.deepEqual([pm.status, pm.type, pm.category, pm.action, pm.country, pm.id], ['ENROLLED', 'CARD', 'CARD', 'FORM', 'CO', pm.vaulted_token]);
    assert.deepEqual(Object.keys(pm.card_data).sort(), ['brand', 'category', 'expiration_month', 'expiration_year', 'fingerprint', 'iin', 'issuer', 'issuer_code', 'lfd', 'number_length', 'security_code_length', 'type']);
    assert.deepEqual([pm.card_data.iin, pm.card_data.lfd, pm.card_data.brand, pm.card_data.expiration_month, pm.card_data.expiration_year, pm.card_data.number_length, pm.card_data.security_code_length], ['55555555', '4444', 'MASTERCARD', 7, 31, 16, 3]);
    assert.match(pm.card_data.fingerprint, /^[0-9a-f]{64}$/);
    assert.deepEqual(pm.enrollment, { session: session.customer_session, sdk_required_action: false });
    assert.deepEqual(Object.keys(pm.provider).sort(), ['id', 'provider_status', 'token', 'type']);
    assert.deepEqual(pm.customer_payer.document, { document_number: '1032456789', document_type: 'CC' });
    assert.equal(pm.customer_payer.billing_address.city, 'Bogota');
    assert.deepEqual(pm.verify, { vault_on_success: false, payment: null });

    // The same card again is recognised by its fingerprint.
    const again = await call(`/v1/checkout/customers/sessions/${session.customer_session}/payment-methods`, { body: { type: 'CARD', card: { number: TEST_CARDS.approvedMastercard, holder_name: 'ANA G', expiration_month: 7, expiration_year: 31 } }, credentials: m });
    assert.equal(again.body.vaulted_token, pm.vaulted_token);

    const paid = await pay(m, '', { customer_payer: { id: customer.id }, payment_method: { type: 'CARD', vaulted_token: pm.vaulted_token, detail: { card: { security_code: '321', installments: 2 } } } });
    assert.equal(paid.status, 201, paid.text);
    assert.deepEqual([paid.body.status, paid.body.payment_method.vaulted_token, paid.body.payment_method.payment_method_detail.card.lfd, paid.body.payment_method.payment_method_detail.card.installments], ['SUCCEEDED', pm.vaulted_token, '4444', 2]);
    assert.equal(paid.body.customer_payer.email, 'ana@example.com');

    const other = await newMerchant();
    assert.equal((await call(`/v1/customers/${customer.id}/payment-methods/${pm.vaulted_token}`, { credentials: other })).status, 404);
    assert.equal((await call(`/v1/customers/${customer.id}`, { credentials: other })).status, 404);
  });

  it('vault_on_success enrolls the card after the payment succeeds; one-time tokens pay once', async () => {
    const m = await newMerchant();
    const { customer } = await customerAndSession(m);
    const r = await pay(m, TEST_CARDS.approved, { customer_payer: { id: customer.id }, payment_method: { type: 'CARD', vault_on_success: true, detail: { card: { number: TEST_CARDS.approved, holder_name: 'ANA GOMEZ', expiration_month: 1, expiration_year: 2030, security_code: '111' } } } });
    assert.equal(r.body.status, 'SUCCEEDED');
    const s = await getStack();
    let token = '';
    for (let i = 0; i < 50 && !token; i++) {
      token = (await call(`/v1/payments/${r.body.id}`, { credentials: m })).body.payment_method.vaulted_token;
      if (!token) await new Promise((res) => setTimeout(res, 100));
    }
    const pm = await call(`/v1/customers/${customer.id}/payment-methods/${token}`, { credentials: m });
    assert.equal(pm.status, 200);
    assert.deepEqual(pm.body.verify, { vault_on_success: true, payment: { id: r.body.id } });
    assert.equal(pm.body.card_data.expiration_year, 30);

    const tok = await call('/v1/payment-method-tokens', { body: { account_id: m.account_id, card: { number: TEST_CARDS.approved, holder_name: 'ANA', expiration_month: 3, expiration_year: 2032, security_code: '222' } }, credentials: m });
    assert.equal(tok.status, 201, tok.text);
    const once = await pay(m, '', { payment_method: { type: 'CARD', token: tok.body.token } });
    assert.equal(once.body.status, 'SUCCEEDED', once.text);
    assert.equal(once.body.payment_method.token, tok.body.token);
    const twice = await pay(m, '', { payment_method: { type: 'CARD', token: tok.body.token } });
    assert.equal(twice.status, 404);
    // CVVs are gone once their authorization ran (the payment's workflow deletes them right after
    // answering): under the token or payment, or on the card given with the payment.
    let remaining = -1;
    for (let i = 0; i < 50 && remaining !== 0; i++) {
      if (i > 0) await new Promise((res) => setTimeout(res, 100));
      remaining = await s.db.collection('vault_security_codes').countDocuments({ _id: { $in: [r.body.id, once.body.id, tok.body.token] } as never });
      remaining += await s.db.collection('vault_cards').countDocuments({ organization_code: m.organization_code, security_code: { $exists: true } });
    }
    assert.equal(remaining, 0);
    assert.equal((await chargesFor(once.body.id)).length, 1);
  });
});
