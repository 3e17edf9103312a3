/**
 * Validation of a registration request in the order that decides its answer:
 * 1. size limits (413) on the raw JSON, before anything is decoded;
 * 2. merchant_reference present (TRAFFIC_LOG_MERCHANT_REFERENCE_REQUIRED);
 * 3. the codec (TRAFFIC_LOG_VALIDATION_FAILED, with field paths);
 * 4. cross-field rules per event type and the provider catalogue (TRAFFIC_LOG_SEMANTIC_INVALID).
 */
import { fieldErrorsOf } from '../errors';
import { ApiError } from '../errors';
import { DRY_RUN_LIMITS, DryRunEvent, DryRunEventsRequest, DryRunRegistrationRequest } from './codecs';
import { dryRunError } from './errors';
import { isCatalogueProvider, PROVIDER_CODES } from '../providers/catalogue';
import * as t from 'io-ts';

/** 413 when an event's encoded headers or body is past its limit (checked on the raw body). */
export function checkEncodedSizes(raw: unknown): void {
  const events = (raw as { events?: unknown })?.events;
  if (!Array.isArray(events)) return;
  events.forEach((event, i) => {
    const headers = (event as { headers?: unknown })?.headers;
    const body = (event as { body?: unknown })?.body;
    if (typeof headers === 'string' && headers.length > DRY_RUN_LIMITS.headersEncodedChars) {
      throw dryRunError('TRAFFIC_LOG_PAYLOAD_TOO_LARGE', `events.${i}.headers is ${headers.length} characters; the limit is ${DRY_RUN_LIMITS.headersEncodedChars}`);
    }
    if (typeof body === 'string' && body.length > DRY_RUN_LIMITS.bodyEncodedChars) {
      throw dryRunError('TRAFFIC_LOG_PAYLOAD_TOO_LARGE', `events.${i}.body is ${body.length} characters; the limit is ${DRY_RUN_LIMITS.bodyEncodedChars}`);
    }
  });
}

function decodeWith<A>(codec: t.Type<A, unknown, unknown>, raw: unknown): A {
  const result = codec.decode(raw);
  if (result._tag === 'Right') return result.right;
  const fieldErrors = fieldErrorsOf(result.left);
  throw new ApiError('validation', fieldErrors.map((e) => e.message), { code: 'TRAFFIC_LOG_VALIDATION_FAILED', fieldErrors });
}

/** Rules that depend on the event type (spec, "Dry-run Event"). */
export function eventSemanticErrors(events: DryRunEvent[], prefix = 'events'): string[] {
  const errors: string[] = [];
  events.forEach((event, i) => {
    const at = `${prefix}.${i}`;
    const outgoing = event.type === 'REQUEST' || event.type === 'WEBHOOK';
    if (outgoing && event.base_url === undefined) errors.push(`${at}.base_url is required for a ${event.type} event`);
    if (outgoing && event.endpoint === undefined) errors.push(`${at}.endpoint is required for a ${event.type} event`);
    if (event.type === 'REQUEST' && event.http_status_code !== undefined) errors.push(`${at}.http_status_code must be omitted for a REQUEST event`);
    if (event.type !== 'REQUEST' && event.http_status_code === undefined) errors.push(`${at}.http_status_code is required for a ${event.type} event`);
  });
  return errors;
}

/** `providerCatalogue`: the codes accepted here (the catalogue, or the part DRY_RUN_PROVIDERS keeps). */
export function decodeRegistration(raw: unknown, providerCatalogue: ReadonlySet<string> = new Set(PROVIDER_CODES)): DryRunRegistrationRequest {
  checkEncodedSizes(raw);
  const reference = (raw as { merchant_reference?: unknown })?.merchant_reference;
  if (raw && typeof raw === 'object' && (reference === undefined || reference === null || (typeof reference === 'string' && reference.trim() === ''))) {
    throw dryRunError('TRAFFIC_LOG_MERCHANT_REFERENCE_REQUIRED', 'merchant_reference is required');
  }
  const request = decodeWith(DryRunRegistrationRequest, raw);
  const errors = eventSemanticErrors(request.events);
  if (request.provider_id !== undefined && !providerCatalogue.has(request.provider_id)) {
    errors.push(
      isCatalogueProvider(request.provider_id)
        ? `provider_id ${request.provider_id} is not enabled for dry-run here (DRY_RUN_PROVIDERS)`
        : `provider_id ${request.provider_id} is not in the provider catalogue`,
    );
  }
  if (errors.length) throw dryRunError('TRAFFIC_LOG_SEMANTIC_INVALID', errors);
  return request;
}

export function decodeEventsRequest(raw: unknown): DryRunEventsRequest {
  checkEncodedSizes(raw);
  const request = decodeWith(DryRunEventsRequest, raw);
  const errors = eventSemanticErrors(request.events);
  if (errors.length) throw dryRunError('TRAFFIC_LOG_SEMANTIC_INVALID', errors);
  return request;
}
