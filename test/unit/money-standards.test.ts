import assert from 'node:assert/strict';
import * as t from 'io-ts';
import { CountryCode, currencyAmount, CurrencyCode, PositiveDecimalAmount } from '../../domain/codecs/common';
import { fieldErrorsOf } from '../../domain/errors';
import { countryAlpha2, isIsoCountry, isIsoCurrency } from '../../domain/iso-codes';
import { currencyAmountProblem, currencyExponent, fromMinor, maxAmount, toCurrencyMinor, toMinor } from '../../domain/money';
import { cardExpired, cardExpiryProblems } from '../../domain/payments/cards';
import { billingStartAt } from '../../domain/subscriptions/subscription';

describe('unit: money against the standards', () => {
  it('knows ISO 3166-1 countries and ISO 4217 currencies from the data packages, and refuses invented codes', () => {
    for (const code of ['US', 'BR', 'CO', 'JP', 'AQ']) assert.equal(CountryCode.is(code), true, code);
    for (const code of ['ZZ', 'XX', 'AB', 'XK', 'us', 'USA', '']) assert.equal(CountryCode.is(code), false, code);
    for (const code of ['USD', 'BRL', 'JPY', 'KWD', 'CLF', 'COP']) assert.equal(CurrencyCode.is(code), true, code);
    for (const code of ['ABC', 'ZZZ', 'XXX', 'XTS', 'XAU', 'usd', 'US']) assert.equal(CurrencyCode.is(code), false, code);
    assert.equal(isIsoCountry('ZZ'), false);
    assert.equal(isIsoCurrency('ABC'), false);
    assert.equal(countryAlpha2('bra'), 'BR');
    assert.equal(countryAlpha2('XKX'), null);
  });

  it('takes each currency\'s minor unit from ISO 4217 data', () => {
    assert.deepEqual(['USD', 'JPY', 'KWD', 'CLF', 'CLP', 'BRL', 'ISK'].map(currencyExponent), [2, 0, 3, 4, 0, 2, 0]);
  });

  it('refuses more precision than the currency has and amounts above the documented maximum', () => {
    assert.match(currencyAmountProblem(1.2345, 'USD')!, /at most 2 decimal places for USD/);
    assert.match(currencyAmountProblem(0.0001, 'USD')!, /at most 2 decimal places/);
    assert.match(currencyAmountProblem(100.5, 'JPY')!, /whole number for JPY/);
    assert.match(currencyAmountProblem(0.0001, 'BRL')!, /at most 2 decimal places for BRL/);
    assert.equal(currencyAmountProblem(1.234, 'KWD'), null);
    assert.equal(currencyAmountProblem(9999999999999.99, 'USD'), null);
    assert.equal(maxAmount('USD'), 9999999999999.99);
    assert.equal(maxAmount('JPY'), 999999999999999);
    assert.match(currencyAmountProblem(1e13, 'USD')!, /at most 9999999999999.99 USD/);
    assert.match(currencyAmountProblem(1e20, 'USD')!, /at most/);
    assert.match(currencyAmountProblem(1e21, 'USD')!, /at most/);
    assert.match(currencyAmountProblem(1e15, 'JPY')!, /at most 999999999999999 JPY/);
  });

  it('names amount.value when a {value, currency} amount does not fit its currency', () => {
    const codec = t.type({ amount: currencyAmount('Amount', PositiveDecimalAmount) });
    const decoded = codec.decode({ amount: { value: 100.5, currency: 'JPY' } });
    assert.equal(decoded._tag, 'Left');
    if (decoded._tag === 'Left') assert.deepEqual(fieldErrorsOf(decoded.left).map((e) => [e.field, e.message]), [['amount.value', 'amount.value must be a whole number for JPY (it has no minor unit)']]);
    const negative = codec.decode({ amount: { value: -1, currency: 'USD' } });
    if (negative._tag === 'Left') assert.deepEqual(fieldErrorsOf(negative.left).map((e) => e.field), ['amount.value']);
    assert.equal(codec.decode({ amount: { value: 100, currency: 'JPY' } })._tag, 'Right');
    const unknown = codec.decode({ amount: { value: 1, currency: 'ABC' } });
    if (unknown._tag === 'Left') assert.deepEqual(fieldErrorsOf(unknown.left).map((e) => e.field), ['amount.currency']);
    else assert.fail('ABC accepted');
  });

  it('converts large amounts exactly (no toFixed expansion, no float sums)', () => {
    assert.equal(toMinor(9999999999999.99), 99999999999999900n);
    assert.equal(toMinor(1e21), 10n ** 25n);
    assert.equal(toMinor(0.0001), 1n);
    assert.equal(toMinor(-2.5), -25000n);
    assert.equal(toCurrencyMinor(9999999999999.99, 'USD'), 999999999999999n);
    assert.equal(fromMinor(toMinor(900000000000.01) * 2n), 1800000000000.02);
  });

  it('judges card expiry by the end of the expiration month', () => {
    const now = new Date('2026-11-22T15:00:00Z');
    assert.equal(cardExpired(1, 2020, now), true);
    assert.equal(cardExpired(10, 26, now), true);
    assert.equal(cardExpired(11, 2026, now), false);
    assert.equal(cardExpired(12, 26, now), false);
    assert.deepEqual(cardExpiryProblems('card', 1, 20, now).map((p) => [p.field, p.code]), [['card.expiration_year', 'CARD_EXPIRED']]);
    assert.deepEqual(cardExpiryProblems('card', 10, 2026, now).map((p) => [p.field, p.code]), [['card.expiration_month', 'CARD_EXPIRED']]);
  });

  it('never starts billing in the past', () => {
    const now = new Date('2026-11-22T15:00:00Z');
    assert.equal(billingStartAt('2026-05-22T15:00:00Z', now), now.toISOString());
    assert.equal(billingStartAt(undefined, now), now.toISOString());
    assert.equal(billingStartAt('2026-12-01T00:00:00Z', now), '2026-12-01T00:00:00.000Z');
  });
});
