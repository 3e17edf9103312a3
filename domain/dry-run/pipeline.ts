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
import { Concept, FieldType, Leg, MappingProfile, ProfileField, SERVICE_DEFAULTS, SERVICE_METADATA_PATH, SERVICE_PATHS, ServiceConcept } from './profiles';
import {
  amountUnitOf, AmountUnit, captureKeyKind, captureMeaning, isAmountName, isDecimal, classifyStatus, conceptOfKey, ERROR_KEYS, EVENT_KEYS, EXPONENT_KEYS, FLAG_KEYS, knownProvider,
  lastFourOf, nearMatch, normBrand, normKey, STATUS_KEYS, StatusClass, SWITCH_KEYS,
} from './field-knowledge';
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

// ---------------------------------------------------------------- generic mode knowledge

const PAYMENT_TYPE_WORDS: Record<string, string> = { card: 'CARD', credit: 'CREDIT_CARD', creditcard: 'CREDIT_CARD', debit: 'DEBIT_CARD', debitcard: 'DEBIT_CARD', ach: 'ACH', banktransfer: 'BANK_TRANSFER', crypto: 'CRYPTO', cash: 'CASH' };

interface Leaf {
  readonly path: string;
  readonly key: string;
  /** Key of the enclosing object (arrays skipped), null at the top. */
  readonly parent: string | null;
  readonly depth: number;
  readonly value: unknown;
}

/** A container on the way down, so that leaf paths are joined only when read. */
interface PathStep {
  segment: string;
  up: PathStep | null;
}

/**
 * A scalar of a body. Its dotted path is built on first read: a large body has tens of
 * thousands of leaves and most paths are never looked at.
 */
class BodyLeaf implements Leaf {
  private joined: string | undefined;
  constructor(
    /** The enclosing container's path. */
    private readonly up: PathStep | null,
    /** This leaf's own segment (key or index); null for a scalar body. */
    private readonly segment: string | null,
    readonly key: string,
    readonly parent: string | null,
    readonly depth: number,
    readonly value: unknown,
  ) {}

  get path(): string {
    if (this.joined === undefined) {
      const segments: string[] = this.segment === null ? [] : [this.segment];
      for (let s = this.up; s; s = s.up) segments.push(s.segment);
      this.joined = segments.reverse().join('.');
    }
    return this.joined;
  }
}

const MAX_LEAVES = 250_000;

/**
 * Scalars of a body, document order, shallow paths first when the caller sorts by depth.
 * Recursive: bodies are parsed with a nesting limit (domain/nesting.ts), so the depth is bounded.
 */
function leavesOf(value: unknown): Leaf[] {
  const out: Leaf[] = [];
  const walk = (v: unknown, up: PathStep | null, segment: string | null, key: string, parent: string | null, depth: number): void => {
    if (out.length >= MAX_LEAVES) return;
    if (v === null || typeof v !== 'object') {
      out.push(new BodyLeaf(up, segment, key, parent, depth, v));
      return;
    }
    const step = segment === null ? up : { segment, up };
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) walk(v[i], step, String(i), key, parent, depth + 1);
    } else {
      const enclosing = key || null;
      for (const k of Object.keys(v)) walk((v as Record<string, unknown>)[k], step, k, k, enclosing, depth + 1);
    }
  };
  walk(value, null, null, '', null, 0);
  return out;
}

/** A body's leaves in document order, and (built on first use) shallowest first. */
class BodyLeaves {
  private sorted: Leaf[] | undefined;
  constructor(readonly leaves: Leaf[]) {}

  /** Stable by depth: bucketed, not sorted (a large body has tens of thousands of leaves). */
  get byDepth(): Leaf[] {
    if (!this.sorted) {
      const buckets: Leaf[][] = [];
      for (const leaf of this.leaves) (buckets[leaf.depth] ??= []).push(leaf);
      const sorted: Leaf[] = [];
      for (const bucket of buckets) if (bucket) for (const leaf of bucket) sorted.push(leaf);
      this.sorted = sorted;
    }
    return this.sorted;
  }
}

const LEAF_CACHE = new WeakMap<object, BodyLeaves>();

/** leavesOf, computed once per parsed body (the pipeline reads each body several times). */
function cachedLeaves(value: unknown): BodyLeaves {
  if (value === null || typeof value !== 'object') return new BodyLeaves(leavesOf(value));
  let hit = LEAF_CACHE.get(value);
  if (!hit) {
    hit = new BodyLeaves(leavesOf(value));
    LEAF_CACHE.set(value, hit);
  }
  return hit;
}

interface KeyedObject {
  /** Breadth-first rank: lower is shallower, then earlier in the document. */
  rank: number;
  path: string;
  value: unknown;
}

interface KeyIndex {
  /** Per normalised key name, its first non-null value. */
  first: Map<string, KeyedObject>;
  /** Every normalised key name seen, null values included. */
  names: Set<string>;
}

const KEY_INDEX_CACHE = new WeakMap<object, KeyIndex>();

/**
 * The first (shallowest, then document order) non-null value under each normalised key name,
 * down to 8 levels and 10,000 objects per level: built once per parsed body, since the
 * pipeline looks up metadata and error keys in every body and a large body has thousands
 * of objects.
 */
function keyIndexOf(value: object): KeyIndex {
  let index = KEY_INDEX_CACHE.get(value);
  if (index) return index;
  index = { first: new Map(), names: new Set() };
  // Paths are joined only for the first value of each key: a large body has tens of thousands of objects.
  interface Step { value: object; key: string; parent: Step | null }
  const pathOf = (step: Step | null, key: string): string => {
    const parts = [key];
    for (let s = step; s && s.parent !== null; s = s.parent) parts.push(s.key);
    return parts.reverse().join('.');
  };
  let rank = 0;
  let frontier: Step[] = [{ value, key: '', parent: null }];
  for (let depth = 0; depth < 8 && frontier.length; depth++) {
    const next: Step[] = [];
    for (const item of frontier) {
      const object = item.value as Record<string, unknown>;
      for (const k of Object.keys(object)) {
        const child = object[k];
        const key = normKey(k);
        index.names.add(key);
        if (child !== null && child !== undefined && !index.first.has(key)) index.first.set(key, { rank: rank++, path: pathOf(item, k), value: child });
        if (child && typeof child === 'object' && next.length < 10_000) next.push({ value: child, key: k, parent: item });
      }
    }
    frontier = next;
  }
  KEY_INDEX_CACHE.set(value, index);
  return index;
}

/** The shallowest (then first) non-null value under one of `keys` (normalised key names). */
function findObjectByKey(value: unknown, keys: Set<string>): { path: string; value: unknown } | null {
  if (!value || typeof value !== 'object') return null;
  const { first } = keyIndexOf(value);
  let best: KeyedObject | undefined;
  for (const key of keys) {
    const hit = first.get(key);
    if (hit && (!best || hit.rank < best.rank)) best = hit;
  }
  return best ? { path: best.path, value: best.value } : null;
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

/** Form bodies with bracket keys (metadata[order_id], card[number], items[0][sku]) as nested objects. */
function nestForm(flat: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(flat)) {
    const parts = key.replace(/\]/g, '').split('[');
    if (parts.some((p, i) => p === '' && i < parts.length - 1) || parts.length > 8) {
      out[key] = value;
      continue;
    }
    let node = out as Record<string, unknown>;
    for (let i = 0; i < parts.length - 1; i++) {
      const k = parts[i];
      const existing = node[k];
      if (!existing || typeof existing !== 'object') node[k] = {};
      node = node[k] as Record<string, unknown>;
    }
    const last = parts[parts.length - 1];
    if (last === '') {
      const arrKey = parts[parts.length - 2];
      void arrKey;
      node[String(Object.keys(node).length)] = value;
    } else node[last] = value;
  }
  return out;
}

function bodyOf(event: StoredEvent): unknown {
  try {
    const parsed = parseStoredBody(event.body);
    if (parsed.format === 'form' && parsed.value && typeof parsed.value === 'object') return nestForm(parsed.value as Record<string, unknown>);
    return parsed.value;
  } catch {
    return undefined;
  }
}

interface Legs {
  request?: LegBody;
  response?: LegBody;
  /** Webhooks, and answers to a later GET of the payment, in event order. */
  webhooks: LegBody[];
  /** Other calls of the exchange (e.g. a card tokenisation before the payment): card facts only. */
  auxiliary: LegBody[];
}

function carriesAmount(value: unknown, profile: MappingProfile | null): boolean {
  if (profile) return profile.fields.some((f) => f.leg === 'REQUEST' && f.concept === 'amount' && getPath(value, f.path) !== undefined);
  return cachedLeaves(value).leaves.some((l) => conceptOfKey(l.key, l.parent) === 'amount' && asNumber(l.value) !== null);
}

/** The main exchange: the payment REQUEST (the one carrying an amount), the RESPONSE that follows it, and the webhooks. */
function selectLegs(events: StoredEvent[], profile: MappingProfile | null): Legs {
  const main = ['PURCHASE', 'AUTHORIZE'];
  const leg = (index: number): LegBody | undefined => (index < 0 ? undefined : { leg: events[index].type, index, event: events[index], value: bodyOf(events[index]) });
  const candidates = events.flatMap((e, i) => (e.type === 'REQUEST' && main.includes(e.operation_type) ? [leg(i)!] : []));
  let request: LegBody | undefined = candidates.length > 1 ? candidates.find((c) => carriesAmount(c.value, profile)) ?? candidates[0] : candidates[0];
  if (!request) request = leg(events.findIndex((e) => e.type === 'REQUEST'));
  const requestIndex = request?.index ?? -1;
  let responseIndex = events.findIndex((e, i) => e.type === 'RESPONSE' && i > requestIndex);
  if (responseIndex < 0) responseIndex = events.findIndex((e) => e.type === 'RESPONSE');
  // A later GET of the payment answers like a webhook: it confirms (or contradicts) the outcome.
  const isConfirmation = (e: StoredEvent, i: number) => {
    if (e.type !== 'RESPONSE' || i <= responseIndex || responseIndex < 0) return false;
    for (let j = i - 1; j >= 0; j--) if (events[j].type === 'REQUEST') return events[j].http_method === 'GET';
    return false;
  };
  const webhooks = events.flatMap((e, i) => (e.type === 'WEBHOOK' || isConfirmation(e, i) ? [leg(i)!] : []));
  const auxiliary = events.flatMap((e, i) => (e.type !== 'WEBHOOK' && !isConfirmation(e, i) && i !== requestIndex && i !== responseIndex ? [leg(i)!] : []));
  return { request, response: leg(responseIndex), webhooks, auxiliary };
}

interface Located {
  location: ProviderLocation;
  value: unknown;
  /** The provider key the value sits under (generic mode knowledge reads it). */
  key: string;
  /** Decimal exponent stated beside a minor-unit amount (Worldpay's exponent="2"). */
  exponent?: number;
  field?: ProfileField;
  source: MappingEntry['source'];
  transform: string;
}

/** Whether a provider value can carry the concept (generic mode: key names alone are not enough). */
function fitsConcept(concept: Concept, key: string, value: unknown): boolean {
  switch (concept) {
    case 'amount': return asNumber(value) !== null;
    case 'currency': return typeof value === 'string' && /^[A-Za-z]{3}$/.test(value.trim());
    case 'capture': return captureMeaning(key, value) !== null;
    case 'card_brand': return normBrand(value) !== null;
    case 'card_last4': return lastFourOf(value) !== null;
    case 'card_bin': return /^\d{6,8}$/.test(String(value));
    case 'card_number': return panParts(value) !== null || lastFourOf(value) !== null;
    case 'email': return typeof value === 'string' && value.includes('@');
    case 'merchant_reference': return (typeof value === 'string' || typeof value === 'number') && String(value).trim().length >= 3;
    case 'installments': { const n = asNumber(value); return n !== null && Number.isInteger(n) && n >= 1 && n <= 99; }
    case 'country': return typeof value === 'string' && /^[A-Za-z]{2,3}$/.test(value.trim());
    case 'document_number': return (typeof value === 'string' || typeof value === 'number') && /\d/.test(String(value));
    default: return typeof value !== 'object';
  }
}

const CARD_FACTS: Concept[] = ['card_number', 'card_last4', 'card_bin', 'card_brand'];

/**
 * Locates each concept in one leg: from the profile (the first field present wins; a field
 * absent everywhere is kept with an undefined value), or by key name (generic mode).
 */
function locateConcepts(body: LegBody, profile: MappingProfile | null): Map<Concept, Located> {
  const found = new Map<Concept, Located>();
  if (profile) {
    for (const field of profile.fields) {
      if (field.leg !== body.leg) continue;
      const previous = found.get(field.concept);
      if (previous && previous.value !== undefined) continue;
      let value = getPath(body.value, field.path);
      if (previous && value === undefined) continue;
      // What the provider assumes when the field is absent (e.g. the account currency), except for capture (read by providerCapture).
      if (value === undefined && field.default !== undefined && field.concept !== 'capture') value = field.default;
      found.set(field.concept, { location: { leg: body.leg, event_index: body.index, path: field.path }, value, key: field.path.split('.').pop()!, field, source: 'profile', transform: 'profile' });
    }
    // Card facts elsewhere than the profile says (an expanded charge, an older API version) are
    // still the card: the shared vocabulary finds them. So is a capture flag of another
    // endpoint of the provider (Stripe Charges' capture=false beside PaymentIntents'
    // capture_method): it outranks the profile's default, not a field the profile places.
    const missing = CARD_FACTS.filter((c) => found.get(c)?.value === undefined && (body.leg !== 'REQUEST' || c === 'card_number'));
    if (body.leg === 'REQUEST' && found.get('capture')?.value === undefined) missing.push('capture');
    if (missing.length) {
      for (const [concept, loc] of locateConcepts(body, null)) {
        if (!missing.includes(concept)) continue;
        if (concept === 'capture' && captureKeyKind(normKey(loc.key)) === 'type') continue; // a type word is too weak to overrule the profile
        found.set(concept, loc);
      }
    }
    return found;
  }
  for (const leaf of cachedLeaves(body.value).byDepth) {
    if (leaf.value === null || leaf.value === '') continue;
    let concept = conceptOfKey(leaf.key, leaf.parent);
    if (!concept && panParts(leaf.value)) concept = 'card_number';
    if (!concept) continue;
    // A switch ({requestAutoSettlement: {enabled: true}}) is read by its parent's name.
    const key = concept === 'capture' && leaf.parent && SWITCH_KEYS.has(normKey(leaf.key)) ? leaf.parent : leaf.key;
    const previous = found.get(concept);
    // A field that names capture (submitForSettlement, manualCapture) outranks a transaction type word (type: sale).
    const outranks = concept === 'capture' && !!previous && captureKeyKind(normKey(previous.key)) === 'type' && captureKeyKind(normKey(key)) !== 'type';
    if ((previous && !outranks) || !fitsConcept(concept, key, leaf.value)) continue;
    const exponent = concept === 'amount' ? statedExponent(body.value, leaf.path) : undefined;
    found.set(concept, { location: { leg: body.leg, event_index: body.index, path: leaf.path }, value: leaf.value, key, source: 'key', transform: 'identity', ...(exponent === undefined ? {} : { exponent }) });
  }
  return found;
}

/** The exponent a sibling of the amount states (<amount value="1500" exponent="2"/>), if any. */
function statedExponent(body: unknown, amountPath: string): number | undefined {
  const parentPath = amountPath.split('.').slice(0, -1).join('.');
  const parent = parentPath ? getPath(body, parentPath) : body;
  if (!parent || typeof parent !== 'object') return undefined;
  for (const [k, v] of Object.entries(parent as Record<string, unknown>)) {
    const n = asNumber(v);
    if (EXPONENT_KEYS.has(normKey(k)) && n !== null && Number.isInteger(n) && n >= 0 && n <= 4) return n;
  }
  return undefined;
}

/** Generic mode: service leaves matched to provider leaves by value under conversions. */
function inferByValue(service: Record<string, unknown>, body: LegBody, currency: string | null): Array<{ servicePath: string; location: ProviderLocation; transform: string; value: unknown }> {
  // Provider values of 2 to 256 characters (and dates) by normalised text, first occurrence kept.
  const { byText, byDate } = textIndex(body.value);
  const lookup = (key: string): Leaf | undefined => (key.startsWith('date:') ? byText.get(key) ?? byDate.get(key) : key.length <= 256 ? byText.get(key) : undefined);
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
      const hit = lookup(key);
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
  /** Declared card brand (payment_method.detail.card.brand), else the brand of the card's IIN. */
  brand: { value: string; path: string; declared: boolean } | null;
  /** The service value of a concept, with payment creation defaults applied (capture, installments). */
  value(concept: ServiceConcept): { path: string; value: unknown; defaulted?: boolean } | null;
}

interface Context {
  g: Grader;
  s: ServiceFacts;
  profile: MappingProfile | null;
  /** The catalogue provider (registration provider_id, else the request's host). */
  provider: string | null;
  /** Some amount of the exchange is written as a decimal (generic mode unit evidence). */
  decimalAmounts: boolean;
}

const nearlyEqual = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

function amountUnit(ctx: Context, located: Located): AmountUnit | null {
  if (located.field) return located.field.unit ?? ctx.profile!.amount_unit;
  if (located.exponent !== undefined) return 'minor'; // an amount with a stated exponent is an integer of minor units
  return amountUnitOf(ctx.provider, located.location.path, located.value, ctx.decimalAmounts);
}

/** The capture a provider field says (profile value map and default, or generic knowledge). */
function providerCapture(located: Located): { meaning: boolean | null; value: unknown } {
  const field = located.field;
  let p = located.value;
  if ((p === undefined || p === null || p === '') && field?.default !== undefined) p = field.default;
  if (p === undefined || p === null || p === '') return { meaning: null, value: p };
  if (field?.values) {
    const hit = Object.entries(field.values).find(([, pv]) => normText(pv) === normText(p));
    return { meaning: hit ? hit[0] === 'true' : captureMeaning(located.key, p), value: p };
  }
  return { meaning: captureMeaning(located.key, p), value: p };
}

function brandOfProvider(value: unknown, profile: MappingProfile | null): string | null {
  if (typeof value !== 'string') return null;
  const mapped = profile?.brands ? Object.entries(profile.brands).find(([k]) => normText(k) === normText(value))?.[1] : undefined;
  return mapped ?? normBrand(value);
}

function compareConcept(ctx: Context, concept: Concept, located: Located): void {
  const { g, s, profile } = ctx;
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
  if (concept === 'card_last4' || concept === 'card_brand' || concept === 'card_bin') {
    if (p === undefined || p === null || p === '') return;
    const numberPath = s.value('card_number')?.path ?? SERVICE_PATHS.card_number[0];
    if (concept === 'card_last4') {
      const last4 = lastFourOf(p) ?? String(p).slice(-4);
      if (s.pan && last4 !== s.pan.last4) {
        g.add({ code: 'CARD_LAST4_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'ERROR', message: `card last 4 differ: service ${s.pan.last4}, provider ${loc.leg.toLowerCase()} ${p}`, service_path: numberPath, provider: loc, expected: last4, actual: s.pan.last4, suggested_fix: 'Send the same card in the service request as in the provider call.' });
      }
      return;
    }
    const providerBrand = concept === 'card_bin' ? brandOf(String(p)) : brandOfProvider(p, profile);
    if (concept === 'card_bin' && s.pan && String(p).slice(0, 6) !== s.pan.bin && (!providerBrand || !s.brand || providerBrand === s.brand.value)) {
      g.add({ code: 'CARD_LAST4_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'ERROR', message: `card IIN differs: service ${s.pan.bin}, provider ${loc.leg.toLowerCase()} ${p}`, service_path: numberPath, provider: loc, expected: p, actual: s.pan.bin, suggested_fix: 'Send the same card in the service request as in the provider call.' });
      return;
    }
    if (providerBrand && s.brand && providerBrand !== s.brand.value) {
      g.add({ code: 'CARD_BRAND_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'ERROR', message: `card brand differs: the service card is ${s.brand.value}${s.brand.declared ? ' (declared)' : ''}, the provider reports ${p}`, service_path: s.brand.path, provider: loc, expected: providerBrand, actual: s.brand.value, suggested_fix: s.brand.declared ? `Set ${s.brand.path} to ${providerBrand} (or leave it out: the IIN says the brand).` : 'Send the same card in the service request as in the provider call.' });
    }
    return;
  }
  const sv = s.value(concept as ServiceConcept);
  if (concept === 'capture') {
    const pc = providerCapture(located);
    if (pc.meaning === null || !sv) return;
    const v = sv.value === true || normText(sv.value) === 'true';
    if (v !== pc.meaning) {
      g.add({ code: 'CAPTURE_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'ERROR', message: `capture differs: service ${v}${sv.defaulted ? ' (default)' : ''}, provider ${loc.path} ${pc.value}${p === undefined ? ' (provider default)' : ''}`, service_path: sv.path, provider: loc, expected: pc.meaning, actual: v, suggested_fix: `Set ${sv.path} to ${pc.meaning ? 'true (authorize and capture)' : 'false (authorize only)'}.` });
    }
    return;
  }
  if (p === undefined || p === null || p === '') {
    return; // nothing at the provider to compare with (see checkNotSent)
  }
  if (!sv || (sv.defaulted && concept !== 'installments')) {
    g.add({
      code: 'MISSING_FIELD', category: 'MISSING_FIELD', severity: field?.required ? 'ERROR' : 'WARNING',
      message: `the provider ${loc.leg.toLowerCase()} carries ${concept} at ${loc.path} but the service request has no ${SERVICE_PATHS[concept as ServiceConcept][0]}`,
      service_path: SERVICE_PATHS[concept as ServiceConcept][0], provider: loc, expected: p, actual: null,
      suggested_fix: `Add ${SERVICE_PATHS[concept as ServiceConcept][0]} to the payment request.`,
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
      const exponent = located.exponent ?? currencyExponent(s.currency);
      const factor = 10 ** exponent;
      const unit = amountUnit(ctx, located);
      const expected = unit === 'minor' ? Math.round(sn * factor) : unit === 'major' ? sn : null;
      // Without a known unit either reading may hold; with one, only that reading does.
      const consistent = expected !== null ? nearlyEqual(pn, expected) : nearlyEqual(pn, sn) || pn === Math.round(sn * factor);
      if (consistent) return;
      const providerMajor = unit === 'minor' ? pn / factor : pn;
      // Agrees under the other unit: the service sent minor units, or the provider got them.
      const unitSlip = factor > 1 && (nearlyEqual(Math.round(pn * factor), sn) || (unit === 'minor' && nearlyEqual(pn, sn)) || (unit === 'major' && nearlyEqual(pn, Math.round(sn * factor))));
      const shown = providerMajor.toFixed(Math.min(4, exponent));
      g.add(unitSlip
        ? { code: 'AMOUNT_UNIT_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'ERROR', message: `amount ${sn} ${s.currency} agrees with the provider ${loc.leg.toLowerCase()} (${pn}${unit ? `, ${unit} units` : ''}) only under the other unit: the service amount looks like minor units`, ...base, expected: providerMajor, actual: sn, suggested_fix: `Send amount.value in major units with up to 4 decimals (e.g. ${shown}), not in cents.` }
        : { code: 'AMOUNT_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'ERROR', message: `amount differs: service ${sn} ${s.currency}, provider ${loc.leg.toLowerCase()} ${pn}${unit ? ` (${unit} units, ${shown} ${s.currency})` : ''}`, ...base, expected: providerMajor, actual: sn, suggested_fix: 'Send the same amount as the provider call (service amounts are in major units).' });
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
    case 'installments':
      if (asNumber(v) !== asNumber(p)) g.add({ code: 'INSTALLMENTS_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'ERROR', message: `installments differ: service ${v}${sv.defaulted ? ' (default)' : ''}, provider ${p}`, ...base, expected: asNumber(p) ?? p, actual: v, suggested_fix: `Set ${sv.path} to ${p}.` });
      return;
    case 'card_number': {
      const sp = s.pan;
      const pp = panParts(p);
      if (!sp) return;
      if (!pp) {
        const last4 = lastFourOf(p) ?? String(p).slice(-4);
        if (last4 !== sp.last4) g.add({ code: 'CARD_LAST4_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'ERROR', message: `the provider request carries a different card (****${last4})`, ...base, expected: String(p), actual: v, suggested_fix: 'Send the same card as the provider call.' });
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
    case 'merchant_reference': {
      // merchant_order_id and merchant_reference both name the order: either may be the one sent.
      const candidates = SERVICE_PATHS.merchant_reference.map((path) => ({ path, value: getPath(s.request, path) })).filter((c) => typeof c.value === 'string' || typeof c.value === 'number');
      if (candidates.some((c) => String(c.value).trim() === String(p).trim())) return;
      const nearest = candidates.find((c) => nearMatch(String(c.value), String(p)));
      const target = nearest ?? { path: sv.path, value: v };
      g.add({ code: 'REFERENCE_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'WARNING', message: `order reference differs${nearest ? ' by a typo or transposed characters' : ''}: service ${target.value}, provider ${p}`, service_path: target.path, provider: loc, expected: p, actual: target.value, suggested_fix: `Set ${target.path} to the reference sent to the provider (or fix the reference sent to the provider).` });
      return;
    }
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

const digits = (value: unknown) => String(value).replace(/\D/g, '');

/** Digits of a value when it holds at least 4 (the shortest worth matching), else null; cheap on the common short strings. */
function digitsWorthMatching(value: string | number): string | null {
  if (typeof value === 'number') {
    const d = Number.isSafeInteger(value) ? String(Math.abs(value)) : digits(value);
    return d.length >= 4 ? d : null;
  }
  let count = 0;
  for (let i = 0; i < value.length && count < 4; i++) {
    const c = value.charCodeAt(i);
    if (c >= 48 && c <= 57) count++;
  }
  return count >= 4 ? digits(value) : null;
}

/** normaliseDate for strings that may be dates (they start with a digit, possibly after spaces). */
function dateOfLeaf(value: string | number): string | null {
  if (typeof value !== 'string') return null;
  const first = value.trimStart().charCodeAt(0);
  return first >= 48 && first <= 57 ? normaliseDate(value) : null;
}

interface TextIndex {
  byText: Map<string, Leaf>;
  byDigits: Map<string, Leaf>;
  /** By `date:YYYY-MM-DD` for values that read as dates. */
  byDate: Map<string, Leaf>;
}

const TEXT_CACHE = new WeakMap<object, TextIndex>();

/** A body's scalar values by normalised text, by digits and by date, first occurrence kept: one pass per body. */
function textIndex(value: unknown): TextIndex {
  const cached = value && typeof value === 'object' ? TEXT_CACHE.get(value) : undefined;
  if (cached) return cached;
  const index: TextIndex = { byText: new Map(), byDigits: new Map(), byDate: new Map() };
  for (const leaf of cachedLeaves(value).leaves) {
    const v = leaf.value;
    if (typeof v !== 'string' && typeof v !== 'number') continue;
    const text = typeof v === 'number' ? String(v) : normText(v);
    if (!index.byText.has(text)) index.byText.set(text, leaf);
    const d = digitsWorthMatching(v);
    if (d && !index.byDigits.has(d)) index.byDigits.set(d, leaf);
    const date = dateOfLeaf(v);
    if (date && !index.byDate.has(`date:${date}`)) index.byDate.set(`date:${date}`, leaf);
  }
  if (value && typeof value === 'object') TEXT_CACHE.set(value, index);
  return index;
}

/**
 * Request values that reach the provider nowhere: the merchant reference and customer data
 * the service request carries, absent from the provider request. With a profile: where the
 * profile maps the concept; generic mode: anywhere in the request (then a near match, e.g.
 * a typo or transposed digits, is reported as a mismatch).
 */
function checkNotSent(ctx: Context, request: LegBody, located: Map<Concept, Located>): void {
  const { g, s, profile } = ctx;
  let leaves: Leaf[] | null = null;
  for (const concept of ['merchant_reference', 'email', 'document_number'] as const) {
    const sv = s.value(concept);
    if (!sv || sv.defaulted) continue;
    const loc = located.get(concept);
    if (loc && loc.value !== undefined && loc.value !== null && loc.value !== '') continue;
    if (profile && !loc) continue; // the profile does not map it: the provider does not take it
    const location = { leg: request.leg, event_index: request.index, path: loc?.location.path ?? '' };
    // The exact value anywhere in the request reached the provider (a profile may not know every
    // place a merchant puts it, e.g. its own metadata key); a near match is a typo.
    leaves ??= cachedLeaves(request.value).leaves;
    const candidates = concept === 'merchant_reference'
      ? SERVICE_PATHS.merchant_reference.map((path) => ({ path, value: getPath(s.request, path) })).filter((c) => typeof c.value === 'string' || typeof c.value === 'number')
      : [{ path: sv.path, value: sv.value }];
    const index = textIndex(request.value);
    const same = candidates.map((c) => (concept === 'document_number' ? (digits(c.value).length >= 4 ? index.byDigits.get(digits(c.value)) : undefined) : index.byText.get(normText(c.value)))).find((l) => l);
    if (same) {
      g.mapping.push({ concept, service_path: sv.path, provider: { ...location, path: same.path }, transform: 'identity', source: 'value' });
      continue;
    }
    if (concept === 'merchant_reference') {
      let near: { leaf: Leaf; candidate: { path: string; value: unknown } } | null = null;
      for (const candidate of candidates) {
        const leaf = leaves.find((l) => typeof l.value === 'string' && nearMatch(String(candidate.value), l.value));
        if (leaf) { near = { leaf, candidate }; break; }
      }
      if (near) {
        g.add({ code: 'REFERENCE_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'WARNING', message: `order reference differs by a typo or transposed characters: service ${near.candidate.value}, provider ${near.leaf.value}`, service_path: near.candidate.path, provider: { ...location, path: near.leaf.path }, expected: near.leaf.value, actual: near.candidate.value, suggested_fix: `Set ${near.candidate.path} to the reference sent to the provider (or fix the reference sent to the provider).` });
        continue;
      }
    }
    const what = concept === 'merchant_reference' ? 'order reference' : concept === 'email' ? 'customer e-mail' : 'customer document';
    g.add({ code: concept === 'merchant_reference' ? 'REFERENCE_NOT_SENT' : 'CUSTOMER_DATA_NOT_SENT', category: 'MISSING_FIELD', severity: 'WARNING', message: `the service request's ${what} (${sv.path}) reaches the provider nowhere${loc ? `: ${loc.location.path} is absent` : ''}`, service_path: sv.path, provider: location, expected: null, actual: sv.value, suggested_fix: `Send the ${what} to the provider${loc ? ` in ${loc.location.path}` : ''}, or leave ${sv.path} out of the service request if the provider call does not carry it.` });
  }
}

function metadataMap(value: unknown): Map<string, string> | null {
  const out = new Map<string, string>();
  const pair = (entry: unknown) => {
    const key = (entry as { key?: unknown })?.key ?? (entry as { name?: unknown })?.name;
    if (typeof key === 'string') out.set(key, String((entry as { value?: unknown }).value ?? ''));
  };
  if (Array.isArray(value)) {
    value.forEach(pair);
    return out;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    // { userField: [{name, value}, ...] } or a single {name, value} (XML with one element)
    if (entries.length === 1 && entries[0][1] && typeof entries[0][1] === 'object') {
      const inner = entries[0][1];
      if (Array.isArray(inner) || ('name' in (inner as object) && 'value' in (inner as object))) return metadataMap(Array.isArray(inner) ? inner : [inner]);
    }
    if ('name' in (value as object) && 'value' in (value as object) && entries.length === 2) {
      pair(value);
      return out;
    }
    for (const [k, v] of entries) out.set(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
    return out;
  }
  return null;
}

const METADATA_PRIORITY = ['metadata', 'merchantmetadata', 'meta', 'customfields', 'userfields', 'merchantdefinedfields', 'udf', 'extra', 'additionaldata'];

/**
 * Merchant metadata must reach the provider: a service metadata entry missing from the
 * provider request (or sent with another value) is a finding. Provider-side extras are not:
 * they are listed as information (keys a profile maps to a concept or ignores excepted).
 */
function checkMetadata(ctx: Context, request: LegBody, located: Map<Concept, Located>): void {
  const { g, s, profile } = ctx;
  let found: { path: string; value: unknown } | null = null;
  if (profile?.metadata) {
    const value = getPath(request.value, profile.metadata.path);
    found = value === undefined ? null : { path: profile.metadata.path, value };
  } else if (!profile) {
    for (const key of METADATA_PRIORITY) {
      found = findObjectByKey(request.value, new Set([key]));
      if (found) break;
    }

  }
  const providerMeta = found ? metadataMap(found.value) : null;
  const serviceMeta = metadataMap(getPath(s.request, SERVICE_METADATA_PATH)) ?? new Map<string, string>();
  if (profile && !profile.metadata) return;
  let leaves: Leaf[] | null = null;
  for (const [key, value] of serviceMeta) {
    const at = providerMeta?.get(key);
    if (at !== undefined) {
      if (at !== value) g.add({ code: 'METADATA_VALUE_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'WARNING', message: `metadata ${key} differs: service ${value}, provider ${at}`, service_path: SERVICE_METADATA_PATH, provider: { leg: request.leg, event_index: request.index, path: `${found!.path}.${key}` }, expected: at, actual: value, suggested_fix: `Send metadata ${key} with the value sent to the provider.` });
      continue;
    }
    if (!profile) {
      leaves ??= cachedLeaves(request.value).leaves;
      const hit = leaves.find((l) => normKey(l.key) === normKey(key) && normText(l.value) === normText(value));
      if (hit) continue;
    }
    g.add({ code: 'UNMAPPED_METADATA', category: 'UNMAPPED_METADATA', severity: 'WARNING', message: `service metadata ${key} never reached the provider`, service_path: SERVICE_METADATA_PATH, provider: { leg: request.leg, event_index: request.index, path: found?.path ?? profile?.metadata?.path ?? '' }, expected: { key, value }, actual: null, suggested_fix: `Send metadata ${key} to the provider, or leave it out of the service request.` });
  }
  if (!providerMeta || !found) return;
  const mappedPaths = new Set([...located.values()].filter((l) => l.value !== undefined).map((l) => l.location.path));
  const conceptValues = new Set([...located.values()].filter((l) => l.value !== undefined && l.value !== null).map((l) => normText(l.value)));
  for (const [key, value] of providerMeta) {
    if (serviceMeta.has(key)) continue;
    const path = `${found.path}.${key}`;
    if (mappedPaths.has(path) || profile?.metadata?.ignore?.includes(key)) continue;
    const carriesConcept = !profile && (conceptValues.has(normText(value)) || ['merchant_reference', 'email', 'document_number'].some((c) => normText(s.value(c as ServiceConcept)?.value ?? '\u0000') === normText(value)));
    g.add({ code: 'UNMAPPED_METADATA', category: 'UNMAPPED_METADATA', severity: 'INFO', message: `provider metadata ${key} has no entry in the service request's metadata${carriesConcept ? ' (it carries a value the request has elsewhere)' : ''}`, service_path: SERVICE_METADATA_PATH, provider: { leg: request.leg, event_index: request.index, path }, expected: { key, value }, actual: null, suggested_fix: `Nothing required (provider-side extras need no service metadata); add {"key": "${key}", "value": ...} to metadata to keep it with the payment.` });
  }
}

interface Signal {
  path: string;
  value: unknown;
  cls: StatusClass;
}

function vocabularyClass(value: unknown, vocab: { approved: string[]; declined: string[]; pending: string[]; cancelled?: string[] }): StatusClass | null {
  const v = String(value).toUpperCase();
  const has = (list: string[] | undefined) => list?.some((x) => x.toUpperCase() === v) ?? false;
  return has(vocab.declined) ? 'DECLINED' : has(vocab.approved) ? 'APPROVED' : has(vocab.pending) ? 'PENDING' : has(vocab.cancelled) ? 'CANCELLED' : null;
}

/** What a leg says about the outcome, most telling first: status fields, success flags, event types. */
function signalsOf(body: LegBody, profile: MappingProfile | null): Signal[] {
  const out: Signal[] = [];
  if (profile?.status || profile?.event_types) {
    const raw = profile.status?.paths[body.leg];
    const paths = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    for (const path of paths) {
      const value = getPath(body.value, path);
      if (value === undefined || value === null) continue;
      const cls = vocabularyClass(value, profile.status!) ?? classifyStatus(path.split('.').pop()!, value, 'status');
      if (cls) out.push({ path, value, cls });
    }
    if (body.leg === 'WEBHOOK' && profile.event_types) {
      const value = getPath(body.value, profile.event_types.path);
      const cls = value === undefined || value === null ? null : vocabularyClass(value, profile.event_types) ?? classifyStatus(profile.event_types.path, value, 'event');
      if (cls) out.push({ path: profile.event_types.path, value, cls });
    }
  }
  // The shared vocabulary completes a profile: a variant of the provider's answer (another
  // status field, a success flag) still says what it says.
  const seen = new Set(out.map((x) => x.path));
  const ranked: Array<Signal & { rank: number }> = [];
  for (const leaf of cachedLeaves(body.value).leaves) {
    const k = normKey(leaf.key);
    const kind = STATUS_KEYS.has(k) ? 'status' : FLAG_KEYS.has(k) ? 'flag' : EVENT_KEYS.has(k) ? 'event' : null;
    if (!kind) continue;
    const cls = classifyStatus(leaf.key, leaf.value, kind);
    if (cls) ranked.push({ path: leaf.path, value: leaf.value, cls, rank: (kind === 'status' ? 0 : kind === 'flag' ? 100 : 200) + leaf.depth });
  }
  return [...out, ...ranked.sort((a, b) => a.rank - b.rank).filter((x) => !seen.has(x.path)).map(({ rank: _rank, ...rest }) => rest)];
}

function legClass(signals: Signal[]): Signal | null {
  for (const cls of ['DECLINED', 'CANCELLED', 'APPROVED', 'PENDING'] as const) {
    const hit = signals.find((x) => x.cls === cls);
    if (hit) return hit;
  }
  return null;
}

/** An error field that says something: not null, false, "" or an empty list / object. */
function carriesError(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.values(value as object).some(carriesError);
  return true;
}

function providerErrorOf(body: LegBody, profile: MappingProfile | null): { path: string; value: unknown } | null {
  for (const path of profile?.error_paths?.[body.leg] ?? []) {
    const value = getPath(body.value, path);
    if (carriesError(value)) return { path, value };
  }
  const found = findObjectByKey(body.value, ERROR_KEYS);
  return found && carriesError(found.value) ? found : null;
}

function checkProviderOutcome(ctx: Context, legs: Legs): void {
  const { g, profile } = ctx;
  const response = legs.response;
  let responseStatus: Signal | null = null;
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
    const signals = signalsOf(response, profile);
    responseStatus = legClass(signals);
    // Every field that says so (a status, a result code, a flag), so the report points at each.
    for (const st of signals.filter((x) => x.cls === 'DECLINED').slice(0, 3)) {
      g.add({ code: 'PROVIDER_DECLINED', category: 'PROVIDER_ERROR', severity: 'WARNING', message: `the provider declined the payment (${st.path} ${st.value})${status < 400 ? ` inside an HTTP ${status} answer` : ''}`, service_path: null, provider: { leg: 'RESPONSE', event_index: response.index, path: st.path }, expected: 'an approved payment', actual: st.value, suggested_fix: 'Use an exchange where the provider approved, unless a decline is what you are testing.' });
    }
  }
  const classified = legs.webhooks.map((w) => { const signals = signalsOf(w, profile); return { w, signals, st: legClass(signals) }; }).filter((x) => x.st);
  const final = classified.pop();
  if (response && final) {
    const rs = responseStatus;
    const ws = final.st!;
    if (rs && rs.cls !== ws.cls && rs.cls !== 'PENDING' && ws.cls !== 'PENDING') {
      for (const st of final.signals.filter((x) => x.cls === ws.cls).slice(0, 3)) {
        g.add({ code: 'RESPONSE_WEBHOOK_STATUS_DISAGREEMENT', category: 'LEG_DISAGREEMENT', severity: 'ERROR', message: `the response says ${rs.value} (${rs.path}) but the webhook says ${st.value} (${st.path})`, service_path: null, provider: { leg: 'WEBHOOK', event_index: final.w.index, path: st.path }, expected: rs.value, actual: st.value, suggested_fix: 'Check the provider integration: the webhook must confirm the synchronous outcome (or register the exchange that explains the change, e.g. a later CANCEL).' });
      }
    }
    const rc = locateConcepts(response, profile);
    const wc = locateConcepts(final.w, profile);
    for (const concept of ['amount', 'currency', 'card_last4'] as const) {
      const a = rc.get(concept)?.value;
      const b = wc.get(concept)?.value;
      if (a === undefined || a === null || b === undefined || b === null) continue;
      const same = concept === 'amount' ? asNumber(a) !== null && asNumber(a) === asNumber(b) : concept === 'card_last4' ? lastFourOf(a) === lastFourOf(b) : normText(a) === normText(b);
      if (!same) {
        g.add({ code: 'RESPONSE_WEBHOOK_VALUE_DISAGREEMENT', category: 'LEG_DISAGREEMENT', severity: 'ERROR', message: `${concept} differs between the response (${a}) and the webhook (${b})`, service_path: null, provider: wc.get(concept)!.location, expected: a, actual: b, suggested_fix: 'Check that the webhook belongs to this payment; register the matching webhook.' });
      }
    }
  }
}

function checkOperationType(g: Grader, s: ServiceFacts, request: LegBody | undefined, severity: Severity): void {
  const capture = s.value('capture');
  if (!request || !capture || typeof capture.value !== 'boolean') return;
  const op = request.event.operation_type;
  const wrong = (capture.value && op === 'AUTHORIZE') || (!capture.value && op === 'PURCHASE');
  if (wrong) {
    g.add({ code: 'CAPTURE_OPERATION_MISMATCH', category: 'VALUE_INCONSISTENCY', severity, message: `${capture.path} is ${capture.value}${capture.defaulted ? ' (default)' : ''} but the provider request is registered as a ${op}${severity === 'INFO' ? ' (the provider payload agrees with the service request: only the registered operation_type differs)' : ''}`, service_path: capture.path, provider: { leg: 'REQUEST', event_index: request.index, path: 'operation_type' }, expected: op === 'AUTHORIZE' ? false : true, actual: capture.value, suggested_fix: op === 'AUTHORIZE' ? `Set ${capture.path} to false to authorize only.` : `Set ${capture.path} to true to authorize and capture.` });
  }
}

/** Generic mode, no capture field in the provider request: card APIs authorize and capture unless told otherwise. */
function checkCaptureDefault(ctx: Context, request: LegBody, located: Map<Concept, Located>): void {
  if (ctx.profile || located.has('capture')) return;
  const sv = ctx.s.value('capture');
  if (!sv || sv.value !== false) return;
  if (/auth/i.test(request.event.endpoint ?? '')) return; // an authorization endpoint says it
  ctx.g.add({ code: 'CAPTURE_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'WARNING', message: `${sv.path} is false but the provider request carries no capture flag: the provider's default is to capture`, service_path: sv.path, provider: { leg: 'REQUEST', event_index: request.index, path: '' }, expected: true, actual: false, suggested_fix: 'Ask the provider for an authorization only (its manual-capture flag), or set capture to true.' });
}

function serviceFacts(serviceRequest: Record<string, unknown>): ServiceFacts {
  const currencyFact = firstServiceValue(serviceRequest, SERVICE_PATHS.currency);
  const cardFact = firstServiceValue(serviceRequest, SERVICE_PATHS.card_number);
  const pan = cardFact ? panParts(cardFact.value) : null;
  const declared = firstServiceValue(serviceRequest, SERVICE_PATHS.card_brand);
  const iinBrand = pan ? brandOf(pan.bin) : null;
  const brand = declared && typeof declared.value === 'string'
    ? { value: normBrand(declared.value) ?? declared.value.toUpperCase(), path: declared.path, declared: true }
    : iinBrand && cardFact ? { value: iinBrand, path: cardFact.path, declared: false } : null;
  return {
    request: serviceRequest,
    currency: typeof currencyFact?.value === 'string' ? currencyFact.value.toUpperCase() : null,
    pan,
    brand,
    value: (concept) => {
      const found = firstServiceValue(serviceRequest, SERVICE_PATHS[concept]);
      if (found) return found;
      const fallback = SERVICE_DEFAULTS[concept];
      return fallback ? { ...fallback, defaulted: true } : null;
    },
  };
}

/**
 * The key names of the bodies' objects down to 8 levels, normalised (what payload markers are
 * matched against): the key index the other lookups use already holds them.
 */
function keyNamesOf(bodies: Array<LegBody | undefined>): Set<string> {
  const names = new Set<string>();
  for (const body of bodies) {
    if (body?.value && typeof body.value === 'object') for (const key of keyIndexOf(body.value).names) names.add(key);
  }
  return names;
}

export function runPipeline(input: PipelineInput): ValidationReport {
  const g = new Grader();
  const { serviceRequest, profile } = input;
  const s = serviceFacts(serviceRequest);
  const legs = selectLegs(input.events, profile);
  const provider = knownProvider(input.providerId ?? profile?.provider_id, legs.request?.event.base_url, keyNamesOf([legs.request, legs.response]));
  const ctx: Context = { g, s, profile, provider, decimalAmounts: false };
  if (!profile) {
    // Any amount written as a decimal (the payment's or a fee, a net or an item price) says the exchange's unit.
    ctx.decimalAmounts = [legs.request, legs.response, ...legs.webhooks].some((body) => body?.value !== undefined
      && cachedLeaves(body.value).leaves.some((l) => (conceptOfKey(l.key, l.parent) === 'amount' || isAmountName(l.key)) && isDecimal(l.value)));
  }
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

  const cardOnly = new Set<Concept>(['card_last4', 'card_brand', 'card_bin', 'card_number']);
  const answerConcepts = new Set<Concept>(['card_last4', 'card_brand', 'card_bin', 'amount', 'currency']);
  let brandSeen = false;
  let payloadSaysCapture = false;
  const bodies: Array<[LegBody | undefined, 'main' | 'auxiliary']> = [[legs.request, 'main'], [legs.response, 'main'], ...legs.webhooks.map((w) => [w, 'main'] as [LegBody, 'main']), ...legs.auxiliary.map((a) => [a, 'auxiliary'] as [LegBody, 'auxiliary'])];
  for (const [body, role] of bodies) {
    if (!body || body.value === undefined) continue;
    const located = locateConcepts(body, profile);
    for (const [concept, loc] of located) {
      // Answers are compared for what they add (card, amounts); request fields do the rest; other calls for the card.
      if (role === 'auxiliary' ? !cardOnly.has(concept) : body.leg !== 'REQUEST' && !answerConcepts.has(concept)) continue;
      if (concept === 'card_brand' && loc.value !== undefined && loc.value !== null) brandSeen = true;
      if (loc.value !== undefined) {
        const sv = concept in SERVICE_PATHS ? s.value(concept as ServiceConcept) : null;
        g.mapping.push({ concept, service_path: sv?.path ?? null, provider: loc.location, transform: loc.source === 'key' ? transformBetween(sv?.value, loc.value, s.currency) : loc.transform, source: loc.source });
      }
      compareConcept(ctx, concept, loc);
    }
    if (body === legs.request) {
      if (!profile) {
        const keyed = new Set(g.mapping.map((m) => `${m.provider.event_index}:${m.provider.path}`));
        for (const match of inferByValue(serviceRequest, body, s.currency)) {
          if (keyed.has(`${match.location.event_index}:${match.location.path}`)) continue;
          g.mapping.push({ concept: null, service_path: match.servicePath, provider: match.location, transform: match.transform, source: 'value' });
        }
      }
      checkNotSent(ctx, body, located);
      checkMetadata(ctx, body, located);
      checkCaptureDefault(ctx, body, located);
      const capture = located.get('capture');
      payloadSaysCapture = !!capture && providerCapture(capture).meaning !== null;
    }
  }
  // A declared brand the card's own IIN contradicts, when no provider leg reports a brand.
  if (!brandSeen && s.brand?.declared && s.pan) {
    const iin = brandOf(s.pan.bin);
    if (iin && iin !== s.brand.value) g.add({ code: 'CARD_BRAND_MISMATCH', category: 'VALUE_INCONSISTENCY', severity: 'ERROR', message: `the declared card brand ${s.brand.value} contradicts the card's IIN (${iin})`, service_path: s.brand.path, provider: null, expected: iin, actual: s.brand.value, suggested_fix: `Set ${s.brand.path} to ${iin} or leave it out.` });
  }
  // The provider payload says whether it captures; the registered operation_type decides only
  // when the payload is silent (otherwise a label that disagrees is information).
  checkOperationType(g, s, legs.request, payloadSaysCapture ? 'INFO' : 'ERROR');
  checkProviderOutcome(ctx, legs);

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
