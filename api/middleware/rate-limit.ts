/**
 * Per-credential rate limiting shared by every API process through MongoDB.
 *
 * Fixed windows of `windowSeconds`, whose `points` slots are cut into blocks of
 * `blockSize` slots. A process claims a whole block with one insert of
 * `<subject>:<window>:<first slot>` and then serves that many requests from memory, so a
 * busy credential costs one database write per block rather than one per request. The
 * unique _id makes each claim atomic on MongoDB and on FerretDB alike (counters with $inc
 * are not atomic on FerretDB's SQLite backend). Blocks partition the window's slots, so the
 * processes together never allow more than `points`; a block another process still holds at
 * the end of the window may leave up to `blockSize - 1` slots of that process unused.
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
  /** Number of slots this claim covers. */
  size?: number;
  expires_at: Date;
}

export interface RateDecision {
  allowed: boolean;
  remaining: number;
  retryAfterSeconds: number;
}

/** Slots of a block this process holds: the next one to hand out and the end (exclusive). */
interface Lease {
  next: number;
  end: number;
}

const MAX_CLAIM_ATTEMPTS = 8;
/** At most this many blocks per window, and never more than MAX_BLOCK_SIZE slots per block. */
const BLOCKS_PER_WINDOW = 50;
const MAX_BLOCK_SIZE = 20;

/** Small limits keep one slot per claim, so they stay exact per request across processes. */
export function blockSizeFor(points: number): number {
  return Math.max(1, Math.min(MAX_BLOCK_SIZE, Math.floor(points / BLOCKS_PER_WINDOW)));
}

export class RateLimiter {
  private readonly slots: Collection<SlotDoc>;
  private readonly blockSize: number;
  private currentWindow = -1;
  private readonly leases = new Map<string, Lease>();
  /** Next block this process expects to be free per subject (another process may have it). */
  private readonly nextBlock = new Map<string, number>();
  /** One block claim at a time per subject: concurrent requests wait for it. */
  private readonly claiming = new Map<string, Promise<boolean>>();

  constructor(db: Db, private readonly limits: RateLimitConfig) {
    this.slots = db.collection<SlotDoc>('rate_limit_slots');
    this.blockSize = blockSizeFor(limits.points);
  }

  async consume(subject: string, now = Date.now()): Promise<RateDecision> {
    const windowMs = this.limits.windowSeconds * 1000;
    const window = Math.floor(now / windowMs);
    const retryAfterSeconds = Math.max(1, Math.ceil(((window + 1) * windowMs - now) / 1000));
    // Each successful claim hands out new slots of a finite window, so this loop ends; claims
    // that find nothing (others took every block we tried) are bounded.
    for (let fruitless = 0; fruitless < MAX_CLAIM_ATTEMPTS; ) {
      if (window !== this.currentWindow) {
        this.currentWindow = window;
        this.leases.clear();
        this.nextBlock.clear();
        this.claiming.clear();
      }
      const lease = this.leases.get(subject);
      if (lease && lease.next < lease.end) {
        const slot = lease.next++;
        return { allowed: true, remaining: Math.max(0, this.limits.points - slot - 1), retryAfterSeconds };
      }
      if ((this.nextBlock.get(subject) ?? 0) >= this.limits.points) break;
      let pending = this.claiming.get(subject);
      if (!pending) {
        pending = this.claimBlock(subject, window, windowMs).finally(() => this.claiming.delete(subject));
        this.claiming.set(subject, pending);
      }
      if (!(await pending)) fruitless++;
    }
    return { allowed: false, remaining: 0, retryAfterSeconds };
  }

  /** Claims the next free block of the window; false when none was found (maybe none is left). */
  private async claimBlock(subject: string, window: number, windowMs: number): Promise<boolean> {
    let first = this.nextBlock.get(subject) ?? 0;
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS && first < this.limits.points; attempt++) {
      const size = Math.min(this.blockSize, this.limits.points - first);
      try {
        await this.slots.insertOne({ _id: `${subject}:${window}:${first}`, subject, window, size, expires_at: new Date((window + 2) * windowMs) });
        this.nextBlock.set(subject, first + size);
        if (window === this.currentWindow) this.leases.set(subject, { next: first, end: first + size });
        return true;
      } catch (error) {
        if ((error as { code?: number }).code !== 11000) throw error;
        // Taken by another process: jump past every block claimed so far in this window.
        const claimed = await this.slots.countDocuments({ subject, window });
        first = Math.max(first + size, claimed * this.blockSize);
      }
    }
    this.nextBlock.set(subject, Math.max(first, this.nextBlock.get(subject) ?? 0));
    return false;
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
