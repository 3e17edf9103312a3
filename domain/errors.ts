/**
 * Errors raised by domain code and the API. An ApiError says what went wrong in terms of
 * the HTTP contract (status, a code, messages, per-field details); api/errors.ts renders
 * it in the body shape of the area that raised it.
 */
import * as t from 'io-ts';
import { describeExpected } from './codecs/describe';

export interface FieldError {
  /** Path of the field in the request, dot-separated (`payment_method.detail.card.number`, `events.0.type`). */
  field: string;
  code: string;
  message: string;
  /** What the field must be, in words (`a UUID (36 characters)`, `one of CARD, ...`), when the schema says it. */
  expected?: string;
}

/** What kind of failure, independent of area; the renderer picks the area's code for it. */
export type ErrorKind =
  | 'validation'
  | 'unauthenticated'
  | 'invalid_credentials'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'request_in_process'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unprocessable'
  | 'rate_limited'
  | 'internal'
  | 'unavailable';

export const STATUS_OF_KIND: Record<ErrorKind, number> = {
  validation: 400,
  unauthenticated: 401,
  invalid_credentials: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  request_in_process: 400,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
};

export interface ApiErrorOptions {
  /** Overrides the area's default code for this kind. */
  code?: string;
  /** Overrides the status implied by the kind. */
  status?: number;
  fieldErrors?: FieldError[];
  details?: unknown;
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  readonly kind: ErrorKind;
  readonly status: number;
  readonly code?: string;
  readonly messages: string[];
  readonly fieldErrors: FieldError[];
  readonly details?: unknown;
  readonly headers: Record<string, string>;

  constructor(kind: ErrorKind, messages: string | string[], options: ApiErrorOptions = {}) {
    const list = Array.isArray(messages) ? messages : [messages];
    super(list.join('; '));
    this.name = 'ApiError';
    this.kind = kind;
    this.status = options.status ?? STATUS_OF_KIND[kind];
    this.code = options.code;
    this.messages = list;
    this.fieldErrors = options.fieldErrors ?? [];
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

/**
 * The codec a value failed, seen from its field: the outermost context entry holding that
 * same value, so a nullable field reads "a UUID or null", not just its first member.
 */
function expectedType(error: t.ValidationError): t.Any {
  const { context } = error;
  let i = context.length - 1;
  while (i > 0 && context[i - 1].actual === error.value) i--;
  return context[i].type as t.Any;
}

/** Turns io-ts decode errors into one FieldError per failing path (deepest message wins). */
export function fieldErrorsOf(errors: t.Errors): FieldError[] {
  const byField = new Map<string, FieldError>();
  for (const error of errors) {
    // io-ts intersections and unions add numeric keys for their members; keep only the
    // keys that address the value (object properties and array indexes).
    const path: string[] = [];
    for (let i = 1; i < error.context.length; i++) {
      const parent = error.context[i - 1].type as t.Any & { _tag?: string };
      const key = error.context[i].key;
      if (parent._tag === 'IntersectionType' || parent._tag === 'UnionType' || parent._tag === 'ExactType') continue;
      path.push(key);
    }
    const field = path.join('.') || '(body)';
    if (byField.has(field)) continue;
    const missing = error.value === undefined;
    const expected = describeExpected(expectedType(error));
    byField.set(field, {
      field,
      code: missing ? 'REQUIRED' : 'INVALID',
      message: `${field === '(body)' ? 'the request body' : field} ${missing ? 'is required' : error.message ?? `must be ${expected}`}`,
      ...(expected ? { expected } : {}),
    });
  }
  return [...byField.values()];
}

/** Decodes or throws a 400 validation ApiError listing each failing field. */
export function decodeOrThrow<A, O>(codec: t.Type<A, O, unknown>, input: unknown): A {
  const result = codec.decode(input);
  if (result._tag === 'Right') return result.right;
  const fieldErrors = fieldErrorsOf(result.left);
  throw new ApiError(
    'validation',
    fieldErrors.map((e) => e.message),
    { fieldErrors },
  );
}
