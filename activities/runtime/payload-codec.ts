/**
 * Encrypting payload codec: every workflow input, result, signal, update, query answer and
 * activity argument leaves the process as AES-256-GCM ciphertext, so Temporal's history
 * never holds customer data in plaintext. The key id travels in the payload metadata so the
 * keyring can rotate. The same codec backs the /codec endpoints the Temporal UI calls.
 */
import type { Payload, PayloadCodec } from '@temporalio/common';
import { Keyring, openBytes, sealBytes } from '../../domain/crypto';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
const METADATA_ENCODING = 'encoding';
const METADATA_KEY_ID = 'encryption-key-id';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** temporal.api.common.v1.Payload, serialised so it can be encrypted as one blob. */
function serialise(payload: Payload): Uint8Array {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(payload.metadata ?? {})) {
    if (value) metadata[key] = Buffer.from(value).toString('base64');
  }
  return encoder.encode(JSON.stringify({ m: metadata, d: payload.data ? Buffer.from(payload.data).toString('base64') : null }));
}

function deserialise(bytes: Uint8Array): Payload {
  const parsed = JSON.parse(decoder.decode(bytes)) as { m: Record<string, string>; d: string | null };
  const metadata: Record<string, Uint8Array> = {};
  for (const [key, value] of Object.entries(parsed.m)) metadata[key] = new Uint8Array(Buffer.from(value, 'base64'));
  return { metadata, data: parsed.d === null ? undefined : new Uint8Array(Buffer.from(parsed.d, 'base64')) };
}

export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly keyring: Keyring) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const sealed = sealBytes(this.keyring, 'payload-codec', serialise(payload));
      return {
        metadata: {
          [METADATA_ENCODING]: encoder.encode(ENCRYPTED_ENCODING),
          [METADATA_KEY_ID]: encoder.encode(sealed.keyId),
        },
        data: new Uint8Array(sealed.data),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const encoding = payload.metadata?.[METADATA_ENCODING];
      if (!encoding || decoder.decode(encoding) !== ENCRYPTED_ENCODING) return payload;
      const keyId = payload.metadata?.[METADATA_KEY_ID];
      if (!keyId || !payload.data) throw new Error('encrypted payload without key id or data');
      return deserialise(openBytes(this.keyring, 'payload-codec', { keyId: decoder.decode(keyId), data: Buffer.from(payload.data) }));
    });
  }
}
