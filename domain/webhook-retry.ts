/** Webhook retry schedule; kept apart from the signing code so workflows can import it (no node:crypto). */

/** Delay before retry number `attempt` (1-based): base, 2x base, 4x base... capped at 6 h. */
export function retryDelayMs(baseMs: number, attempt: number): number {
  return Math.min(baseMs * 2 ** (attempt - 1), 6 * 60 * 60 * 1000);
}

