/**
 * Per-credential rate limiting shared by every API process through MongoDB.
 *
 * Fixed windows of `windowSeconds`; each allowed request claims one numbered slot document
 * `<subject>:<window>:<n>` by insert. The unique _id makes the claim atomic on MongoDB and
 * on FerretDB alike (counters with $inc are not atomic on FerretDB's SQLite backend). A
 * process remembers the next slot it expects to be free, so the common case is one insert;
 * on a collision it re-counts the window and jumps ahead.
 */
import type { Next } from 'koa';
import type { Collection, Db } from 'mongodb';
import type { RateLimitConfig } from '../../activities/runtime/config';
import { ApiError } from '../../domain/errors';
import type { AppContext } from '../context';

interface SlotDoc {
  _id: string;
  subject: string;
  window: number;
  expires_at: Date;
}

export interface RateDecision {
  allowed: boolean;
  remaining: number;
  retryAfterSeconds: number;
}

const MAX_CLAIM_ATTEMPTS = 8;

export class RateLimiter {
  private readonly slots: Collection<SlotDoc>;
  private currentWindow = -1;
  private readonly nextSlot = new Map<string, number>();

  constructor(db: Db, private readonly limits: RateLimitConfig) {
    this.slots = db.collection<SlotDoc>('rate_limit_slots');
  }

  async consume(subject: string, now = Date.now()): Promise<RateDecision> {
    const windowMs = this.limits.windowSeconds * 1000;
    const window = Math.floor(now / windowMs);
    const retryAfterSeconds = Math.max(1, Math.ceil(((window + 1) * windowMs - now) / 1000));
    if (window !== this.currentWindow) {
      this.currentWindow = window;
      this.nextSlot.clear();
    }
    // Slots are reserved locally before the insert, so concurrent requests of this process
    // try distinct slots; only other processes' claims cause collisions.
    let slot = this.reserve(subject, 0);
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS && slot < this.limits.points; attempt++) {
      try {
        await this.slots.insertOne({
          _id: `${subject}:${window}:${slot}`,
          subject,
          window,
          expires_at: new Date((window + 2) * windowMs),
        });
        return { allowed: true, remaining: Math.max(0, this.limits.points - slot - 1), retryAfterSeconds };
      } catch (error) {
        if ((error as { code?: number }).code !== 11000) throw error;
        slot = this.reserve(subject, await this.slots.countDocuments({ subject, window }));
      }
    }
    return { allowed: false, remaining: 0, retryAfterSeconds };
  }

  /** Takes the next slot number of this window, at least `atLeast`. */
  private reserve(subject: string, atLeast: number): number {
    const slot = Math.max(this.nextSlot.get(subject) ?? 0, atLeast);
    this.nextSlot.set(subject, slot + 1);
    return slot;
  }
}

/** Must run after authentication: the subject is the credential. */
export function rateLimit(limiter: RateLimiter, limits: RateLimitConfig) {
  return async (ctx: AppContext, next: Next) => {
    const subject = ctx.state.principal?.credentialId;
    if (!subject) return next();
    const decision = await limiter.consume(subject);
    ctx.set('X-RateLimit-Limit', String(limits.points));
    ctx.set('X-RateLimit-Remaining', String(decision.remaining));
    if (!decision.allowed) {
      throw new ApiError('rate_limited', `rate limit of ${limits.points} requests per ${limits.windowSeconds} s exceeded; retry later`, {
        headers: { 'Retry-After': String(decision.retryAfterSeconds) },
      });
    }
    await next();
  };
}
