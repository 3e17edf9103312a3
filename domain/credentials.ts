/**
 * Merchant credentials: a public API key (an identifier, safe to log) and a private secret
 * key (shown once, stored only as a SHA-256 hash, compared in constant time).
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

export interface IssuedCredentials {
  organization_code: string;
  account_id: string;
  public_api_key: string;
  private_secret_key: string;
}

export function newPublicApiKey(): string {
  return `pk_${randomBytes(18).toString('base64url')}`;
}

export function newPrivateSecretKey(): string {
  return `sk_${randomBytes(32).toString('base64url')}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented secret against a stored hash. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

export function newId(): string {
  return randomUUID();
}
