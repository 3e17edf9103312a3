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

/** Converts a validated decimal number to 0.0001 units without float arithmetic. */
export function toMinor(value: number): MinorUnits {
  if (!isValidDecimal(value)) throw new RangeError(`not a decimal with at most 4 places: ${value}`);
  const text = value.toFixed(4); // exact for values that have <= 4 decimals and fit a double
  const negative = text.startsWith('-');
  const [whole, fraction] = text.replace('-', '').split('.');
  const units = BigInt(whole) * MINOR_UNITS_PER_MAJOR + BigInt(fraction.padEnd(4, '0'));
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

/** ISO 4217 exponent (number of minor-unit digits a currency uses at providers). */
const CURRENCY_EXPONENTS: Record<string, number> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, UYI: 0,
  VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
};

export function currencyExponent(currency: string): number {
  return CURRENCY_EXPONENTS[currency.toUpperCase()] ?? 2;
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
