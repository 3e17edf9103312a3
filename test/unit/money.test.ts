import assert from 'node:assert/strict';
import { addAmounts, compareAmounts, fromMinor, isValidDecimal, subtractAmounts, toCurrencyMinor, toMinor } from '../../domain/money';

describe('money (unit)', () => {
  it('accepts up to 4 decimal places and rejects more', () => {
    assert.equal(isValidDecimal(10.1234), true);
    assert.equal(isValidDecimal(0.0001), true);
    assert.equal(isValidDecimal(10.12345), false);
    assert.equal(isValidDecimal(1e-5), false);
    assert.equal(isValidDecimal(Number.NaN), false);
  });

  it('converts to 0.0001 units exactly and back', () => {
    assert.equal(toMinor(0.1), 1000n);
    assert.equal(toMinor(1234.5678), 12345678n);
    assert.equal(toMinor(-2.5), -25000n);
    assert.equal(fromMinor(12345678n), 1234.5678);
  });

  it('adds without float error', () => {
    assert.equal(0.1 + 0.2 === 0.3, false); // the float trap this module exists for
    assert.equal(addAmounts(0.1, 0.2), 0.3);
    assert.equal(subtractAmounts(100, 33.3333), 66.6667);
    assert.equal(compareAmounts(0.3, addAmounts(0.1, 0.2)), 0);
  });

  it('converts to a currency minor unit only when precise enough', () => {
    assert.equal(toCurrencyMinor(10.5, 'USD'), 1050n);
    assert.equal(toCurrencyMinor(10.505, 'USD'), null);
    assert.equal(toCurrencyMinor(1000, 'CLP'), 1000n);
    assert.equal(toCurrencyMinor(1.234, 'KWD'), 1234n);
  });
});
