/**
 * Dry-run registration contract (spec, "Dry-run registration request", "Dry-run Event",
 * "Dry-run registration response", "Limits"). The codecs are the types, the validators and
 * the OpenAPI schemas. Size limits are checked before these codecs run (see limits.ts)
 * because they answer 413, not 400; cross-field rules that depend on the event type are in
 * rules.ts because they answer TRAFFIC_LOG_SEMANTIC_INVALID.
 */
import * as t from 'io-ts';
import { PAYMENT_METHOD_TYPES as PAYMENT_METHOD_TYPES_OF_PAYMENTS } from '../payments/codecs';
import { annotate, boundedArray, boundedString, enumOf, intRange, refined, struct, Uuid } from '../codecs/common';

export const EVENT_TYPES = ['REQUEST', 'RESPONSE', 'WEBHOOK'] as const;
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const OPERATION_TYPES = ['PURCHASE', 'AUTHORIZE', 'CAPTURE', 'CANCEL', 'REFUND', 'CHARGEBACK', 'THREE_D_SECURE'] as const;
/** Same vocabulary as payment_method.type in payment creation, plus "" (unknown). */
export const PAYMENT_METHOD_TYPES = ['', ...PAYMENT_METHOD_TYPES_OF_PAYMENTS] as const;
export const REGISTRATION_STATUSES = ['REGISTERED', 'PAIRED', 'VALIDATED', 'UNMATCHED'] as const;
export const VERDICTS = ['PASS', 'WARN', 'FAIL'] as const;

export type EventType = (typeof EVENT_TYPES)[number];
export type OperationType = (typeof OPERATION_TYPES)[number];
export type RegistrationStatus = (typeof REGISTRATION_STATUSES)[number];
export type Verdict = (typeof VERDICTS)[number];

export const DRY_RUN_LIMITS = {
  minEvents: 1,
  maxEvents: 10,
  /** Events a registration may hold in total, initial ones plus late webhooks. */
  maxEventsPerRegistration: 50,
  merchantReference: { min: 3, max: 255 },
  headersEncodedChars: 87_400,
  headersDecodedBytes: 64 * 1024,
  bodyEncodedChars: 1_398_000,
  bodyDecodedBytes: 1024 * 1024,
  /** Guard against compression bombs: a decompressed body may not exceed this. */
  bodyDecompressedBytes: 8 * 1024 * 1024,
  httpStatus: { min: 100, max: 599 },
} as const;

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** base64 (standard or URL-safe alphabet, padding optional) of at most `maxChars` characters. */
export function base64String(name: string, maxChars: number) {
  return refined(
    name,
    t.string,
    (s) => BASE64.test(s) && s.length % 4 !== 1,
    'must be base64',
    { type: 'string', format: 'byte', maxLength: maxChars, contentEncoding: 'base64' },
  );
}

/** An origin: scheme, host and optional port; no path (other than "/"), query, fragment or credentials. */
export function isOrigin(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.username || url.password || url.search || url.hash) return false;
  if (url.pathname !== '/' || /^[a-z]+:\/\/[^/]*\/./i.test(value) || value.includes('?') || value.includes('#')) return false;
  return true;
}

export const Origin = refined('Origin', t.string, isOrigin, 'must be an origin: scheme, host and optional port only (e.g. https://api.provider.example:8443)', {
  type: 'string', format: 'uri', maxLength: 2048, description: 'Origin of the provider endpoint: scheme + host + optional port, nothing else.',
});

/** Path and query of the provider endpoint. */
export const Endpoint = refined('Endpoint', t.string, (s) => s.length >= 1 && s.length <= 8192 && s.startsWith('/') && !s.includes('#') && !/\s/.test(s), 'must be a path starting with "/" (optionally with a query string), at most 8192 characters', {
  type: 'string', minLength: 1, maxLength: 8192, pattern: '^/',
});

export const MerchantReference = boundedString(DRY_RUN_LIMITS.merchantReference.min, DRY_RUN_LIMITS.merchantReference.max, 'MerchantReference');

export const ProviderId = annotate(
  refined('ProviderId', t.string, (s) => /^[A-Z0-9_]{2,40}$/.test(s), 'must be an upper-case provider code from the catalogue', { type: 'string', pattern: '^[A-Z0-9_]{2,40}$' }),
  { description: 'Upper-case provider code from the provider catalogue (see the README; DRY_RUN_PROVIDERS may narrow it); otherwise TRAFFIC_LOG_SEMANTIC_INVALID.' },
);

export const PaymentMethodType = enumOf('PaymentMethodType', PAYMENT_METHOD_TYPES);

export const DryRunEvent = struct(
  'DryRunEvent',
  {
    type: enumOf('DryRunEventType', EVENT_TYPES),
    http_method: enumOf('HttpMethod', HTTP_METHODS),
    operation_type: enumOf('OperationType', OPERATION_TYPES),
    headers: annotate(base64String('EventHeaders', DRY_RUN_LIMITS.headersEncodedChars), {
      description: 'base64 of a JSON object header-name -> value, or of a raw HTTP header block. Max 87,400 encoded characters, 64 KB decoded.',
    }),
  },
  {
    base_url: Origin,
    endpoint: Endpoint,
    http_status_code: intRange(DRY_RUN_LIMITS.httpStatus.min, DRY_RUN_LIMITS.httpStatus.max, 'HttpStatusCode'),
    body: annotate(base64String('EventBody', DRY_RUN_LIMITS.bodyEncodedChars), {
      description: 'base64 of the raw body bytes (omit for an empty body). Max 1,398,000 encoded characters, 1 MB decoded. Decoded per the Content-Type / Content-Encoding headers: JSON, form-urlencoded, XML, text, gzip / deflate / br, or binary.',
    }),
  },
);
export type DryRunEvent = t.TypeOf<typeof DryRunEvent>;

export const DryRunEvents = boundedArray(DryRunEvent, DRY_RUN_LIMITS.minEvents, DRY_RUN_LIMITS.maxEvents, 'DryRunEvents');

export const DryRunRegistrationRequest = struct(
  'DryRunRegistrationRequest',
  { merchant_reference: MerchantReference, events: DryRunEvents },
  { payment_id: Uuid, account_id: Uuid, provider_id: ProviderId, payment_method_type: PaymentMethodType },
);
export type DryRunRegistrationRequest = t.TypeOf<typeof DryRunRegistrationRequest>;

/** Late provider traffic (typically webhooks) added to an existing registration. */
export const DryRunEventsRequest = struct('DryRunEventsRequest', { events: DryRunEvents }, {});
export type DryRunEventsRequest = t.TypeOf<typeof DryRunEventsRequest>;

const nullableString = t.union([t.string, t.null]);

export const DryRunRegistrationResponse = t.type(
  {
    id: annotate(t.string, { description: '21-character nano id', minLength: 21, maxLength: 21 }),
    status: enumOf('RegisteredStatus', ['REGISTERED'] as const),
    merchant_reference: t.string,
    payment_id: nullableString,
    account_id: nullableString,
    provider_id: nullableString,
    payment_method_type: nullableString,
    operation_type: nullableString,
  },
  'DryRunRegistrationResponse',
);
export type DryRunRegistrationResponse = t.TypeOf<typeof DryRunRegistrationResponse>;
