/**
 * Cross-cutting rules on the real stack: auth, idempotency, limits, rate limiting, error
 * shapes, readiness, metrics, the OpenAPI document and the encrypted workflow payloads.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import net from 'node:net';
import { startApi } from '../../api/server';
import { openApiPath } from '../../api/openapi';
import { connectMongo } from '../../activities/runtime/mongo';
import { createLogger } from '../../activities/runtime/logger';
import type { IssuedCredentials } from '../../domain/credentials';
import { call, getStack, newMerchant, testConfig, TestStack } from '../support/stack';

const silent = createLogger('silent');

async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((r) => server.close(r));
  return port;
}

describe('foundation (integration)', function () {
  let stack: TestStack;
  let merchant: IssuedCredentials;
  let other: IssuedCredentials;

  before(async function () {
    this.timeout(120_000);
    stack = await getStack();
    merchant = await newMerchant('Foundation merchant');
    other = await newMerchant('Other merchant');
  });

  describe('health, readiness, metrics', () => {
    it('answers /healthz and /readyz with both dependencies checked', async () => {
      assert.deepEqual((await call('/healthz')).body, { status: 'ok' });
      const ready = await call('/readyz');
      assert.equal(ready.status, 200);
      assert.deepEqual(ready.body, { status: 'ready', checks: { mongodb: 'ok', temporal: 'ok' } });
    });

    it('echoes a client X-Request-Id and generates one otherwise', async () => {
      const echoed = await call('/healthz', { headers: { 'x-request-id': 'trace-abc.123' } });
      assert.equal(echoed.headers.get('x-request-id'), 'trace-abc.123');
      const generated = await call('/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
      assert.match(generated.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    });

    it('exposes latency histograms by route template and status', async () => {
      await call('/v1/pings/00000000-0000-4000-8000-000000000000', { credentials: merchant });
      const metrics = await call('/metrics');
      assert.match(metrics.text, /switchyard_http_request_duration_seconds_count\{method="GET",route="\/v1\/pings\/:ping_id",status="404"\} \d+/);
    });

    it('counts each workflow start once, by workflow type', async () => {
      const count = async () => Number((await call('/metrics')).text.match(/switchyard_workflow_starts_total\{workflow_type="pingWorkflow"\} (\d+)/)?.[1] ?? 0);
      const before = await count();
      assert.equal((await call('/v1/pings', { body: { message: 'count me' }, credentials: merchant })).status, 201);
      assert.equal(await count(), before + 1);
    });
  });

  describe('authentication', () => {
    it('401 NOT_AUTHENTICATED without credentials, in the error shape', async () => {
      const response = await call('/v1/pings', { body: { message: 'x' } });
      assert.equal(response.status, 401);
      assert.equal(response.body.code, 'NOT_AUTHENTICATED');
      assert.equal(typeof response.body.message, 'string');
      assert.equal(response.body.request_id, response.headers.get('x-request-id'));
    });

    it('401 INVALID_CREDENTIALS for a wrong secret or an unknown public key', async () => {
      const wrongSecret = await call('/v1/pings', { body: { message: 'x' }, credentials: { ...merchant, private_secret_key: other.private_secret_key } });
      assert.equal(wrongSecret.status, 401);
      assert.equal(wrongSecret.body.code, 'INVALID_CREDENTIALS');
      const unknown = await call('/v1/pings', { body: { message: 'x' }, credentials: { ...merchant, public_api_key: 'pk_unknown' } });
      assert.equal(unknown.status, 401);
    });

    it('accepts the header names in any letter case and the X- spelling', async () => {
      const upper = await call('/v1/pings', {
        body: { message: 'upper' },
        headers: { 'PUBLIC-API-KEY': merchant.public_api_key, 'PRIVATE-SECRET-KEY': merchant.private_secret_key },
      });
      assert.equal(upper.status, 201);
      const prefixed = await call('/v1/pings', {
        body: { message: 'prefixed' },
        headers: { 'X-Public-Api-Key': merchant.public_api_key, 'X-Private-Secret-Key': merchant.private_secret_key },
      });
      assert.equal(prefixed.status, 201);
      assert.equal(prefixed.body.message, 'prefixed');
    });

    it("answers another organization's resource exactly like a missing one", async () => {
      const created = await call('/v1/pings', { body: { message: 'mine' }, credentials: merchant });
      assert.equal(created.status, 201);
      const own = await call(`/v1/pings/${created.body.id}`, { credentials: merchant });
      assert.equal(own.status, 200);
      assert.equal(own.body.id, created.body.id);
      const foreign = await call(`/v1/pings/${created.body.id}`, { credentials: other });
      const missing = await call('/v1/pings/5d0c4c8e-7d0a-4c39-9d43-1d2f7f7b9a11', { credentials: other });
      assert.equal(foreign.status, 404);
      assert.equal(missing.status, 404);
      const strip = (b: Record<string, unknown>) => ({ ...b, request_id: undefined });
      assert.deepEqual(strip(foreign.body), strip(missing.body));
    });

    it('the admin command prints working test and live credentials as one JSON object', async () => {
      const result = spawnSync(process.execPath, [path.resolve(__dirname, '../../api/admin.js'), 'create-merchant', '--name', 'CLI merchant'], { env: process.env, encoding: 'utf8' });
      assert.equal(result.status, 0, result.stderr);
      const issued = JSON.parse(result.stdout);
      assert.deepEqual(Object.keys(issued).sort(), ['account_id', 'live', 'mode', 'organization_code', 'private_secret_key', 'public_api_key']);
      assert.deepEqual(Object.keys(issued.live).sort(), ['account_id', 'mode', 'organization_code', 'private_secret_key', 'public_api_key']);
      assert.deepEqual([issued.mode, issued.live.mode], ['test', 'live']);
      const [test, live] = await Promise.all([call('/v1/pings', { body: { message: 'from cli' }, credentials: issued }), call('/v1/pings', { body: { message: 'from cli' }, credentials: issued.live })]);
      assert.deepEqual([test.status, live.status], [201, 201], 'both pairs work');
    });

    it('stores secret keys only as hashes', async () => {
      const docs = await stack.db.collection('credentials').find({}).toArray();
      const dump = JSON.stringify(docs);
      assert.ok(docs.length >= 2);
      assert.ok(!dump.includes(merchant.private_secret_key));
      assert.ok(!dump.includes(other.private_secret_key));
    });
  });

  describe('idempotency', () => {
    const key = () => `key-${Math.random().toString(36).slice(2)}`;

    it('replays the original status and body for the same key and body', async () => {
      const k = key();
      const first = await call('/v1/pings', { body: { message: 'once' }, credentials: merchant, headers: { 'x-idempotency-key': k } });
      const second = await call('/v1/pings', { body: { message: 'once' }, credentials: merchant, headers: { 'x-idempotency-key': k } });
      assert.equal(first.status, 201);
      assert.equal(second.status, 201);
      assert.deepEqual(second.body, first.body);
      assert.equal(second.headers.get('idempotent-replayed'), 'true');
      assert.equal(first.headers.get('idempotent-replayed'), null);
    });

    it('processes only the first request when the same key comes with another body', async () => {
      const k = key();
      const first = await call('/v1/pings', { body: { message: 'first' }, credentials: merchant, headers: { 'x-idempotency-key': k } });
      const second = await call('/v1/pings', { body: { message: 'second' }, credentials: merchant, headers: { 'x-idempotency-key': k } });
      assert.equal(second.body.id, first.body.id);
      assert.equal(second.body.message, 'first');
    });

    it('scopes keys per organization', async () => {
      const k = key();
      const mine = await call('/v1/pings', { body: { message: 'a' }, credentials: merchant, headers: { 'x-idempotency-key': k } });
      const theirs = await call('/v1/pings', { body: { message: 'a' }, credentials: other, headers: { 'x-idempotency-key': k } });
      assert.equal(theirs.status, 201);
      assert.notEqual(theirs.body.id, mine.body.id);
    });

    it('does not keep the key after a 400, so the corrected request can reuse it', async () => {
      const k = key();
      const bad = await call('/v1/pings', { body: { message: '' }, credentials: merchant, headers: { 'x-idempotency-key': k } });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.errors[0].field, 'message');
      const good = await call('/v1/pings', { body: { message: 'fixed' }, credentials: merchant, headers: { 'x-idempotency-key': k } });
      assert.equal(good.status, 201);
      assert.equal(good.body.message, 'fixed');
    });

    it('rejects a key longer than 64 characters', async () => {
      const response = await call('/v1/pings', { body: { message: 'x' }, credentials: merchant, headers: { 'x-idempotency-key': 'k'.repeat(65) } });
      assert.equal(response.status, 400);
      assert.equal(response.body.errors[0].field, 'X-Idempotency-Key');
    });

    it('20 concurrent requests with one key create exactly one resource', async () => {
      const fresh = await newMerchant('Concurrency merchant');
      const k = key();
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => call('/v1/pings', { body: { message: 'race' }, credentials: fresh, headers: { 'x-idempotency-key': k } })),
      );
      const created = responses.filter((r) => r.status === 201);
      const inProcess = responses.filter((r) => r.status === 400);
      assert.equal(created.length + inProcess.length, 20, `unexpected statuses ${responses.map((r) => r.status)}`);
      assert.ok(created.length >= 1);
      assert.equal(new Set(created.map((r) => r.body.id)).size, 1, 'every success names the same resource');
      for (const r of inProcess) assert.equal(r.body.code, 'REQUEST_IN_PROCESS');
      const pings = await stack.db.collection('pings').countDocuments({ organization_code: fresh.organization_code });
      assert.equal(pings, 1);
      const after = await call('/v1/pings', { body: { message: 'race' }, credentials: fresh, headers: { 'x-idempotency-key': k } });
      assert.equal(after.body.id, created[0].body.id);
    });
  });

  describe('limits', () => {
    it('415 for a body that is not JSON', async () => {
      const response = await call('/v1/pings', { rawBody: 'message=x', credentials: merchant, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      assert.equal(response.status, 415);
      assert.equal(response.body.code, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('400 for malformed JSON', async () => {
      const response = await call('/v1/pings', { rawBody: '{"message":', credentials: merchant, headers: { 'content-type': 'application/json' } });
      assert.equal(response.status, 400);
      assert.match(response.body.message, /not valid JSON/);
    });

    it('413 past the body limit, and a body just under it is read', async () => {
      const big = JSON.stringify({ message: 'x', padding: 'p'.repeat(16 * 1024 * 1024) });
      const tooLarge = await call('/v1/pings', { rawBody: big, credentials: merchant, headers: { 'content-type': 'application/json' } });
      assert.equal(tooLarge.status, 413);
      assert.equal(tooLarge.body.code, 'PAYLOAD_TOO_LARGE');
      const largest = JSON.stringify({ message: 'x', padding: 'p'.repeat(15 * 1024 * 1024) });
      const accepted = await call('/v1/pings', { rawBody: largest, credentials: merchant, headers: { 'content-type': 'application/json' } });
      assert.equal(accepted.status, 201);
    });

    it('unknown routes answer 404 in the error shape', async () => {
      const response = await call('/v1/nothing-here');
      assert.equal(response.status, 404);
      assert.equal(response.body.code, 'ROUTE_NOT_FOUND');
    });
  });

  describe('rate limiting', () => {
    it('429 with Retry-After past the limit, counted across API processes', async () => {
      const limits = { points: 4, windowSeconds: 60 };
      // Two API instances share the limit through MongoDB, as two processes would.
      const apiA = await startApi({ config: testConfig({ rateLimit: limits }), keyring: stack.keyring, db: stack.db, temporal: stack.temporal, logger: silent });
      const apiB = await startApi({ config: testConfig({ rateLimit: limits }), keyring: stack.keyring, db: stack.db, temporal: stack.temporal, logger: silent });
      try {
        const fresh = await newMerchant('Rate-limited merchant');
        const statuses: number[] = [];
        for (let i = 0; i < 4; i++) {
          const r = await call('/v1/pings/6a6f2b52-6e3d-4a53-9f4b-1c1b0a7e2d10', { credentials: fresh }, i % 2 ? apiB.url : apiA.url);
          statuses.push(r.status);
          assert.equal(r.headers.get('x-ratelimit-remaining'), String(3 - i));
        }
        assert.deepEqual(statuses, [404, 404, 404, 404]);
        const limited = await call('/v1/pings/6a6f2b52-6e3d-4a53-9f4b-1c1b0a7e2d10', { credentials: fresh }, apiA.url);
        assert.equal(limited.status, 429);
        assert.equal(limited.body.code, 'RATE_LIMITED');
        const retryAfter = Number(limited.headers.get('retry-after'));
        assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
        const limitedB = await call('/v1/pings/6a6f2b52-6e3d-4a53-9f4b-1c1b0a7e2d10', { credentials: fresh }, apiB.url);
        assert.equal(limitedB.status, 429);
        // Another credential is not affected.
        const otherMerchant = await call('/v1/pings/6a6f2b52-6e3d-4a53-9f4b-1c1b0a7e2d10', { credentials: other }, apiA.url);
        assert.equal(otherMerchant.status, 404);
      } finally {
        await apiA.close();
        await apiB.close();
      }
    });

    it('concurrent requests never exceed the limit', async () => {
      const api = await startApi({ config: testConfig({ rateLimit: { points: 10, windowSeconds: 60 } }), keyring: stack.keyring, db: stack.db, temporal: stack.temporal, logger: silent });
      try {
        const fresh = await newMerchant('Burst merchant');
        const responses = await Promise.all(Array.from({ length: 25 }, () => call('/v1/pings/6a6f2b52-6e3d-4a53-9f4b-1c1b0a7e2d10', { credentials: fresh }, api.url)));
        assert.equal(responses.filter((r) => r.status === 404).length, 10);
        assert.equal(responses.filter((r) => r.status === 429).length, 15);
      } finally {
        await api.close();
      }
    });

    it('claims slots in blocks: one database write per block, and two processes together stay within the limit', async () => {
      const limits = { points: 200, windowSeconds: 60 }; // blocks of 4 slots
      const apiA = await startApi({ config: testConfig({ rateLimit: limits }), keyring: stack.keyring, db: stack.db, temporal: stack.temporal, logger: silent });
      const apiB = await startApi({ config: testConfig({ rateLimit: limits }), keyring: stack.keyring, db: stack.db, temporal: stack.temporal, logger: silent });
      try {
        const fresh = await newMerchant('Block-leasing merchant');
        const ping = (url: string) => call('/v1/pings/6a6f2b52-6e3d-4a53-9f4b-1c1b0a7e2d10', { credentials: fresh }, url);
        for (let i = 0; i < 20; i++) assert.equal((await ping(apiA.url)).status, 404);
        const credential = await stack.db.collection('credentials').findOne({ public_api_key: fresh.public_api_key });
        const claims = await stack.db.collection('rate_limit_slots').countDocuments({ subject: credential!._id });
        assert.equal(claims, 5, `20 requests in blocks of 4 are 5 claims, not ${claims}`);
        // Both processes at once, well past the limit: never more than 200 allowed in all.
        const burst = await Promise.all(Array.from({ length: 260 }, (_, i) => ping(i % 2 ? apiB.url : apiA.url)));
        const allowed = burst.filter((r) => r.status === 404).length;
        assert.ok(allowed <= 180, `at most the 180 slots left may be used, got ${allowed}`);
        assert.ok(allowed >= 180 - 2 * 3, `at most one partly used block per process is lost, got ${allowed}`);
        assert.equal(burst.filter((r) => r.status === 429).length, 260 - allowed);
      } finally {
        await apiA.close();
        await apiB.close();
      }
    });
  });

  describe('OpenAPI document', () => {
    it('describes every mounted route', async () => {
      const doc = (await call('/v1/openapi.json')).body as { openapi: string; paths: Record<string, Record<string, unknown>> };
      assert.equal(doc.openapi, '3.1.0');
      const koaRoutes = stack.api.deps && (await import('../../api/app')).createApp(stack.api.deps).routes.router.stack;
      assert.ok(koaRoutes && koaRoutes.length > 5);
      for (const layer of koaRoutes) {
        for (const method of layer.methods.filter((m: string) => m !== 'HEAD')) {
          const documented = doc.paths[openApiPath(String(layer.path))]?.[method.toLowerCase()];
          assert.ok(documented, `${method} ${layer.path} is not in the OpenAPI document`);
        }
      }
      const ping = doc.paths['/v1/pings'].post as { requestBody: { content: { 'application/json': { schema: { properties: Record<string, any> } } } }; responses: Record<string, unknown> };
      assert.equal(ping.requestBody.content['application/json'].schema.properties.message.maxLength, 255);
      assert.ok(ping.responses['401'] && ping.responses['429'] && ping.responses['415']);
    });

    it('serves the docs page and its assets', async () => {
      const page = await call('/docs');
      assert.equal(page.status, 200);
      assert.match(page.text, /swagger-ui-bundle\.js/);
      const asset = await call('/docs/assets/swagger-ui.css');
      assert.equal(asset.status, 200);
      assert.ok(asset.text.length > 1000);
      assert.equal((await call('/docs/assets/..%2Fpackage.json')).status, 404);
    });
  });

  describe('workflow payloads', () => {
    it('keeps history encrypted, decodes through /codec/decode, and tags search attributes', async () => {
      const secret = '4111111111111111';
      const created = await call('/v1/pings', { body: { message: `card ${secret}` }, credentials: merchant });
      assert.equal(created.status, 201);
      const history = await stack.temporal.workflowService.getWorkflowExecutionHistory({
        namespace: stack.config.temporalNamespace,
        execution: { workflowId: created.body.workflow_id },
      });
      const raw = Buffer.from(JSON.stringify(history.history)).toString() + Buffer.concat(
        (history.history?.events ?? []).flatMap((e) => [
          ...(e.workflowExecutionStartedEventAttributes?.input?.payloads ?? []),
          ...(e.workflowExecutionCompletedEventAttributes?.result?.payloads ?? []),
          ...(e.activityTaskScheduledEventAttributes?.input?.payloads ?? []),
          ...(e.activityTaskCompletedEventAttributes?.result?.payloads ?? []),
        ]).map((p) => Buffer.from(p.data ?? new Uint8Array())),
      ).toString('latin1');
      assert.ok(!raw.includes(secret), 'plaintext card number found in workflow history');
      const started = history.history!.events!.find((e) => e.workflowExecutionStartedEventAttributes)!;
      const payload = started.workflowExecutionStartedEventAttributes!.input!.payloads![0];
      assert.equal(Buffer.from(payload.metadata!.encoding!).toString(), 'binary/encrypted');

      const asJson = {
        payloads: [{
          metadata: Object.fromEntries(Object.entries(payload.metadata!).map(([k, v]) => [k, Buffer.from(v as Uint8Array).toString('base64')])),
          data: Buffer.from(payload.data!).toString('base64'),
        }],
      };
      const decoded = await call('/codec/decode', { body: asJson });
      assert.equal(decoded.status, 200);
      const plain = Buffer.from(decoded.body.payloads[0].data, 'base64').toString();
      assert.ok(plain.includes(secret));

      const listed: string[] = [];
      for (let i = 0; i < 50 && listed.length === 0; i++) {
        for await (const wf of stack.temporal.workflow.list({ query: `ResourceType = 'ping' AND OrganizationCode = '${merchant.organization_code}' AND WorkflowId = '${created.body.workflow_id}'` })) {
          listed.push(wf.workflowId);
        }
        if (!listed.length) await new Promise((r) => setTimeout(r, 200));
      }
      assert.deepEqual(listed, [created.body.workflow_id]);
    });

    it('requires the bearer token on /codec/* when one is configured, and answers CORS for the UI', async () => {
      const api = await startApi({
        config: testConfig({ codecAuthToken: 'operator-token', codecCorsOrigins: ['http://localhost:8233'] }),
        keyring: stack.keyring, db: stack.db, temporal: stack.temporal, logger: silent,
      });
      try {
        const body = { payloads: [{ metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('"hi"').toString('base64') }] };
        const denied = await call('/codec/encode', { body }, api.url);
        assert.equal(denied.status, 401);
        const encoded = await call('/codec/encode', { body, headers: { authorization: 'Bearer operator-token' } }, api.url);
        assert.equal(encoded.status, 200);
        assert.equal(Buffer.from(encoded.body.payloads[0].metadata.encoding, 'base64').toString(), 'binary/encrypted');
        const decoded = await call('/codec/decode', { body: encoded.body, headers: { authorization: 'Bearer operator-token' } }, api.url);
        assert.equal(Buffer.from(decoded.body.payloads[0].data, 'base64').toString(), '"hi"');
        const preflight = await fetch(`${api.url}/codec/decode`, { method: 'OPTIONS', headers: { origin: 'http://localhost:8233', 'access-control-request-method': 'POST' } });
        assert.equal(preflight.headers.get('access-control-allow-origin'), 'http://localhost:8233');
      } finally {
        await api.close();
      }
    });
  });

  describe('readiness when MongoDB goes away', () => {
    let ferret: ChildProcess | undefined;
    let dir: string;

    async function startFerret(port: number): Promise<ChildProcess> {
      const child = spawn(process.env.FERRETDB_BIN!, ['--handler=sqlite', `--sqlite-url=file:${dir}/`, `--listen-addr=127.0.0.1:${port}`, '--debug-addr=-', '--telemetry=disable', `--state-dir=${dir}`, '--log-level=error'], { stdio: 'ignore' });
      for (let i = 0; i < 100; i++) {
        const open = await new Promise<boolean>((resolve) => {
          const s = net.connect(port, '127.0.0.1').once('connect', () => (s.destroy(), resolve(true))).once('error', () => resolve(false));
        });
        if (open) return child;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('FerretDB did not start');
    }

    after(() => {
      ferret?.kill('SIGKILL');
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('answers 503 while FerretDB is stopped and 200 again once it is back', async function () {
      this.timeout(90_000);
      assert.ok(process.env.FERRETDB_BIN, 'scripts/test.js provides FERRETDB_BIN');
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-ready-'));
      const port = await freePort();
      ferret = await startFerret(port);
      const mongo = await connectMongo(`mongodb://127.0.0.1:${port}/`, 'readiness');
      const api = await startApi({ config: testConfig(), keyring: stack.keyring, db: mongo.db, temporal: stack.temporal, logger: silent });
      try {
        assert.equal((await call('/readyz', {}, api.url)).status, 200);
        ferret.kill('SIGKILL');
        await once(ferret, 'exit');
        const down = await call('/readyz', {}, api.url);
        assert.equal(down.status, 503);
        assert.equal(down.body.status, 'unavailable');
        assert.match(down.body.checks.mongodb, /unreachable/);
        assert.equal(down.body.checks.temporal, 'ok');
        ferret = await startFerret(port);
        let status = 0;
        for (let i = 0; i < 60 && status !== 200; i++) {
          status = (await call('/readyz', {}, api.url)).status;
          if (status !== 200) await new Promise((r) => setTimeout(r, 250));
        }
        assert.equal(status, 200);
      } finally {
        await api.close();
        await mongo.client.close();
      }
    });
  });
});
