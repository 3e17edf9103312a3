/** Resource ids derived from idempotency keys (API side only: uses node:crypto). */
import { createHash } from 'node:crypto';

/**
 * A v4-shaped UUID derived from an idempotency key: a retry after a lost lock lands on the
 * same resource (and the same workflow id) instead of creating a second one.
 */
export function uuidFromKey(scope: string, organizationCode: string, key: string): string {
  const h = createHash('sha256').update(`${scope}:${organizationCode}:${key}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
