import assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import { call, getStack, newMerchant } from '../support/stack';
import { paymentBody } from '../support/payments';

/** One span as an OTLP/JSON export carries it, with its resource's service name and scope. */
interface ReceivedSpan {
  service: string;
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

const SPAN_KIND_SERVER = 2;

/** A real OTLP/HTTP receiver (JSON encoding): keeps every request body and the spans in it. */
async function startReceiver(): Promise<{ url: string; bodies: string[]; spans: ReceivedSpan[]; server: Server }> {
  const bodies: string[] = [];
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      let raw = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      const text = raw.toString('utf8');
      bodies.push(text);
      try {
        for (const rs of JSON.parse(text).resourceSpans ?? []) {
          const service = String(valueOf(rs.resource?.attributes?.find((a: any) => a.key === 'service.name')?.value) ?? '');
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              const attributes = Object.fromEntries((s.attributes ?? []).map((a: any) => [a.key, valueOf(a.value)]));
              spans.push({ service, scope: ss.scope?.name ?? '', traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '', name: s.name, kind: s.kind, attributes });
            }
          }
        }
      } catch {
        return void res.writeHead(400).end();
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}`, bodies, spans, server };
}

function valueOf(v: any): unknown {
  if (!v) return undefined;
  return v.stringValue ?? v.intValue ?? v.doubleValue ?? v.boolValue ?? v.arrayValue ?? v.kvlistValue;
}

/** True when every leaf of a serialized statement is the "?" placeholder. */
function onlyPlaceholders(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(onlyPlaceholders);
  if (value && typeof value === 'object') return Object.values(value).every(onlyPlaceholders);
  return value === '?';
}

/** Spawns a built entry point; resolves with the first stdout line that contains `ready`. */
async function spawnService(script: string, env: NodeJS.ProcessEnv, ready: string): Promise<{ child: ChildProcess; line: Record<string, any> }> {
  const child = spawn(process.execPath, [path.resolve(__dirname, '..', '..', script)], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<Record<string, any>>((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const found = seen.split('\n').find((l) => l.includes(ready));
      if (found) resolve(JSON.parse(found));
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
  child.stdout!.resume();
  return { child, line };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM'); // graceful: the process flushes its spans
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

describe('tracing: one trace per payment across the API, Temporal and the worker', function () {
  this.timeout(120_000);
  const children: ChildProcess[] = [];
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;

  after(async () => {
    await Promise.all(children.map(stop));
    receiver?.server.close();
  });

  it('exports the HTTP, MongoDB, Temporal client, workflow, activity and provider spans of POST /v1/payments in one trace, without card data or secrets', async () => {
    const s = await getStack();
    receiver = await startReceiver();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TEMPORAL_TASK_QUEUE: `tracing-test-${Date.now()}`,
      SANDBOX_GATEWAY_URL: s.gateway.url,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    for (const name of ['OTEL_SERVICE_NAME', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_SDK_DISABLED', 'OTEL_TRACES_SAMPLER', 'OTEL_TRACES_EXPORTER']) delete env[name];

    const [worker, api] = await Promise.all([
      spawnService('activities/worker.js', env, 'Switchyard worker running'),
      spawnService('api/server.js', env, 'Switchyard API listening'),
    ]);
    children.push(worker.child, api.child);
    assert.equal(worker.line.tracing, 'switchyard-worker');
    assert.equal(api.line.tracing, 'switchyard-api');

    const m = await newMerchant();
    const card = TEST_CARDS.approved;
    const created = await call('/v1/payments', { body: paymentBody(m, card), credentials: m }, api.line.url);
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.status, 'SUCCEEDED', created.text);

    const spans = receiver.spans;
    const serverSpan = () =>
      spans.find((x) => x.service === 'switchyard-api' && x.kind === SPAN_KIND_SERVER && (x.attributes['http.route'] === '/v1/payments' || x.attributes['url.path'] === '/v1/payments') && (x.attributes['http.request.method'] ?? x.attributes['http.method']) === 'POST');
    const inTrace = (traceId: string) => spans.filter((x) => x.traceId === traceId);
    const complete = () => {
      const root = serverSpan();
      if (!root) return false;
      const trace = inTrace(root.traceId);
      return trace.some((x) => x.name === 'provider authorize') && trace.some((x) => x.scope === '@temporalio/interceptor-workflow') && trace.some((x) => x.name === 'RunActivity:routeAndAuthorize');
    };
    const started = Date.now();
    while (!complete() && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 100));

    const root = serverSpan();
    assert.ok(root, `no HTTP server span for POST /v1/payments; got ${JSON.stringify(spans.map((x) => `${x.service}: ${x.name}`))}`);
    assert.equal(root.name, 'POST /v1/payments');
    assert.equal(root.parentSpanId, '', 'the request starts the trace');
    const trace = inTrace(root.traceId);
    const names = JSON.stringify(trace.map((x) => `${x.service}: ${x.name} (${x.scope})`));

    const isMongo = (x: ReceivedSpan) => (x.attributes['db.system.name'] ?? x.attributes['db.system']) === 'mongodb';
    assert.ok(trace.some((x) => x.service === 'switchyard-api' && isMongo(x)), `no MongoDB span of the API in the trace: ${names}`);
    assert.ok(trace.some((x) => x.service === 'switchyard-worker' && isMongo(x)), `no MongoDB span of the worker in the trace: ${names}`);
    // Statements show the shape of a command only.
    for (const x of trace.filter(isMongo)) {
      const statement = x.attributes['db.query.text'] ?? x.attributes['db.statement'];
      if (statement !== undefined) assert.ok(onlyPlaceholders(JSON.parse(String(statement))), `a MongoDB statement with values: ${statement}`);
    }

    const client = trace.find((x) => x.service === 'switchyard-api' && /^(StartWorkflow:paymentWorkflow|UpdateWithStartWorkflow:\w+)$/.test(x.name));
    assert.ok(client, `no Temporal client span starting the payment workflow: ${names}`);

    const workflowSpans = trace.filter((x) => x.service === 'switchyard-worker' && x.scope === '@temporalio/interceptor-workflow');
    assert.ok(workflowSpans.length, `no workflow span: ${names}`);
    assert.ok(workflowSpans.some((x) => x.attributes.workflowType === 'paymentWorkflow'), `no span of the payment workflow: ${names}`);
    for (const x of workflowSpans) {
      assert.ok(!('memo' in x.attributes) && !('searchAttributes' in x.attributes), `workflow info beyond identifiers on ${x.name}`);
    }
    const activity = trace.find((x) => x.service === 'switchyard-worker' && x.name === 'RunActivity:routeAndAuthorize');
    assert.ok(activity, `no activity span for routeAndAuthorize (routing and the first attempt): ${names}`);
    const scheduling = workflowSpans.find((x) => x.spanId === activity.parentSpanId);
    assert.equal(scheduling?.name, 'StartActivity:routeAndAuthorize', 'the activity runs under the workflow span that scheduled it');

    const provider = trace.find((x) => x.name === 'provider authorize');
    assert.ok(provider, `no provider span: ${names}`);
    assert.equal(provider.service, 'switchyard-worker');
    assert.equal(provider.parentSpanId, activity.spanId, 'the provider call is a child of its activity');
    assert.equal(provider.attributes['switchyard.provider.id'], 'SANDBOX');
    assert.equal(provider.attributes['switchyard.provider.outcome'], 'APPROVED');

    // Nothing exported anywhere (attributes, names, events, resources) holds the card number or the secret key.
    const exported = receiver.bodies.join('\n');
    assert.ok(!exported.includes(card), 'the card number was exported');
    assert.ok(!exported.includes(m.private_secret_key), 'the secret key was exported');
  });
});
