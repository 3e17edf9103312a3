/**
 * Symmetric encryption and keyed hashing used for data at rest (vault, workflow payloads)
 * and deterministic redaction. Keys come from a keyring of master keys; each purpose gets
 * its own subkey (HKDF), and every ciphertext names the master key id so keys can rotate:
 * the active key encrypts, any key in the ring decrypts.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

export type KeyPurpose =
  | 'payload-codec'
  | 'vault'
  | 'fingerprint'
  | 'redaction'
  | 'webhook-secret'
  | 'field'
  | 'whitelabel-token'
  | 'report-link'
  | 'bank-account'
  | 'provider-credentials';

export interface Keyring {
  activeKeyId: string;
  keys: ReadonlyMap<string, Buffer>;
}

export function parseKeyring(spec: string): Keyring {
  const keys = new Map<string, Buffer>();
  let activeKeyId = '';
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [id, material] = part.split(':');
    const key = Buffer.from(material ?? '', 'base64');
    if (!id || !/^[A-Za-z0-9_-]{1,32}$/.test(id) || key.length !== 32) {
      throw new Error('each master key must be "<id>:<base64 of 32 bytes>" with an id of letters, digits, _ or -');
    }
    keys.set(id, key);
    if (!activeKeyId) activeKeyId = id;
  }
  if (!activeKeyId) throw new Error('the keyring holds no key');
  return { activeKeyId, keys };
}

export function formatKeyring(keyring: Keyring): string {
  const ordered = [keyring.activeKeyId, ...[...keyring.keys.keys()].filter((id) => id !== keyring.activeKeyId)];
  return ordered.map((id) => `${id}:${keyring.keys.get(id)!.toString('base64')}`).join(',');
}

export function generateKeyring(id = `k${Date.now().toString(36)}`): Keyring {
  return { activeKeyId: id, keys: new Map([[id, randomBytes(32)]]) };
}

const derived = new WeakMap<Buffer, Map<KeyPurpose, Buffer>>();

function subkey(master: Buffer, purpose: KeyPurpose): Buffer {
  let byPurpose = derived.get(master);
  if (!byPurpose) derived.set(master, (byPurpose = new Map()));
  let key = byPurpose.get(purpose);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `switchyard:${purpose}`, 32));
    byPurpose.set(purpose, key);
  }
  return key;
}

function masterKey(keyring: Keyring, id: string): Buffer {
  const key = keyring.keys.get(id);
  if (!key) throw new Error(`unknown encryption key id "${id}"`);
  return key;
}

export interface Sealed {
  keyId: string;
  /** iv (12 bytes) + tag (16 bytes) + ciphertext */
  data: Buffer;
}

export function sealBytes(keyring: Keyring, purpose: KeyPurpose, plaintext: Uint8Array, aad = ''): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', subkey(masterKey(keyring, keyring.activeKeyId), purpose), iv);
  cipher.setAAD(Buffer.from(`${purpose}:${aad}`));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { keyId: keyring.activeKeyId, data: Buffer.concat([iv, cipher.getAuthTag(), ciphertext]) };
}

export function openBytes(keyring: Keyring, purpose: KeyPurpose, sealed: Sealed, aad = ''): Buffer {
  const iv = sealed.data.subarray(0, 12);
  const tag = sealed.data.subarray(12, 28);
  const decipher = createDecipheriv('aes-256-gcm', subkey(masterKey(keyring, sealed.keyId), purpose), iv);
  decipher.setAAD(Buffer.from(`${purpose}:${aad}`));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(sealed.data.subarray(28)), decipher.final()]);
}

/** Compact string form "<keyId>.<base64url>" for storing an encrypted string in a document. */
export function sealString(keyring: Keyring, purpose: KeyPurpose, plaintext: string, aad = ''): string {
  const sealed = sealBytes(keyring, purpose, Buffer.from(plaintext, 'utf8'), aad);
  return `${sealed.keyId}.${sealed.data.toString('base64url')}`;
}

export function openString(keyring: Keyring, purpose: KeyPurpose, sealed: string, aad = ''): string {
  const dot = sealed.indexOf('.');
  if (dot < 1) throw new Error('not a sealed string');
  return openBytes(keyring, purpose, { keyId: sealed.slice(0, dot), data: Buffer.from(sealed.slice(dot + 1), 'base64url') }, aad).toString('utf8');
}

/**
 * Keyed, deterministic hash (HMAC-SHA256, hex). Uses the *first-added* semantics of the
 * active key: hashes are stable for as long as the active key is, so rotate hash keys
 * only together with a re-fingerprint job.
 */
export function keyedHash(keyring: Keyring, purpose: KeyPurpose, data: string, scope = ''): string {
  return createHmac('sha256', subkey(masterKey(keyring, keyring.activeKeyId), purpose)).update(`${scope}\u0000${data}`).digest('hex');
}

/**
 * A purpose's raw subkey under one master key (the active one by default), for primitives
 * that need the key itself (e.g. HS256 token signing). The key id goes with it so a
 * verifier can pick the same master key after rotation.
 */
export function purposeKey(keyring: Keyring, purpose: KeyPurpose, keyId = keyring.activeKeyId): { keyId: string; key: Buffer } {
  return { keyId, key: subkey(masterKey(keyring, keyId), purpose) };
}
