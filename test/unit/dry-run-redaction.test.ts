import assert from 'node:assert/strict';
import { generateKeyring } from '../../domain/crypto';
import { ingestEvent } from '../../domain/dry-run/decode';
import { isLikelyPan, luhnValid, organizationRedactor } from '../../domain/dry-run/redact';
import { b64, requestEvent, serviceRequest, TEST_CVV, TEST_PAN, TEST_TOKEN } from '../support/dry-run-fixtures';

const keyring = generateKeyring('t1');
const redactor = organizationRedactor(keyring, 'org-a');
const other = organizationRedactor(keyring, 'org-b');
const SPACED = '4111 1111 1111 1111';
const DASHED = '4111-1111-1111-1111';

function assertClean(text: string) {
  for (const secret of [TEST_PAN, SPACED, DASHED, TEST_TOKEN, '"737"', 'cvv=737', ': 737']) assert.ok(!text.includes(secret), `leaked ${secret} in ${text.slice(0, 300)}`);
}

describe('unit: dry-run redaction', () => {
  it('recognises PANs by Luhn and network', () => {
    assert.ok(luhnValid(TEST_PAN));
    assert.ok(isLikelyPan('5555555555554444'));
    assert.ok(!isLikelyPan('4111111111111112'));
    assert.ok(!isLikelyPan('1718000000000')); // a timestamp in ms
  });

  it('masks PANs keeping first 6 / last 4, deterministically per organization', () => {
    const a = redactor.text(`card ${TEST_PAN} again ${SPACED} and ${DASHED}`);
    const placeholders = a.match(/\[PAN:[^\]]+\]/g)!;
    assert.equal(placeholders.length, 3);
    assert.equal(new Set(placeholders).size, 1, 'same PAN, same placeholder whatever the grouping');
    assert.match(placeholders[0], /^\[PAN:411111\*{6}1111:[0-9a-f]{12}\]$/);
    assert.notEqual(other.text(TEST_PAN), redactor.text(TEST_PAN), 'another organization gets another placeholder');
  });

  it('redacts JSON bodies: PANs as strings and numbers, CVV, tokens, secrets', () => {
    const body = { card: { number: TEST_PAN, cvv: TEST_CVV, raw: Number(TEST_PAN) }, pan19: '6011000990139424', nested: [{ security_code: 123 }], api_key: 'k-123456', access_token: TEST_TOKEN, note: `Bearer ${TEST_TOKEN}`, amount: 1000 };
    const stored = ingestEvent(requestEvent(body), redactor);
    const text = stored.body.text!;
    assertClean(text);
    const parsed = JSON.parse(text);
    assert.match(parsed.card.raw, /^\[PAN:411111/);
    assert.equal(parsed.card.raw, parsed.card.number);
    assert.match(parsed.card.cvv, /^\[REDACTED:cvv:/);
    assert.match(parsed.nested[0].security_code, /^\[REDACTED:cvv:/);
    assert.match(parsed.api_key, /^\[REDACTED:secret:/);
    assert.match(parsed.note, /^Bearer \[REDACTED:bearer:/);
    assert.equal(parsed.amount, 1000);
    assert.ok(!text.includes('6011000990139424'));
  });

  it('quotes bare 19-digit PAN numbers before parsing, so no rounded digits survive', () => {
    const pan19 = '6011000000000000001';
    assert.ok(isLikelyPan(pan19));
    const stored = ingestEvent(requestEvent(undefined, { body: b64(`{"n": ${pan19}}`) }), redactor);
    assert.match(JSON.parse(stored.body.text!).n, /^\[PAN:601100\*{9}0001:/);
  });

  it('redacts form fields, XML elements and attributes, headers and query strings', () => {
    const form = ingestEvent(requestEvent(undefined, { headers: b64({ 'Content-Type': 'application/x-www-form-urlencoded' }), body: b64(`card_number=${SPACED.replace(/ /g, '+')}&cvc=${TEST_CVV}&amount=10`) }), redactor);
    assertClean(decodeURIComponent(form.body.text!.replace(/\+/g, ' ')));
    assert.match(form.body.text!, /amount=10/);
    const xml = ingestEvent(requestEvent(undefined, { headers: b64({ 'Content-Type': 'application/xml' }), body: b64(`<pay><card pan="${TEST_PAN}"><cvv>${TEST_CVV}</cvv><holder>ANA</holder></card><note>${DASHED}</note></pay>`) }), redactor);
    assertClean(xml.body.text!);
    assert.match(xml.body.text!, /<holder>ANA<\/holder>/);
    const headers = ingestEvent(requestEvent(undefined, {
      headers: b64(`Authorization: Bearer ${TEST_TOKEN}\r\nX-Api-Key: live-key-000111\r\nCookie: session=abc\r\nX-Card: ${TEST_PAN}\r\nContent-Type: application/json`),
      endpoint: `/v1/cards/${TEST_PAN}?cvv=${TEST_CVV}&token=${TEST_TOKEN}&access_token=${TEST_TOKEN}&page=2`,
    }), redactor);
    const all = JSON.stringify(headers.headers) + headers.endpoint;
    assertClean(all);
    assert.ok(!all.includes('live-key-000111') && !all.includes('session=abc'));
    assert.equal(headers.headers.find((h) => h.name === 'Authorization')!.value.split(' ')[0], 'Bearer');
    assert.match(headers.endpoint!, /page=2$/);
  });

  it('redacts free text key/value secrets', () => {
    const text = redactor.text(`payment ok cvv=${TEST_CVV} password: hunter22 sk_live_abcdefghijklmnop1234`);
    assert.ok(!text.includes('hunter22') && !text.includes('sk_live_abcdefghijklmnop1234') && !text.includes(`cvv=${TEST_CVV}`));
  });

  it('redacts the service payment request (card number under a card object, security code)', () => {
    const redacted = JSON.stringify(redactor.value(serviceRequest()));
    assertClean(redacted);
    assert.match(redacted, /ANA SILVA/);
    assert.match(redacted, /12345678909/, 'a CPF is not a PAN');
  });

  it('never redacts a placeholder twice', () => {
    const once = redactor.text(`cvv=${TEST_CVV} ${TEST_PAN}`);
    assert.equal(redactor.text(once), once);
    assert.deepEqual(redactor.value(redactor.value({ cvv: TEST_CVV })), redactor.value({ cvv: TEST_CVV }));
  });

  describe('credential-like field names in every body format', () => {
    // One value per credential-like name; none of them may survive in any format.
    const FIELDS: Record<string, string> = {
      token: 'tok_9f8e7d6c5b4a3928', access_token: 'at_5b4a39281706aa', secret: 'shh-secret-value', password: 'hunter2-pass', api_key: 'key-0a1b2c3d4e5f',
      authorization: 'Zm9vOmJhcmJhejEy', cvc: '8524', cvv: '7391', cvv2: '6402', security_code: '5813', pin: '2468', client_token: 'ct_77aa88bb99cc', passcode: 'pc-135792',
    };
    const values = Object.values(FIELDS);
    const decoded = (text: string) => {
      try {
        return decodeURIComponent(text.replace(/\+/g, ' '));
      } catch {
        return text;
      }
    };
    const leaked = (text: string) => values.filter((v) => text.includes(v) || decoded(text).includes(v));
    const event = (contentType: string | null, body: string, endpoint = '/v1/charges') =>
      ingestEvent(requestEvent(undefined, { headers: b64(contentType ? { 'Content-Type': contentType } : {}), body: b64(body), endpoint }), redactor);

    it('JSON', () => {
      const stored = event('application/json', JSON.stringify({ ...FIELDS, amount: 10, nested: { ...FIELDS } }));
      assert.deepEqual(leaked(stored.body.text!), []);
      const parsed = JSON.parse(stored.body.text!);
      assert.equal(parsed.amount, 10);
      assert.match(parsed.pin, /^\[REDACTED:/);
      assert.match(parsed.cvc, /^\[REDACTED:cvv:/);
    });

    it('XML elements and attributes', () => {
      const elements = Object.entries(FIELDS).map(([k, v]) => `<${k}>${v}</${k}>`).join('');
      const attributes = Object.entries(FIELDS).map(([k, v]) => `${k}="${v}"`).join(' ');
      const stored = event('application/xml', `<req><amount>10</amount>${elements}<card ${attributes}/></req>`);
      assert.deepEqual(leaked(stored.body.text!), []);
      assert.match(stored.body.text!, /<amount>10<\/amount>/);
    });

    it('form-urlencoded bodies', () => {
      const stored = event('application/x-www-form-urlencoded', `${new URLSearchParams(FIELDS).toString()}&amount=10`);
      assert.equal(stored.body.format, 'form');
      assert.deepEqual(leaked(stored.body.text!), []);
      assert.match(stored.body.text!, /amount=10$/);
    });

    it('query strings of the endpoint', () => {
      const stored = event('application/json', '{}', `/v1/charges?${new URLSearchParams(FIELDS).toString()}&page=2`);
      assert.deepEqual(leaked(stored.endpoint!), []);
      assert.match(stored.endpoint!, /page=2$/);
    });

    it('free text: key=value and key: value pairs, and form bodies sent as text', () => {
      const pairs = Object.entries(FIELDS).map(([k, v]) => `${k}=${v}`).join(' ');
      const colons = Object.entries(FIELDS).map(([k, v]) => `${k}: ${v}`).join(', ');
      const stored = event('text/plain', `callback ${pairs}\n${colons}\n"token": "${FIELDS.token}"`);
      assert.deepEqual(leaked(stored.body.text!), []);
      const sniffed = event(null, `token=${FIELDS.token}&amount=10`);
      assert.deepEqual(leaked(sniffed.body.text!), []);
      assert.match(sniffed.body.text!, /amount=10/);
      // The auth scheme stays readable; the credential after it does not.
      assert.match(redactor.text(`authorization: Bearer ${TEST_TOKEN}`), /^authorization: Bearer \[REDACTED:bearer:/);
    });

    it('free-text security codes and PINs without a separator', () => {
      for (const phrase of ['cvc 8524', 'CVV: 123', 'cvv2 123', 'security code 1234', 'Security Code: 987', 'card verification code 4321', 'the CVC is 852', 'PIN 2468', 'pin code: 135790', 'CSC#123']) {
        const digits = phrase.match(/\d+$/)![0];
        const out = redactor.text(`customer said ${phrase}, thanks`);
        assert.ok(!out.includes(digits), `${phrase} -> ${out}`);
        assert.match(out, /\[REDACTED:cvv:[0-9a-f]{12}\]|\[REDACTED:secret:[0-9a-f]{12}\]/);
        assert.match(out, /, thanks$/);
      }
      // Same code, same placeholder, whatever the wording.
      assert.equal(redactor.text('cvc 8524').replace(/^cvc /, ''), redactor.text('cvv=8524').replace(/^cvv=/, ''));
      // Ordinary numbers next to other words stay.
      assert.equal(redactor.text('order 1234 shipped to pin-drop 5 in 2024'), 'order 1234 shipped to pin-drop 5 in 2024');
    });

    it('keeps a __proto__ key of a provider body as an ordinary field, redacted inside', () => {
      const stored = event('application/json', `{"amount":10,"__proto__":{"cvv":"${FIELDS.cvv}","note":"kept"}}`);
      const text = stored.body.text!;
      assert.deepEqual(leaked(text), []);
      const parsed = JSON.parse(text);
      assert.ok(Object.prototype.hasOwnProperty.call(parsed, '__proto__'), text);
      assert.equal(parsed.__proto__.note, 'kept');
      assert.match(parsed.__proto__.cvv, /^\[REDACTED:cvv:/);
      assert.equal(({} as Record<string, unknown>).note, undefined);
    });
  });
});

