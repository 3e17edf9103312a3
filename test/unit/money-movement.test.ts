import assert from 'node:assert/strict';
import { bankRailOf, mergeMetadata, supportsCredit } from '../../domain/money-movement/common';
import { bankWithdrawalOf } from '../../domain/recipients/codecs';
import { ibanValid, UnreferencedRefundRequest, unreferencedRefundProblems } from '../../domain/refunds/unreferenced';
import { chargeAt, retryDelayMs, Schedule } from '../../domain/subscriptions/subscription';

const schedule = (overrides: Partial<Schedule>): Schedule => ({ startAt: '2026-01-31T10:00:00.000Z', frequency: null, billingDate: null, periodSeconds: 0, ...overrides });
const iso = (d: Date) => d.toISOString();

describe('money movement (unit)', () => {
  it('schedules monthly charges with month-end clamping, yearly, weekly and daily', () => {
    const monthly = schedule({ frequency: { type: 'MONTH', value: 1 } });
    assert.deepEqual([1, 2, 3].map((n) => iso(chargeAt(monthly, n))), ['2026-01-31T10:00:00.000Z', '2026-02-28T10:00:00.000Z', '2026-03-31T10:00:00.000Z']);
    assert.equal(iso(chargeAt(schedule({ frequency: { type: 'YEAR', value: 1 } }), 2)), '2027-01-31T10:00:00.000Z');
    assert.equal(iso(chargeAt(schedule({ frequency: { type: 'WEEK', value: 2 } }), 2)), '2026-02-14T10:00:00.000Z');
    assert.equal(iso(chargeAt(schedule({ frequency: { type: 'DAY', value: 3 } }), 3)), '2026-02-06T10:00:00.000Z');
  });

  it('schedules billing dates: day of month, last day of month, day of week', () => {
    const dom = schedule({ billingDate: { type: 'DAY_OF_MONTH', day: 5 } });
    assert.deepEqual([1, 2].map((n) => iso(chargeAt(dom, n))), ['2026-02-05T10:00:00.000Z', '2026-03-05T10:00:00.000Z']);
    const last = schedule({ startAt: '2026-02-10T00:00:00.000Z', billingDate: { type: 'LAST_DAY_OF_MONTH', day: null } });
    assert.deepEqual([1, 2].map((n) => iso(chargeAt(last, n))), ['2026-02-28T00:00:00.000Z', '2026-03-31T00:00:00.000Z']);
    // 2026-01-31 is a Saturday (ISO 6); Monday (1) is two days later.
    const monday = schedule({ billingDate: { type: 'DAY_OF_WEEK', day: 1 } });
    assert.deepEqual([1, 2].map((n) => iso(chargeAt(monday, n))), ['2026-02-02T10:00:00.000Z', '2026-02-09T10:00:00.000Z']);
  });

  it('scales periods and retry intervals to seconds with the test clock', () => {
    assert.equal(iso(chargeAt(schedule({ frequency: { type: 'MONTH', value: 2 }, periodSeconds: 1 }), 3)), '2026-01-31T10:00:04.000Z');
    assert.equal(retryDelayMs({ interval: { type: 'HOUR', value: 3 } }, 0), 3 * 3_600_000);
    assert.equal(retryDelayMs({ interval: { type: 'HOUR', value: 3 } }, 2), 6_000);
    assert.equal(retryDelayMs(null, 0), 86_400_000);
  });

  it('knows credit capabilities and bank rails', () => {
    assert.equal(supportsCredit('SANDBOX', 'CARD', 'JP'), true);
    assert.equal(supportsCredit('SANDBOX', 'WALLET', 'US'), false);
    assert.equal(supportsCredit('SANDBOX', 'BANK_TRANSFER', 'DE'), true);
    assert.equal(supportsCredit('OTHER', 'CARD', 'US'), false);
    assert.equal(bankRailOf('US', 'CHECKING'), 'ACH');
    assert.equal(bankRailOf('DE', 'IBAN'), 'SEPA');
    assert.equal(bankRailOf('MX', 'CLABE'), 'LOCAL');
    assert.equal(ibanValid('DE89 3704 0044 0532 0130 00'), true);
    assert.equal(ibanValid('DE89370400440532013001'), false);
  });

  it('merges metadata with empty values unsetting keys, and splits bank check digits', () => {
    assert.deepEqual(mergeMetadata([{ key: 'a', value: '1' }, { key: 'b', value: '2' }], [{ key: 'a', value: '' }, { key: 'b', value: '3' }, { key: 'x', value: '' }]), [{ key: 'b', value: '3' }]);
    assert.deepEqual(bankWithdrawalOf({ code: '341', branch: '0001', account: '12345-6', account_type: 'CHECKINGS', country: 'BR', currency: 'BRL' }), { code: '341', branch: '0001', branch_digit: null, account: '12345', account_digit: '6', account_type: 'CHECKINGS', routing: null, country: 'BR', currency: 'BRL' });
    assert.equal(bankWithdrawalOf({ code: '1', branch: '12-3', account: '9', account_type: 'SAVINGS', country: 'BR', currency: 'BRL', branch_digit: '7' }).branch_digit, '7');
  });

  it('requires exactly one payment method source and a positive amount', () => {
    const base = { account_id: 'x', merchant_order_id: 'abc', description: 'abc', country: 'BR', amount: { value: 1, currency: 'BRL' } };
    const problems = (r: object) => unreferencedRefundProblems(r as UnreferencedRefundRequest).map((p) => `${p.field}:${p.code}`);
    assert.deepEqual(problems({ ...base, payment_method: {} }), ['payment_method:INVALID_PAYMENT_METHOD_SOURCE']);
    assert.deepEqual(problems({ ...base, payment_method: { vaulted_token: 'v', detail: { wallet: { payment_token: 't' } } } }), ['payment_method:INVALID_PAYMENT_METHOD_SOURCE']);
    assert.deepEqual(problems({ ...base, amount: { value: 0, currency: 'BRL' }, payment_method: { vaulted_token: 'v' } }), ['amount.value:OUT_OF_RANGE']);
    assert.deepEqual(problems({ ...base, payment_method: { detail: { bank_transfer: { account_type: 'LOCAL', beneficiary_name: 'A', bank_account: '123456' } } } }), ['payment_method.detail.bank_transfer.beneficiary_document:REQUIRED']);
  });
});
