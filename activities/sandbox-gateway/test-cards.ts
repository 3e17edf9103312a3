/**
 * The sandbox gateway's test cards: the card number decides what the acquirer answers.
 * Any other Luhn-valid number is approved. Documented in the OpenAPI description of the
 * Payments tag so integrators can exercise every outcome.
 */
export type SandboxBehaviour =
  | { kind: 'approve' }
  | { kind: 'decline'; iso: string }
  | { kind: 'three_ds' }
  | { kind: 'slow' }
  | { kind: 'hang' }
  | { kind: 'server_error' };

export const TEST_CARDS = {
  approved: '4111111111111111',
  approvedMastercard: '5555555555554444',
  insufficientFunds: '4000000000009995',
  doNotHonor: '4000000000000002',
  stolen: '4000000000009979',
  threeDSecure: '4000000000003220',
  /** answers after SANDBOX_SLOW_MS (default 4 s): approved, but slower than the API waits */
  slow: '4000000000000259',
  /** answers after SANDBOX_HANG_MS (default 30 s): beyond every connector timeout */
  timeout: '4000000000000127',
  serverError: '4000000000000119',
} as const;

/** The documented test card numbers: live keys refuse them (they would only ever reach the sandbox). */
export const SANDBOX_TEST_CARD_NUMBERS: ReadonlySet<string> = new Set(Object.values(TEST_CARDS));

const BEHAVIOURS: Record<string, SandboxBehaviour> = {
  [TEST_CARDS.insufficientFunds]: { kind: 'decline', iso: '51' },
  [TEST_CARDS.doNotHonor]: { kind: 'decline', iso: '05' },
  [TEST_CARDS.stolen]: { kind: 'decline', iso: '43' },
  [TEST_CARDS.threeDSecure]: { kind: 'three_ds' },
  [TEST_CARDS.slow]: { kind: 'slow' },
  [TEST_CARDS.timeout]: { kind: 'hang' },
  [TEST_CARDS.serverError]: { kind: 'server_error' },
};

export function behaviourOf(pan: string): SandboxBehaviour {
  return BEHAVIOURS[pan] ?? { kind: 'approve' };
}

export const TEST_CARDS_DOC =
  'Sandbox test cards (any holder, future expiry, any CVV): 4111111111111111 / 5555555555554444 approved; ' +
  '4000000000009995 soft decline 51 insufficient funds; 4000000000000002 soft decline 05 do not honor; ' +
  '4000000000009979 hard decline 43 stolen card (no failover); 4000000000003220 3-D Secure required; ' +
  '4000000000000259 approved slowly (the API answers PENDING/PROCESSING, a webhook follows); ' +
  '4000000000000127 never answers within the connector timeout (reversed, then failover); ' +
  '4000000000000119 provider 500 (failover).';
