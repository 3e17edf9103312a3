/**
 * Helpers for payment tests: a request body for a test card, and the sandbox gateway's
 * record of charges.
 */
import type { KeyPair } from '../../domain/credentials';
import { call, getStack } from './stack';

export const TEST_CVV = '737';

export function paymentBody(merchant: KeyPair, card: string, overrides: Record<string, unknown> = {}) {
  return {
    account_id: merchant.account_id,
    description: 'Test order',
    country: 'CO',
    merchant_order_id: `order-${Math.random().toString(36).slice(2, 10)}`,
    amount: { currency: 'USD', value: 49.99 },
    payment_method: {
      type: 'CARD',
      detail: { card: { number: card, holder_name: 'ANA GOMEZ', expiration_month: 12, expiration_year: 2031, security_code: TEST_CVV } },
    },
    ...overrides,
  };
}

export async function pay(merchant: KeyPair, card: string, overrides: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return call('/v1/payments', { body: paymentBody(merchant, card, overrides), credentials: merchant, headers });
}

export async function chargesFor(reference: string): Promise<Array<{ status: string; card_last4: string; merchant_id: string; idempotency_key: string }>> {
  const { gateway } = await getStack();
  const response = await fetch(`${gateway.url}/_sandbox/charges?reference=${encodeURIComponent(reference)}`);
  return ((await response.json()) as { charges: any[] }).charges;
}

/** Polls GET /v1/payments/{id} until `done` holds. */
export async function waitForPayment(merchant: KeyPair, id: string, done: (p: any) => boolean, timeoutMs = 30_000, query = '?include_transactions=true') {
  const started = Date.now();
  for (;;) {
    const { body } = await call(`/v1/payments/${id}${query}`, { credentials: merchant });
    if (done(body)) return body;
    if (Date.now() - started > timeoutMs) throw new Error(`payment ${id} did not reach the expected state; last: ${JSON.stringify(body).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
