/**
 * Whitelabel embed tokens: HS256 JWTs signed with the keyring's 'whitelabel-token' subkey.
 * The header's `kid` names the master key, so tokens issued before a key rotation keep
 * verifying while that key stays in the ring. The token itself is never stored; its `jti`
 * is, so a token can be revoked and one that was never issued is refused.
 */
import { errors as joseErrors, jwtVerify, SignJWT, decodeProtectedHeader } from 'jose';
import { purposeKey, type Keyring } from './crypto';

export const WHITELABEL_TOKEN_ISSUER = 'switchyard';
export const WHITELABEL_TOKEN_AUDIENCE = 'switchyard-embed';
export const WHITELABEL_USER_ROLES = ['ADMIN', 'OPERATOR', 'VIEWER'] as const;
export type WhitelabelUserRole = (typeof WHITELABEL_USER_ROLES)[number];

export interface WhitelabelClaims {
  /** whitelabel user id */
  sub: string;
  /** organization code the user belongs to */
  org: string;
  role: WhitelabelUserRole;
  jti: string;
  iat: number;
  exp: number;
}

export interface IssueTokenInput {
  userId: string;
  organizationCode: string;
  role: WhitelabelUserRole;
  jti: string;
  /** seconds since the epoch */
  issuedAt: number;
  ttlSeconds: number;
}

export async function signWhitelabelToken(keyring: Keyring, input: IssueTokenInput): Promise<string> {
  const { keyId, key } = purposeKey(keyring, 'whitelabel-token');
  return new SignJWT({ org: input.organizationCode, role: input.role })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: keyId })
    .setIssuer(WHITELABEL_TOKEN_ISSUER)
    .setAudience(WHITELABEL_TOKEN_AUDIENCE)
    .setSubject(input.userId)
    .setJti(input.jti)
    .setIssuedAt(input.issuedAt)
    .setExpirationTime(input.issuedAt + input.ttlSeconds)
    .sign(new Uint8Array(key));
}

export type TokenCheck = { ok: true; claims: WhitelabelClaims } | { ok: false; reason: 'expired' | 'invalid' };

/** Verifies signature (HS256 only), issuer, audience and expiry; never throws. */
export async function verifyWhitelabelToken(keyring: Keyring, token: string, nowSeconds?: number): Promise<TokenCheck> {
  try {
    const { kid } = decodeProtectedHeader(token);
    if (typeof kid !== 'string' || !keyring.keys.has(kid)) return { ok: false, reason: 'invalid' };
    const { key } = purposeKey(keyring, 'whitelabel-token', kid);
    const { payload } = await jwtVerify(token, new Uint8Array(key), {
      algorithms: ['HS256'],
      issuer: WHITELABEL_TOKEN_ISSUER,
      audience: WHITELABEL_TOKEN_AUDIENCE,
      requiredClaims: ['sub', 'jti', 'exp', 'iat'],
      ...(nowSeconds !== undefined ? { currentDate: new Date(nowSeconds * 1000) } : {}),
    });
    if (typeof payload.org !== 'string' || !(WHITELABEL_USER_ROLES as readonly unknown[]).includes(payload.role)) {
      return { ok: false, reason: 'invalid' };
    }
    return { ok: true, claims: payload as unknown as WhitelabelClaims };
  } catch (error) {
    return { ok: false, reason: error instanceof joseErrors.JWTExpired ? 'expired' : 'invalid' };
  }
}
