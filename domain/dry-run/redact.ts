/**
 * Redaction of provider traffic and dry-run payment requests, applied before anything is
 * stored, logged or handed to a workflow.
 *
 * - PANs (Luhn-valid, 12-19 digits, major-network first digit 2-6, optionally grouped with
 *   spaces or dashes) become `[PAN:411111******1111:<hash>]`: first 6 / last 4 stay visible
 *   as PCI DSS allows, so the pipeline can still compare brand and last 4.
 * - CVV / CVC / security codes, PINs, credential headers, bearer tokens, JWTs, API keys, secrets
 *   and passwords become `[REDACTED:<kind>:<hash>]`: by field name (one rule for JSON keys, XML
 *   elements and attributes, form and query fields and key=value / key: value text), and in
 *   free text also when written as words ("cvc 8524", "security code 1234").
 * - <hash> is a keyed HMAC of the normalised value scoped to the organization (supplied by the
 *   caller), so the same secret always gives the same placeholder within an organization:
 *   values stay comparable across the legs of a pair, and nothing is reversible.
 */

import { Keyring, keyedHash } from '../crypto';

export type HashFn = (value: string) => string;
export type RedactionKind = 'cvv' | 'credential' | 'bearer' | 'jwt' | 'api_key' | 'secret' | 'pan';

export interface HeaderEntry {
  name: string;
  value: string;
}

const HASH_CHARS = 12;

/** Recognises placeholders produced here (they are never redacted twice). */
export const PAN_PLACEHOLDER = /\[PAN:(\d{6})\*+(\d{4}):([0-9a-f]{12})\]/;
export const REDACTED_PLACEHOLDER = /\[REDACTED:([a-z_]+):([0-9a-f]{12})\]/;

export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** True for a 12-19 digit string that looks like a card number of a major network. */
export function isLikelyPan(digits: string): boolean {
  return digits.length >= 12 && digits.length <= 19 && digits[0] >= '2' && digits[0] <= '6' && luhnValid(digits);
}

// Digits optionally grouped by single spaces or dashes, not glued to letters or digits.
const PAN_IN_TEXT = /(?<![0-9A-Za-z])\d(?:[ -]?\d){11,18}(?![0-9A-Za-z])/g;
const AUTH_SCHEME = /\b(Bearer|Basic|Token|Digest|ApiKey)\s+([A-Za-z0-9\-._~+/]{8,}=*)/gi;
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
const SECRET_KEY = /\b(?:sk|rk)_(?:live_|test_)?[A-Za-z0-9_-]{16,}\b/g;
// key=value or key: value pairs in free text (logs, query strings, text bodies); the key is
// judged by the same rules as a JSON field name. A key starts only where no key character
// precedes it, so the scan stays linear on long runs of word characters and dashes.
const KEY_VALUE_PAIR = /(?<![A-Za-z0-9_-])([A-Za-z_][A-Za-z0-9_-]*)(["']?\s*[:=]\s*["']?)(?!(?:Bearer|Basic|Token|Digest|ApiKey)\s)([^\s"'&,;<}]+)/g;
// Security codes and PINs written as words: "cvc 8524", "the CVC is 852", "security code 1234", "PIN 2468".
const SECURITY_CODE_IN_TEXT = /\b(cvv2?|cvc2?|cvn|csc|cid|security[ _-]?code|card[ _-]?(?:verification[ _-]?)?(?:code|value)|pin(?:[ _-]?code)?)\b(\s*(?:[:=#]|\bis\b|\bwas\b)?\s*["']?)(\d{3,6})(?![0-9A-Za-z])/gi;

function normaliseKey(key: string): string {
  return key.replace(/^@_/, '').toLowerCase().replace(/[^a-z0-9]/g, '');
}

const CVV_KEYS = new Set(['cvv', 'cvv2', 'cvc', 'cvc2', 'cid', 'csc', 'cvn', 'securitycode', 'cardsecuritycode', 'cardverificationvalue', 'cardverificationcode', 'cardcvv', 'cardcvc', 'verificationvalue', 'cardcode', 'cvd']);
const PIN_KEYS = new Set(['pin', 'pincode', 'pinblock', 'cardpin', 'pinnumber']);
const PAN_KEYS = new Set(['pan', 'cardnumber', 'cardno', 'ccnumber', 'primaryaccountnumber', 'accountnumber']);

/**
 * What a field named `normalisedKey` holds, if it is a credential. `whole`: an object or array
 * under it is replaced as a whole; otherwise (fields that merely end in "token", such as
 * network_token metadata) containers are walked and only scalar values are replaced.
 */
function secretKind(normalisedKey: string): { kind: RedactionKind; whole: boolean } | null {
  if (CVV_KEYS.has(normalisedKey)) return { kind: 'cvv', whole: true };
  if (PIN_KEYS.has(normalisedKey)) return { kind: 'secret', whole: true };
  if (normalisedKey === 'token') return { kind: 'bearer', whole: true };
  if (/(password|passwd|passcode|passphrase|pwd|secret|privatekey|apikey|credential)/.test(normalisedKey)) return { kind: 'secret', whole: true };
  if (/(accesstoken|refreshtoken|idtoken|authtoken|bearertoken|apitoken|sessiontoken|authorization)$/.test(normalisedKey)) return { kind: 'bearer', whole: true };
  if (normalisedKey.endsWith('token')) return { kind: 'bearer', whole: false };
  return null;
}

/** Sets an own property, also for the key __proto__ (plain assignment would set the prototype). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** Header names that carry credentials (their whole value is redacted). */
export function isCredentialHeader(name: string): boolean {
  const n = normaliseKey(name);
  return /(auth|cookie|apikey|secret|token|password|signature|credential|session)/.test(n);
}

export class Redactor {
  constructor(private readonly hashFn: HashFn) {}

  private hash(value: string): string {
    return this.hashFn(value).slice(0, HASH_CHARS);
  }

  pan(digits: string): string {
    return `[PAN:${digits.slice(0, 6)}${'*'.repeat(digits.length - 10)}${digits.slice(-4)}:${this.hash(digits)}]`;
  }

  secret(kind: RedactionKind, value: string): string {
    if (PAN_PLACEHOLDER.test(value) || REDACTED_PLACEHOLDER.test(value)) return value;
    return `[REDACTED:${kind}:${this.hash(value)}]`;
  }

  /** Scans free text for PANs, authorization values, JWTs, secret keys and key=value secrets. */
  text(input: string): string {
    if (input.length < 4) return input;
    let out = input.replace(PAN_IN_TEXT, (match) => this.pansInDigitRun(match));
    out = out.replace(AUTH_SCHEME, (_m, scheme: string, token: string) => `${scheme} ${this.secret('bearer', token)}`);
    out = out.replace(JWT, (token) => this.secret('jwt', token));
    out = out.replace(SECRET_KEY, (token) => this.secret('api_key', token));
    out = out.replace(KEY_VALUE_PAIR, (match, key: string, sep: string, value: string) => {
      const secret = secretKind(normaliseKey(key));
      if (!secret || REDACTED_PLACEHOLDER.test(value) || value.startsWith('[PAN:')) return match;
      return `${key}${sep}${this.secret(secret.kind, value)}`;
    });
    out = out.replace(SECURITY_CODE_IN_TEXT, (_m, words: string, sep: string, digits: string) =>
      `${words}${sep}${this.secret(/^pin/i.test(words) ? 'secret' : 'cvv', digits)}`,
    );
    return out;
  }

  /**
   * A run of digit groups ("737 4111 1111 1111 1111") may hold a PAN next to other numbers:
   * the longest run of whole groups that is a PAN is masked, and the rest scanned again.
   */
  private pansInDigitRun(run: string): string {
    const digits = run.replace(/[ -]/g, '');
    if (isLikelyPan(digits)) return this.pan(digits);
    const groups = run.split(/(?<=\d)(?=[ -])|(?<=[ -])(?=\d)/); // digits and separators alternate
    const numberGroups = groups.filter((_, i) => i % 2 === 0);
    for (let from = 0; from < numberGroups.length; from++) {
      for (let to = numberGroups.length; to > from; to--) {
        const candidate = numberGroups.slice(from, to).join('');
        if (candidate.length < 12) break;
        if (candidate.length > 19 || !isLikelyPan(candidate)) continue;
        const before = groups.slice(0, from * 2).join('');
        const after = groups.slice(to * 2 - 1 + 1).join('');
        return `${before}${this.pan(candidate)}${after.length > 1 ? after[0] + this.pansInDigitRun(after.slice(1)) : after}`;
      }
    }
    return run;
  }

  /** A value found under `key` (a JSON property, an XML element or attribute, a form field). */
  field(key: string, value: unknown, parentKey = ''): unknown {
    const k = normaliseKey(key);
    const secret = secretKind(k);
    if (secret && (secret.whole || value === null || typeof value !== 'object')) {
      return value === null || value === '' ? value : this.secret(secret.kind, typeof value === 'string' ? value : JSON.stringify(value));
    }
    const cardish = PAN_KEYS.has(k) || (k === 'number' && normaliseKey(parentKey).includes('card'));
    if (cardish && (typeof value === 'string' || typeof value === 'number')) {
      const digits = String(value).replace(/[ -]/g, '');
      if (/^\d{12,19}$/.test(digits)) return this.pan(digits);
    }
    return this.value(value, key);
  }

  /** Walks any JSON-like value: key rules on properties, text rules on strings, PAN rule on integers. */
  value(value: unknown, ownKey = ''): unknown {
    if (typeof value === 'string') return this.text(value);
    if (typeof value === 'number') {
      if (Number.isInteger(value) && value > 1e11) {
        const digits = String(value);
        if (isLikelyPan(digits)) return this.pan(digits);
      }
      return value;
    }
    if (Array.isArray(value)) return value.map((item) => this.value(item, ownKey));
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(value as Record<string, unknown>)) setOwn(out, key, this.field(key, child, ownKey));
      return out;
    }
    return value;
  }

  headers(entries: HeaderEntry[]): HeaderEntry[] {
    return entries.map(({ name, value }) => {
      if (!isCredentialHeader(name)) return { name, value: this.text(value) };
      // Keep the scheme ("Bearer", "Basic") visible: it is useful and not secret.
      const scheme = /^([A-Za-z]+)\s+(\S.*)$/.exec(value);
      if (scheme && /^(bearer|basic|token|digest|apikey|hmac)$/i.test(scheme[1])) return { name, value: `${scheme[1]} ${this.secret('credential', scheme[2])}` };
      return { name, value: this.secret('credential', value) };
    });
  }

  /** Path and query string of a provider endpoint. */
  endpoint(endpoint: string): string {
    const q = endpoint.indexOf('?');
    const path = this.text(q < 0 ? endpoint : endpoint.slice(0, q));
    if (q < 0) return path;
    return `${path}?${this.query(endpoint.slice(q + 1))}`;
  }

  /** A query string or form-urlencoded body: field rules per key, kept in its encoded form. */
  query(query: string): string {
    return query
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        if (eq < 0) return this.text(pair);
        const key = pair.slice(0, eq);
        let decodedKey = key;
        let decodedValue = pair.slice(eq + 1);
        try {
          decodedKey = decodeURIComponent(key.replace(/\+/g, ' '));
          decodedValue = decodeURIComponent(decodedValue.replace(/\+/g, ' '));
        } catch {
          /* kept as is; text rules still apply */
        }
        const redacted = this.field(decodedKey, decodedValue);
        return `${key}=${encodeURIComponent(String(redacted))}`;
      })
      .join('&');
  }
}

/** Quotes bare Luhn-valid 12-19 digit numbers in JSON text, so parsing cannot round them. */
export function quoteBarePans(json: string): string {
  return json.replace(/([:[,]\s*)(\d{12,19})(?=\s*[,\]}])/g, (m, prefix: string, digits: string) => (isLikelyPan(digits) ? `${prefix}"${digits}"` : m));
}

/** The redactor of one organization: placeholders are stable within it and differ across. */
export function organizationRedactor(keyring: Keyring, organizationCode: string): Redactor {
  return new Redactor((value) => keyedHash(keyring, 'redaction', value, organizationCode));
}
