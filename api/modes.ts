/**
 * Test and live keys at the door. Test keys are scoped to the merchant's test organization,
 * whose accounts route only to the sandbox and providers' test environments (see
 * activities/repositories/routing.ts); live keys are scoped to the live organization, which
 * never reaches them. A sandbox test card sent with live keys is refused here, before
 * anything is stored, so a live integration never believes a test card charged.
 */
import { SANDBOX_TEST_CARD_NUMBERS } from '../activities/sandbox-gateway/test-cards';
import type { AppContext } from './context';
import { ApiError } from '../domain/errors';

export function refuseTestCardWithLiveKeys(ctx: AppContext, cardNumber: string | undefined, field: string): void {
  if (ctx.state.principal?.mode !== 'live' || !cardNumber || !SANDBOX_TEST_CARD_NUMBERS.has(cardNumber)) return;
  const message = 'this is a sandbox test card: live keys refuse test cards; use the test keys (pk_test_ / sk_test_) to try it';
  throw new ApiError('validation', message, { fieldErrors: [{ field, code: 'TEST_CARD_IN_LIVE_MODE', message }] });
}
