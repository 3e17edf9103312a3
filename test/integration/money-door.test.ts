/**
 * What a merchant sends is judged at the door: the Dry-run header, every amount against its
 * currency's ISO 4217 minor unit and the documented maximum, and country / currency codes
 * against ISO 3166-1 / ISO 4217. A refused request starts nothing and moves no money.
 */
import assert from 'node:assert/strict';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import type { IssuedCredentials } from '../../domain/credentials';
import { key } from '../support/money';
import { chargesFor, pay, paymentBody } from '../support/payments';
import { onboardedRecipient, recipientBody } from '../support/recipients';
import { call, getStack, newMerchant } from '../support/stack';

function fields(body: any): string[] {
  return (body.errors ?? []).map((e: any) => e.field);
}

function cardRefund(m: IssuedCredentials, amount: unknown, overrides: Record<string, unknown> = {}) {
  return {
    account_id: m.account_id, merchant_order_id: `order-${Math.random().toString(36).slice(2, 10)}`, description: 'Goodwill credit', country: 'CO', amount,
    payment_method: { detail: { card: { card_data: { number: TEST_CARDS.approved, holder_name: 'ANA GOMEZ', expiration_month: 12, expiration_year: 2031, brand: 'VISA' } } } },
    ...overrides,
  };
}

describe('the door: Dry-run header, amounts per currency, ISO codes', function () {
  this.timeout(90_000);

  it('refuses a Dry-run header that is not exactly true or false (400) and routes nothing', async () => {
    const m = await newMerchant();
    for (const value of ['1', 'yes', '', 'on', 'true true', 'truee']) {
      const body = paymentBody(m, TEST_CARDS.approved);
      const r = await call('/v1/payments', { body, credentials: m, headers: { 'Dry-run': value } });
      assert.equal(r.status, 400, `Dry-run: "${value}" -> ${r.text}`);
      assert.equal(r.body.code, 'VALIDATION_ERROR');
      assert.deepEqual(fields(r.body), ['Dry-run']);
      const stored = await call(`/v1/payments?merchant_order_id=${body.merchant_order_id}`, { credentials: m });
      assert.deepEqual(stored.body, [], `Dry-run: "${value}" stored a payment`);
      assert.deepEqual(await chargesFor(body.merchant_order_id), [], `Dry-run: "${value}" reached the acquirer`);
    }
    // Letter case does not matter; whitespace around a header value is not part of it in HTTP.
    const dry = await call('/v1/payments', { body: paymentBody(m, TEST_CARDS.approved), credentials: m, headers: { 'Dry-run': 'TRUE' } });
    assert.equal(dry.status, 201, dry.text);
    assert.equal(dry.body.dry_run, true);
    const real = await call('/v1/payments', { body: paymentBody(m, TEST_CARDS.approved), credentials: m, headers: { 'Dry-run': 'False' } });
    assert.equal(real.status, 201, real.text);
    assert.equal(real.body.status, 'SUCCEEDED');
  });

  it('refuses payment amounts beyond the currency\'s minor unit or maximum (400 amount.value), at creation, capture and refund', async () => {
    const m = await newMerchant();
    const cases: Array<[unknown, RegExp]> = [
      [{ value: 1.2345, currency: 'USD' }, /at most 2 decimal places for USD/],
      [{ value: 0.0001, currency: 'USD' }, /at most 2 decimal places for USD/],
      [{ value: 100.5, currency: 'JPY' }, /whole number for JPY/],
      [{ value: 1e20, currency: 'USD' }, /at most 9999999999999.99 USD/],
      [{ value: 1e21, currency: 'USD' }, /at most 9999999999999.99 USD/],
    ];
    for (const [amount, message] of cases) {
      const body = paymentBody(m, TEST_CARDS.approved, { amount });
      const r = await call('/v1/payments', { body, credentials: m });
      assert.equal(r.status, 400, `${JSON.stringify(amount)} -> ${r.text}`);
      assert.deepEqual(fields(r.body), ['amount.value']);
      assert.match(r.body.message, message);
      assert.deepEqual(await chargesFor(body.merchant_order_id), []);
    }
    const jpy = await pay(m, TEST_CARDS.approved, { amount: { value: 1500, currency: 'JPY' } });
    assert.equal(jpy.status, 201, jpy.text);
    const split = await call('/v1/payments', { body: paymentBody(m, TEST_CARDS.approved, { split: [{ recipient_id: 'seller-a', amount: { value: 1.005, currency: 'USD' } }] }), credentials: m });
    assert.deepEqual([split.status, fields(split.body)], [400, ['split.0.amount.value']]);

    const authorized = await pay(m, TEST_CARDS.approved, { capture: false, amount: { value: 100, currency: 'USD' } });
    assert.equal(authorized.body.sub_status, 'AUTHORIZED', authorized.text);
    for (const amount of [1e21, 10.001]) {
      const capture = await call(`/v1/payments/${authorized.body.id}/capture`, { body: { amount }, credentials: m });
      assert.equal(capture.status, 400, capture.text);
      assert.deepEqual(fields(capture.body), ['amount']);
    }
    const captured = await call(`/v1/payments/${authorized.body.id}/capture`, { body: { amount: 50.5 }, credentials: m });
    assert.equal(captured.body.amount.captured, 50.5, captured.text);
    for (const amount of [1.2345, 0.0001, 1e21]) {
      const refund = await call(`/v1/payments/${authorized.body.id}/refunds`, { body: { amount }, credentials: m });
      assert.equal(refund.status, 400, `${amount} -> ${refund.text}`);
      assert.deepEqual(fields(refund.body), ['amount']);
    }
    const yen = await call(`/v1/payments/${jpy.body.id}/refunds`, { body: { amount: 100.5 }, credentials: m });
    assert.equal(yen.status, 400, yen.text);
    assert.match(yen.body.message, /whole number for JPY/);
    const read = await call(`/v1/payments/${authorized.body.id}`, { credentials: m });
    assert.deepEqual([read.body.amount.captured, read.body.amount.refunded], [50.5, 0]);
  });

  it('refuses unreferenced refunds the currency cannot express, and codes that are not ISO, with 400 before anything starts', async () => {
    const m = await newMerchant();
    const send = (body: unknown) => call('/v1/refunds/unreferenced', { body, credentials: m, headers: { 'x-idempotency-key': key() } });
    for (const amount of [{ value: 1.2345, currency: 'USD' }, { value: 0.0001, currency: 'USD' }, { value: 100.5, currency: 'JPY' }, { value: 1e21, currency: 'USD' }]) {
      const r = await send(cardRefund(m, amount));
      assert.equal(r.status, 400, `${JSON.stringify(amount)} -> ${r.text}`);
      assert.equal(r.body.code, 'VALIDATION_ERROR');
      assert.deepEqual(fields(r.body), ['amount.value']);
    }
    for (const country of ['AB', 'ZZ', 'XX']) {
      const r = await send(cardRefund(m, { value: 10, currency: 'USD' }, { country }));
      assert.equal(r.status, 400, r.text);
      assert.deepEqual(fields(r.body), ['country']);
    }
    const currency = await send(cardRefund(m, { value: 10, currency: 'ABC' }));
    assert.equal(currency.status, 400, currency.text);
    assert.deepEqual(fields(currency.body), ['amount.currency']);
    const { db } = await getStack();
    assert.equal(await db.collection('unreferenced_refunds').countDocuments({ organization_code: m.organization_code }), 0);
    const ok = await send(cardRefund(m, { value: 1500, currency: 'JPY' }));
    assert.equal(ok.status, 201, ok.text);
  });

  it('judges top-ups and split transfers per currency, keeps the balance exact at large values, and refuses beyond the maximum', async () => {
    const m = await newMerchant();
    const topUp = (amount: unknown) => call('/v1/balances/top-ups', { body: { amount }, credentials: m, headers: { 'x-idempotency-key': key() } });
    for (const amount of [{ value: 1e21, currency: 'USD' }, { value: 1e20, currency: 'USD' }, { value: 0.0001, currency: 'BRL' }, { value: 10, currency: 'ZZZ' }]) {
      const r = await topUp(amount);
      assert.equal(r.status, 400, `${JSON.stringify(amount)} -> ${r.text}`);
      assert.ok(fields(r.body)[0].startsWith('amount.'), r.text);
    }
    // 2 x 900000000000.01 = 1800000000000.02: beyond what 0.0001 units in a double count exactly.
    assert.equal((await topUp({ value: 900000000000.01, currency: 'USD' })).status, 201);
    const second = await topUp({ value: 900000000000.01, currency: 'USD' });
    assert.equal(second.status, 201, second.text);
    assert.deepEqual(second.body.balances.find((b: any) => b.currency === 'USD').available, 1800000000000.02);
    assert.equal((await topUp({ value: 9999999999999.99, currency: 'BRL' })).status, 201);

    const recipientId = await onboardedRecipient(m);
    const transfer = (amount: unknown) => call('/v1/split-marketplace/transfers', {
      body: { account_id: m.account_id, recipient_id: recipientId, amount, description: 'Seller payout', merchant_reference: `ref-${key()}` }, credentials: m, headers: { 'x-idempotency-key': key() },
    });
    for (const amount of [{ value: 0.0001, currency: 'BRL' }, { value: 1.005, currency: 'USD' }, { value: 1e21, currency: 'USD' }]) {
      const r = await transfer(amount);
      assert.equal(r.status, 400, `${JSON.stringify(amount)} -> ${r.text}`);
      assert.deepEqual(fields(r.body), ['amount.value']);
    }
    const { db } = await getStack();
    assert.equal(await db.collection('split_transfers').countDocuments({ organization_code: m.organization_code }), 0);
    const balances = await call('/v1/balances', { credentials: m });
    assert.deepEqual(balances.body.balances.map((b: any) => [b.currency, b.available]), [['BRL', 9999999999999.99], ['USD', 1800000000000.02]]);
  });

  it('refuses country and currency codes that ISO does not assign on subscriptions, campaigns, customer sessions and recipients', async () => {
    const m = await newMerchant();
    const subscription = await call('/v1/subscriptions', {
      body: {
        name: 'Gold plan', account_id: m.account_id, country: 'ZZ', amount: { currency: 'XXX', value: 9.99 }, payment_method: { type: 'CARD', vaulted_token: '00000000-0000-4000-8000-000000000000' },
        customer_payer: { id: '00000000-0000-4000-8000-000000000000' }, frequency: { type: 'MONTH', value: 1 },
      },
      credentials: m,
    });
    assert.equal(subscription.status, 400, subscription.text);
    assert.deepEqual(fields(subscription.body).sort(), ['amount.currency', 'country']);
    const yen = await call('/v1/subscriptions', {
      body: {
        name: 'Gold plan', account_id: m.account_id, country: 'JP', amount: { currency: 'JPY', value: 100.5 }, payment_method: { type: 'CARD', vaulted_token: '00000000-0000-4000-8000-000000000000' },
        customer_payer: { id: '00000000-0000-4000-8000-000000000000' }, frequency: { type: 'MONTH', value: 1 },
      },
      credentials: m,
    });
    assert.deepEqual([yen.status, fields(yen.body)], [400, ['amount.value']]);

    const campaign = await call('/v1/campaigns', { body: { name: 'Win back', account_id: m.account_id, organization_code: m.organization_code, country: 'XX', channel: 'WHATSAPP_MESSAGE' }, credentials: m });
    assert.equal(campaign.status, 400, campaign.text);
    assert.match(JSON.stringify(campaign.body), /country/);
    const created = await call('/v1/campaigns', { body: { name: 'Win back', account_id: m.account_id, organization_code: m.organization_code, country: 'CO', channel: 'WHATSAPP_MESSAGE' }, credentials: m });
    assert.equal(created.status, 201, created.text);
    for (const rule of [{ rule_type: 'CURRENCY', conditional: 'EQUAL', values: ['ABC'] }, { rule_type: 'AMOUNT_AND_CURRENCY', conditional: 'GREATER_THAN', values: ['100', 'XX1'] }, { rule_type: 'AMOUNT_AND_CURRENCY', conditional: 'GREATER_THAN', values: ['100.5', 'JPY'] }]) {
      const r = await call(`/v1/campaigns/${created.body.id}/rules`, { body: { rules: [rule] }, credentials: m });
      assert.ok(r.status === 400 || r.status === 422, `${JSON.stringify(rule)} -> ${r.text}`);
    }

    const customer = await call('/v1/customers', { body: { merchant_customer_id: `c-${key()}`, first_name: 'Ana', last_name: 'Gomez', email: 'ana@example.com', country: 'CO' }, credentials: m });
    const session = await call('/v1/customers/sessions', { body: { account_id: m.account_id, customer_id: customer.body.id, country: 'ZZ' }, credentials: m });
    assert.equal(session.status, 400, session.text);
    const recipient = await call('/v1/recipients', { body: recipientBody(m, { country: 'ZZ' }), credentials: m });
    assert.equal(recipient.status, 400, recipient.text);
    assert.match(JSON.stringify(recipient.body), /country/);
  });
});
