/**
 * Idempotency keys (spec, "Idempotency"), one mechanism for every area.
 *
 * - Scoped per organization and operation (method + path): the same key on another
 *   operation (a capture after the payment it created) is a new request. The first request
 *   with a key inserts a lock document whose _id is <organization>:<method> <path>:<key>;
 *   the unique _id makes the claim atomic across API processes.
 * - While the first request runs, a concurrent one gets 400 REQUEST_IN_PROCESS.
 * - The answer is stored for 24 h and replayed for the same key; with a different body the
 *   area decides: replay the original (default) or 409 (dry-run registration).
 * - Answers 400 and 5xx are not stored, so a corrected request can reuse the key, and a
 *   retry of one that was not confirmed in time (503) joins the same workflow and gets its
 *   final answer.
 * - Each lock names the API process holding it; every process marks itself alive every few
 *   seconds. A lock whose process stopped doing so (crashed) is taken over after
 *   PROCESS_GONE_MS; LOCK_TIMEOUT_MS stays the backstop. Synchronous waits are bounded well
 *   below it (LIFECYCLE_SYNC_WAIT_MS), so a live holder always finishes first.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Next } from 'koa';
import type { Collection, Db } from 'mongodb';
import { ApiError } from '../../domain/errors';
import type { AppContext } from '../context';
import { applyError } from '../errors';

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
const LOCK_TIMEOUT_MS = 60_000;
const HEARTBEAT_MS = 3_000;
/** A process not seen for this long is gone; its open locks are free. */
export const PROCESS_GONE_MS = 4 * HEARTBEAT_MS;

export interface IdempotencyOptions {
  /** When true a request without the header is rejected. */
  required: boolean;
  /** Key syntax: any string up to 64 chars, or a UUID. */
  format: 'max64' | 'uuid';
  /** Same key, different payload: replay the first answer, or 409 conflict. */
  onDifferentPayload: 'replay' | 'conflict';
}

interface IdempotencyDoc {
  _id: string;
  organization_code: string;
  request_hash: string;
  state: 'open' | 'done';
  /** The API process that holds an open lock. */
  holder?: string;
  status?: number;
  body?: unknown;
  location?: string;
  created_at: Date;
  expires_at: Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Key order does not make two payloads different. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestFingerprint(method: string, routePath: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${routePath}\n`).update(canonicalJson(body ?? null)).digest('hex');
}

interface ProcessDoc {
  _id: string;
  seen_at: Date;
}

export class IdempotencyStore {
  readonly keys: Collection<IdempotencyDoc>;
  private readonly processes: Collection<ProcessDoc>;
  /** This API process, named in the locks it holds. */
  readonly holder = randomUUID();
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(db: Db) {
    this.keys = db.collection<IdempotencyDoc>('idempotency_keys');
    this.processes = db.collection<ProcessDoc>('api_processes');
  }

  /** Marks this process alive now and every HEARTBEAT_MS (one _id upsert; no per-request write). */
  async start(): Promise<void> {
    const beat = () => this.processes.updateOne({ _id: this.holder }, { $set: { seen_at: new Date() } }, { upsert: true });
    await beat();
    // Processes that crashed long ago: their locks were free after PROCESS_GONE_MS anyway.
    await this.processes.deleteMany({ seen_at: { $lt: new Date(Date.now() - 24 * 60 * 60 * 1000) } });
    this.heartbeat = setInterval(() => beat().catch(() => undefined), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** A clean shutdown frees this process's open locks at once. */
  async stop(): Promise<void> {
    clearInterval(this.heartbeat);
    await this.processes.deleteOne({ _id: this.holder }).catch(() => undefined);
  }

  private async holderGone(holder: string | undefined, now: Date): Promise<boolean> {
    if (!holder) return false; // a lock from before holders were recorded: the timeout decides
    if (holder === this.holder) return false;
    const process = await this.processes.findOne({ _id: holder });
    return !process || now.getTime() - process.seen_at.getTime() > PROCESS_GONE_MS;
  }

  /** Claims the key, or returns the document that already holds it. */
  async claim(id: string, organizationCode: string, requestHash: string, now = new Date()): Promise<IdempotencyDoc | null> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.keys.insertOne({
          _id: id,
          organization_code: organizationCode,
          request_hash: requestHash,
          state: 'open',
          holder: this.holder,
          created_at: now,
          expires_at: new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS),
        });
        return null;
      } catch (error) {
        if ((error as { code?: number }).code !== 11000) throw error;
      }
      const existing = await this.keys.findOne({ _id: id });
      if (!existing) continue; // released between our insert and read
      const expired = existing.expires_at.getTime() <= now.getTime();
      const abandoned =
        existing.state === 'open' && (now.getTime() - existing.created_at.getTime() > LOCK_TIMEOUT_MS || (await this.holderGone(existing.holder, now)));
      if (!expired && !abandoned) return existing;
      // Expired or abandoned: remove that exact generation, then race for the insert again.
      await this.keys.deleteOne({ _id: id, created_at: existing.created_at });
    }
    throw new ApiError('request_in_process', 'another request with this idempotency key is being processed; retry in a few seconds');
  }

  async complete(id: string, status: number, body: unknown, location?: string): Promise<void> {
    await this.keys.updateOne({ _id: id }, { $set: { state: 'done', status, body, ...(location ? { location } : {}) } });
  }

  async release(id: string): Promise<void> {
    await this.keys.deleteOne({ _id: id, state: 'open' });
  }
}

export function idempotency(store: IdempotencyStore, options: IdempotencyOptions) {
  return async (ctx: AppContext, next: Next) => {
    const key = ctx.get('x-idempotency-key');
    if (!key) {
      if (options.required) throw new ApiError('validation', 'the X-Idempotency-Key header is required', { fieldErrors: [{ field: 'X-Idempotency-Key', code: 'REQUIRED', message: 'X-Idempotency-Key header is required' }] });
      return next();
    }
    if (options.format === 'uuid' ? !UUID.test(key) : key.length > 64) {
      const message = options.format === 'uuid' ? 'X-Idempotency-Key must be a UUID' : 'X-Idempotency-Key must be at most 64 characters';
      throw new ApiError('validation', message, { code: options.format === 'max64' ? 'INVALID_PARAMETERS' : undefined, fieldErrors: [{ field: 'X-Idempotency-Key', code: 'INVALID', message }] });
    }
    const organizationCode = ctx.state.principal!.organizationCode;
    const id = `${organizationCode}:${ctx.method} ${ctx.path}:${key}`;
    const requestHash = requestFingerprint(ctx.method, ctx.state.routePath ?? ctx.path, ctx.request.body);
    const existing = await store.claim(id, organizationCode, requestHash);
    if (existing) {
      if (existing.state === 'open') {
        throw new ApiError('request_in_process', 'another request with this idempotency key is being processed; retry in a few seconds');
      }
      if (existing.request_hash !== requestHash && options.onDifferentPayload === 'conflict') {
        throw new ApiError('conflict', 'this idempotency key was already used with a different payload');
      }
      ctx.status = existing.status!;
      ctx.body = existing.body;
      if (existing.location) ctx.set('Location', existing.location);
      ctx.set('Idempotent-Replayed', 'true');
      return;
    }
    try {
      await next();
    } catch (error) {
      applyError(ctx, error);
    }
    if (ctx.status === 400 || ctx.status >= 500) {
      await store.release(id);
    } else {
      await store.complete(id, ctx.status, ctx.body, ctx.response.get('Location') || undefined);
    }
  };
}
