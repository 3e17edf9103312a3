/**
 * Helpers for dry-run integration tests: register provider traffic, send the dry-run
 * payment, wait for the pairing workflow to reach a state.
 */
import type { IssuedCredentials } from '../../domain/credentials';
import { call, CallResult } from './stack';
import { b64, requestEvent, responseEvent, sandboxRequestBody, sandboxResponseBody, serviceRequest } from './dry-run-fixtures';

export function uniqueReference(prefix = 'dr'): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/** A sandbox-gateway exchange for `reference` (REQUEST + RESPONSE), matching paymentFor(). */
export function sandboxExchange(reference: string, request: Record<string, unknown> = {}, response: Record<string, unknown> = {}) {
  return [
    requestEvent(sandboxRequestBody({ reference, ...request }), { endpoint: '/v1/authorizations' }),
    responseEvent(sandboxResponseBody({ reference, ...response }), { http_status_code: 201 }),
  ];
}

export function registrationBody(reference: string, extra: Record<string, unknown> = {}) {
  return { merchant_reference: reference, provider_id: 'SANDBOX', events: sandboxExchange(reference), ...extra };
}

export function register(merchant: IssuedCredentials, body: unknown, headers: Record<string, string> = {}): Promise<CallResult> {
  return call('/v1/dry-run/provider-events', { body, credentials: merchant, headers });
}

/** The service leg matching sandboxExchange(): the same order, amount, card and options. */
export function paymentFor(merchant: IssuedCredentials, reference: string, overrides: Record<string, unknown> = {}) {
  return serviceRequest({ account_id: merchant.account_id, merchant_order_id: reference, ...overrides });
}

export function dryRunPay(merchant: IssuedCredentials, body: unknown, headers: Record<string, string> = {}): Promise<CallResult> {
  return call('/v1/payments', { body, credentials: merchant, headers: { 'Dry-run': 'true', ...headers } });
}

export async function getRegistration(merchant: IssuedCredentials, id: string) {
  return call(`/v1/dry-run/provider-events/${id}`, { credentials: merchant });
}

/** Polls the registration until `done` holds. */
export async function waitForRegistration(merchant: IssuedCredentials, id: string, done: (r: any) => boolean, timeoutMs = 30_000): Promise<any> {
  const started = Date.now();
  let last: unknown;
  for (;;) {
    const { status, body } = await getRegistration(merchant, id);
    last = body;
    if (status === 200 && done(body)) return body;
    if (Date.now() - started > timeoutMs) throw new Error(`registration ${id} did not reach the expected state; last: ${JSON.stringify(last).slice(0, 600)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

export { b64 };
