/**
 * Describes in plain words the value a codec expects ("an array of 1 to 10 {type, ...}
 * objects", "a UUID or null"), for decode failures that carry no message of their own.
 * Codec names (DryRunEvents, Metadata...) are internal and never reach a message: the
 * description is read off the JSON Schema the codec documents, so it says what the OpenAPI
 * document says.
 */
import type * as t from 'io-ts';
import { JsonSchema, SchemaRegistry } from './json-schema';

/** Objects with more properties than this are listed by their required ones. */
const MAX_LISTED_PROPERTIES = 5;

const cache = new WeakMap<t.Any, string>();

/** "an array of 1 to 10 {key, value} objects": the noun phrase for what `codec` accepts. */
export function describeExpected(codec: t.Any): string {
  let text = cache.get(codec);
  if (text === undefined) {
    text = phrase(new SchemaRegistry().schemaOf(codec), false);
    cache.set(codec, text);
  }
  return text;
}

function range(min: unknown, max: unknown, unit: string): string {
  const lo = typeof min === 'number' ? min : undefined;
  const hi = typeof max === 'number' ? max : undefined;
  if (lo !== undefined && hi !== undefined) return lo === hi ? ` of exactly ${lo} ${unit}` : ` of ${lo} to ${hi} ${unit}`;
  if (hi !== undefined) return ` of at most ${hi} ${unit}`;
  if (lo !== undefined && lo > 0) return ` of at least ${lo} ${unit}`;
  return '';
}

function count(min: unknown, max: unknown): string {
  const lo = typeof min === 'number' ? min : 0;
  const hi = typeof max === 'number' ? max : undefined;
  if (hi === undefined) return lo > 0 ? `at least ${lo} ` : '';
  if (lo === hi) return `exactly ${lo} `;
  return lo > 0 ? `${lo} to ${hi} ` : `up to ${hi} `;
}

function bounds(s: JsonSchema): string {
  const min = s.minimum ?? s.exclusiveMinimum;
  const max = s.maximum ?? s.exclusiveMaximum;
  if (typeof min === 'number' && typeof max === 'number') return ` between ${min} and ${max}`;
  if (typeof s.exclusiveMinimum === 'number') return ` greater than ${s.exclusiveMinimum}`;
  if (typeof s.minimum === 'number') return ` of at least ${s.minimum}`;
  if (typeof max === 'number') return ` of at most ${max}`;
  return '';
}

function objectKeys(s: JsonSchema): string {
  const properties = Object.keys((s.properties as Record<string, unknown> | undefined) ?? {});
  if (properties.length === 0) return '';
  if (properties.length <= MAX_LISTED_PROPERTIES) return `{${properties.join(', ')}}`;
  const required = ((s.required as string[] | undefined) ?? []).slice(0, MAX_LISTED_PROPERTIES);
  return required.length ? `{${required.join(', ')}, ...}` : '';
}

/** Singular ("a UUID") or plural ("UUIDs") noun phrase for a schema. */
function phrase(s: JsonSchema, plural: boolean): string {
  const a = (singular: string, many: string) => (plural ? many : singular);
  if (Array.isArray(s.anyOf)) {
    const members = (s.anyOf as JsonSchema[]).map((m) => phrase(m, plural));
    const unique = [...new Set(members)].sort((x, y) => Number(x === 'null') - Number(y === 'null'));
    return unique.join(' or ');
  }
  if (Array.isArray(s.allOf)) return a('an object', 'objects');
  if (Array.isArray(s.enum)) {
    const values = (s.enum as unknown[]).map((v) => (v === '' ? '""' : String(v))).join(', ');
    return a(`one of ${values}`, `values among ${values}`);
  }
  if ('const' in s) return JSON.stringify(s.const);
  switch (s.type) {
    case 'string': {
      if (s.format === 'uuid') return a('a UUID', 'UUIDs');
      if (s.format === 'date-time') return a('an ISO 8601 timestamp', 'ISO 8601 timestamps');
      if (s.format === 'date') return a('a date in YYYY-MM-DD form', 'dates in YYYY-MM-DD form');
      if (s.format === 'uri') return a('an absolute URL', 'absolute URLs');
      if (s.format === 'byte') return 'base64 text';
      return a('a string', 'strings') + range(s.minLength, s.maxLength, 'characters');
    }
    case 'integer':
      return a('an integer', 'integers') + bounds(s);
    case 'number':
      return a('a number', 'numbers') + bounds(s);
    case 'boolean':
      return a('true or false', 'booleans');
    case 'null':
      return 'null';
    case 'array': {
      const items = s.items ? phrase(s.items as JsonSchema, true) : 'values';
      return `${a('an array', 'arrays')} of ${count(s.minItems, s.maxItems)}${items}`;
    }
    case 'object': {
      const keys = objectKeys(s);
      return keys ? a(`a ${keys} object`, `${keys} objects`) : a('an object', 'objects');
    }
    default:
      return a('any JSON value', 'JSON values');
  }
}
