import assert from 'node:assert/strict';
import { formatKeyring, generateKeyring, keyedHash, openString, parseKeyring, sealString } from '../../domain/crypto';
import { EncryptionCodec } from '../../activities/runtime/payload-codec';

describe('crypto (unit)', () => {
  it('seals and opens, with the key id in the ciphertext', () => {
    const ring = generateKeyring('a1');
    const sealed = sealString(ring, 'vault', '4111111111111111');
    assert.ok(sealed.startsWith('a1.'));
    assert.ok(!sealed.includes('4111111111111111'));
    assert.equal(openString(ring, 'vault', sealed), '4111111111111111');
  });

  it('keeps old ciphertexts readable after rotation', () => {
    const old = generateKeyring('old');
    const sealed = sealString(old, 'vault', 'secret');
    const rotated = parseKeyring(`new:${Buffer.alloc(32, 7).toString('base64')},${formatKeyring(old)}`);
    assert.equal(rotated.activeKeyId, 'new');
    assert.ok(sealString(rotated, 'vault', 'x').startsWith('new.'));
    assert.equal(openString(rotated, 'vault', sealed), 'secret');
  });

  it('refuses a ciphertext opened for another purpose or tampered with', () => {
    const ring = generateKeyring();
    const sealed = sealString(ring, 'vault', 'secret');
    assert.throws(() => openString(ring, 'field', sealed));
    const at = sealed.length - 2;
    const tampered = sealed.slice(0, at) + (sealed[at] === 'A' ? 'B' : 'A') + sealed.slice(at + 1);
    assert.notEqual(tampered, sealed);
    assert.throws(() => openString(ring, 'vault', tampered));
  });

  it('hashes deterministically per scope', () => {
    const ring = generateKeyring();
    assert.equal(keyedHash(ring, 'redaction', 'tok', 'org1'), keyedHash(ring, 'redaction', 'tok', 'org1'));
    assert.notEqual(keyedHash(ring, 'redaction', 'tok', 'org1'), keyedHash(ring, 'redaction', 'tok', 'org2'));
  });

  it('payload codec round-trips and hides the data', async () => {
    const codec = new EncryptionCodec(generateKeyring('k9'));
    const payload = { metadata: { encoding: new TextEncoder().encode('json/plain') }, data: new TextEncoder().encode('{"pan":"4111111111111111"}') };
    const [encoded] = await codec.encode([payload]);
    assert.equal(new TextDecoder().decode(encoded.metadata!['encoding']), 'binary/encrypted');
    assert.equal(new TextDecoder().decode(encoded.metadata!['encryption-key-id']), 'k9');
    assert.ok(!Buffer.from(encoded.data!).toString('latin1').includes('4111111111111111'));
    const [decoded] = await codec.decode([encoded]);
    assert.equal(new TextDecoder().decode(decoded.data), '{"pan":"4111111111111111"}');
  });
});
