/**
 * ISO reference data from maintained packages, never typed by hand:
 * ISO 3166-1 countries (i18n-iso-countries; its core only, without the names in every
 * language) and ISO 4217 currencies with their minor-unit digits (currency-codes).
 */
import * as countries from 'i18n-iso-countries/index';
import * as currencies from 'currency-codes';

/**
 * ISO 4217 entries that are not money a payment can move: precious metals, bond-market
 * units, the testing code and "no currency" (their minor unit is N.A.).
 */
const NOT_PAYABLE = new Set(['XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XPD', 'XPT', 'XTS', 'XXX']);

const MINOR_DIGITS = new Map<string, number>(
  currencies.data.filter((c) => !NOT_PAYABLE.has(c.code)).map((c) => [c.code, c.digits]),
);

/** The ISO 4217 alphabetic codes accepted as a currency, sorted. */
export const ISO_CURRENCY_CODES: readonly string[] = [...MINOR_DIGITS.keys()].sort();

/** XK (Kosovo) is a user-assigned code the package carries; ISO 3166-1 has not assigned it. */
const NOT_ASSIGNED = new Set(['XK']);

/** The officially assigned ISO 3166-1 alpha-2 codes, sorted. */
export const ISO_COUNTRY_CODES: readonly string[] = Object.keys(countries.getAlpha2Codes()).filter((c) => !NOT_ASSIGNED.has(c)).sort();

const COUNTRY_SET = new Set(ISO_COUNTRY_CODES);

/** True for an upper-case, officially assigned ISO 3166-1 alpha-2 code. */
export function isIsoCountry(code: string): boolean {
  return COUNTRY_SET.has(code);
}

/** True for an upper-case ISO 4217 code of a currency (not a metal or testing code). */
export function isIsoCurrency(code: string): boolean {
  return MINOR_DIGITS.has(code);
}

/** ISO 4217 minor-unit digits of a currency (upper case), or undefined when unknown. */
export function isoMinorDigits(code: string): number | undefined {
  return MINOR_DIGITS.get(code);
}

/** ISO alpha-2 of a country given as alpha-2 or alpha-3 (any case); null when unknown. */
export function countryAlpha2(value: string): string | null {
  const upper = value.trim().toUpperCase();
  if (upper.length === 2) return COUNTRY_SET.has(upper) ? upper : null;
  if (upper.length === 3) {
    const alpha2 = countries.alpha3ToAlpha2(upper);
    return alpha2 && COUNTRY_SET.has(alpha2) ? alpha2 : null;
  }
  return null;
}

export function countryAlpha3(alpha2: string): string | null {
  return countries.alpha2ToAlpha3(alpha2.toUpperCase()) ?? null;
}
