import assert from 'node:assert/strict';
import { generateKeyring, parseKeyring, formatKeyring } from '../../domain/crypto';
import { checkDownloadLink, csvField, signedDownloadQuery, TRANSACTIONS_CSV_HEADER, transactionsCsvRow } from '../../domain/reports';
import { signWhitelabelToken, verifyWhitelabelToken } from '../../domain/whitelabel';

describe('report CSV and download links (unit)', () => {
  it('quotes per RFC 4180 and defuses spreadsheet formulas', () => {
    assert.equal(csvField('plain'), 'plain');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('line\nbreak'), '"line\nbreak"');
    assert.equal(csvField('=1+1'), "'=1+1");
    assert.equal(csvField('@SUM(A1)'), "'@SUM(A1)");
    assert.equal(csvField(-5), '-5');
    assert.equal(csvField(null), '');
    assert.equal(csvField(new Date('2030-01-01T00:00:00Z')), '2030-01-01T00:00:00.000Z');
  });

  it('writes one row per payment in the header order, tolerating missing fields', () => {
    assert.equal(TRANSACTIONS_CSV_HEADER.split(',').length, 13);
    assert.equal(transactionsCsvRow({ _id: 'p1' }), 'p1,,,,,,,,,,,,\r\n');
    assert.equal(
      transactionsCsvRow({ id: 'p2', amount: { value: 1.5, currency: 'USD', captured: 1.5, refunded: 0 }, payment_method: { type: 'CARD' }, created_at: '2030-01-01T00:00:00.000Z' }),
      'p2,,,,,1.5,USD,1.5,0,,CARD,2030-01-01T00:00:00.000Z,\r\n',
    );
  });

  it('signs links per report and expiry', () => {
    const ring = generateKeyring('r1');
    const query = new URLSearchParams(signedDownloadQuery(ring, 'rep-1', 2_000_000_000));
    const [expires, signature] = [query.get('expires')!, query.get('signature')!];
    assert.equal(checkDownloadLink(ring, 'rep-1', expires, signature, 1_999_999_999), 'valid');
    assert.equal(checkDownloadLink(ring, 'rep-1', expires, signature, 2_000_000_001), 'expired');
    assert.equal(checkDownloadLink(ring, 'rep-2', expires, signature, 1), 'invalid');
    assert.equal(checkDownloadLink(ring, 'rep-1', '2000000001', signature, 1), 'invalid');
    assert.equal(checkDownloadLink(generateKeyring('r1'), 'rep-1', expires, signature, 1), 'invalid');
    assert.equal(checkDownloadLink(ring, 'rep-1', expires, 'zz', 1), 'invalid');
  });
});

describe('whitelabel tokens (unit)', () => {
  const input = { userId: 'u1', organizationCode: 'o1', role: 'VIEWER' as const, jti: 'j1', issuedAt: 1_900_000_000, ttlSeconds: 86_400 };

  it('verifies its own tokens until they expire', async () => {
    const ring = generateKeyring('k1');
    const token = await signWhitelabelToken(ring, input);
    const ok = await verifyWhitelabelToken(ring, token, input.issuedAt + 10);
    assert.ok(ok.ok);
    assert.equal(ok.ok && ok.claims.org, 'o1');
    assert.deepEqual(await verifyWhitelabelToken(ring, token, input.issuedAt + 86_401), { ok: false, reason: 'expired' });
  });

  it('keeps verifying after key rotation while the old key is in the ring, and refuses unknown keys', async () => {
    const old = generateKeyring('old');
    const token = await signWhitelabelToken(old, input);
    const rotated = parseKeyring(`new:${Buffer.alloc(32, 9).toString('base64')},${formatKeyring(old)}`);
    assert.ok((await verifyWhitelabelToken(rotated, token, input.issuedAt + 1)).ok);
    const newOnly = parseKeyring(`new:${Buffer.alloc(32, 9).toString('base64')}`);
    assert.deepEqual(await verifyWhitelabelToken(newOnly, token, input.issuedAt + 1), { ok: false, reason: 'invalid' });
  });

  it('refuses alg none and tokens with altered claims', async () => {
    const ring = generateKeyring('k1');
    const token = await signWhitelabelToken(ring, input);
    const [header, payload] = token.split('.');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', kid: 'k1' })).toString('base64url')}.${payload}.`;
    assert.equal((await verifyWhitelabelToken(ring, none, input.issuedAt + 1)).ok, false);
    const altered = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...altered, role: 'ADMIN' })).toString('base64url')}.${token.split('.')[2]}`;
    assert.equal((await verifyWhitelabelToken(ring, forged, input.issuedAt + 1)).ok, false);
  });
});
