/**
 * The validation pipeline: grades the service payment request (the `Dry-run: true` leg)
 * against the provider exchange the merchant registered, and produces findings, a score
 * and a verdict. Pure and synchronous; the worker runs it in an activity.
 *
 * Steps: pick the legs (main REQUEST, its RESPONSE, the WEBHOOKs) -> build the mapping
 * (profile fields, or in generic mode inferred by key names and by matching values under
 * unit / case / country / date conversions) -> compare concept by concept -> check
 * metadata, operation type vs capture, provider errors and response / webhook agreement.
 */
import { currencyExponent } from '../money';
import { brandOf } from '../payments/cards';
import type { StoredEvent } from './decode';
import { parseStoredBody } from './decode';
import { countryAlpha2, countryAlpha3 } from '../iso-codes';
import { Concept, FieldType, Leg, MappingProfile, ProfileField, SERVICE_METADATA_PATH, SERVICE_PATHS } from './profiles';
import { PAN_PLACEHOLDER } from './redact';

/** Hash part of a PAN placeholder when only IIN and last 4 are known (see service-leg.ts). */
const UNKNOWN_PAN_HASH = '000000000000';
import type { Verdict } from './codecs';

export type Severity = 'ERROR' | 'WARNING' | 'INFO';
export type FindingCategory =
  | 'MISSING_FIELD' | 'SHAPE_MISMATCH' | 'ENUM_MISMATCH' | 'UNMAPPED_METADATA'
  | 'VALUE_INCONSISTENCY' | 'PROVIDER_ERROR' | 'LEG_DISAGREEMENT' | 'INCOMPLETE_EXCHANGE';

export interface ProviderLocation {
  leg: Leg;
  event_index: number;
  path: string;
}

export interface Finding {
  id: string;
  code: string;
  category: FindingCategory;
  severity: Severity;
  message: string;
  service_path: string | null;
  provider: ProviderLocation | null;
  /** What the other side implies (redacted). */
  expected: unknown;
  /** What was found (redacted). */
  actual: unknown;
  suggested_fix: string;
}

export interface MappingEntry {
  concept: Concept | null;
  service_path: string | null;
  provider: ProviderLocation;
  transform: string;
  source: 'profile' | 'key' | 'value';
}

export interface ValidationReport {
  verdict: Verdict;
  score: number;
  mode: 'profile' | 'generic';
  profile_id: string | null;
  summary: { errors: number; warnings: number; infos: number };
  findings: Finding[];
  mapping: MappingEntry[];
}

export interface PipelineInput {
  /** Redacted service payment request. */
  serviceRequest: Record<string, unknown>;
  events: StoredEvent[];
  profile: MappingProfile | null;
  /** payment_method_type declared on the registration, if any. */
  declaredPaymentMethodType?: string | null;
  /** provider_id of the registration, if any (catalogue knowledge such as the amount unit). */
  providerId?: string | null;
}

const MAX_FINDINGS = 200;
const SEVERITY_PENALTY: Record<Severity, number> = { ERROR: 25, WARNING: 5, INFO: 0 };

// ---------------------------------------------------------------- value helpers

export function getPath(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function firstServiceValue(request: unknown, paths: string[]): { path: string; value: unknown } | null {
  for (const path of paths) {
    const value = getPath(request, path);
    if (value !== undefined && value !== null && value !== '') return { path, value };
  }
  return null;
}

function typeOf(value: unknown): FieldType | 'null' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as FieldType;
}

function typeFits(expected: FieldType, value: unknown): boolean {
  const actual = typeOf(value);
  return actual === expected || (expected === 'number' && actual === 'integer');
}

function asNumber(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  return null;
}

function normText(value: unknown): string {
  return String(value).trim().toLowerCase();
}

function normKey(key: string): string {
  return key.replace(/^@_/, '').toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** YYYY-MM-DD from ISO, DD/MM/YYYY, YYYYMMDD or ISO timestamp forms; null otherwise. */
export function normaliseDate(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const s = value.trim();
  let m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$/.exec(s);
  if (m) return `${m[1]}-${m[2]}-${m[3]}`;
  m = /^(\d{2})[/.-](\d{2})[/.-](\d{4})$/.exec(s);
  if (m) return `${m[3]}-${m[2]}-${m[1]}`;
  m = /^(\d{4})(\d{2})(\d{2})$/.exec(s);
  if (m && Number(m[2]) <= 12) return `${m[1]}-${m[2]}-${m[3]}`;
  return null;
}

function panParts(value: unknown): { bin: string; last4: string; hash: string } | null {
  if (typeof value !== 'string') return null;
  const m = PAN_PLACEHOLDER.exec(value);
  return m ? { bin: m[1], last4: m[2], hash: m[3] } : null;
}

const BRAND_SYNONYMS: Record<string, string> = {
  visa: 'VISA', mastercard: 'MASTERCARD', master: 'MASTERCARD', mc: 'MASTERCARD', amex: 'AMERICAN_EXPRESS', americanexpress: 'AMERICAN_EXPRESS',
  jcb: 'JCB', diners: 'DINERS', dinersclub: 'DINERS', discover: 'DISCOVER', elo: 'ELO', hipercard: 'HIPERCARD', unionpay: 'UNIONPAY', cup: 'UNIONPAY',
};

function normBrand(value: unknown): string | null {
  return typeof value === 'string' ? BRAND_SYNONYMS[normKey(value)] ?? value.trim().toUpperCase() : null;
}

const STATUS_WORDS: Record<string, 'APPROVED' | 'DECLINED' | 'PENDING' | 'CANCELLED'> = {
  approved: 'APPROVED', authorized: 'APPROVED', authorised: 'APPROVED', captured: 'APPROVED', succeeded: 'APPROVED', success: 'APPROVED', successful: 'APPROVED', paid: 'APPROVED', settled: 'APPROVED', completed: 'APPROVED',
  declined: 'DECLINED', refused: 'DECLINED', failed: 'DECLINED', failure: 'DECLINED', rejected: 'DECLINED', denied: 'DECLINED', error: 'DECLINED',
  pending: 'PENDING', processing: 'PENDING', inprogress: 'PENDING', created: 'PENDING', requiresaction: 'PENDING', waiting: 'PENDING',
  cancelled: 'CANCELLED', canceled: 'CANCELLED', voided: 'CANCELLED',
};

// ---------------------------------------------------------------- generic mode knowledge

/** Provider key names (normalised) that usually hold a concept. */
const KEY_SYNONYMS: Record<string, Concept> = {
  reference: 'merchant_reference', merchantreference: 'merchant_reference', orderid: 'merchant_reference', merchantorderid: 'merchant_reference', orderreference: 'merchant_reference', externalid: 'merchant_reference', externalreference: 'merchant_reference',
  amount: 'amount', totalamount: 'amount', amountvalue: 'amount', amountinminor: 'amount', amountcents: 'amount', amountincents: 'amount', total: 'amount', value: 'amount',
  currency: 'currency', currencycode: 'currency',
  country: 'country', countrycode: 'country', billingcountry: 'country',
  capture: 'capture', autocapture: 'capture', captureimmediately: 'capture',
  installments: 'installments', installmentcount: 'installments', numberofinstallments: 'installments', installmentsnumber: 'installments',
  cardnumber: 'card_number', pan: 'card_number',
  last4: 'card_last4', lastfour: 'card_last4', last4digits: 'card_last4', cardlast4: 'card_last4',
  brand: 'card_brand', cardbrand: 'card_brand', scheme: 'card_brand', network: 'card_brand',
  email: 'email', emailaddress: 'email',
  firstname: 'first_name', givenname: 'first_name',
  lastname: 'last_name', surname: 'last_name', familyname: 'last_name',
  documentnumber: 'document_number', taxid: 'document_number', nationalid: 'document_number',
  dateofbirth: 'date_of_birth', birthdate: 'date_of_birth', dob: 'date_of_birth',
};
const METADATA_KEYS = new Set(['metadata', 'meta', 'customfields', 'additionaldata', 'extra', 'udf']);
const ERROR_KEYS = new Set(['error', 'errors', 'errorcode', 'errormessage', 'declinecode', 'failurecode', 'failuremessage']);
const STATUS_KEYS = new Set(['status', 'state', 'result', 'outcome']);
const PAYMENT_TYPE_WORDS: Record<string, string> = { card: 'CARD', credit: 'CREDIT_CARD', creditcard: 'CREDIT_CARD', debit: 'DEBIT_CARD', debitcard: 'DEBIT_CARD', ach: 'ACH', banktransfer: 'BANK_TRANSFER', crypto: 'CRYPTO', cash: 'CASH' };

interface Leaf {
  path: string;
  key: string;
  depth: number;
  value: unknown;
}

const MAX_LEAVES = 250_000;

/** Scalars of a body, document order, shallow paths first when the caller sorts by depth. */
function leavesOf(value: unknown): Leaf[] {
  const out: Leaf[] = [];
  const stack: Array<{ value: unknown; path: string; key: string; depth: number }> = [{ value, path: '', key: '', depth: 0 }];
  while (stack.length && out.length < MAX_LEAVES) {
    const item = stack.pop()!;
    const v = item.value;
    if (v !== null && typeof v === 'object') {
      const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i];
        stack.push({ value: child, path: item.path ? `${item.path}.${k}` : k, key: Array.isArray(v) ? item.key : k, depth: item.depth + 1 });
      }
    } else {
      out.push({ path: item.path, key: item.key, depth: item.depth, value: v });
    }
  }
  return out;
}

/** Objects (not leaves) whose key is one of `keys`, shallowest first. */
function findObjectByKey(value: unknown, keys: Set<string>): { path: string; value: unknown } | null {
  let frontier: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  for (let depth = 0; depth < 8 && frontier.length; depth++) {
    const next: typeof frontier = [];
    for (const item of frontier) {
      if (!item.value || typeof item.value !== 'object') continue;
      for (const [k, child] of Object.entries(item.value as Record<string, unknown>)) {
        const path = item.path ? `${item.path}.${k}` : k;
        if (keys.has(normKey(k)) && child !== null && child !== undefined) return { path, value: child };
        if (child && typeof child === 'object' && next.length < 10_000) next.push({ value: child, path });
      }
    }
    frontier = next;
  }
  return null;
}

// ---------------------------------------------------------------- the pipeline

interface LegBody {
  leg: Leg;
  index: number;
  event: StoredEvent;
  value: unknown;
}

class Grader {
  readonly findings: Finding[] = [];
  readonly mapping: MappingEntry[] = [];

  add(f: Omit<Finding, 'id'>): void {
    if (this.findings.length >= MAX_FINDINGS) return;
    this.findings.push({ id: `F${this.findings.length + 1}`, ...f });
  }
}

function bodyOf(event: StoredEvent): unknown {
  try {
    return parseStoredBody(event.body).value;
  } catch {
    return undefined;
  }
}

/** The main exchange: the payment REQUEST, the RESPONSE that follows it, and the webhooks. */
function selectLegs(events: StoredEvent[]): { request?: LegBody; response?: LegBody; webhooks: LegBody[] } {
  const main = ['PURCHASE', 'AUTHORIZE'];
  let requestIndex = events.findIndex((e) => e.type === 'REQUEST' && main.includes(e.operation_type));
  if (requestIndex < 0) requestIndex = events.findIndex((e) => e.type === 'REQUEST');
  let responseIndex = events.findIndex((e, i) => e.type === 'RESPONSE' && i > requestIndex);
  if (responseIndex < 0) responseIndex = events.findIndex((e) => e.type === 'RESPONSE');
  const leg = (index: number): LegBody | undefined => (index < 0 ? undefined : { leg: events[index].type, index, event: events[index], value: bodyOf(events[index]) });
  const webhooks = events.flatMap((e, i) => (e.type === 'WEBHOOK' ? [leg(i)!] : []));
  return { request: leg(requestIndex), response: leg(responseIndex), webhooks };
}

interface Located {
  location: ProviderLocation;
  value: unknown;
  field?: ProfileField;
  source: MappingEntry['source'];
  transform: string;
}

/** Locates each concept in one leg: from the profile, or by key name (generic mode). */
function locateConcepts(body: LegBody, profile: MappingProfile | null): Map<Concept, Located> {
  const found = new Map<Concept, Located>();
  if (profile) {
    for (const field of profile.fields) {
      if (field.leg !== body.leg || found.has(field.concept)) continue;
      const value = getPath(body.value, field.path);
      found.set(field.concept, { location: { leg: body.leg, event_index: body.index, path: field.path }, value, field, source: 'profile', transform: 'profile' });
    }
    return found;
  }
  const leaves = leavesOf(body.value).sort((a, b) => a.depth - b.depth);
  for (const leaf of leaves) {
    const concept = KEY_SYNONYMS[normKey(leaf.key)];
    if (!concept || found.has(concept) || leaf.value === null) continue;
    // "value" / "total" only mean an amount inside an amount-ish object or at the top.
    if ((normKey(leaf.key) === 'value' || normKey(leaf.key) === 'total') && !/amount|total|^value$/i.test(leaf.path.split('.').slice(-2, -1)[0] ?? 'value')) continue;
    found.set(concept, { location: { leg: body.leg, event_index: body.index, path: leaf.path }, value: leaf.value, source: 'key', transform: 'identity' });
  }
  return found;
}

/** Generic mode: service leaves matched to provider leaves by value under conversions. */
function inferByValue(service: Record<string, unknown>, body: LegBody, currency: string | null): Array<{ servicePath: string; location: ProviderLocation; transform: string; value: unknown }> {
  const index = new Map<string, Leaf>();
  for (const leaf of leavesOf(body.value)) {
    if (leaf.value === null || typeof leaf.value === 'boolean') continue;
    const text = normText(leaf.value);
    if (text.length < 2 || text.length > 256) continue;
    if (!index.has(text)) index.set(text, leaf);
    const date = normaliseDate(leaf.value);
    if (date && !index.has(`date:${date}`)) index.set(`date:${date}`, leaf);
  }
  const matches: Array<{ servicePath: string; location: ProviderLocation; transform: string; value: unknown }> = [];
  for (const leaf of leavesOf(service)) {
    if (leaf.value === null || typeof leaf.value === 'boolean' || leaf.path.startsWith(`${SERVICE_METADATA_PATH}.`)) continue;
    const candidates: Array<[string, string]> = [[normText(leaf.value), String(leaf.value) === normText(leaf.value) ? 'identity' : 'case']];
    if (typeof leaf.value === 'number' && currency && leaf.path === SERVICE_PATHS.amount[0]) {
      candidates.push([String(Math.round(leaf.value * 10 ** currencyExponent(currency))), 'minor_units']);
    }
    if (typeof leaf.value === 'string') {
      const alpha2 = leaf.value.length === 2 ? countryAlpha2(leaf.value) : null;
      if (alpha2) candidates.push([countryAlpha3(alpha2)!.toLowerCase(), 'country_alpha3']);
      const date = normaliseDate(leaf.value);
      if (date) candidates.push([`date:${date}`, 'date_format']);
    }
    for (const [key, transform] of candidates) {
      if (key.length < 2) continue;
      const hit = index.get(key);
      if (hit) {
        matches.push({ servicePath: leaf.path, location: { leg: body.leg, event_index: body.index, path: hit.path }, transform, value: hit.value });
        break;
      }
    }
  }
  return matches;
}

/** How a provider value relates to the service value (for the mapping shown in the report). */
function transformBetween(service: unknown, provider: unknown, currency: string | null): string {
  if (service === undefined || service === null) return 'unknown';
  if (String(service) === String(provider)) return 'identity';
  if (normText(service) === normText(provider)) return 'case';
  if (typeof service === 'number' && currency && asNumber(provider) === Math.round(service * 10 ** currencyExponent(currency))) return 'minor_units';
  if (typeof service === 'string' && typeof provider === 'string' && provider.trim().length === 3 && countryAlpha2(provider) === service.toUpperCase()) return 'country_alpha3';
  if (normaliseDate(service) && normaliseDate(service) === normaliseDate(provider)) return 'date_format';
  return 'differs';
}

interface ServiceFacts {
  request: Record<string, unknown>;
  currency: string | null;
  pan: ReturnType<typeof panParts>;
  value(concept: Exclude<Concept, 'card_last4' | 'card_brand'>): { path: string; value: unknown } | null;
}

function compareConcept(g: Grader, concept: Concept, s: ServiceFacts, located: Located, profile: MappingProfile | null): void {
  const p = located.value;
  const loc = located.location;
  const field = located.field;
  if (field?.type && p !== undefined && p !== null && !typeFits(field.type, p)) {
    g.add({
      code: 'SHAPE_MISMATCH', category: 'SHAPE_MISMATCH', severity: 'WARNING',
      message: `${loc.leg} ${loc.path} is ${typeOf(p)}; the ${profile?.id} profile expects ${field.type}`,
      service_path: null, provider: loc, expected: field.type, actual: typeOf(p),
      suggested_fix: `Check the captured ${loc.leg.toLowerCase()}: the provider sends ${loc.path} as ${field.type}.`,
    });
  }
  if (concept === 'card_last4' || concept === 'card_brand') {
    if (!s.pan || p === undefined || p === null) return;
    const servicePath = s.value('card_number')!.path;
    if (concept === 'card_last4' && String(p).slice(-4) !== s.pan.last4) {
      g.add({ code: 'CARD_LAST4_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'ERROR', message: `card last 4 differ: service ${s.pan.last4}, provider ${loc.leg.toLowerCase()} ${p}`, service_path: servicePath, provider: loc, expected: s.pan.last4, actual: p, suggested_fix: 'Send the same card in the service request as in the provider call.' });
    }
    const brand = brandOf(s.pan.bin);
    if (concept === 'card_brand' && brand && normBrand(p) !== brand) {
      g.add({ code: 'CARD_BRAND_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'ERROR', message: `card brand differs: the service card is ${brand}, the provider reports ${p}`, service_path: servicePath, provider: loc, expected: brand, actual: p, suggested_fix: 'Send the same card in the service request as in the provider call.' });
    }
    return;
  }
  const sv = s.value(concept);
  if (p === undefined || p === null || p === '') {
    return; // nothing at the provider to compare with (reported as info only for required fields)
  }
  if (!sv) {
    g.add({
      code: 'MISSING_FIELD', category: 'MISSING_FIELD', severity: field?.required ? 'ERROR' : 'WARNING',
      message: `the provider ${loc.leg.toLowerCase()} carries ${concept} at ${loc.path} but the service request has no ${SERVICE_PATHS[concept as keyof typeof SERVICE_PATHS][0]}`,
      service_path: SERVICE_PATHS[concept as keyof typeof SERVICE_PATHS][0], provider: loc, expected: p, actual: null,
      suggested_fix: `Add ${SERVICE_PATHS[concept as keyof typeof SERVICE_PATHS][0]} to the payment request.`,
    });
    return;
  }
  const v = sv.value;
  const base = { service_path: sv.path, provider: loc };
  if ((typeof v !== 'object' || v === null) && p !== null && typeof p === 'object') {
    g.add({ code: 'SHAPE_MISMATCH', category: 'SHAPE_MISMATCH', severity: 'WARNING', message: `${sv.path} is a ${typeOf(v)} but the provider carries ${concept} as ${typeOf(p)} at ${loc.path}`, ...base, expected: typeOf(p), actual: typeOf(v), suggested_fix: `Check which part of the provider's ${loc.path} ${sv.path} should carry.` });
    return;
  }
  switch (concept) {
    case 'amount': {
      const sn = asNumber(v);
      const pn = asNumber(p);
      if (sn === null || pn === null || !s.currency) return;
      const factor = 10 ** currencyExponent(s.currency);
      const expected = profile ? (profile.amount_unit === 'minor' ? Math.round(sn * factor) : sn) : null;
      const consistent = expected !== null ? pn === expected : pn === sn || pn === Math.round(sn * factor);
      if (consistent) return;
      const unitSlip = factor > 1 && (Math.round(pn * factor) === sn || (expected !== null && pn === sn));
      g.add(unitSlip
        ? { code: 'AMOUNT_UNIT_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'ERROR', message: `amount ${sn} ${s.currency} in the service request looks like minor units: the provider ${loc.leg.toLowerCase()} carries ${pn}${profile?.amount_unit === 'minor' ? ' minor units' : ''}`, ...base, expected: profile?.amount_unit === 'minor' ? pn / factor : pn, actual: sn, suggested_fix: `Send amount.value in major units with up to 4 decimals (e.g. ${(profile?.amount_unit === 'minor' ? pn / factor : pn).toFixed(Math.min(4, Math.log10(factor)))}), not in cents.` }
        : { code: 'AMOUNT_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'ERROR', message: `amount differs: service ${sn} ${s.currency}, provider ${loc.leg.toLowerCase()} ${pn}`, ...base, expected: profile?.amount_unit === 'minor' ? pn / factor : pn, actual: sn, suggested_fix: 'Send the same amount as the provider call (service amounts are in major units).' });
      return;
    }
    case 'currency':
      if (normText(v) !== normText(p)) g.add({ code: 'CURRENCY_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'ERROR', message: `currency differs: service ${v}, provider ${p}`, ...base, expected: String(p).toUpperCase(), actual: v, suggested_fix: `Set amount.currency to ${String(p).toUpperCase()}.` });
      return;
    case 'country': {
      const pa2 = typeof p === 'string' ? countryAlpha2(p) : null;
      if (profile && typeof p === 'string' && p.trim().length !== (profile.country_format === 'alpha3' ? 3 : 2)) {
        g.add({ code: 'SHAPE_MISMATCH', category: 'SHAPE_MISMATCH', severity: 'WARNING', message: `the provider expects ${profile.country_format} country codes; the ${loc.leg.toLowerCase()} has ${p}`, ...base, expected: profile.country_format, actual: p, suggested_fix: 'Check the country code format in the provider call.' });
      }
      if (pa2 !== normText(v).toUpperCase()) g.add({ code: 'COUNTRY_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'ERROR', message: `country differs: service ${v}, provider ${p}`, ...base, expected: pa2 ?? p, actual: v, suggested_fix: `Set country to ${pa2 ?? p} (ISO 3166-1 alpha-2).` });
      return;
    }
    case 'capture': {
      const expected = field?.values ? field.values[String(v)] : v;
      const same = field?.values ? normText(expected) === normText(p) : normText(v) === normText(p);
      if (!same) g.add({ code: 'CAPTURE_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'ERROR', message: `capture differs: service ${v}, provider ${p}`, ...base, expected: p, actual: v, suggested_fix: `Set ${sv.path} to ${p === true || normText(p) === 'true' ? 'true (authorize and capture)' : 'false (authorize only)'}.` });
      return;
    }
    case 'installments':
      if (asNumber(v) !== asNumber(p)) g.add({ code: 'INSTALLMENTS_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'ERROR', message: `installments differ: service ${v}, provider ${p}`, ...base, expected: asNumber(p) ?? p, actual: v, suggested_fix: `Set ${sv.path} to ${p}.` });
      return;
    case 'card_number': {
      const sp = s.pan;
      const pp = panParts(p);
      if (!sp) return;
      if (!pp) {
        if (String(p).slice(-4) !== sp.last4) g.add({ code: 'CARD_LAST4_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'ERROR', message: 'the provider request carries a different card', ...base, expected: String(p), actual: v, suggested_fix: 'Send the same card as the provider call.' });
        return;
      }
      const unknownHash = pp.hash === UNKNOWN_PAN_HASH || sp.hash === UNKNOWN_PAN_HASH;
      if (unknownHash ? pp.bin !== sp.bin || pp.last4 !== sp.last4 : pp.hash !== sp.hash) {
        const brandS = brandOf(sp.bin);
        const brandP = brandOf(pp.bin);
        const code = brandS !== brandP ? 'CARD_BRAND_MISMATCH' : 'CARD_LAST4_MISMATCH';
        g.add({ code, category: 'VALUE_INCONSISTENCY', severity: 'ERROR', message: code === 'CARD_BRAND_MISMATCH' ? `card brand differs: service ${brandS}, provider ${brandP}` : `card differs: service ****${sp.last4}, provider ****${pp.last4}`, ...base, expected: p, actual: v, suggested_fix: 'Send the same card number as the provider call.' });
      }
      return;
    }
    case 'payment_method_type': {
      const mapped = field?.values ? field.values[String(v)] : undefined;
      if (field?.values) {
        if (mapped === undefined) {
          g.add({ code: 'ENUM_MISMATCH', category: 'ENUM_MISMATCH', severity: 'ERROR', message: `payment_method.type ${v} has no equivalent at ${profile?.provider_id}`, ...base, expected: Object.keys(field.values), actual: v, suggested_fix: `Use one of ${Object.keys(field.values).join(', ')}.` });
        } else if (normText(mapped) !== normText(p)) {
          const serviceValue = Object.entries(field.values).find(([, pv]) => normText(pv) === normText(p))?.[0];
          g.add({ code: 'ENUM_MISMATCH', category: 'ENUM_MISMATCH', severity: 'ERROR', message: `payment_method.type ${v} maps to ${mapped} but the provider call used ${p}`, ...base, expected: serviceValue ?? p, actual: v, suggested_fix: serviceValue ? `Set payment_method.type to ${serviceValue}.` : `Use the payment method type the provider call used (${p}).` });
        }
        return;
      }
      const word = PAYMENT_TYPE_WORDS[normKey(String(p))];
      if (word && word !== v && !(word === 'CARD' && /CARD/.test(String(v)))) {
        g.add({ code: 'ENUM_MISMATCH', category: 'ENUM_MISMATCH', severity: 'ERROR', message: `payment_method.type ${v} but the provider call used ${p} (${word})`, ...base, expected: word, actual: v, suggested_fix: `Set payment_method.type to ${word}.` });
      }
      return;
    }
    case 'date_of_birth':
      if (normaliseDate(v) !== normaliseDate(p)) g.add({ code: 'CUSTOMER_DATA_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'WARNING', message: `date of birth differs: service ${v}, provider ${p}`, ...base, expected: normaliseDate(p) ?? p, actual: v, suggested_fix: `Set ${sv.path} to ${normaliseDate(p) ?? p} (YYYY-MM-DD).` });
      return;
    case 'merchant_reference':
      if (String(v).trim() !== String(p).trim()) g.add({ code: 'REFERENCE_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'WARNING', message: `order reference differs: service ${v}, provider ${p}`, ...base, expected: p, actual: v, suggested_fix: `Set ${sv.path} to the reference sent to the provider.` });
      return;
    case 'description':
      if (String(v).trim() !== String(p).trim()) g.add({ code: 'DESCRIPTION_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'INFO', message: 'description differs', ...base, expected: p, actual: v, suggested_fix: 'Optional: send the same description.' });
      return;
    default:
      // customer data: e-mail, names, document, phone; compared case- and space-insensitively
      if (normText(v).replace(/\s+/g, ' ') !== normText(p).replace(/\s+/g, ' ') && !(concept === 'document_number' && String(v).replace(/\D/g, '') === String(p).replace(/\D/g, '') && /\d/.test(String(v)))) {
        g.add({ code: 'CUSTOMER_DATA_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'WARNING', message: `${concept} differs: service ${v}, provider ${p}`, ...base, expected: p, actual: v, suggested_fix: `Set ${sv.path} to the value sent to the provider.` });
      }
  }
}

function metadataMap(value: unknown): Map<string, string> | null {
  const out = new Map<string, string>();
  if (Array.isArray(value)) {
    for (const entry of value) {
      const key = (entry as { key?: unknown; name?: unknown })?.key ?? (entry as { name?: unknown })?.name;
      if (typeof key === 'string') out.set(key, String((entry as { value?: unknown }).value ?? ''));
    }
    return out;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out.set(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
    return out;
  }
  return null;
}

function checkMetadata(g: Grader, service: Record<string, unknown>, request: LegBody, profile: MappingProfile | null): void {
  let found: { path: string; value: unknown } | null = null;
  if (profile?.metadata) {
    const value = getPath(request.value, profile.metadata.path);
    found = value === undefined ? null : { path: profile.metadata.path, value };
  } else if (!profile) found = findObjectByKey(request.value, METADATA_KEYS);
  const providerMeta = found ? metadataMap(found.value) : null;
  const serviceMeta = metadataMap(getPath(service, SERVICE_METADATA_PATH)) ?? new Map<string, string>();
  if (!providerMeta || !found) return;
  for (const [key, value] of providerMeta) {
    const location = { leg: request.leg, event_index: request.index, path: `${found.path}.${key}` };
    if (!serviceMeta.has(key)) {
      g.add({ code: 'UNMAPPED_METADATA', category: 'UNMAPPED_METADATA', severity: 'WARNING', message: `provider metadata ${key} has no entry in the service request's metadata`, service_path: SERVICE_METADATA_PATH, provider: location, expected: { key, value }, actual: null, suggested_fix: `Add {"key": "${key}", "value": ...} to metadata.` });
    } else if (serviceMeta.get(key) !== value) {
      g.add({ code: 'METADATA_VALUE_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'WARNING', message: `metadata ${key} differs: service ${serviceMeta.get(key)}, provider ${value}`, service_path: SERVICE_METADATA_PATH, provider: location, expected: value, actual: serviceMeta.get(key), suggested_fix: `Send metadata ${key} with the value sent to the provider.` });
    }
  }
  for (const key of serviceMeta.keys()) {
    if (!providerMeta.has(key)) {
      g.add({ code: 'UNMAPPED_METADATA', category: 'UNMAPPED_METADATA', severity: 'INFO', message: `service metadata ${key} was not sent to the provider`, service_path: SERVICE_METADATA_PATH, provider: { leg: request.leg, event_index: request.index, path: found.path }, expected: null, actual: { key, value: serviceMeta.get(key) }, suggested_fix: 'Nothing required; the provider did not receive this key.' });
    }
  }
}

type StatusClass = 'APPROVED' | 'DECLINED' | 'PENDING' | 'CANCELLED';

function statusOf(body: LegBody, profile: MappingProfile | null): { value: unknown; path: string; cls: StatusClass | null } | null {
  if (profile?.status) {
    const path = profile.status.paths[body.leg];
    if (!path) return null;
    const value = getPath(body.value, path);
    if (value === undefined || value === null) return null;
    const v = String(value).toUpperCase();
    const cls: StatusClass | null = profile.status.approved.includes(v) ? 'APPROVED' : profile.status.declined.includes(v) ? 'DECLINED' : profile.status.pending.includes(v) ? 'PENDING' : STATUS_WORDS[normKey(v)] ?? null;
    return { value, path, cls };
  }
  const found = findObjectByKey(body.value, STATUS_KEYS);
  if (!found || typeof found.value === 'object') return null;
  return { value: found.value, path: found.path, cls: STATUS_WORDS[normKey(String(found.value))] ?? null };
}

function providerErrorOf(body: LegBody, profile: MappingProfile | null): { path: string; value: unknown } | null {
  if (profile) {
    for (const path of profile.error_paths?.[body.leg] ?? []) {
      const value = getPath(body.value, path);
      if (value !== undefined && value !== null && value !== '') return { path, value };
    }
    return null;
  }
  return findObjectByKey(body.value, ERROR_KEYS);
}

function checkProviderOutcome(g: Grader, legs: ReturnType<typeof selectLegs>, profile: MappingProfile | null): void {
  const response = legs.response;
  if (response) {
    const status = response.event.http_status_code ?? 0;
    const error = providerErrorOf(response, profile);
    if (status >= 400 || error) {
      g.add({
        code: 'PROVIDER_ERROR', category: 'PROVIDER_ERROR', severity: 'ERROR',
        message: `the provider answered ${status}${error ? ` with ${typeof error.value === 'object' ? JSON.stringify(error.value) : error.value}` : ''}`,
        service_path: null, provider: { leg: 'RESPONSE', event_index: response.index, path: error?.path ?? 'http_status_code' }, expected: 'a 2xx answer without an error', actual: error?.value ?? status,
        suggested_fix: 'Register a successful provider exchange, or fix the provider request the error points at before comparing.',
      });
    }
    const st = statusOf(response, profile);
    if (st?.cls === 'DECLINED' && !(status >= 400 || error)) {
      g.add({ code: 'PROVIDER_DECLINED', category: 'PROVIDER_ERROR', severity: 'WARNING', message: `the provider declined the payment (${st.value})`, service_path: null, provider: { leg: 'RESPONSE', event_index: response.index, path: st.path }, expected: 'an approved payment', actual: st.value, suggested_fix: 'Use an exchange where the provider approved, unless a decline is what you are testing.' });
    }
  }
  const finalWebhook = legs.webhooks.filter((w) => statusOf(w, profile)?.cls).pop();
  if (response && finalWebhook) {
    const rs = statusOf(response, profile);
    const ws = statusOf(finalWebhook, profile);
    const conflicting = rs?.cls && ws?.cls && rs.cls !== ws.cls && rs.cls !== 'PENDING' && ws.cls !== 'PENDING';
    if (conflicting) {
      g.add({ code: 'RESPONSE_WEBHOOK_STATUS_DISAGREEMENT', category: 'LEG_DISAGREEMENT', severity: 'ERROR', message: `the response says ${rs!.value} but the webhook says ${ws!.value}`, service_path: null, provider: { leg: 'WEBHOOK', event_index: finalWebhook.index, path: ws!.path }, expected: rs!.value, actual: ws!.value, suggested_fix: 'Check the provider integration: the webhook must confirm the synchronous outcome (or register the exchange that explains the change, e.g. a later CANCEL).' });
    }
    const rc = locateConcepts(response, profile);
    const wc = locateConcepts(finalWebhook, profile);
    for (const concept of ['amount', 'currency', 'card_last4'] as const) {
      const a = rc.get(concept)?.value;
      const b = wc.get(concept)?.value;
      if (a === undefined || a === null || b === undefined || b === null) continue;
      if (normText(a) !== normText(b)) {
        g.add({ code: 'RESPONSE_WEBHOOK_VALUE_DISAGREEMENT', category: 'LEG_DISAGREEMENT', severity: 'ERROR', message: `${concept} differs between the response (${a}) and the webhook (${b})`, service_path: null, provider: wc.get(concept)!.location, expected: a, actual: b, suggested_fix: 'Check that the webhook belongs to this payment; register the matching webhook.' });
      }
    }
  }
}

function checkOperationType(g: Grader, s: ServiceFacts, request: LegBody | undefined): void {
  const capture = s.value('capture');
  if (!request || !capture || typeof capture.value !== 'boolean') return;
  const op = request.event.operation_type;
  const wrong = (capture.value && op === 'AUTHORIZE') || (!capture.value && op === 'PURCHASE');
  if (wrong) {
    g.add({ code: 'CAPTURE_OPERATION_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'ERROR', message: `${capture.path} is ${capture.value} but the provider request is a ${op}`, service_path: capture.path, provider: { leg: 'REQUEST', event_index: request.index, path: 'operation_type' }, expected: op === 'AUTHORIZE' ? false : true, actual: capture.value, suggested_fix: op === 'AUTHORIZE' ? `Set ${capture.path} to false to authorize only.` : `Set ${capture.path} to true to authorize and capture.` });
  }
}

export function runPipeline(input: PipelineInput): ValidationReport {
  const g = new Grader();
  const { serviceRequest, profile } = input;
  const currencyFact = firstServiceValue(serviceRequest, SERVICE_PATHS.currency);
  const cardFact = firstServiceValue(serviceRequest, SERVICE_PATHS.card_number);
  const s: ServiceFacts = {
    request: serviceRequest,
    currency: typeof currencyFact?.value === 'string' ? currencyFact.value.toUpperCase() : null,
    pan: cardFact ? panParts(cardFact.value) : null,
    value: (concept) => firstServiceValue(serviceRequest, SERVICE_PATHS[concept]),
  };
  const legs = selectLegs(input.events);
  if (!legs.request) {
    g.add({ code: 'NO_PROVIDER_REQUEST', category: 'INCOMPLETE_EXCHANGE', severity: 'WARNING', message: 'no REQUEST event was registered: only the provider answers can be compared', service_path: null, provider: null, expected: 'a REQUEST event', actual: null, suggested_fix: 'Register the request sent to the provider as a REQUEST event.' });
  } else if (legs.request.value === undefined) {
    g.add({ code: 'UNREADABLE_PROVIDER_REQUEST', category: 'INCOMPLETE_EXCHANGE', severity: 'WARNING', message: `the provider request body is ${legs.request.event.body.format}: nothing to compare field by field`, service_path: null, provider: { leg: 'REQUEST', event_index: legs.request.index, path: '' }, expected: 'a JSON, XML or form body', actual: legs.request.event.body.format, suggested_fix: 'Register the body as sent (JSON, XML or form), with its Content-Type header.' });
  }

  const declared = input.declaredPaymentMethodType;
  const serviceType = s.value('payment_method_type');
  if (declared && serviceType && declared !== serviceType.value) {
    g.add({ code: 'ENUM_MISMATCH', category: 'ENUM_MISMATCH', severity: 'ERROR', message: `the registration declares payment_method_type ${declared} but the service request has ${serviceType.value}`, service_path: serviceType.path, provider: null, expected: declared, actual: serviceType.value, suggested_fix: `Set payment_method.type to ${declared} (or register the traffic with the right payment_method_type).` });
  }

  for (const body of [legs.request, legs.response, ...legs.webhooks]) {
    if (!body || body.value === undefined) continue;
    const located = locateConcepts(body, profile);
    for (const [concept, loc] of located) {
      // Answers are compared for what they add (card, amounts); request fields do the rest.
      if (body.leg !== 'REQUEST' && !['card_last4', 'card_brand', 'amount', 'currency'].includes(concept)) continue;
      if (loc.value !== undefined) {
        const sv = concept in SERVICE_PATHS ? s.value(concept as keyof typeof SERVICE_PATHS) : null;
        g.mapping.push({ concept, service_path: sv?.path ?? null, provider: loc.location, transform: loc.source === 'key' ? transformBetween(sv?.value, loc.value, s.currency) : loc.transform, source: loc.source });
      }
      compareConcept(g, concept, s, loc, profile);
    }
    if (body.leg === 'REQUEST' && !profile) {
      const keyed = new Set(g.mapping.map((m) => `${m.provider.event_index}:${m.provider.path}`));
      for (const match of inferByValue(serviceRequest, body, s.currency)) {
        if (keyed.has(`${match.location.event_index}:${match.location.path}`)) continue;
        g.mapping.push({ concept: null, service_path: match.servicePath, provider: match.location, transform: match.transform, source: 'value' });
      }
    }
    if (body.leg === 'REQUEST') checkMetadata(g, serviceRequest, body, profile);
  }
  checkOperationType(g, s, legs.request);
  checkProviderOutcome(g, legs, profile);

  const summary = { errors: 0, warnings: 0, infos: 0 };
  let score = 100;
  for (const f of g.findings) {
    if (f.severity === 'ERROR') summary.errors++;
    else if (f.severity === 'WARNING') summary.warnings++;
    else summary.infos++;
    score -= SEVERITY_PENALTY[f.severity];
  }
  const verdict: Verdict = summary.errors ? 'FAIL' : summary.warnings ? 'WARN' : 'PASS';
  return { verdict, score: Math.max(0, score), mode: profile ? 'profile' : 'generic', profile_id: profile?.id ?? null, summary, findings: g.findings, mapping: g.mapping };
}
