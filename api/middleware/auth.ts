/**
 * Merchant authentication by credential pair. Header names are case-insensitive (Koa
 * lower-cases them) and both spellings of the spec work: public-api-key / X-Public-Api-Key,
 * private-secret-key / X-Private-Secret-Key.
 *
 * Read endpoints of an organization may also accept a whitelabel embed token (mode
 * 'pair-or-bearer'): `Authorization: Bearer <access_token>` from POST
 * /v1/organizations/authenticate acts as the token's organization, read-only.
 */
import { findByIdWithin } from '../../activities/runtime/mongo';
import type { Next } from 'koa';
import type { Db } from 'mongodb';
import { CredentialDoc, findCredentialByPublicKey, findCredentialBySecretHash } from '../../activities/repositories/merchants';
import { hashSecret, secretMatches } from '../../domain/credentials';
import { whitelabelTokens, whitelabelUsers } from '../../activities/repositories/organizations';
import type { Keyring } from '../../domain/crypto';
import { ApiError } from '../../domain/errors';
import { verifyWhitelabelToken } from '../../domain/whitelabel';
import type { Principal } from '../../activities/repositories/merchants';
import type { AppContext } from '../context';

/**
 * `pair`: both keys required; `either`: one of the two is enough (dry-run registration);
 * `pair-or-bearer`: both keys, or a whitelabel embed token as `Authorization: Bearer`.
 */
export type AuthMode = 'pair' | 'either' | 'pair-or-bearer';

export const AUTH_MODES: readonly string[] = ['pair', 'either', 'pair-or-bearer'];

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

/**
 * Verifies a whitelabel embed token: signature, expiry, then that its jti was issued and
 * not revoked and that the user is still active (so disabling a user cuts its tokens).
 */
export class BearerVerifier {
  constructor(private readonly db: Db, private readonly keyring: Keyring) {}

  async principalOf(token: string): Promise<Principal> {
    const check = await verifyWhitelabelToken(this.keyring, token);
    if (!check.ok) {
      throw new ApiError('invalid_credentials', check.reason === 'expired' ? 'the bearer token has expired' : 'the bearer token is not valid');
    }
    const { sub, org, jti } = check.claims;
    const [issued, user] = await Promise.all([
      findByIdWithin(whitelabelTokens(this.db), jti, { user_id: sub, organization_code: org }),
      findByIdWithin(whitelabelUsers(this.db), sub, { organization_code: org }),
    ]);
    if (!issued || issued.revoked_at || !user || user.status !== 'ACTIVE') {
      throw new ApiError('invalid_credentials', 'the bearer token is not valid');
    }
    return { organizationCode: org, credentialId: `whitelabel:${sub}`, whitelabelUserId: sub };
  }
}

function bearerToken(ctx: AppContext): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'));
  return match?.[1];
}

export function authenticate(cache: CredentialCache, mode: AuthMode, bearer?: BearerVerifier) {
  return async (ctx: AppContext, next: Next) => {
    const { publicKey, secret } = readCredentialHeaders(ctx);
    if (mode === 'pair-or-bearer' && bearer && !publicKey && !secret) {
      const token = bearerToken(ctx);
      if (!token) {
        throw new ApiError('unauthenticated', 'send the public API key and private secret key headers, or Authorization: Bearer <whitelabel access token>');
      }
      ctx.state.principal = await bearer.principalOf(token);
      return next();
    }
    if (mode !== 'either' ? !publicKey || !secret : !publicKey && !secret) {
      throw new ApiError(
        'unauthenticated',
        mode !== 'either'
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
    ctx.state.principal = { organizationCode: credential.organization_code, credentialId: credential._id, mode: credential.mode ?? null };
    await next();
  };
}
