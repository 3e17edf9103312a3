/**
 * Building blocks for request and response codecs.
 *
 * One io-ts codec is at once the TypeScript type, the runtime validator and (through
 * `jsonSchemaOf` in ./json-schema) the OpenAPI schema. Codecs that carry constraints
 * (lengths, ranges, formats) attach them as `jsonSchema` so the document stays in step
 * with the validation.
 */
import * as t from 'io-ts';
import type { FieldError } from '../errors';
import { isIsoCountry, isIsoCurrency } from '../iso-codes';
import { currencyAmountProblem, isValidDecimal } from '../money';

/** Extra JSON-schema keywords carried by a codec (see json-schema.ts). */
export interface SchemaAnnotated {
  readonly jsonSchema?: Record<string, unknown>;
}

/** Attaches JSON-schema keywords (description, example, format...) to any codec. */
export function annotate<C extends t.Any>(codec: C, schema: Record<string, unknown>): C {
  const previous = (codec as SchemaAnnotated).jsonSchema ?? {};
  return Object.assign(Object.create(Object.getPrototypeOf(codec)), codec, {
    jsonSchema: { ...previous, ...schema },
  });
}

/** A codec built by `refine`, carrying a failure message and the schema of the constraint. */
export function refined<A>(
  name: string,
  base: t.Type<A, unknown, unknown>,
  check: (a: A) => boolean,
  message: string,
  jsonSchema: Record<string, unknown>,
): t.Type<A, A, unknown> & SchemaAnnotated {
  const codec = new t.Type<A, A, unknown>(
    name,
    (u): u is A => base.is(u) && check(u),
    (u, c) => {
      const decoded = base.validate(u, c);
      if (decoded._tag === 'Left') return decoded;
      return check(decoded.right) ? t.success(decoded.right) : t.failure(u, c, message);
    },
    (a) => a,
  );
  // `refinedFrom` lets the schema walker describe the base too (e.g. an array's items).
  return Object.assign(codec, { jsonSchema, refinedFrom: base });
}

/** A string codec that fails with a readable message when the value is not a string. */
const stringType = new t.Type<string, string, unknown>(
  'string',
  (u): u is string => typeof u === 'string',
  (u, c) => (typeof u === 'string' ? t.success(u) : t.failure(u, c, 'must be a string')),
  (a) => a,
);

export function boundedString(min: number, max: number, name = `string(${min}..${max})`) {
  return refined(
    name,
    stringType,
    (s) => s.length >= min && s.length <= max,
    `must be ${min} to ${max} characters long`,
    { type: 'string', minLength: min, maxLength: max },
  );
}

export function maxString(max: number, name = `string(..${max})`) {
  return boundedString(0, max, name);
}

export const NonEmptyString = boundedString(1, 1_000_000, 'NonEmptyString');

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UUID_V4_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export const Uuid = refined('Uuid', stringType, (s) => UUID_PATTERN.test(s), 'must be a UUID (36 characters)', {
  type: 'string',
  format: 'uuid',
  minLength: 36,
  maxLength: 36,
});

export const UuidV4 = refined('UuidV4', stringType, (s) => UUID_V4_PATTERN.test(s), 'must be a version 4 UUID', {
  type: 'string',
  format: 'uuid',
});

export function isUuid(s: string): boolean {
  return UUID_PATTERN.test(s);
}

/** ISO 3166-1 alpha-2, upper case, officially assigned (list from i18n-iso-countries). */
export const CountryCode = refined('CountryCode', stringType, isIsoCountry, 'must be an ISO 3166-1 alpha-2 country code in upper case (e.g. US, BR)', {
  type: 'string',
  pattern: '^[A-Z]{2}$',
  minLength: 2,
  maxLength: 2,
  description: 'ISO 3166-1 alpha-2, upper case; codes not assigned by ISO (ZZ, XX...) are refused',
});

/** ISO 4217 alphabetic currency code, upper case (list from currency-codes; no metals or test codes). */
export const CurrencyCode = refined('CurrencyCode', stringType, isIsoCurrency, 'must be an ISO 4217 currency code in upper case (e.g. USD, BRL)', {
  type: 'string',
  pattern: '^[A-Z]{3}$',
  minLength: 3,
  maxLength: 3,
  description: 'ISO 4217 alphabetic, upper case; unknown codes, precious metals, XTS and XXX are refused',
});

/** A JSON number with at most 4 decimal places (money is computed in 0.0001 minor units). */
export const DecimalAmount = refined(
  'DecimalAmount',
  new t.Type<number, number, unknown>(
    'number',
    (u): u is number => typeof u === 'number',
    (u, c) => (typeof u === 'number' && Number.isFinite(u) ? t.success(u) : t.failure(u, c, 'must be a number')),
    (a) => a,
  ),
  (n) => isValidDecimal(n),
  'must be a number with at most 4 decimal places',
  { type: 'number', multipleOf: 0.0001 },
);

export const PositiveDecimalAmount = refined(
  'PositiveDecimalAmount',
  DecimalAmount,
  (n) => n > 0,
  'must be greater than 0',
  { type: 'number', multipleOf: 0.0001, exclusiveMinimum: 0 },
);

/** The precision and maximum rule every money amount follows, for the OpenAPI descriptions. */
export const AMOUNT_PRECISION_RULE =
  'at most as many decimal places as the currency\'s ISO 4217 minor unit (USD 2, JPY 0, KWD 3, CLF 4) and at most 10^15 - 1 minor units ' +
  '(9999999999999.99 USD, 999999999999999 JPY); anything else answers 400 with the field path';

/**
 * A money amount {value, currency}: besides each field's own codec, the value must fit the
 * currency (ISO 4217 minor unit, documented maximum). The failure names `value`, so the
 * client reads e.g. `amount.value must have at most 2 decimal places for USD`.
 */
export function currencyAmount<V extends t.Type<number, number, unknown>>(name: string, value: V, currency: t.Type<string, string, unknown> = CurrencyCode) {
  const base = struct(name, { value, currency }, {});
  type A = t.TypeOf<typeof base>;
  const codec = new t.Type<A, A, unknown>(
    name,
    (u): u is A => base.is(u) && currencyAmountProblem(u.value, u.currency) === null,
    (u, c) => {
      // Validate as the plain struct so field paths read amount.value, not amount.0.value.
      const asBase = c.length ? [...c.slice(0, -1), { ...c[c.length - 1], type: base }] : c;
      const decoded = base.validate(u, asBase);
      if (decoded._tag === 'Left') return decoded;
      const problem = currencyAmountProblem(decoded.right.value, decoded.right.currency);
      if (problem === null) return decoded;
      return t.failure(decoded.right.value, [...c, { key: 'value', type: value, actual: decoded.right.value }], problem);
    },
    (a) => base.encode(a),
  );
  return Object.assign(codec, { jsonSchema: { description: `value: ${AMOUNT_PRECISION_RULE}` }, refinedFrom: base });
}

/**
 * Checks an amount given without its currency (a capture or refund of a payment, a tax) against
 * the currency it belongs to; the problem is reported on `field`.
 */
export function amountFieldProblems(field: string, value: number | undefined | null, currency: string): FieldError[] {
  if (value === undefined || value === null) return [];
  const problem = currencyAmountProblem(value, currency);
  return problem ? [{ field, code: 'INVALID', message: `${field} ${problem}` }] : [];
}

export function intRange(min: number, max: number, name = `integer(${min}..${max})`) {
  return refined(
    name,
    new t.Type<number, number, unknown>(
      'integer',
      (u): u is number => typeof u === 'number' && Number.isInteger(u),
      (u, c) => (typeof u === 'number' && Number.isInteger(u) ? t.success(u) : t.failure(u, c, 'must be an integer')),
      (a) => a,
    ),
    (n) => n >= min && n <= max,
    `must be between ${min} and ${max}`,
    { type: 'integer', minimum: min, maximum: max },
  );
}

export const Timestamp = refined(
  'Timestamp',
  stringType,
  (s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
  'must be an ISO 8601 timestamp',
  { type: 'string', format: 'date-time' },
);

export const DateOnly = refined(
  'DateOnly',
  stringType,
  (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)),
  'must be a date in YYYY-MM-DD form',
  { type: 'string', format: 'date' },
);

export const HttpsUrl = refined(
  'HttpsUrl',
  stringType,
  (s) => {
    try {
      const url = new URL(s);
      return url.protocol === 'https:' || url.protocol === 'http:';
    } catch {
      return false;
    }
  },
  'must be an absolute http(s) URL',
  { type: 'string', format: 'uri' },
);

/** A string enumeration whose failure message lists the allowed values. */
export function enumOf<V extends string>(name: string, values: readonly V[]): t.Type<V, V, unknown> & SchemaAnnotated {
  const allowed = new Set<string>(values);
  const codec = new t.Type<V, V, unknown>(
    name,
    (u): u is V => typeof u === 'string' && allowed.has(u),
    (u, c) =>
      typeof u === 'string' && allowed.has(u)
        ? t.success(u as V)
        : t.failure(u, c, `must be one of ${values.map((v) => (v === '' ? '""' : v)).join(', ')}`),
    (a) => a,
  );
  return Object.assign(codec, { jsonSchema: { type: 'string', enum: [...values] } });
}

/** An array codec with item-count limits. */
export function boundedArray<C extends t.Mixed>(item: C, min: number, max: number, name?: string) {
  return refined(
    name ?? `Array<${item.name}>(${min}..${max})`,
    t.array(item) as unknown as t.Type<Array<t.TypeOf<C>>, Array<t.TypeOf<C>>, unknown>,
    (a) => a.length >= min && a.length <= max,
    min === max ? `must hold exactly ${min} items` : `must hold ${min} to ${max} items`,
    { minItems: min, maxItems: max },
  );
}

/**
 * An object with required and optional properties. Unknown properties are dropped on
 * decode (t.exact), so nothing a client invents reaches storage or a workflow.
 */
export function struct<R extends t.Props, O extends t.Props>(name: string, required: R, optional: O) {
  return t.exact(t.intersection([t.type(required), t.partial(optional)]), name);
}

/** `value | null | undefined`: optional fields that may be sent as null. */
export function nullable<C extends t.Mixed>(codec: C) {
  return t.union([codec, t.null]);
}

/** Metadata entries {key, value}: shared by payments, refunds, transfers and subscriptions. */
export function metadataList(maxEntries: number, maxValueLength: number) {
  const entry = struct('MetadataEntry', { key: boundedString(1, 255), value: maxString(maxValueLength) }, {});
  return boundedArray(entry, 0, maxEntries, 'Metadata');
}
