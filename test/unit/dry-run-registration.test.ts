import assert from 'node:assert/strict';
import { gzipSync, deflateSync, brotliCompressSync } from 'node:zlib';
import { ApiError } from '../../domain/errors';
import { DRY_RUN_LIMITS, isOrigin } from '../../domain/dry-run/codecs';
import { ingestEvent, ingestEvents, parseHeaders } from '../../domain/dry-run/decode';
import { errorTableMarkdown, DRY_RUN_ERROR_CODES } from '../../domain/dry-run/errors';
import { Redactor } from '../../domain/dry-run/redact';
import { decodeRegistration } from '../../domain/dry-run/rules';
import { PROVIDER_CODES } from '../../domain/providers/catalogue';
import { loadConfig } from '../../activities/runtime/config';
import { b64, requestEvent, responseEvent, webhookEvent } from '../support/dry-run-fixtures';

const CATALOGUE = new Set(PROVIDER_CODES);
const redactor = new Redactor((v) => `h${v.length}`.padEnd(12, '0'));

function rejects(raw: unknown, code: string, status: number): ApiError {
  try {
    decodeRegistration(raw, CATALOGUE);
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    assert.equal(error.code, code, error.messages.join('; '));
    assert.equal(error.status, status);
    return error;
  }
  assert.fail(`expected ${code}`);
}

const valid = () => ({ merchant_reference: 'ref-001', events: [requestEvent()] });

describe('unit: dry-run registration rules', () => {
  it('accepts a valid registration and strips unknown fields', () => {
    const request = decodeRegistration({ ...valid(), surprise: 1, provider_id: 'SANDBOX', payment_method_type: '' }, CATALOGUE) as Record<string, unknown>;
    assert.equal(request.merchant_reference, 'ref-001');
    assert.equal(request.surprise, undefined);
    assert.equal(request.payment_method_type, '');
  });

  it('merchant_reference: required, 3..255 at the boundaries', () => {
    rejects({ events: valid().events }, 'TRAFFIC_LOG_MERCHANT_REFERENCE_REQUIRED', 400);
    rejects({ ...valid(), merchant_reference: '  ' }, 'TRAFFIC_LOG_MERCHANT_REFERENCE_REQUIRED', 400);
    rejects({ ...valid(), merchant_reference: 'ab' }, 'TRAFFIC_LOG_VALIDATION_FAILED', 400);
    rejects({ ...valid(), merchant_reference: 'x'.repeat(256) }, 'TRAFFIC_LOG_VALIDATION_FAILED', 400);
    assert.equal(decodeRegistration({ ...valid(), merchant_reference: 'abc' }, CATALOGUE).merchant_reference, 'abc');
    assert.equal(decodeRegistration({ ...valid(), merchant_reference: 'x'.repeat(255) }, CATALOGUE).merchant_reference.length, 255);
  });

  it('events: 1..10', () => {
    rejects({ ...valid(), events: [] }, 'TRAFFIC_LOG_VALIDATION_FAILED', 400);
    assert.equal(decodeRegistration({ ...valid(), events: Array(10).fill(requestEvent()) }, CATALOGUE).events.length, 10);
    const error = rejects({ ...valid(), events: Array(11).fill(requestEvent()) }, 'TRAFFIC_LOG_VALIDATION_FAILED', 400);
    assert.match(error.messages.join(), /1 to 10/);
  });

  it('enums name the field and the allowed values', () => {
    const error = rejects({ ...valid(), events: [{ ...requestEvent(), operation_type: 'SALE' }] }, 'TRAFFIC_LOG_VALIDATION_FAILED', 400);
    assert.equal(error.fieldErrors[0].field, 'events.0.operation_type');
    assert.match(error.messages[0], /PURCHASE/);
    rejects({ ...valid(), events: [{ ...requestEvent(), type: 'CALLBACK' }] }, 'TRAFFIC_LOG_VALIDATION_FAILED', 400);
    rejects({ ...valid(), events: [{ ...requestEvent(), http_method: 'HEAD' }] }, 'TRAFFIC_LOG_VALIDATION_FAILED', 400);
    rejects({ ...valid(), payment_method_type: 'PAYPALISH' }, 'TRAFFIC_LOG_VALIDATION_FAILED', 400);
  });

  it('base_url is an origin only', () => {
    for (const ok of ['https://api.provider.example', 'http://10.0.0.1:8080', 'https://api.example:8443/']) assert.ok(isOrigin(ok), ok);
    for (const bad of ['https://api.example/v1', 'https://api.example?x=1', 'https://u:p@api.example', 'ftp://api.example', 'api.example', 'https://api.example#f']) assert.ok(!isOrigin(bad), bad);
    rejects({ ...valid(), events: [requestEvent(undefined, { base_url: 'https://api.example/v1/charges' })] }, 'TRAFFIC_LOG_VALIDATION_FAILED', 400);
  });

  it('type-dependent fields answer TRAFFIC_LOG_SEMANTIC_INVALID', () => {
    const { base_url: _b, ...noBase } = requestEvent();
    rejects({ ...valid(), events: [noBase] }, 'TRAFFIC_LOG_SEMANTIC_INVALID', 400);
    const { endpoint: _e, ...noEndpoint } = webhookEvent();
    rejects({ ...valid(), events: [noEndpoint] }, 'TRAFFIC_LOG_SEMANTIC_INVALID', 400);
    rejects({ ...valid(), events: [requestEvent(undefined, { http_status_code: 200 })] }, 'TRAFFIC_LOG_SEMANTIC_INVALID', 400);
    const { http_status_code: _s, ...noStatus } = responseEvent();
    rejects({ ...valid(), events: [noStatus] }, 'TRAFFIC_LOG_SEMANTIC_INVALID', 400);
    // a RESPONSE needs neither base_url nor endpoint
    assert.equal(decodeRegistration({ ...valid(), events: [responseEvent()] }, CATALOGUE).events[0].type, 'RESPONSE');
  });

  it('http_status_code 100..599', () => {
    for (const ok of [100, 599]) assert.equal(decodeRegistration({ ...valid(), events: [responseEvent(undefined, { http_status_code: ok })] }, CATALOGUE).events[0].http_status_code, ok);
    for (const bad of [99, 600, 200.5]) rejects({ ...valid(), events: [responseEvent(undefined, { http_status_code: bad })] }, 'TRAFFIC_LOG_VALIDATION_FAILED', 400);
  });

  it('provider_id must be in the catalogue', () => {
    rejects({ ...valid(), provider_id: 'ACME' }, 'TRAFFIC_LOG_SEMANTIC_INVALID', 400);
    rejects({ ...valid(), provider_id: 'lower' }, 'TRAFFIC_LOG_VALIDATION_FAILED', 400);
    for (const code of PROVIDER_CODES) assert.equal(decodeRegistration({ ...valid(), provider_id: code }).provider_id, code);
  });

  it('DRY_RUN_PROVIDERS narrows the catalogue and says so', () => {
    const error = (() => {
      try {
        decodeRegistration({ ...valid(), provider_id: 'ADYEN' }, new Set(['SANDBOX']));
      } catch (e) {
        return e as ApiError;
      }
      return assert.fail('expected a refusal');
    })();
    assert.equal(error.code, 'TRAFFIC_LOG_SEMANTIC_INVALID');
    assert.match(error.messages.join(' '), /not enabled for dry-run here \(DRY_RUN_PROVIDERS\)/);
    assert.throws(() => loadConfig({ DRY_RUN_PROVIDERS: 'SANDBOX,GENERIC' }), /GENERIC/);
    assert.deepEqual(loadConfig({ DRY_RUN_PROVIDERS: ' ADYEN , SANDBOX ' }).dryRun.providers, ['ADYEN', 'SANDBOX']);
    assert.deepEqual(loadConfig({}).dryRun.providers, [...PROVIDER_CODES]);
  });

  it('encoded size limits answer 413 at one past the limit', () => {
    const headersAt = 'A'.repeat(DRY_RUN_LIMITS.headersEncodedChars);
    rejects({ ...valid(), events: [requestEvent(undefined, { headers: headersAt + 'AAAA' })] }, 'TRAFFIC_LOG_PAYLOAD_TOO_LARGE', 413);
    assert.ok(decodeRegistration({ ...valid(), events: [requestEvent(undefined, { headers: headersAt })] }, CATALOGUE));
    const bodyAt = 'A'.repeat(DRY_RUN_LIMITS.bodyEncodedChars);
    assert.ok(decodeRegistration({ ...valid(), events: [requestEvent(undefined, { body: bodyAt })] }, CATALOGUE));
    rejects({ ...valid(), events: [requestEvent(undefined, { body: bodyAt + 'AAAA' })] }, 'TRAFFIC_LOG_PAYLOAD_TOO_LARGE', 413);
    rejects({ ...valid(), events: [requestEvent(undefined, { body: 'not base64!' })] }, 'TRAFFIC_LOG_VALIDATION_FAILED', 400);
  });

  it('decoded headers past 64 KB are too large even within the encoded limit', () => {
    const exactly64k = b64(Buffer.alloc(DRY_RUN_LIMITS.headersDecodedBytes, 'a'));
    assert.ok(exactly64k.length <= DRY_RUN_LIMITS.headersEncodedChars);
    const over = b64(Buffer.alloc(DRY_RUN_LIMITS.headersDecodedBytes + 3, 'a'));
    assert.ok(over.length <= DRY_RUN_LIMITS.headersEncodedChars);
    const result = ingestEvents([requestEvent(undefined, { headers: over })], redactor);
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.reason, 'too_large');
    // at the limit the size passes; the content is then judged as headers
    const atLimit = ingestEvents([requestEvent(undefined, { headers: exactly64k })], redactor);
    assert.equal(!atLimit.ok && atLimit.reason, 'semantic');
  });

  it('publishes every code with a status and a trigger', () => {
    const table = errorTableMarkdown();
    for (const code of ['TRAFFIC_LOG_VALIDATION_FAILED', 'TRAFFIC_LOG_MERCHANT_REFERENCE_REQUIRED', 'TRAFFIC_LOG_BODY_ENCODING_MISMATCH', 'TRAFFIC_LOG_IDEMPOTENCY_REPLAY', 'TRAFFIC_LOG_PAYLOAD_TOO_LARGE', 'TRAFFIC_LOG_UNSUPPORTED_CONTENT_TYPE', 'TRAFFIC_LOG_SEMANTIC_INVALID', 'PAYMENT_NOT_FOUND', 'RATE_LIMITED', 'NOT_AUTHENTICATED', 'AuthenticationFail']) {
      assert.match(table, new RegExp(`\`${code}\` \\| \\d{3} \\|`));
    }
    assert.ok(DRY_RUN_ERROR_CODES.every((e) => [400, 401, 404, 409, 413, 415, 429].includes(e.status)));
  });
});

describe('unit: dry-run event decoding', () => {
  const withBody = (body: Buffer | string, headers: Record<string, string>) => requestEvent(undefined, { headers: b64(headers), body: b64(body) });

  it('reads headers as a JSON map or a raw header block', () => {
    assert.deepEqual(parseHeaders('{"Content-Type":"application/json","X-A":["1","2"]}')?.entries, [
      { name: 'Content-Type', value: 'application/json' }, { name: 'X-A', value: '1' }, { name: 'X-A', value: '2' },
    ]);
    const raw = parseHeaders('POST /v1/charges HTTP/1.1\r\nHost: api.example\r\nContent-Type: application/json\r\nX-Long: a\r\n  b\r\n\r\n');
    assert.equal(raw?.format, 'raw');
    assert.deepEqual(raw?.entries.map((e) => e.name), ['Host', 'Content-Type', 'X-Long']);
    assert.equal(raw?.entries[2].value, 'a b');
    assert.equal(parseHeaders('HTTP/1.1 200 OK\nContent-Type: text/plain')?.entries[0].value, 'text/plain');
    assert.equal(parseHeaders('this is not a header'), null);
    assert.equal(parseHeaders('[1,2]'), null);
  });

  it('decodes JSON, form, XML and text bodies', () => {
    assert.equal(ingestEvent(withBody('{"a":1}', { 'content-type': 'application/json; charset=utf-8' }), redactor).body.format, 'json');
    const form = ingestEvent(withBody('amount=100&currency=BRL', { 'Content-Type': 'application/x-www-form-urlencoded' }), redactor).body;
    assert.equal(form.format, 'form');
    assert.equal(form.text, 'amount=100&currency=BRL');
    const xml = ingestEvent(withBody('<payment><amount>100</amount></payment>', { 'Content-Type': 'text/xml' }), redactor).body;
    assert.equal(xml.format, 'xml');
    assert.match(xml.text!, /<amount>100<\/amount>/);
    assert.equal(ingestEvent(withBody('OK', { 'Content-Type': 'text/plain' }), redactor).body.format, 'text');
    assert.equal(ingestEvent(withBody('{"sniffed":true}', {}), redactor).body.format, 'json');
  });

  it('decompresses gzip, deflate (zlib and raw) and br per Content-Encoding', () => {
    const json = JSON.stringify({ amount: 100 });
    for (const [encoding, bytes] of [['gzip', gzipSync(json)], ['deflate', deflateSync(json)], ['br', brotliCompressSync(json)]] as const) {
      const body = ingestEvent(withBody(bytes, { 'Content-Type': 'application/json', 'Content-Encoding': encoding }), redactor).body;
      assert.equal(body.format, 'json', encoding);
      assert.deepEqual(JSON.parse(body.text!), { amount: 100 });
      assert.equal(body.decoded_bytes, json.length);
    }
  });

  it('keeps binary bodies out of storage', () => {
    const body = ingestEvent(withBody(Buffer.from([0, 1, 2, 250, 251]), { 'Content-Type': 'application/octet-stream' }), redactor).body;
    assert.equal(body.format, 'binary');
    assert.equal(body.text, undefined);
    assert.equal(body.encoded_bytes, 5);
  });

  it('a body contradicting its declared type or encoding is an encoding mismatch', () => {
    const cases: Array<[Buffer | string, Record<string, string>]> = [
      ['{"a":', { 'Content-Type': 'application/json' }],
      ['<a><b></a>', { 'Content-Type': 'application/xml' }],
      ['{"a":1}', { 'Content-Type': 'application/x-www-form-urlencoded' }],
      [Buffer.from([0xff, 0xfe, 0x00]), { 'Content-Type': 'text/plain' }],
      ['{"plain":"json"}', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }],
      [gzipSync('{"a":1}'), { 'Content-Type': 'application/json' }],
      ['not brotli at all', { 'Content-Type': 'application/json', 'Content-Encoding': 'br' }],
    ];
    for (const [body, headers] of cases) {
      const result = ingestEvents([withBody(body, headers)], redactor);
      assert.equal(result.ok, false, JSON.stringify(headers));
      assert.equal(!result.ok && result.reason, 'encoding_mismatch', JSON.stringify(headers));
    }
  });

  it('a compression bomb past 8 MB decompressed is too large', () => {
    const bomb = gzipSync(Buffer.alloc(DRY_RUN_LIMITS.bodyDecompressedBytes + 1, 'a'));
    const result = ingestEvents([withBody(bomb, { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip' })], redactor);
    assert.equal(!result.ok && result.reason, 'too_large');
  });
});
