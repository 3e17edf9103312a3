/**
 * Decode failures speak the merchant's language: every codec exported by domain/ is fed
 * wrong values (at the top, in each property, one level down) and no message may name an
 * internal codec (DryRunEvents, Metadata, Array<...>...).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as t from 'io-ts';
import { JsonSchema, SchemaRegistry } from '../../domain/codecs/json-schema';
import { ApiError, decodeOrThrow } from '../../domain/errors';

const DOMAIN = path.resolve(__dirname, '../../domain');

function modules(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return modules(full);
    return entry.name.endsWith('.js') ? [full] : [];
  });
}

function exportedCodecs(): Array<[string, t.Any]> {
  const out: Array<[string, t.Any]> = [];
  for (const file of modules(DOMAIN)) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const exports = require(file) as Record<string, unknown>;
    for (const [name, value] of Object.entries(exports)) {
      if (value instanceof t.Type) out.push([`${path.relative(DOMAIN, file)}:${name}`, value as t.Any]);
    }
  }
  return out;
}

/** Every codec name reachable from `codec` (members, properties, refined bases). */
function names(codec: unknown, into = new Set<string>(), seen = new Set<unknown>()): Set<string> {
  if (!codec || typeof codec !== 'object' || seen.has(codec)) return into;
  seen.add(codec);
  const c = codec as { name?: string; types?: unknown[]; type?: unknown; props?: Record<string, unknown>; refinedFrom?: unknown; codomain?: unknown };
  if (typeof c.name === 'string') into.add(c.name);
  for (const member of c.types ?? []) names(member, into, seen);
  for (const prop of Object.values(c.props ?? {})) names(prop, into, seen);
  names(c.type, into, seen);
  names(c.refinedFrom, into, seen);
  names(c.codomain, into, seen);
  return into;
}

/** A value of the wrong type for a schema. */
function wrong(schema: JsonSchema): unknown {
  return schema.type === 'string' || (Array.isArray(schema.enum) && typeof schema.enum[0] === 'string') ? 12345 : 'not-this';
}

/** An object whose properties are all wrong, `depth` levels down into objects and arrays. */
function poisoned(schema: JsonSchema, depth: number): unknown {
  const members = Array.isArray(schema.anyOf) ? (schema.anyOf as JsonSchema[]) : [schema];
  const object = members.find((m) => m.type === 'object' && m.properties);
  const array = members.find((m) => m.type === 'array');
  if (depth > 0 && object) {
    return Object.fromEntries(Object.entries(object.properties as Record<string, JsonSchema>).map(([key, s]) => [key, poisoned(s, depth - 1)]));
  }
  if (depth > 0 && array?.items) return [poisoned(array.items as JsonSchema, depth - 1)];
  return wrong(schema);
}

function messagesOf(codec: t.Any, input: unknown): string[] {
  try {
    decodeOrThrow(codec, input);
    return [];
  } catch (error) {
    assert.ok(error instanceof ApiError);
    return error.messages;
  }
}

describe('decode messages name no internal codec (unit)', () => {
  const codecs = exportedCodecs();

  it('finds the codecs of every area', () => {
    assert.ok(codecs.length > 100, `${codecs.length} codecs`);
  });

  it('no failure message of any exported codec contains a codec name', () => {
    const offending: string[] = [];
    let checked = 0;
    for (const [where, codec] of codecs) {
      const internal = [...names(codec)].filter((n) => /^[A-Z]/.test(n) && /[a-z]/.test(n) || /[<>{}|(]/.test(n));
      const schema = new SchemaRegistry().schemaOf(codec);
      const inputs = [null, 42, 'text', true, [], {}, [42], { unknown: 1 }, poisoned(schema, 1), poisoned(schema, 2), poisoned(schema, 3)];
      for (const input of inputs) {
        for (const message of messagesOf(codec, input)) {
          checked++;
          const named = internal.filter((n) => message.includes(n));
          if (named.length || /\bmust be (undefined|[A-Z][a-z]+[A-Z])/.test(message)) offending.push(`${where} ${JSON.stringify(input).slice(0, 60)}: "${message}" names ${named.join(', ')}`);
        }
      }
    }
    assert.ok(checked > 1000, `${checked} messages checked`);
    assert.deepEqual(offending.slice(0, 20), []);
  });

  it('describes the expected shape instead', () => {
    const { DryRunRegistrationRequest } = require('../../domain/dry-run/codecs');
    const { PaymentCreateRequest } = require('../../domain/payments/codecs');
    assert.ok(messagesOf(DryRunRegistrationRequest, { merchant_reference: 'ref-1', events: 'x' }).includes('events must be an array of 1 to 10 {type, http_method, operation_type, headers, ...} objects'));
    assert.ok(messagesOf(PaymentCreateRequest, { metadata: 'x' }).includes('metadata must be an array of up to 50 {key, value} objects'));
    assert.ok(messagesOf(PaymentCreateRequest, { metadata: [1] }).includes('metadata.0 must be a {key, value} object'));
    assert.ok(messagesOf(PaymentCreateRequest, 'x').includes('the request body must be a {account_id, description, country, merchant_order_id, amount, ...} object'), messagesOf(PaymentCreateRequest, 'x').join());
  });
});
