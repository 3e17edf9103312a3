/**
 * Merchant credentials: a public API key (an identifier, safe to log) and a private secret
 * key (shown once, stored only as a SHA-256 hash, compared in constant time).
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/**
 * Every merchant has a test key pair and a live key pair, as at every provider. Test keys
 * reach only the built-in sandbox and providers' test environments; live keys never reach
 * them and refuse the sandbox's test cards. Each mode has its own organization scope, so data
 * of one mode is never read with the other's keys. Keys issued before modes existed carry no
 * mode and keep working as they did.
 */
export type KeyMode = 'test' | 'live';

export interface KeyPair {
  organization_code: string;
  account_id: string;
  public_api_key: string;
  private_secret_key: string;
}

/** What a new merchant receives: its test pair (the top-level fields) and its live pair. */
export interface IssuedCredentials extends KeyPair {
  mode: 'test';
  live: KeyPair & { mode: 'live' };
}

export function newPublicApiKey(mode?: KeyMode): string {
  return `pk_${mode ? `${mode}_` : ''}${randomBytes(18).toString('base64url')}`;
}

export function newPrivateSecretKey(mode?: KeyMode): string {
  return `sk_${mode ? `${mode}_` : ''}${randomBytes(32).toString('base64url')}`;
}

/**
 * The environment a provider connection reaches, from its provider and credentials: the
 * sandbox and providers' test environments are 'test'; null when unknown (no connector).
 */
export function connectionEnvironment(providerId: string, credentials: { secret_key?: string; environment?: string } | undefined | null): KeyMode | null {
  if (providerId === 'SANDBOX') return 'test';
  if (providerId === 'STRIPE' && credentials?.secret_key) return /^(sk|rk)_test_/.test(credentials.secret_key) ? 'test' : 'live';
  if (providerId === 'ADYEN' && credentials?.environment) return credentials.environment === 'TEST' ? 'test' : 'live';
  return null;
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
