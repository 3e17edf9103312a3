/**
 * Merchant authentication by credential pair. Header names are case-insensitive (Koa
 * lower-cases them) and both spellings of the spec work: public-api-key / X-Public-Api-Key,
 * private-secret-key / X-Private-Secret-Key.
 */
import type { Next } from 'koa';
import type { Db } from 'mongodb';
import { CredentialDoc, findCredentialByPublicKey, findCredentialBySecretHash } from '../../activities/repositories/merchants';
import { hashSecret, secretMatches } from '../../domain/credentials';
import { ApiError } from '../../domain/errors';
import type { AppContext } from '../context';

/** `pair`: both keys required; `either`: one of the two is enough (dry-run registration). */
export type AuthMode = 'pair' | 'either';

const CACHE_TTL_MS = 30_000;
const CACHE_MAX = 10_000;

/**
 * Credential lookups are cached briefly per process: every request needs one, and a revoked
 * credential stops working within CACHE_TTL_MS.
 */
export class CredentialCache {
  private readonly byKey = new Map<string, { doc: CredentialDoc | null; expires: number }>();

  constructor(private readonly db: Db) {}

  async byPublicKey(publicKey: string): Promise<CredentialDoc | null> {
    return this.cached(`p:${publicKey}`, () => findCredentialByPublicKey(this.db, publicKey));
  }

  async bySecret(secret: string): Promise<CredentialDoc | null> {
    const hash = hashSecret(secret);
    return this.cached(`s:${hash}`, () => findCredentialBySecretHash(this.db, hash));
  }

  private async cached(key: string, load: () => Promise<CredentialDoc | null>): Promise<CredentialDoc | null> {
    const now = Date.now();
    const hit = this.byKey.get(key);
    if (hit && hit.expires > now) return hit.doc;
    const doc = await load();
    if (this.byKey.size >= CACHE_MAX) this.byKey.clear();
    this.byKey.set(key, { doc, expires: now + CACHE_TTL_MS });
    return doc;
  }
}

export function readCredentialHeaders(ctx: AppContext): { publicKey?: string; secret?: string } {
  const publicKey = ctx.get('public-api-key') || ctx.get('x-public-api-key') || undefined;
  const secret = ctx.get('private-secret-key') || ctx.get('x-private-secret-key') || undefined;
  return { publicKey, secret };
}

export function authenticate(cache: CredentialCache, mode: AuthMode) {
  return async (ctx: AppContext, next: Next) => {
    const { publicKey, secret } = readCredentialHeaders(ctx);
    if (mode === 'pair' ? !publicKey || !secret : !publicKey && !secret) {
      throw new ApiError(
        'unauthenticated',
        mode === 'pair'
          ? 'both the public API key and the private secret key headers are required'
          : 'the public API key or the private secret key header is required',
      );
    }
    let credential: CredentialDoc | null;
    if (publicKey) {
      credential = await cache.byPublicKey(publicKey);
      if (credential && secret && !secretMatches(secret, credential.secret_hash)) credential = null;
    } else {
      credential = await cache.bySecret(secret!);
    }
    if (!credential) throw new ApiError('invalid_credentials', 'the credentials are not valid');
    ctx.state.principal = { organizationCode: credential.organization_code, credentialId: credential._id };
    await next();
  };
}
