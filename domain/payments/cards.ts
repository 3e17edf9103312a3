/**
 * Card facts derived from the PAN without any lookup: brand by IIN range, and the parts
 * that may be shown (IIN, last four digits). The PAN itself never leaves the vault.
 */
import type { FieldError } from '../errors';
import type { CardBrand } from './codecs';

const BRAND_RANGES: Array<[CardBrand, RegExp]> = [
  // ELO and HIPERCARD ranges overlap VISA/MASTERCARD prefixes, so they are checked first.
  ['ELO', /^(4011(78|79)|43(1274|8935)|45(1416|7393|763[12])|50(4175|6699|67[0-7]\d|9\d{3})|627780|63(6297|6368)|650(0[3-9]|[1-4]\d|5[0-1])|6516(5[2-9]|[6-7]\d)|6550([0-1]\d|2[1-9]|[3-4]\d|5[0-8]))/],
  ['HIPERCARD', /^(606282|3841)/],
  ['AMERICAN_EXPRESS', /^3[47]/],
  ['DINERS', /^3(0[0-5]|[68])/],
  ['JCB', /^35(2[89]|[3-8]\d)/],
  ['DISCOVER', /^(6011|65|64[4-9])/],
  ['UNIONPAY', /^62/],
  ['MAESTRO', /^(5018|5020|5038|6304|6759|676[1-3])/],
  ['MASTERCARD', /^(5[1-5]|222[1-9]|22[3-9]\d|2[3-6]\d{2}|27[01]\d|2720)/],
  ['VISA', /^4/],
];

export function brandOf(pan: string): CardBrand | null {
  for (const [brand, pattern] of BRAND_RANGES) if (pattern.test(pan)) return brand;
  return null;
}

/** First 8 digits for 16+ digit cards (the 8-digit BIN standard), 6 otherwise. */
export function iinOf(pan: string): string {
  return pan.slice(0, pan.length >= 16 ? 8 : 6);
}

export function lastFour(pan: string): string {
  return pan.slice(-4);
}

/** Expiration year as four digits (cards and forms send 29 or 2029). */
export function fullYear(year: number): number {
  return year < 100 ? 2000 + year : year;
}

/** Expiration year as two digits, the shape the spec observes on enrolled methods. */
export function twoDigitYear(year: number): number {
  return year % 100;
}

/** True once the expiration month is over: a card is valid through its last day (UTC). */
export function cardExpired(month: number, year: number, now: Date): boolean {
  const full = fullYear(year);
  const currentYear = now.getUTCFullYear();
  return full < currentYear || (full === currentYear && month < now.getUTCMonth() + 1);
}

/** The expiry problem of a card at `prefix` (e.g. payment_method.detail.card), or none. */
export function cardExpiryProblems(prefix: string, month: number, year: number, now: Date): FieldError[] {
  if (!cardExpired(month, year, now)) return [];
  const field = fullYear(year) < now.getUTCFullYear() ? `${prefix}.expiration_year` : `${prefix}.expiration_month`;
  return [{ field, code: 'CARD_EXPIRED', message: `${field}: the card expired at the end of ${String(month).padStart(2, '0')}/${fullYear(year)}` }];
}
