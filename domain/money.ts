import { isoMinorDigits } from './iso-codes';

/**
 * Money maths. Amounts travel as JSON numbers with up to 4 decimal places; every sum,
 * comparison and split is done on integers of 0.0001 units (bigint), never on floats.
 */

export const MINOR_UNITS_PER_MAJOR = 10_000n;

/** Amount in 0.0001 units. */
export type MinorUnits = bigint;

/** True when `value` is finite and has at most 4 decimal places. */
export function isValidDecimal(value: number): boolean {
  if (!Number.isFinite(value)) return false;
  return decimalPlaces(value) <= 4;
}

function decimalPlaces(value: number): number {
  const text = String(value);
  const exponent = text.match(/e([+-]\d+)$/i);
  if (exponent) {
    const mantissa = text.slice(0, exponent.index);
    const fraction = mantissa.split('.')[1] ?? '';
    return Math.max(0, fraction.length - Number(exponent[1]));
  }
  return (text.split('.')[1] ?? '').length;
}

/**
 * Converts a validated decimal number to 0.0001 units without float arithmetic: from the
 * number's shortest round-trip text (what the client sent, for up to 15 significant digits),
 * not from toFixed, which expands the binary value (9999999999999.99 -> "...9.9902").
 */
export function toMinor(value: number): MinorUnits {
  if (!isValidDecimal(value)) throw new RangeError(`not a decimal with at most 4 places: ${value}`);
  const text = String(value);
  const negative = text.startsWith('-');
  const [mantissa, exponentText] = text.replace('-', '').toLowerCase().split('e');
  const [whole, fraction = ''] = mantissa.split('.');
  // digits * 10^(exponent - fraction length) in 0.0001 units: shift by 4 more places.
  const shift = Number(exponentText ?? 0) - fraction.length + 4;
  const digits = BigInt(whole + fraction);
  const units = shift >= 0 ? digits * 10n ** BigInt(shift) : digits / 10n ** BigInt(-shift); // exact: isValidDecimal
  return negative ? -units : units;
}

/** Converts 0.0001 units back to the JSON number form. */
export function fromMinor(units: MinorUnits): number {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const whole = abs / MINOR_UNITS_PER_MAJOR;
  const fraction = (abs % MINOR_UNITS_PER_MAJOR).toString().padStart(4, '0');
  return Number(`${negative ? '-' : ''}${whole}.${fraction}`);
}

export function addAmounts(...values: number[]): number {
  return fromMinor(values.reduce((sum, v) => sum + toMinor(v), 0n));
}

export function subtractAmounts(a: number, b: number): number {
  return fromMinor(toMinor(a) - toMinor(b));
}

export function compareAmounts(a: number, b: number): -1 | 0 | 1 {
  const d = toMinor(a) - toMinor(b);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/**
 * ISO 4217 exponent (number of minor-unit digits a currency uses at providers), from the
 * currency-codes package (domain/iso-codes); 2 for a code it does not know.
 */
export function currencyExponent(currency: string): number {
  return isoMinorDigits(currency.toUpperCase()) ?? 2;
}

/**
 * The largest amount accepted in any currency is 10^15 - 1 of its minor units
 * (9,999,999,999,999.99 USD, 999,999,999,999,999 JPY, 999,999,999,999.999 KWD): 15
 * significant digits, the most a JSON number (an IEEE double) always carries exactly.
 */
export const MAX_AMOUNT_MINOR_UNITS = 10n ** 15n - 1n;

/** The largest amount accepted in `currency`, as a JSON number. */
export function maxAmount(currency: string): number {
  return fromCurrencyMinor(MAX_AMOUNT_MINOR_UNITS, currency);
}

/**
 * Why `value` cannot be an amount in `currency` (more decimals than the currency's ISO 4217
 * minor unit, or above the maximum), or null when it can.
 */
export function currencyAmountProblem(value: number, currency: string): string | null {
  const exponent = currencyExponent(currency);
  if (!isValidDecimal(value) || toCurrencyMinor(value, currency) === null) {
    return exponent === 0 ? `must be a whole number for ${currency} (it has no minor unit)` : `must have at most ${exponent} decimal places for ${currency}`;
  }
  if (toMinor(value) > MAX_AMOUNT_MINOR_UNITS * 10n ** BigInt(4 - exponent)) return `must be at most ${maxAmount(currency)} ${currency}`;
  return null;
}

/**
 * The integer amount a provider expects in the currency's minor unit (cents), or null when
 * the value has more precision than the currency allows.
 */
export function toCurrencyMinor(value: number, currency: string): bigint | null {
  const exponent = currencyExponent(currency);
  const units = toMinor(value);
  const divisor = 10n ** BigInt(4 - exponent);
  return units % divisor === 0n ? units / divisor : null;
}

export function fromCurrencyMinor(minor: bigint | number, currency: string): number {
  const exponent = currencyExponent(currency);
  return fromMinor(BigInt(minor) * 10n ** BigInt(4 - exponent));
}
