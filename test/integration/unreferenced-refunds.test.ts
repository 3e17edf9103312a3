import assert from 'node:assert/strict';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import { call, getStack, newMerchant } from '../support/stack';
import { collectionsContaining, historyContains, key, waitForResource, webhookReceiver } from '../support/money';
import type { IssuedCredentials } from '../../domain/credentials';
import { verifyWebhookSignature } from '../../domain/webhooks';

const PATH = '/v1/refunds/unreferenced';

function cardRefund(m: IssuedCredentials, overrides: Record<string, unknown> = {}, card: string = TEST_CARDS.approved) {
  return {
    account_id: m.account_id,
    merchant_order_id: `order-${Math.random().toString(36).slice(2, 10)}`,
    description: 'Goodwill credit',
    country: 'CO',
    amount: { value: 25.5, currency: 'USD' },
    payment_method: { detail: { card: { card_data: { number: card, holder_name: 'ANA GOMEZ', expiration_month: 12, expiration_year: 2031, brand: 'VISA', type: 'CREDIT', security_code: '737' }, soft_descriptor: 'SHOP CREDIT' } } },
    metadata: [{ key: 'ticket', value: 'T-1' }],
    ...overrides,
  };
}

const payer = { first_name: 'Ana', last_name: 'Gomez', email: 'ana@example.com', type: 'INDIVIDUAL' };

async function refund(m: IssuedCredentials, body: unknown, idempotencyKey: string | null = key()) {
  return call(PATH, { body, credentials: m, headers: idempotencyKey ? { 'x-idempotency-key': idempotencyKey } : {} });
}

function set(obj: any, path: string, value: unknown): any {
  const copy = structuredClone(obj);
  const parts = path.split('.');
  let cur = copy;
  for (const p of parts.slice(0, -1)) cur = cur[p] ??= {};
  if (value === undefined) delete cur[parts[parts.length - 1]];
  else cur[parts[parts.length - 1]] = value;
  return copy;
}

describe('unreferenced refunds', function () {
  this.timeout(90_000);

  it('creates a card refund in CREATED with exactly the documented fields, then succeeds and notifies callback_url with metadata', async () => {
    const m = await newMerchant();
    const hooks = await webhookReceiver();
    try {
      const r = await refund(m, cardRefund(m, { callback_url: hooks.url, merchant_reference: 'ref-123' }));
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(Object.keys(r.body).sort(), ['account_id', 'amount', 'country', 'created_at', 'customer_payer', 'description', 'id', 'merchant_order_id', 'merchant_reference', 'metadata', 'payment_method', 'provider', 'status', 'sub_status', 'updated_at']);
      assert.equal(r.body.status, 'CREATED');
      assert.equal(r.body.sub_status, 'CREATED');
      assert.equal(r.body.merchant_reference, 'ref-123');
      assert.deepEqual(r.body.amount, { value: 25.5, currency: 'USD' });
      assert.deepEqual(r.body.payment_method, { vaulted_token: null, detail: { card: { card_data: { brand: 'VISA', last_four: '1111', type: 'CREDIT' } } } });
      assert.deepEqual(Object.keys(r.body.provider).sort(), ['category', 'connection_id', 'name', 'raw_response_code', 'reference', 'type']);
      assert.equal(r.body.provider.name, 'SANDBOX');
      assert.equal(r.body.provider.type, 'CARD_CREDIT');
      assert.equal(r.headers.get('location'), `${PATH}/${r.body.id}`);

      const done = await waitForResource(m, `${PATH}/${r.body.id}`, (b) => b.status === 'SUCCEEDED');
      assert.equal(done.sub_status, 'APPROVED');
      assert.equal(done.provider.category, 'APPROVED');
      assert.equal(done.provider.raw_response_code, '00');
      assert.match(done.provider.reference, /^cr_/);
      const event = await hooks.waitFor((e) => e.type === 'unreferenced_refund.succeeded');
      assert.equal(event.data.id, r.body.id);
      assert.deepEqual(event.data.metadata, [{ key: 'ticket', value: 'T-1' }]);
      assert.ok(event.signature);
      assert.ok(hooks.events.some((e) => e.type === 'unreferenced_refund.created'));

      const { gateway } = await getStack();
      const credits = await (await fetch(`${gateway.url}/_sandbox/credits?reference=${r.body.id}`)).json() as any;
      assert.equal(credits.count, 1);
      assert.equal(credits.items[0].amount, 2550);
      assert.deepEqual(await collectionsContaining(TEST_CARDS.approved), [], 'the PAN is stored only sealed');
      assert.equal(await historyContains(`unreferenced-refund-${r.body.id}`, TEST_CARDS.approved), false);
    } finally {
      await hooks.close();
    }
  });

  it('falls back to the account webhook without callback_url, signed with the account secret', async () => {
    const m = await newMerchant();
    const hooks = await webhookReceiver();
    try {
      const endpoint = await call(`/v1/accounts/${m.account_id}/webhook`, { method: 'PUT', body: { url: hooks.url }, credentials: m });
      assert.equal(endpoint.status, 200, endpoint.text);
      const r = await refund(m, cardRefund(m, { metadata: [{ key: 'case', value: 'C-9' }] }));
      const event = await hooks.waitFor((e) => e.type === 'unreferenced_refund.succeeded' && e.data.id === r.body.id);
      assert.deepEqual(event.data.metadata, [{ key: 'case', value: 'C-9' }]);
      assert.equal(event.data.status, 'SUCCEEDED');
      assert.equal(verifyWebhookSignature(event.signature!, event.raw, endpoint.body.secret, Math.floor(Date.now() / 1000)), true);
    } finally {
      await hooks.close();
    }
  });

  it('requires a UUID v4 X-Idempotency-Key and replays the first refund for the same key', async () => {
    const m = await newMerchant();
    const body = cardRefund(m);
    const missing = await refund(m, body, null);
    assert.equal(missing.status, 400);
    assert.equal(missing.body.errors[0].field, 'X-Idempotency-Key');
    const notV4 = await refund(m, body, '6ba7b810-9dad-11d1-80b4-00c04fd430c8');
    assert.equal(notV4.status, 400);
    assert.match(notV4.body.detail, /version 4/);

    const k = key();
    const first = await refund(m, body, k);
    assert.equal(first.body.merchant_reference, body.merchant_order_id, 'merchant_reference defaults to merchant_order_id');
    const again = await refund(m, { ...body, description: 'changed body' }, k);
    assert.equal(again.status, 201);
    assert.equal(again.body.id, first.body.id);
    assert.equal(again.body.description, 'Goodwill credit');
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
  });

  it('creates one refund for concurrent duplicates', async () => {
    const m = await newMerchant();
    const body = cardRefund(m);
    const k = key();
    const answers = await Promise.all(Array.from({ length: 5 }, () => refund(m, body, k)));
    const created = answers.filter((a) => a.status === 201);
    assert.ok(created.length >= 1);
    for (const a of answers) assert.ok(a.status === 201 || (a.status === 400 && a.body.code === 'REQUEST_IN_PROCESS'), a.text);
    assert.equal(new Set(created.map((a) => a.body.id)).size, 1);
    const { db } = await getStack();
    assert.equal(await db.collection('unreferenced_refunds').countDocuments({ merchant_order_id: body.merchant_order_id }), 1);
  });

  it('answers validation failures in the problem shape, with each rule at its boundary', async () => {
    const m = await newMerchant();
    const base = cardRefund(m);
    const cases: Array<[string, unknown, string, string]> = [
      ['amount.value', 0, 'amount.value', 'OUT_OF_RANGE'],
      ['amount.value', -5, 'amount.value', 'OUT_OF_RANGE'],
      ['amount.value', 0.00001, 'amount.value', 'INVALID'],
      ['amount.value', 0.001, 'amount.value', 'INVALID'], // USD has 2 decimal places (ISO 4217)
      ['merchant_order_id', 'ab', 'merchant_order_id', 'INVALID'],
      ['merchant_order_id', 'x'.repeat(256), 'merchant_order_id', 'INVALID'],
      ['merchant_reference', 'ab', 'merchant_reference', 'INVALID'],
      ['description', 'ab', 'description', 'INVALID'],
      ['description', 'd'.repeat(256), 'description', 'INVALID'],
      ['description', undefined, 'description', 'REQUIRED'],
      ['merchant_reference', 'r'.repeat(256), 'merchant_reference', 'INVALID'],
      ['payment_method.detail.card.card_data.expiration_year', 1999, 'payment_method.detail.card.card_data.expiration_year', 'INVALID'],
      ['provider_data', { id: 'ACME' }, 'provider_data.id', 'INVALID'],
      ['fraud_screening', { stand_alone: 'yes' }, 'fraud_screening.stand_alone', 'INVALID'],
      ['account_id', 'not-a-uuid', 'account_id', 'INVALID'],
      ['account_id', undefined, 'account_id', 'REQUIRED'],
      ['country', 'COL', 'country', 'INVALID'],
      ['amount.currency', 'US', 'amount.currency', 'INVALID'],
      ['payment_method.detail.card.card_data.number', '4111111111111112', 'payment_method.detail.card.card_data.number', 'INVALID'],
      ['payment_method.detail.card.card_data.expiration_month', 13, 'payment_method.detail.card.card_data.expiration_month', 'INVALID'],
      ['payment_method.detail.card.card_data.expiration_month', 0, 'payment_method.detail.card.card_data.expiration_month', 'INVALID'],
      ['payment_method.detail.card.card_data.holder_name', undefined, 'payment_method.detail.card.card_data.holder_name', 'REQUIRED'],
      ['payment_method.detail.card.card_data.brand', 'VISAX', 'payment_method.detail.card.card_data.brand', 'INVALID'],
      ['payment_method.detail.card.card_data.brand', undefined, 'payment_method.detail.card.card_data.brand', 'REQUIRED'],
      ['payment_method.detail.card.card_data.type', 'CHARGE', 'payment_method.detail.card.card_data.type', 'INVALID'],
      ['payment_method.detail.card.soft_descriptor', 'x'.repeat(256), 'payment_method.detail.card.soft_descriptor', 'INVALID'],
      ['metadata', [{ key: 'k', value: 'v'.repeat(513) }], 'metadata.0.value', 'INVALID'],
      ['callback_url', 'http://example.com/hook', 'callback_url', 'INVALID'],
      ['payment_method.vaulted_token', '3f1c2a9e-8a4b-4c1d-9e2f-0a1b2c3d4e5f', 'payment_method', 'INVALID_PAYMENT_METHOD_SOURCE'],
      ['payment_method', {}, 'payment_method', 'INVALID_PAYMENT_METHOD_SOURCE'],
      ['customer_payer', { type: 'ENTITY' }, 'customer_payer.business_name', 'REQUIRED'],
    ];
    for (const [path, value, field, code] of cases) {
      const r = await refund(m, set(base, path, value));
      assert.equal(r.status, 400, `${path}=${JSON.stringify(value)}: ${r.text}`);
      assert.equal(r.headers.get('content-type')?.startsWith('application/problem+json'), true);
      assert.deepEqual(Object.keys(r.body).sort(), ['code', 'detail', 'doc_url', 'errors', 'status', 'title', 'trace_id', 'type']);
      assert.equal(r.body.code, 'VALIDATION_ERROR');
      assert.equal(r.body.status, 400);
      const error = r.body.errors.find((e: any) => e.field === field);
      assert.ok(error, `${path}: expected an error on ${field}, got ${JSON.stringify(r.body.errors)}`);
      assert.equal(error.code, code, `${path}=${JSON.stringify(value)}`);
    }
    // The accepted edges.
    for (const [path, value] of [['amount', { value: 0.01, currency: 'USD' }], ['amount', { value: 0.0001, currency: 'CLF' }], ['amount', { value: 1, currency: 'JPY' }], ['merchant_order_id', 'abc'], ['merchant_order_id', 'x'.repeat(255)], ['description', 'abc'], ['description', 'd'.repeat(255)], ['merchant_reference', 'r'.repeat(255)], ['metadata', [{ key: 'k', value: 'v'.repeat(512) }]], ['payment_method.detail.card.soft_descriptor', 'x'.repeat(255)], ['payment_method.detail.card.card_data.expiration_month', 1]] as const) {
      const r = await refund(m, set(base, path, value));
      assert.equal(r.status, 201, `${path}: ${r.text}`);
    }
  });

  it('checks bank transfer and wallet destinations: ACH and SEPA rules, customer_payer, 422 where no provider credits', async () => {
    const m = await newMerchant();
    const ach = cardRefund(m, {
      country: 'US',
      payment_method: { detail: { bank_transfer: { account_type: 'CHECKING', bank_account: '000123456789', bank_id: '021000021', beneficiary_name: 'Ana Gomez', beneficiary_document: { document_type: 'SSN', document_number: '123456789' } } } },
      customer_payer: payer,
    });
    const missingPayer = await refund(m, set(ach, 'customer_payer', undefined));
    assert.equal(missingPayer.body.errors[0].field, 'customer_payer');
    const badRouting = await refund(m, set(ach, 'payment_method.detail.bank_transfer.bank_id', '12345'));
    assert.equal(badRouting.body.errors[0].field, 'payment_method.detail.bank_transfer.bank_id');
    const noDocument = await refund(m, set(ach, 'payment_method.detail.bank_transfer.beneficiary_document', undefined));
    assert.equal(noDocument.body.errors[0].field, 'payment_method.detail.bank_transfer.beneficiary_document');
    const noAccount = await refund(m, set(ach, 'payment_method.detail.bank_transfer.bank_account', undefined));
    assert.equal(noAccount.body.errors[0].code, 'REQUIRED');
    const badType = await refund(m, set(ach, 'payment_method.detail.bank_transfer.account_type', 'CHECKINGS'));
    assert.equal(badType.body.errors[0].field, 'payment_method.detail.bank_transfer.account_type');

    const ok = await refund(m, ach);
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.provider.type, 'ACH');
    assert.deepEqual(ok.body.payment_method.detail, { bank_transfer: { account_type: 'CHECKING', last_four: '6789', beneficiary_name: 'Ana Gomez' } });
    assert.equal((await waitForResource(m, `${PATH}/${ok.body.id}`, (b) => b.status !== 'CREATED' && b.status !== 'PROCESSING')).status, 'SUCCEEDED');
    assert.deepEqual(await collectionsContaining('000123456789'), [], 'bank accounts are stored sealed');

    const sepa = cardRefund(m, { country: 'DE', payment_method: { detail: { bank_transfer: { account_type: 'IBAN', bank_account: 'DE89370400440532013000', beneficiary_name: 'Ana Gomez' } } } });
    assert.equal((await refund(m, sepa)).body.errors[0].field, 'customer_payer');
    const badIban = await refund(m, set({ ...sepa, customer_payer: payer }, 'payment_method.detail.bank_transfer.bank_account', 'DE89370400440532013001'));
    assert.equal(badIban.body.errors[0].field, 'payment_method.detail.bank_transfer.bank_account');
    const sepaOk = await refund(m, { ...sepa, customer_payer: payer });
    assert.equal(sepaOk.status, 201, sepaOk.text);
    assert.equal(sepaOk.body.provider.type, 'SEPA');

    const wallet = cardRefund(m, { country: 'BR', payment_method: { detail: { wallet: { payment_token: 'decline-wallet-1' } } } });
    assert.equal((await refund(m, wallet)).body.errors[0].field, 'customer_payer');
    const walletBr = await refund(m, { ...wallet, customer_payer: payer });
    assert.equal(walletBr.status, 201, walletBr.text);
    const declined = await waitForResource(m, `${PATH}/${walletBr.body.id}`, (b) => b.status === 'DECLINED');
    assert.equal(declined.sub_status, 'DECLINED');

    const unsupported = await refund(m, { ...wallet, country: 'US', customer_payer: payer });
    assert.equal(unsupported.status, 422, unsupported.text);
    assert.equal(unsupported.body.code, 'UNREFERENCED_REFUND_NOT_SUPPORTED');
    assert.equal(unsupported.body.status, 422);
    const pinned = await refund(m, { ...wallet, country: 'US', customer_payer: payer, provider_data: { id: 'SANDBOX' } });
    assert.equal(pinned.body.code, 'UNREFERENCED_REFUND_NOT_SUPPORTED');
  });

  it('answers 422 UNREFERENCED_REFUND_NOT_SUPPORTED from the catalogue\'s capabilities, before anything is stored', async () => {
    const m = await newMerchant();
    const s = await getStack();
    const expect422 = async (body: unknown, reason: RegExp) => {
      const r = await refund(m, body);
      assert.equal(r.status, 422, r.text);
      assert.deepEqual([r.body.code, r.body.status, r.body.title], ['UNREFERENCED_REFUND_NOT_SUPPORTED', 422, 'Unprocessable Entity']);
      assert.match(r.body.detail, reason);
    };
    // A catalogue provider without the capability: Mercado Pago pushes no card credits.
    await expect422(cardRefund(m, { provider_data: { id: 'MERCADO_PAGO' } }), /through MERCADO_PAGO: MERCADO_PAGO has no unreferenced_refund capability/);
    // Capable, but not for this destination or country.
    await expect422(cardRefund(m, { country: 'GB', provider_data: { id: 'CHECKOUT' } }), /CHECKOUT does not push CARD credits in GB/);
    await expect422(
      cardRefund(m, { country: 'US', customer_payer: payer, provider_data: { id: 'STRIPE' }, payment_method: { detail: { wallet: { payment_token: 'wallet-1' } } } }),
      /STRIPE does not push WALLET credits in US/,
    );
    // Capable there, but the account has no connection Switchyard can send it through.
    await expect422(cardRefund(m, { country: 'US', provider_data: { id: 'ADYEN' } }), /no ADYEN connection Switchyard can send credits through yet/);
    const adyen = await call(`/v1/accounts/${m.account_id}/provider-connections`, { body: { provider_id: 'ADYEN', name: 'Adyen US', merchant_id: 'mid-adyen', credentials: { api_key: 'AQE_test_key', environment: 'TEST' } }, credentials: m });
    assert.equal(adyen.status, 201, adyen.text);
    await expect422(cardRefund(m, { country: 'US', provider_data: { id: 'ADYEN' } }), /no ADYEN connection Switchyard can send credits through yet/);
    assert.equal(await s.db.collection('unreferenced_refunds').countDocuments({ account_id: m.account_id }), 0);
    // A code outside the catalogue is a 400, not a 422.
    const unknown = await refund(m, cardRefund(m, { provider_data: { id: 'NOT_A_PROVIDER' } }));
    assert.deepEqual([unknown.status, unknown.body.errors[0].field], [400, 'provider_data.id']);
  });

  it('fails over soft declines, stops at hard declines, and rejects on stand-alone fraud screening without calling the provider', async () => {
    const m = await newMerchant();
    const soft = await refund(m, cardRefund(m, {}, TEST_CARDS.insufficientFunds));
    const softDone = await waitForResource(m, `${PATH}/${soft.body.id}`, (b) => b.status === 'DECLINED');
    assert.equal(softDone.provider.connection_id, 'default-sandbox-2');
    assert.equal(softDone.provider.raw_response_code, '51');
    const hard = await refund(m, cardRefund(m, {}, TEST_CARDS.stolen));
    const hardDone = await waitForResource(m, `${PATH}/${hard.body.id}`, (b) => b.status === 'DECLINED');
    assert.equal(hardDone.provider.connection_id, 'default-sandbox-1');
    const failed = await refund(m, cardRefund(m, {}, TEST_CARDS.serverError));
    assert.equal((await waitForResource(m, `${PATH}/${failed.body.id}`, (b) => b.status === 'FAILED')).sub_status, 'PROVIDER_ERROR');

    const screened = await refund(m, cardRefund(m, { amount: { value: 20_000, currency: 'USD' }, fraud_screening: { stand_alone: true } }));
    assert.equal(screened.status, 201);
    const rejected = await waitForResource(m, `${PATH}/${screened.body.id}`, (b) => b.status === 'DECLINED');
    assert.equal(rejected.sub_status, 'FRAUD_REJECTED');
    const { gateway } = await getStack();
    assert.equal(((await (await fetch(`${gateway.url}/_sandbox/credits?reference=${screened.body.id}`)).json()) as any).count, 0);
    const passes = await refund(m, cardRefund(m, { fraud_screening: { stand_alone: true } }, '5555555555554444'));
    assert.equal((await waitForResource(m, `${PATH}/${passes.body.id}`, (b) => b.status === 'SUCCEEDED')).sub_status, 'APPROVED');
  });

  it('rejects on the destination velocity rule of fraud screening', async () => {
    const m = await newMerchant();
    const card = '6011111111111117';
    for (let i = 0; i < 5; i++) assert.equal((await refund(m, cardRefund(m, { amount: { value: 1, currency: 'USD' } }, card))).status, 201);
    const sixth = await refund(m, cardRefund(m, { amount: { value: 1, currency: 'USD' }, fraud_screening: { stand_alone: true } }, card));
    const rejected = await waitForResource(m, `${PATH}/${sixth.body.id}`, (b) => b.status === 'DECLINED');
    assert.equal(rejected.sub_status, 'FRAUD_REJECTED');
    const { db } = await getStack();
    const stored = await db.collection('unreferenced_refunds').findOne({ _id: sixth.body.id });
    assert.deepEqual(stored?.fraud_screening, { stand_alone: true, status: 'REJECTED', reasons: ['DESTINATION_VELOCITY'] });
  });

  it('answers another organization\'s refund and account exactly like missing ones', async () => {
    const owner = await newMerchant();
    const other = await newMerchant();
    const r = await refund(owner, cardRefund(owner));
    const foreign = await call(`${PATH}/${r.body.id}`, { credentials: other });
    const missing = await call(`${PATH}/00000000-0000-4000-8000-000000000000`, { credentials: other });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.code, 'REFUND_NOT_FOUND');
    assert.deepEqual({ ...foreign.body, trace_id: null }, { ...missing.body, trace_id: null });
    const foreignAccount = await refund(other, cardRefund(owner));
    assert.equal(foreignAccount.status, 404);
    assert.equal(foreignAccount.body.code, 'ACCOUNT_NOT_FOUND');
    const unauthenticated = await call(PATH, { body: cardRefund(owner), headers: { 'x-idempotency-key': key() } });
    assert.equal(unauthenticated.status, 401);
    assert.equal(unauthenticated.body.status, 401);
  });
});
