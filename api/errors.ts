/**
 * The one error-mapping layer: every failure becomes an ApiError, rendered in the body
 * shape of the area whose route raised it (spec, section "Errors").
 */
import type { Context, Next } from 'koa';
import { ApiError, ErrorKind } from '../domain/errors';
import { errorAnchor, errorAreaAnchor, errorCodeDoc } from '../domain/error-catalogue';
import type { AppState } from './context';

export type ErrorArea =
  | 'default'
  | 'dry-run'
  | 'banking'
  | 'enrollment'
  | 'reports'
  | 'whitelabel'
  | 'sellers'
  | 'campaigns'
  | 'refunds';

const DEFAULT_CODES: Record<ErrorKind, string> = {
  validation: 'VALIDATION_ERROR',
  unauthenticated: 'NOT_AUTHENTICATED',
  invalid_credentials: 'INVALID_CREDENTIALS',
  forbidden: 'AUTHORIZATION_REQUIRED',
  not_found: 'NOT_FOUND',
  method_not_allowed: 'METHOD_NOT_ALLOWED',
  conflict: 'CONFLICT',
  request_in_process: 'REQUEST_IN_PROCESS',
  payload_too_large: 'PAYLOAD_TOO_LARGE',
  unsupported_media_type: 'UNSUPPORTED_MEDIA_TYPE',
  unprocessable: 'UNPROCESSABLE_ENTITY',
  rate_limited: 'RATE_LIMITED',
  internal: 'INTERNAL_ERROR',
  unavailable: 'SERVICE_UNAVAILABLE',
};

/**
 * What a request without credentials (missing) and with wrong ones (invalid) answers, per
 * row of the spec's Errors table; every route of an area answers alike, whichever router
 * declares it.
 * - Dry-run names both codes: NOT_AUTHENTICATED and AuthenticationFail.
 * - Payment methods to enroll and report download name INVALID_CREDENTIALS and no other
 *   credential code, so a missing key is invalid credentials there too.
 * - Whitelabel authenticate and sellers share one row (one body shape); account groups and
 *   whitelabel users are that area too. The row names no credential code, so it takes the
 *   one the spec uses for {code, message(s)} bodies: INVALID_CREDENTIALS for both cases.
 * - Areas whose row names none (banking, campaigns, refunds, everything else) keep the
 *   service-wide pair: NOT_AUTHENTICATED when no credential is sent, INVALID_CREDENTIALS
 *   when the one sent is unknown or the two keys do not belong together.
 */
export const CREDENTIAL_CODES: Record<ErrorArea, { missing: string; invalid: string }> = {
  default: { missing: 'NOT_AUTHENTICATED', invalid: 'INVALID_CREDENTIALS' },
  'dry-run': { missing: 'NOT_AUTHENTICATED', invalid: 'AuthenticationFail' },
  banking: { missing: 'NOT_AUTHENTICATED', invalid: 'INVALID_CREDENTIALS' },
  enrollment: { missing: 'INVALID_CREDENTIALS', invalid: 'INVALID_CREDENTIALS' },
  reports: { missing: 'INVALID_CREDENTIALS', invalid: 'INVALID_CREDENTIALS' },
  whitelabel: { missing: 'INVALID_CREDENTIALS', invalid: 'INVALID_CREDENTIALS' },
  sellers: { missing: 'INVALID_CREDENTIALS', invalid: 'INVALID_CREDENTIALS' },
  campaigns: { missing: 'NOT_AUTHENTICATED', invalid: 'INVALID_CREDENTIALS' },
  refunds: { missing: 'NOT_AUTHENTICATED', invalid: 'INVALID_CREDENTIALS' },
};

/** Per-area codes that differ from the defaults (spec, "Errors"). */
const AREA_CODES: Partial<Record<ErrorArea, Partial<Record<ErrorKind, string>>>> = {
  'dry-run': {
    validation: 'TRAFFIC_LOG_VALIDATION_FAILED',
    conflict: 'TRAFFIC_LOG_IDEMPOTENCY_REPLAY',
    payload_too_large: 'TRAFFIC_LOG_PAYLOAD_TOO_LARGE',
    unsupported_media_type: 'TRAFFIC_LOG_UNSUPPORTED_CONTENT_TYPE',
    unprocessable: 'TRAFFIC_LOG_SEMANTIC_INVALID',
  },
  enrollment: { validation: 'INVALID_REQUEST' },
  reports: { validation: 'INVALID_REQUEST' },
  whitelabel: { validation: 'INVALID_PARAMETERS' },
  banking: { not_found: 'ACCOUNT_NOT_FOUND' },
};

export function codeFor(area: ErrorArea, error: ApiError): string {
  if (error.code) return error.code;
  if (error.kind === 'unauthenticated') return CREDENTIAL_CODES[area].missing;
  if (error.kind === 'invalid_credentials') return CREDENTIAL_CODES[area].invalid;
  return AREA_CODES[area]?.[error.kind] ?? DEFAULT_CODES[error.kind];
}

const TITLES: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict',
  413: 'Payload Too Large', 415: 'Unsupported Media Type', 422: 'Unprocessable Entity',
  429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable',
};

/**
 * Where the docs page explains `code` (what it means, what to do): its own section, or the
 * section of the area's error shape for a code the catalogue does not list.
 */
export function docUrlFor(docsBaseUrl: string, area: ErrorArea, code: string): string {
  return `${docsBaseUrl}/docs#${errorCodeDoc(code) ? errorAnchor(code) : errorAreaAnchor(area)}`;
}

/**
 * Renders an ApiError as the body of its area, plus `doc_url` (the docs page section of the
 * code) when the API's base URL is given (always, when answering a request).
 */
export function renderError(area: ErrorArea, error: ApiError, requestId: string, docsBaseUrl?: string): Record<string, unknown> {
  const body = renderAreaError(area, error, requestId);
  if (docsBaseUrl !== undefined) body.doc_url = docUrlFor(docsBaseUrl, area, codeFor(area, error));
  return body;
}

function renderAreaError(area: ErrorArea, error: ApiError, requestId: string): Record<string, unknown> {
  const code = codeFor(area, error);
  const message = error.messages.join('; ');
  switch (area) {
    case 'dry-run':
      return { code, messages: error.messages, httpCode: error.status };
    case 'banking':
      return { code, messages: error.messages, http_code: error.status };
    case 'enrollment':
    case 'reports':
      return { code, messages: error.messages };
    case 'whitelabel':
    case 'sellers':
      return { code, message };
    case 'campaigns':
      return {
        code: error.status,
        message,
        ...(error.details !== undefined || error.fieldErrors.length
          ? { details: error.details ?? { error_code: code, errors: error.fieldErrors } }
          : { details: { error_code: code } }),
      };
    case 'refunds':
      return {
        type: `urn:switchyard:problem:${code.toLowerCase().replace(/_/g, '-')}`,
        code,
        title: TITLES[error.status] ?? 'Error',
        status: error.status,
        detail: message,
        trace_id: requestId,
        errors: error.fieldErrors,
      };
    default:
      return {
        code,
        message,
        ...(error.fieldErrors.length ? { errors: error.fieldErrors } : {}),
        ...(error.details !== undefined ? { details: error.details } : {}),
        request_id: requestId,
      };
  }
}

/** Errors thrown by libraries (body parser, koa) carry a status; map them to kinds. */
function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const status = (error as { status?: number; statusCode?: number }).status ?? (error as { statusCode?: number }).statusCode;
  const type = (error as { type?: string }).type;
  if (status === 413 || type === 'entity.too.large') return new ApiError('payload_too_large', 'request body is larger than the limit');
  if (status === 415) return new ApiError('unsupported_media_type', 'Content-Type must be application/json');
  if (type === 'entity.parse.failed' || (status === 400 && error instanceof SyntaxError)) {
    return new ApiError('validation', 'request body is not valid JSON');
  }
  if (status === 400) return new ApiError('validation', (error as Error).message || 'bad request');
  return new ApiError('internal', 'an unexpected error occurred; it has been logged');
}

export async function errorMiddleware(ctx: Context & { state: AppState }, next: Next): Promise<void> {
  try {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      throw new ApiError('not_found', `no route for ${ctx.method} ${ctx.path}`, { code: 'ROUTE_NOT_FOUND' });
    }
  } catch (raw) {
    applyError(ctx, raw);
  }
}

/** Sets the response for a thrown value (used by the outer middleware and by idempotency). */
export function applyError(ctx: Context & { state: AppState }, raw: unknown): ApiError {
  const error = toApiError(raw);
  if (error.kind === 'internal') ctx.state.log?.error({ err: raw }, 'unhandled error');
  const area: ErrorArea = ctx.state.errorArea ?? 'default';
  ctx.status = error.status;
  for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
  ctx.body = renderError(area, error, ctx.state.requestId ?? '', ctx.state.docsBaseUrl ?? ctx.origin);
  if (area === 'refunds') ctx.type = 'application/problem+json';
  return error;
}
