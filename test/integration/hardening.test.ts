/**
 * The doors of the API on the real stack: what a hostile or unusual request gets (deeply
 * nested JSON, __proto__ keys, invalid UTF-8, unknown methods), how long idle sockets live,
 * who may use /codec/* behind a proxy, and the permissions of the data directory.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startApi } from '../../api/server';
import { createLogger } from '../../activities/runtime/logger';
import type { IssuedCredentials } from '../../domain/credentials';
import { call, getStack, newMerchant, testConfig, TestStack } from '../support/stack';

const silent = createLogger('silent');
const JSON_TYPE = { 'content-type': 'application/json' };

/** `levels` nested arrays inside the ping body (the body object itself is one more level). */
function nestedPing(levels: number, open = '[', close = ']'): string {
  return `{"message":"deep","nested":${open.repeat(levels)}${close.repeat(levels)}}`;
}

describe('hardening (integration)', function () {
  this.timeout(60_000);
  let stack: TestStack;
  let merchant: IssuedCredentials;

  before(async function () {
    this.timeout(120_000);
    stack = await getStack();
    merchant = await newMerchant('Hardening merchant');
  });

  describe('JSON bodies', () => {
    it('400 naming the limit for JSON nested 5,000 and 10,000 levels deep, never a stack overflow', async () => {
      const bodies = [nestedPing(10_000), `{"message":"deep","nested":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}`];
      // With an idempotency key the body is also fingerprinted (canonical JSON, recursive).
      for (const [rawBody, key] of bodies.flatMap((b) => [[b, ''], [b, `deep-${Math.random().toString(36).slice(2)}`]])) {
        const r = await call('/v1/pings', { rawBody, credentials: merchant, headers: { ...JSON_TYPE, ...(key ? { 'x-idempotency-key': key } : {}) } });
        assert.equal(r.status, 400, r.text.slice(0, 300));
        assert.equal(r.body.code, 'VALIDATION_ERROR');
        assert.match(r.body.message, /nests objects and arrays deeper than 64 levels/);
      }
    });

    it('accepts 64 levels of nesting and refuses 65', async () => {
      const atLimit = await call('/v1/pings', { rawBody: nestedPing(63), credentials: merchant, headers: JSON_TYPE });
      assert.equal(atLimit.status, 201, atLimit.text.slice(0, 300));
      const past = await call('/v1/pings', { rawBody: nestedPing(64), credentials: merchant, headers: JSON_TYPE });
      assert.equal(past.status, 400);
      // Brackets inside strings are text, not nesting.
      const inString = await call('/v1/pings', { rawBody: JSON.stringify({ message: '['.repeat(200) }), credentials: merchant, headers: JSON_TYPE });
      assert.equal(inString.status, 201, inString.text.slice(0, 300));
    });

    it('the dry-run area answers the depth limit in its own shape', async () => {
      const r = await call('/v1/dry-run/provider-events', { rawBody: `{"merchant_reference":"deep-1","events":${'['.repeat(10_000)}${']'.repeat(10_000)}}`, credentials: merchant, headers: JSON_TYPE });
      assert.equal(r.status, 400, r.text.slice(0, 300));
      assert.equal(r.body.code, 'TRAFFIC_LOG_VALIDATION_FAILED');
      assert.equal(r.body.httpCode, 400);
      assert.match(r.body.messages[0], /deeper than 64 levels/);
    });

    it('400 naming the key and its path for __proto__, at the top or nested', async () => {
      const nested = await call('/v1/pings', { rawBody: '{"message":"x","extra":{"list":[{"__proto__":{"admin":true}}]}}', credentials: merchant, headers: JSON_TYPE });
      assert.equal(nested.status, 400, nested.text);
      assert.equal(nested.body.code, 'VALIDATION_ERROR');
      assert.match(nested.body.message, /must not contain the key "__proto__"/);
      assert.equal(nested.body.errors[0].field, 'extra.list.0.__proto__');
      const top = await call('/v1/pings', { rawBody: '{"__proto__":{"x":1},"message":"x"}', credentials: merchant, headers: JSON_TYPE });
      assert.equal(top.status, 400);
      assert.equal(top.body.errors[0].field, '__proto__');
      assert.doesNotMatch(top.body.message, /not valid JSON/);
    });

    it('400 naming the field for U+0000 or a lone surrogate in a value or a key, in every area; a path id holding one is a missing resource', async () => {
      for (const [rawBody, field] of [
        ['{"message":"a\\u0000b"}', 'message'],
        ['{"message":"x","extra":{"list":["ok","\\ud800"]}}', 'extra.list.1'],
        ['{"message":"x","extra":{"k\\u0000":1}}', 'extra.k\u0000'],
      ] as const) {
        const r = await call('/v1/pings', { rawBody, credentials: merchant, headers: JSON_TYPE });
        assert.equal(r.status, 400, r.text);
        assert.equal(r.body.code, 'VALIDATION_ERROR');
        assert.equal(r.body.errors[0].field, field);
        assert.match(r.body.message, /NUL character .* unpaired UTF-16 surrogate/);
      }
      const campaign = await call('/v1/campaigns', { rawBody: '{"name":"\\u0000\\u202e<script>"}', credentials: merchant, headers: { ...JSON_TYPE, 'x-idempotency-key': `nul-${Date.now()}` } });
      assert.equal(campaign.status, 400, campaign.text);
      assert.equal(campaign.body.code, 400);
      const dryRun = await call('/v1/dry-run/provider-events', { rawBody: '{"merchant_reference":"nul\\u0000ref","events":[]}', credentials: merchant, headers: JSON_TYPE });
      assert.equal(dryRun.status, 400);
      assert.equal(dryRun.body.code, 'TRAFFIC_LOG_VALIDATION_FAILED');
      // A paired surrogate (an emoji written as escapes) is ordinary text.
      const emoji = await call('/v1/pings', { rawBody: '{"message":"\\ud83d\\ude00"}', credentials: merchant, headers: JSON_TYPE });
      assert.equal(emoji.status, 201, emoji.text);
      assert.equal(emoji.body.message, '\u{1F600}');
      for (const path of ['/v1/customers/%00', '/v1/subscriptions/a%00b', '/v1/accounts/%00/routing-rules', '/v1/refunds/unreferenced/%00']) {
        const missing = await call(path, { credentials: merchant });
        assert.equal(missing.status, 404, `${path}: ${missing.text}`);
      }
    });

    it('400 for a body that is not valid UTF-8 instead of replacing the bytes', async () => {
      const rawBody = Buffer.concat([Buffer.from('{"message":"caf'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
      const r = await call('/v1/pings', { rawBody, credentials: merchant, headers: JSON_TYPE });
      assert.equal(r.status, 400, r.text);
      assert.match(r.body.message, /not valid UTF-8/);
      const dryRun = await call('/v1/dry-run/provider-events', { rawBody: Buffer.concat([Buffer.from('{"merchant_reference":"utf'), Buffer.from([0xff]), Buffer.from('8-check","events":[]}')]), credentials: merchant, headers: JSON_TYPE });
      assert.equal(dryRun.status, 400);
      assert.equal(dryRun.body.code, 'TRAFFIC_LOG_VALIDATION_FAILED');
      assert.match(dryRun.body.messages[0], /not valid UTF-8/);
      // Valid multi-byte text still goes through.
      const ok = await call('/v1/pings', { body: { message: 'café ☕' }, credentials: merchant });
      assert.equal(ok.status, 201);
      assert.equal(ok.body.message, 'café ☕');
    });

    it('still reads gzip-encoded JSON bodies, and limits them by their decompressed size', async () => {
      const { gzipSync } = await import('node:zlib');
      const r = await call('/v1/pings', { rawBody: gzipSync(JSON.stringify({ message: 'zipped' })), credentials: merchant, headers: { ...JSON_TYPE, 'content-encoding': 'gzip' } });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.message, 'zipped');
      // The size limit counts decompressed bytes: a small gzip bomb is 413, and the socket still answers.
      const bomb = gzipSync(Buffer.alloc(17 * 1024 * 1024, 0x20));
      const tooLarge = await call('/v1/pings', { rawBody: bomb, credentials: merchant, headers: { ...JSON_TYPE, 'content-encoding': 'gzip' } });
      assert.equal(tooLarge.status, 413, tooLarge.text);
      assert.equal(tooLarge.body.code, 'PAYLOAD_TOO_LARGE');
      const unknown = await call('/v1/pings', { rawBody: '{}', credentials: merchant, headers: { ...JSON_TYPE, 'content-encoding': 'zstd' } });
      assert.equal(unknown.status, 415);
    });
  });

  describe('unknown methods on known paths', () => {
    it('405 in JSON with an Allow header, in the default shape', async () => {
      const r = await call('/v1/pings', { method: 'PATCH', rawBody: '{}', credentials: merchant, headers: JSON_TYPE });
      assert.equal(r.status, 405, r.text);
      assert.match(r.headers.get('content-type') ?? '', /application\/json/);
      assert.equal(r.headers.get('allow'), 'POST');
      assert.equal(r.body.code, 'METHOD_NOT_ALLOWED');
      assert.match(r.body.message, /PATCH/);
      assert.equal(r.body.request_id, r.headers.get('x-request-id'));
    });

    it('405 in the area shape: dry-run {code, messages, httpCode}, campaigns {code: 405, message}', async () => {
      const dryRun = await call('/v1/dry-run/provider-events', { method: 'PUT', rawBody: '{}', credentials: merchant, headers: JSON_TYPE });
      assert.equal(dryRun.status, 405);
      assert.deepEqual(dryRun.headers.get('allow')?.split(', ').sort(), ['GET', 'HEAD', 'POST']);
      assert.equal(dryRun.body.code, 'METHOD_NOT_ALLOWED');
      assert.equal(dryRun.body.httpCode, 405);
      const campaign = await call('/v1/campaigns/6a6f2b52-6e3d-4a53-9f4b-1c1b0a7e2d10', { method: 'PUT', rawBody: '{"status":"PAUSED"}', credentials: merchant, headers: JSON_TYPE });
      assert.equal(campaign.status, 405, campaign.text);
      assert.deepEqual(campaign.headers.get('allow')?.split(', ').sort(), ['DELETE', 'GET', 'HEAD', 'PATCH']);
      assert.equal(campaign.body.code, 405);
      assert.equal(typeof campaign.body.message, 'string');
    });

    it('a method the router does not implement at all is 405 too, never 501 or text/plain', async () => {
      const r = await call('/v1/pings', { method: 'PROPFIND', credentials: merchant });
      assert.equal(r.status, 405, r.text);
      assert.equal(r.body.code, 'METHOD_NOT_ALLOWED');
      assert.equal(r.headers.get('allow'), 'POST');
    });

    it('OPTIONS lists the methods, and an unknown path is still 404', async () => {
      const options = await call('/v1/pings', { method: 'OPTIONS' });
      assert.ok(options.status === 200 || options.status === 204, String(options.status));
      assert.equal(options.headers.get('allow'), 'POST');
      const missing = await call('/v1/nothing-here', { method: 'PATCH' });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.code, 'ROUTE_NOT_FOUND');
    });
  });

  describe('idle keep-alive sockets', () => {
    it('sets keepAliveTimeout (65 s) below headersTimeout and requestTimeout', () => {
      const server = stack.api.server;
      assert.equal(server.keepAliveTimeout, 65_000);
      assert.ok(server.headersTimeout > server.keepAliveTimeout, `headersTimeout ${server.headersTimeout}`);
      assert.ok(server.requestTimeout === 0 || server.requestTimeout > server.headersTimeout, `requestTimeout ${server.requestTimeout}`);
    });

    it('keeps an idle socket open longer than 5 s and serves the next request on it', async function () {
      this.timeout(30_000);
      const { port } = new URL(stack.url);
      const socket = net.connect(Number(port), '127.0.0.1');
      let received = '';
      let closed = false;
      socket.on('data', (chunk) => (received += chunk.toString('latin1')));
      socket.on('close', () => (closed = true));
      const responses = () => (received.match(/HTTP\/1\.1 200 OK/g) ?? []).length;
      const waitFor = async (n: number) => {
        for (let i = 0; i < 100 && responses() < n && !closed; i++) await new Promise((r) => setTimeout(r, 50));
      };
      const request = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n';
      try {
        socket.write(request);
        await waitFor(1);
        assert.equal(responses(), 1);
        await new Promise((r) => setTimeout(r, 6_000));
        assert.equal(closed, false, 'the server closed the idle socket within 6 s');
        socket.write(request);
        await waitFor(2);
        assert.equal(responses(), 2);
      } finally {
        socket.destroy();
      }
    });
  });

  describe('/codec/* behind a proxy', () => {
    const payloads = { payloads: [{ metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('"hi"').toString('base64') }] };
    const externalAddress = Object.values(os.networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

    it('never takes X-Forwarded-For as the caller, and requires the token when TRUST_PROXY is on', async () => {
      const api = await startApi({ config: testConfig({ trustProxy: true }), keyring: stack.keyring, db: stack.db, temporal: stack.temporal, logger: silent });
      try {
        const spoofed = await call('/codec/encode', { body: payloads, headers: { 'x-forwarded-for': '127.0.0.1' } }, api.url);
        assert.equal(spoofed.status, 403, spoofed.text);
        assert.match(spoofed.body.message, /CODEC_AUTH_TOKEN/);
      } finally {
        await api.close();
      }
      // A loopback API without a proxy still serves the local Temporal UI without a token.
      const local = await call('/codec/encode', { body: payloads });
      assert.equal(local.status, 200);
    });

    it('a caller on another interface cannot pass for loopback with X-Forwarded-For: 127.0.0.1', async function () {
      if (!externalAddress) this.skip();
      const api = await startApi({ config: testConfig({ host: '0.0.0.0', trustProxy: true }), keyring: stack.keyring, db: stack.db, temporal: stack.temporal, logger: silent });
      try {
        const port = new URL(api.url).port;
        const viaInterface = `http://${externalAddress}:${port}`;
        for (const headers of [{ 'x-forwarded-for': '127.0.0.1' }, { forwarded: 'for=127.0.0.1' }, {}] as Array<Record<string, string>>) {
          const r = await call('/codec/encode', { body: payloads, headers }, viaInterface);
          assert.equal(r.status, 403, `${JSON.stringify(headers)}: ${r.text}`);
        }
        // Not bound to loopback: even a loopback caller needs the token.
        const fromLoopback = await call('/codec/encode', { body: payloads }, api.url);
        assert.equal(fromLoopback.status, 403);
      } finally {
        await api.close();
      }
    });

    it('with CODEC_AUTH_TOKEN set, the token works whatever the bind address and proxy setting', async () => {
      const api = await startApi({ config: testConfig({ host: '0.0.0.0', trustProxy: true, codecAuthToken: 'proxy-token' }), keyring: stack.keyring, db: stack.db, temporal: stack.temporal, logger: silent });
      try {
        const denied = await call('/codec/encode', { body: payloads, headers: { 'x-forwarded-for': '127.0.0.1' } }, api.url);
        assert.equal(denied.status, 401);
        const allowed = await call('/codec/encode', { body: payloads, headers: { authorization: 'Bearer proxy-token' } }, api.url);
        assert.equal(allowed.status, 200);
      } finally {
        await api.close();
      }
    });
  });

  describe('data directory permissions', () => {
    function loose(dir: string): string[] {
      const found: string[] = [];
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        const stat = fs.lstatSync(full);
        if (stat.isSymbolicLink()) continue;
        if ((stat.mode & 0o077) !== 0) found.push(`${full} ${(stat.mode & 0o777).toString(8)}`);
        if (stat.isDirectory()) found.push(...loose(full));
      }
      return found;
    }

    it('DATA_DIR is 0700 and nothing in it (keyring, logs, FerretDB and Temporal files) is readable by group or others', () => {
      const dir = stack.config.dataDir;
      assert.equal((fs.statSync(dir).mode & 0o777).toString(8), '700');
      const names = fs.readdirSync(dir);
      assert.ok(names.includes('master-keys.txt') && names.includes('logs'), names.join(', '));
      assert.deepEqual(loose(dir), []);
    });

    it('the launcher tightens a data directory created before: DATA_DIR and our directories 0700, our files without group/other bits', () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const infra = require(path.resolve(__dirname, '../../../scripts/lib/infra.js')) as { secureDataDir(dir: string): void };
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-perm-'));
      try {
        // Modes set with chmod: the umask of the test process may be 077 already.
        const make = (name: string, mode: number, dir_ = false) => {
          const full = path.join(dir, name);
          if (dir_) fs.mkdirSync(full);
          else fs.writeFileSync(full, 'x');
          fs.chmodSync(full, mode);
        };
        fs.chmodSync(dir, 0o755);
        make('logs', 0o755, true);
        make('logs/api.log', 0o644);
        make('temporal.db', 0o666);
        make('master-keys.txt', 0o644);
        make('ferretdb', 0o755, true);
        make('ferretdb/state.json', 0o755);
        // Not ours: a DATA_DIR pointed at a shared directory keeps its other files as they are.
        make('notes.txt', 0o644);
        infra.secureDataDir(dir);
        assert.equal((fs.statSync(dir).mode & 0o777).toString(8), '700');
        assert.deepEqual(loose(dir), [`${path.join(dir, 'notes.txt')} 644`]);
        assert.equal((fs.statSync(path.join(dir, 'ferretdb', 'state.json')).mode & 0o777).toString(8), '700', 'the owner keeps its bits');
        const created = path.join(os.tmpdir(), `switchyard-perm-new-${process.pid}`);
        infra.secureDataDir(created);
        assert.equal((fs.statSync(created).mode & 0o777).toString(8), '700');
        fs.rmSync(created, { recursive: true, force: true });
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
