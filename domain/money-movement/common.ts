/**
 * Pieces shared by unreferenced refunds, recipients, split transfers and subscriptions:
 * which provider can push credits where (from the provider catalogue), bank rails and the
 * callback URL rule. (Workflows import this module: nothing here may use Node APIs.)
 */
import * as t from 'io-ts';
import { refined } from '../codecs/common';
import { CreditMethod, creditCapabilityOf, providerEntry, SEPA_COUNTRIES, supportsCredit } from '../providers/catalogue';

// Credit capabilities live in the provider catalogue (one table for every feature).
export { SEPA_COUNTRIES, supportsCredit } from '../providers/catalogue';
export type { CreditMethod } from '../providers/catalogue';

/** Why a provider cannot push this credit (null: the catalogue says it can). */
export function creditRefusal(providerId: string, method: CreditMethod, country: string): string | null {
  const entry = providerEntry(providerId);
  if (!entry) return `${providerId} is not in the provider catalogue`;
  const capability = creditCapabilityOf(method);
  if (!entry.capabilities.includes(capability)) return `${providerId} has no ${capability} capability`;
  if (!supportsCredit(providerId, method, country)) return `${providerId} does not push ${method} credits in ${country}`;
  return null;
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
