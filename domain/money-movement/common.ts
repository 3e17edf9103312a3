/**
 * Pieces shared by unreferenced refunds, recipients, split transfers and subscriptions:
 * which provider can push credits where and the
 * callback URL rule. (Workflows import this module: nothing here may use Node APIs.)
 */
import * as t from 'io-ts';
import { refined } from '../codecs/common';

/** Destination kinds of a credit (unreferenced refund). */
export type CreditMethod = 'CARD' | 'BANK_TRANSFER' | 'WALLET';

export const SEPA_COUNTRIES = ['AT', 'BE', 'DE', 'ES', 'FI', 'FR', 'IE', 'IT', 'LU', 'NL', 'PT'] as const;

/**
 * Credit (payout) capabilities per provider: the countries where it can push funds to each
 * kind of destination. Routing drops connections whose provider cannot serve the credit.
 * SANDBOX: card credits everywhere, bank credits on ACH (US), SEPA and five LATAM local
 * rails, wallet credits in four LATAM countries.
 */
export const CREDIT_CAPABILITIES: Record<string, Record<CreditMethod, readonly string[] | 'ANY'>> = {
  SANDBOX: {
    CARD: 'ANY',
    BANK_TRANSFER: ['US', ...SEPA_COUNTRIES, 'BR', 'MX', 'CO', 'PE', 'CL'],
    WALLET: ['BR', 'MX', 'CO', 'AR'],
  },
};

export function supportsCredit(providerId: string, method: CreditMethod, country: string): boolean {
  const countries = CREDIT_CAPABILITIES[providerId]?.[method];
  return countries === 'ANY' || (countries ?? []).includes(country);
}

/** Bank rail of a destination: ACH (US checking/savings), SEPA (IBAN or mandate in a SEPA country), LOCAL otherwise. */
export function bankRailOf(country: string, accountType: string): 'ACH' | 'SEPA' | 'LOCAL' {
  if (country === 'US' && (accountType === 'CHECKING' || accountType === 'SAVINGS')) return 'ACH';
  if (accountType === 'IBAN' || (accountType === 'MANDATE' && (SEPA_COUNTRIES as readonly string[]).includes(country))) return 'SEPA';
  return 'LOCAL';
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
}

/** HTTPS URL (plain http only to a loopback host, for local development), at most 526 characters. */
export const SecureCallbackUrl = refined(
  'SecureCallbackUrl',
  t.string,
  (s) => {
    try {
      const url = new URL(s);
      return s.length <= 526 && (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname)));
    } catch {
      return false;
    }
  },
  'must be an https URL of at most 526 characters',
  { type: 'string', format: 'uri', pattern: '^https://', maxLength: 526, description: 'HTTPS only (http is accepted for localhost / 127.0.0.1 during development)' },
);

/** Last four characters of an account number or token, for display. */
export function lastFourOf(value: string | null | undefined): string | null {
  return value ? value.slice(-4) : null;
}

/** Metadata with the "empty value unsets the key" rule applied; the last entry of a key wins. */
export function mergeMetadata(current: Array<{ key: string; value: string }>, changes: Array<{ key: string; value: string }>): Array<{ key: string; value: string }> {
  const merged = new Map(current.map((m) => [m.key, m.value]));
  for (const { key, value } of changes) {
    if (value === '') merged.delete(key);
    else merged.set(key, value);
  }
  return [...merged].map(([key, value]) => ({ key, value }));
}
