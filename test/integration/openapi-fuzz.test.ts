/**
 * Property-based fuzz of the whole OpenAPI document: every operation gets hostile and odd
 * inputs (no or wrong credentials, bad path ids, wrong types, missing required fields, huge
 * strings, unknown enum values, broken JSON, wrong content types, unknown methods) on top of
 * a valid request generated from its schemas. Every answer must be documented (call()
 * checks it against the document) and none may be a 5xx.
 *
 * Deterministic: one seeded generator (FUZZ_SEED), a bounded number of cases per operation
 * and a time budget (FUZZ_BUDGET_MS), cases interleaved across operations so that a budget
 * cut still covers every operation. Loopback only: every URL it sends points at a closed
 * port of 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { createLogger } from '../../activities/runtime/logger';
import { startApi, type RunningApi } from '../../api/server';
import type { IssuedCredentials } from '../../domain/credentials';
import { call, getStack, newMerchant, type CallOptions } from '../support/stack';

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed);
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 60_000);
const CONCURRENCY = 6;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const LOOPBACK_URL = 'https://127.0.0.1:9/switchyard-fuzz';
const HUGE = 'x'.repeat(200_000);

type Schema = Record<string, any>;
type Rng = () => number;

interface Operation {
  method: string;
  template: string;
  op: Record<string, any>;
}

interface Case extends CallOptions {
  label: string;
  path: string;
}

/** mulberry32: small, fast, good enough to pick cases reproducibly. */
function seeded(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)];

function uuid(rng: Rng): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(rng() * 16).toString(16));
  hex[12] = '4';
  hex[16] = '89ab'[Math.floor(rng() * 4)];
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Values that satisfy the document's string patterns; the first that matches is used. */
const PATTERN_SAMPLES = [
  'US', 'USD', '4111111111111111', '123', '2030', '12', 'default-sandbox-1', LOOPBACK_URL, '+57', 'SANDBOX', '021000021',
  'GB82WEST12345698765432', '062-000', 'DEUTDEFF', '12-34-56', 'a'.repeat(64), '/switchyard-fuzz', '08:30', '12345678', 'fuzz-ref',
];

const FORMAT_SAMPLES: Record<string, (rng: Rng) => string> = {
  uuid,
  'date-time': () => '2030-01-01T00:00:00Z',
  date: () => '2030-01-01',
  email: () => 'fuzz@example.invalid',
  uri: () => LOOPBACK_URL,
  byte: () => Buffer.from('switchyard fuzz').toString('base64'),
};

/** The merchant a case speaks for, and the ids of what the valid requests created. */
interface Owner {
  merchant: IssuedCredentials;
  /** Path parameter name (payment_id, campaign_id...) -> the last id created for it. */
  created: Map<string, string>;
}

/** Values that get a valid case past ownership checks: the merchant's own, or ids it created. */
function ownValue(name: string, owner: Owner): string | undefined {
  if (name === 'account_id') return owner.merchant.account_id;
  if (name === 'organization_code') return owner.merchant.organization_code;
  return owner.created.get(name);
}

class Generator {
  constructor(
    private readonly doc: Record<string, any>,
    private readonly rng: Rng,
    private readonly owner: Owner,
  ) {}

  resolve(schema: Schema | undefined): Schema {
    let s = schema ?? {};
    while (s.$ref) s = s.$ref.split('/').slice(1).reduce((node: any, key: string) => node[key], this.doc);
    return s;
  }

  /** A value the schema accepts (as far as the keywords used by the document go). */
  valid(schema: Schema | undefined, name = '', depth = 0): unknown {
    const s = this.resolve(schema);
    if ('const' in s) return s.const;
    if (s.enum) return s.enum[0];
    if (s.example !== undefined) return s.example;
    if (s.default !== undefined) return s.default;
    const member = s.anyOf ?? s.oneOf;
    if (member) return this.valid(member.find((m: Schema) => this.resolve(m).type !== 'null') ?? member[0], name, depth);
    if (s.allOf) return Object.assign({}, ...s.allOf.map((m: Schema) => this.valid(m, name, depth)));
    const own = ownValue(name, this.owner);
    if (own && (s.type === 'string' || !s.type)) return own;
    switch (s.type ?? (s.properties ? 'object' : undefined)) {
      case 'object': {
        const out: Record<string, unknown> = {};
        if (depth > 6) return out;
        for (const key of s.required ?? []) out[key] = this.valid(s.properties?.[key], key, depth + 1);
        return out;
      }
      case 'array':
        return Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => this.valid(s.items, name, depth + 1));
      case 'string':
        return this.string(s);
      case 'integer':
      case 'number': {
        const low = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
        return s.maximum !== undefined ? Math.min(low, s.maximum) : low;
      }
      case 'boolean':
        return false;
      case 'null':
        return null;
      default:
        return 'switchyard-fuzz';
    }
  }

  private string(s: Schema): string {
    if (s.format && FORMAT_SAMPLES[s.format]) return FORMAT_SAMPLES[s.format](this.rng);
    const fits = (v: string) => v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? Infinity);
    if (s.pattern) {
      const pattern = new RegExp(s.pattern);
      return PATTERN_SAMPLES.find((v) => pattern.test(v) && fits(v)) ?? 'switchyard-fuzz';
    }
    const base = 'switchyard-fuzz';
    return base.padEnd(s.minLength ?? 0, 'z').slice(0, s.maxLength ?? base.length);
  }

  /** Every [path, schema] of an object value, nested ones included, for targeted mutations. */
  fields(schema: Schema | undefined, prefix: string[] = [], depth = 0, out: Array<[string[], Schema]> = []): Array<[string[], Schema]> {
    const s = this.resolve(schema);
    if (depth > 4 || !s.properties) return out;
    for (const [key, child] of Object.entries<Schema>(s.properties)) {
      const path = [...prefix, key];
      out.push([path, this.resolve(child)]);
      this.fields(child, path, depth + 1, out);
    }
    return out;
  }

  /** A value of another JSON type than the schema wants. */
  wrongType(schema: Schema): unknown {
    const candidates: unknown[] = [12345, -1.5, true, null, [], {}, 'switchyard-fuzz', [1, 'two', null], { nested: { deeper: [] } }];
    const type = schema.type;
    return pick(this.rng, candidates.filter((v) => jsonType(v) !== type && !(type === 'number' && jsonType(v) === 'integer')));
  }
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}

/** A copy of `body` with the value at `path` replaced (undefined removes it). */
function withValue(body: unknown, path: string[], value: unknown): unknown {
  const copy = structuredClone(body) as Record<string, any>;
  let node = copy;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key];
  }
  if (value === undefined) delete node[path[path.length - 1]];
  else node[path[path.length - 1]] = value;
  return copy;
}

const HOSTILE_IDS = ['not-a-uuid', '0', 'x'.repeat(3000), '%00', '..%2F..%2Fpackage.json', '%F0%9F%92%A5', "'%20OR%201%3D1--", '%E0%A4%A', 'null'];

function operationsOf(doc: Record<string, any>): Operation[] {
  const out: Operation[] = [];
  for (const [template, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const method of METHODS) if (item[method]) out.push({ method: method.toUpperCase(), template, op: item[method] });
  }
  return out;
}

/** The bounded list of cases of one operation. */
function casesOf(doc: Record<string, any>, { method, template, op }: Operation, owner: Owner, rng: Rng): Case[] {
  const { merchant } = owner;
  const gen = new Generator(doc, rng, owner);
  const parameters: Schema[] = op.parameters ?? [];
  const validParam = (p: Schema) => String(ownValue(p.name, owner) ?? gen.valid(p.schema, p.name));
  const pathWith = (override: Record<string, string> = {}) =>
    template.replace(/\{([^}]+)\}/g, (_, name: string) => override[name] ?? encodeURIComponent(validParam(parameters.find((p) => p.name === name) ?? {})));
  const query = (values: Record<string, string>) => {
    const entries = Object.entries(values);
    return entries.length ? `?${entries.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}` : '';
  };
  const validQuery: Record<string, string> = {};
  for (const p of parameters.filter((p) => p.in === 'query' && p.required)) validQuery[p.name] = validParam(p);
  // Required headers; a fresh idempotency key per case, so that no case replays another.
  const validHeaders = (): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const p of parameters.filter((p) => p.in === 'header' && p.required)) out[p.name] = p.name.toLowerCase() === 'x-idempotency-key' ? uuid(rng) : validParam(p);
    return out;
  };
  const schema = op.requestBody?.content?.['application/json']?.schema;
  const body = schema ? gen.valid(schema) : undefined;
  const base = (label: string, extra: Partial<Case> = {}): Case => ({
    label,
    method,
    path: `${pathWith()}${query(validQuery)}`,
    credentials: merchant,
    ...(body !== undefined ? { body } : {}),
    ...extra,
    headers: { ...validHeaders(), ...extra.headers },
  });
  const json = { 'content-type': 'application/json' };
  const cases: Case[] = [base('valid request')];
  if (method === 'GET') cases.push(base('HEAD', { method: 'HEAD' }));
  const secured = (op.security ?? []).some((s: object) => Object.keys(s).length > 0);
  if (secured) {
    cases.push(base('no credentials', { credentials: null }));
    cases.push(base('wrong credentials', { credentials: { public_api_key: `pk_${uuid(rng)}`, private_secret_key: `sk_${uuid(rng)}` } }));
    cases.push(base('garbage bearer token', { credentials: null, headers: { authorization: 'Bearer not.a.jwt' } }));
  }
  for (const p of parameters.filter((p) => p.in === 'path')) {
    for (const value of [uuid(rng), pick(rng, HOSTILE_IDS), pick(rng, HOSTILE_IDS)]) {
      cases.push(base(`path ${p.name}=${value.slice(0, 40)}`, { path: `${pathWith({ [p.name]: value })}${query(validQuery)}` }));
    }
  }
  for (const p of parameters.filter((p) => p.in === 'query')) {
    for (const value of ['-1', 'abc', '1e309', 'maybe', HUGE.slice(0, 5000), '']) {
      if (rng() < 0.5) cases.push(base(`query ${p.name}=${value.slice(0, 20)}`, { path: `${pathWith()}${query({ ...validQuery, [p.name]: value })}` }));
    }
  }
  for (const p of parameters.filter((p) => p.in === 'header')) {
    for (const value of ['not-a-uuid', 'k'.repeat(65), '']) cases.push(base(`header ${p.name}=${value.slice(0, 20)}`, { headers: { [p.name]: value } }));
  }
  if (!schema && method !== 'GET' && method !== 'DELETE') {
    // No body documented, but one sent is still read as JSON.
    cases.push(base('text/plain body', { rawBody: 'switchyard', headers: { 'content-type': 'text/plain' } }));
    cases.push(base('broken JSON body', { rawBody: '{"a":', headers: json }));
  }
  if (schema) {
    const fields = gen.fields(schema);
    cases.push(base('empty object body', { body: {} }));
    cases.push(base('array body', { body: [] }));
    cases.push(base('JSON string body', { body: undefined, rawBody: '"switchyard"', headers: json }));
    cases.push(base('broken JSON', { body: undefined, rawBody: '{"a":', headers: json }));
    cases.push(base('invalid UTF-8', { body: undefined, rawBody: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), headers: json }));
    cases.push(base('nested 100 levels', { body: undefined, rawBody: `${'['.repeat(100)}${']'.repeat(100)}`, headers: json }));
    cases.push(base('text/plain content type', { body: undefined, rawBody: JSON.stringify(body), headers: { 'content-type': 'text/plain' } }));
    cases.push(base('form content type', { body: undefined, rawBody: 'a=1&b=2', headers: { 'content-type': 'application/x-www-form-urlencoded' } }));
    cases.push(base('unknown Content-Encoding', { headers: { 'content-encoding': 'compress' } }));
    cases.push(base('gzip that is not gzip', { body: undefined, rawBody: '{"not":"gzip"}', headers: { ...json, 'content-encoding': 'gzip' } }));
    cases.push(base('__proto__ key', { body: undefined, rawBody: `{"__proto__":{"polluted":true}}`, headers: json }));
    cases.push(base('unknown properties', { body: { ...(body as object), unknown_field: HUGE.slice(0, 1000), $where: '1' } }));
    for (let i = 0; i < Math.min(4, fields.length); i++) {
      const [path, field] = pick(rng, fields);
      cases.push(base(`wrong type at ${path.join('.')}`, { body: withValue(body, path, gen.wrongType(field)) }));
    }
    const required = (gen.resolve(schema).required ?? []) as string[];
    if (required.length) {
      const missing = pick(rng, required);
      cases.push(base(`missing ${missing}`, { body: withValue(body, [missing], undefined) }));
      cases.push(base(`null ${missing}`, { body: withValue(body, [missing], null) }));
    }
    const strings = fields.filter(([, f]) => f.type === 'string');
    if (strings.length) {
      const [path] = pick(rng, strings);
      cases.push(base(`huge string at ${path.join('.')}`, { body: withValue(body, path, HUGE) }));
      const [other] = pick(rng, strings);
      cases.push(base(`control characters at ${other.join('.')}`, { body: withValue(body, other, '\u0000\u202e\ud800<script>') }));
    }
    const enums = fields.filter(([, f]) => f.enum);
    if (enums.length) {
      const [path] = pick(rng, enums);
      cases.push(base(`unknown enum value at ${path.join('.')}`, { body: withValue(body, path, 'NOT_A_DOCUMENTED_VALUE') }));
    }
    const numbers = fields.filter(([, f]) => f.type === 'number' || f.type === 'integer');
    if (numbers.length) {
      const [path] = pick(rng, numbers);
      for (const value of [-1, 0, 1e308, 0.123456789, 2 ** 53 + 1]) cases.push(base(`number ${value} at ${path.join('.')}`, { body: withValue(body, path, value) }));
    }
  }
  return cases;
}

/** Methods no operation of the path uses: 405 (OPTIONS 204), checked by call() too. */
function unknownMethodCases(doc: Record<string, any>, merchant: IssuedCredentials, rng: Rng): Case[] {
  const cases: Case[] = [];
  for (const [template, item] of Object.entries<Record<string, any>>(doc.paths)) {
    const path = template.replace(/\{[^}]+\}/g, () => uuid(rng));
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE', 'POST', 'OPTIONS'].filter((m) => !item[m.toLowerCase()])) {
      if (rng() < 0.5) continue; // half of them keeps the run short; the seed decides which
      cases.push({ label: `unknown method ${method}`, method, path, credentials: merchant, ...(method === 'OPTIONS' || method === 'GET' ? {} : { body: {} }) });
    }
  }
  return cases;
}

/** The path parameter that names what a POST on `template` creates (/v1/payments -> payment_id). */
function createdParam(doc: Record<string, any>, template: string): string | undefined {
  const child = Object.keys(doc.paths).find((p) => p.startsWith(`${template}/{`) && p.indexOf('/', template.length + 1) === -1);
  return child?.slice(template.length + 2, -1);
}

describe('OpenAPI fuzz: every operation, hostile inputs, answers only as documented', function () {
  this.timeout(BUDGET_MS + 60_000);
  let api: RunningApi;

  before(async () => {
    const stack = await getStack();
    // An API of its own without a practical rate limit: one merchant sends every case, so the
    // ids its valid requests create are its own (429 has tests of its own).
    const config = { ...stack.config, port: 0, rateLimit: { ...stack.config.rateLimit, points: 1_000_000 } };
    api = await startApi({ config, keyring: stack.keyring, db: stack.db, temporal: stack.temporal, logger: createLogger('silent') });
  });

  after(() => api?.close());

  it(`answers every case as the document says and never with a 5xx (seed ${SEED})`, async () => {
    const doc = (await call('/v1/openapi.json', {}, api.url)).body;
    const rng = seeded(SEED);
    const operations = operationsOf(doc);
    const owner: Owner = { merchant: await newMerchant('Fuzz merchant'), created: new Map() };
    const name = (i: number) => (operations[i] ? `${operations[i].method} ${operations[i].template}` : 'unknown methods');

    const deadline = Date.now() + BUDGET_MS;
    const failures: string[] = [];
    const covered = new Set<string>();
    const statuses = new Map<number, number>();
    let sent = 0;
    const send = async (operation: number, { label, path, ...options }: Case) => {
      sent++;
      covered.add(name(operation));
      try {
        const response = await call(path, options, api.url);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status >= 500) failures.push(`${name(operation)} [${label}]: ${response.status} ${response.text.slice(0, 300)}`);
        return response;
      } catch (error) {
        failures.push(`${name(operation)} [${label}]: ${(error as Error).message.slice(0, 1200)}`);
        return undefined;
      }
    };

    // Phase 1, in document order: one valid request per operation; what they create makes
    // the valid cases of later operations reach real resources.
    for (const [i, operation] of operations.entries()) {
      const response = await send(i, casesOf(doc, operation, owner, rng)[0]);
      const param = operation.method === 'POST' ? createdParam(doc, operation.template) : undefined;
      if (param && response && response.status < 300 && typeof response.body?.id === 'string') owner.created.set(param, response.body.id);
    }

    // Phase 2, concurrently: every case, round-robin across operations (case k of every
    // operation before case k + 1 of any), so that a budget cut still covers them all.
    const perOperation = operations.map((operation) => casesOf(doc, operation, owner, rng));
    perOperation.push(unknownMethodCases(doc, owner.merchant, rng));
    const withBody = operations.map((o, i) => [o, i] as const).filter(([o]) => o.op.requestBody);
    const [, tooLarge] = pick(rng, withBody);
    const valid = perOperation[tooLarge][0];
    perOperation[tooLarge].push({ ...valid, label: 'body past the 16 MiB limit', body: undefined, rawBody: `{"a":"${'x'.repeat(17 * 1024 * 1024)}"}`, headers: { ...valid.headers, 'content-type': 'application/json' } });
    const queue: Array<[number, Case]> = [];
    for (let k = 0; k < Math.max(...perOperation.map((c) => c.length)); k++) {
      perOperation.forEach((cases, i) => cases[k] && queue.push([i, cases[k]]));
    }
    const worker = async () => {
      while (queue.length && Date.now() < deadline) await send(...queue.shift()!);
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    const summary = `${sent} requests over ${covered.size} operations and paths (seed ${SEED}); statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}; ${queue.length} cases left at the time budget`;
    process.stdout.write(`      fuzz: ${summary}\n`);
    assert.deepEqual(failures.slice(0, 40), [], `${failures.length} failures; ${summary}`);
    assert.equal(covered.size, operations.length + 1, `every operation was sent at least one case; ${summary}`);
  });
});
