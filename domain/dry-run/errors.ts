/**
 * The dry-run error codes, each paired with its status and trigger (the spec leaves the
 * pairing open; this table is the contract, published in the OpenAPI description and /docs).
 */
import { ApiError, ErrorKind } from '../errors';

export interface DryRunErrorCode {
  code: string;
  status: number;
  kind: ErrorKind;
  trigger: string;
}

export const DRY_RUN_ERROR_CODES = [
  { code: 'TRAFFIC_LOG_VALIDATION_FAILED', status: 400, kind: 'validation', trigger: 'The body does not match the schema: a wrong type, an unknown enum value, merchant_reference outside 3..255 characters, fewer than 1 or more than 10 events, base_url that is not an origin, endpoint that is not a path, http_status_code outside 100..599, headers/body that are not base64, a malformed JSON body, a request body that is not UTF-8 or contains a `__proto__` key, JSON (the request, or an event\'s decoded headers or JSON body) nesting objects and arrays deeper than 64 levels, an event\'s XML body nesting elements deeper than 64 levels, or an X-Idempotency-Key longer than 64 characters.' },
  { code: 'TRAFFIC_LOG_MERCHANT_REFERENCE_REQUIRED', status: 400, kind: 'validation', trigger: 'merchant_reference is missing, null or blank.' },
  { code: 'TRAFFIC_LOG_SEMANTIC_INVALID', status: 400, kind: 'unprocessable', trigger: 'Well-formed but contradictory: base_url or endpoint missing on a REQUEST or WEBHOOK, http_status_code missing on a RESPONSE or WEBHOOK or present on a REQUEST, provider_id not in the catalogue, decoded headers that are neither a JSON object of strings nor a raw header block, account_id not an account of the organization (or missing when it has several), payment_id of another account than account_id, merchant_reference already registered for the account, or more than 50 events on one registration.' },
  { code: 'TRAFFIC_LOG_BODY_ENCODING_MISMATCH', status: 400, kind: 'validation', trigger: 'A decoded body contradicts its declared Content-Type or Content-Encoding: invalid JSON under application/json, malformed XML under an XML type, a form body that is not key=value pairs, text that is not valid UTF-8, or bytes that do not decompress with the declared gzip / deflate / br.' },
  { code: 'NOT_AUTHENTICATED', status: 401, kind: 'unauthenticated', trigger: 'Neither the public API key nor the private secret key header is present, or payment_id is sent with the public API key alone (referencing a payment requires the private secret key; the answer does not depend on whether the payment exists).' },
  { code: 'AuthenticationFail', status: 401, kind: 'invalid_credentials', trigger: 'The key given is unknown, or the two keys given do not belong together.' },
  { code: 'PAYMENT_NOT_FOUND', status: 404, kind: 'not_found', trigger: 'payment_id (sent with the private secret key) does not name a payment of the account (payments of other organizations answer the same).' },
  { code: 'NOT_FOUND', status: 404, kind: 'not_found', trigger: 'Reading or extending a registration id that does not exist for the organization.' },
  { code: 'TRAFFIC_LOG_IDEMPOTENCY_REPLAY', status: 409, kind: 'conflict', trigger: 'X-Idempotency-Key already used within 24 hours with a different payload (the same payload replays the original 201).' },
  { code: 'TRAFFIC_LOG_PAYLOAD_TOO_LARGE', status: 413, kind: 'payload_too_large', trigger: 'An event\'s headers exceed 87,400 encoded characters or 64 KB decoded, its body exceeds 1,398,000 encoded characters or 1 MB decoded (or 8 MB once decompressed), or the whole request exceeds 16 MB.' },
  { code: 'TRAFFIC_LOG_UNSUPPORTED_CONTENT_TYPE', status: 415, kind: 'unsupported_media_type', trigger: 'The request Content-Type is not application/json.' },
  { code: 'REQUEST_IN_PROCESS', status: 400, kind: 'request_in_process', trigger: 'Another request with the same X-Idempotency-Key is still running.' },
  { code: 'RATE_LIMITED', status: 429, kind: 'rate_limited', trigger: 'The credential exceeded its request quota (see Retry-After).' },
] as const satisfies readonly DryRunErrorCode[];

export type DryRunErrorCodeName = (typeof DRY_RUN_ERROR_CODES)[number]['code'];

/** A dry-run error with the code and status of the table above. */
export function dryRunError(code: DryRunErrorCodeName, messages: string | string[], details?: unknown): ApiError {
  const entry = DRY_RUN_ERROR_CODES.find((e) => e.code === code)!;
  return new ApiError(entry.kind, messages, { code: entry.code, status: entry.status, details });
}

/** The table as Markdown (OpenAPI description) ... */
export function errorTableMarkdown(): string {
  return ['| code | status | trigger |', '|---|---|---|', ...DRY_RUN_ERROR_CODES.map((e) => `| \`${e.code}\` | ${e.status} | ${e.trigger} |`)].join('\n');
}

/** Maps an ingest failure (see decode.ts) to its error. */
export function ingestFailure(reason: 'too_large' | 'encoding_mismatch' | 'semantic' | 'invalid', message: string): ApiError {
  const code = reason === 'too_large'
    ? 'TRAFFIC_LOG_PAYLOAD_TOO_LARGE'
    : reason === 'encoding_mismatch'
      ? 'TRAFFIC_LOG_BODY_ENCODING_MISMATCH'
      : reason === 'invalid'
        ? 'TRAFFIC_LOG_VALIDATION_FAILED'
        : 'TRAFFIC_LOG_SEMANTIC_INVALID';
  return dryRunError(code, message);
}
