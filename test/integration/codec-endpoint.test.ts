/**
 * The remote codec endpoint as Temporal's own tools call it: protojson bodies (`{}` when there
 * are no payloads) and the real `temporal workflow show --codec-endpoint` against the test
 * stack's Temporal.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { startApi, RunningApi } from '../../api/server';
import { createLogger } from '../../activities/runtime/logger';
import type { IssuedCredentials } from '../../domain/credentials';
import { call, getStack, newMerchant, testConfig, TestStack } from '../support/stack';

const TOKEN = 'codec-operator-token';

function runCli(binary: string, args: string[], timeoutMs = 60_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Every payload in the CLI's JSON history (protojson: base64 metadata values and data). */
function payloadsIn(value: unknown, found: Array<{ encoding: string; text: string }> = []): Array<{ encoding: string; text: string }> {
  if (Array.isArray(value)) for (const item of value) payloadsIn(item, found);
  else if (value && typeof value === 'object') {
    const record = value as Record<string, any>;
    if (record.metadata?.encoding && typeof record.data === 'string') {
      found.push({ encoding: Buffer.from(record.metadata.encoding, 'base64').toString(), text: Buffer.from(record.data, 'base64').toString('utf8') });
    }
    for (const child of Object.values(record)) payloadsIn(child, found);
  }
  return found;
}

describe('codec endpoint for the Temporal CLI and UI (integration)', function () {
  this.timeout(120_000);
  let stack: TestStack;
  let api: RunningApi;
  let merchant: IssuedCredentials;
  const auth = { authorization: `Bearer ${TOKEN}` };

  before(async () => {
    stack = await getStack();
    merchant = await newMerchant('Codec merchant');
    // An API with a codec token, as an operator would expose it to the CLI.
    api = await startApi({ config: testConfig({ codecAuthToken: TOKEN }), keyring: stack.keyring, db: stack.db, temporal: stack.temporal, logger: createLogger('silent') });
  });
  after(async () => api?.close());

  it('answers {} (no payloads) with 200 {"payloads": []} on encode and decode', async () => {
    for (const direction of ['encode', 'decode']) {
      const empty = await call(`/codec/${direction}`, { body: {}, headers: auth }, api.url);
      assert.equal(empty.status, 200, `${direction}: ${empty.text}`);
      assert.deepEqual(empty.body, { payloads: [] });
      const emptyList = await call(`/codec/${direction}`, { body: { payloads: [] }, headers: auth }, api.url);
      assert.deepEqual([emptyList.status, emptyList.body], [200, { payloads: [] }]);
    }
  });

  it('round-trips a protojson payload without data, and refuses a malformed body in the error shape', async () => {
    const noData = { payloads: [{ metadata: { encoding: Buffer.from('binary/null').toString('base64') } }] };
    const encoded = await call('/codec/encode', { body: noData, headers: auth }, api.url);
    assert.equal(encoded.status, 200, encoded.text);
    const decoded = await call('/codec/decode', { body: encoded.body, headers: auth }, api.url);
    assert.equal(decoded.status, 200, decoded.text);
    assert.deepEqual(decoded.body, noData);

    const bad = await call('/codec/decode', { body: { payloads: 'nope' }, headers: auth }, api.url);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'VALIDATION_ERROR');
    assert.deepEqual(bad.body.errors.map((e: { field: string }) => e.field), ['payloads'], bad.text);
  });

  it('lets `temporal workflow show --codec-endpoint --codec-auth` print the decrypted history', async () => {
    const binary = process.env.TEMPORAL_BIN;
    assert.ok(binary, 'scripts/test.js provides TEMPORAL_BIN (the Temporal CLI it started the dev server with)');
    // A report starts with update-with-start of an update without arguments: its history holds
    // an empty Payloads, which the CLI sends to the codec as `{}`.
    const created = await call('/v1/reports', { body: { type: 'TRANSACTIONS', from: '2030-01-01T00:00:00Z', to: '2030-01-02T00:00:00Z' }, credentials: merchant });
    assert.equal(created.status, 202, created.text);
    const marker = created.body.id as string;
    let workflowId = '';
    for (let i = 0; i < 50 && !workflowId; i++) {
      for await (const wf of stack.temporal.workflow.list({ query: `ResourceType = 'report' AND OrganizationCode = '${merchant.organization_code}'` })) workflowId = wf.workflowId;
      if (!workflowId) await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(workflowId, 'report workflow not listed');
    const args = [
      'workflow', 'show',
      '--workflow-id', workflowId,
      '--address', stack.config.temporalAddress,
      '--namespace', stack.config.temporalNamespace,
      '--codec-endpoint', `${api.url}/codec`,
      '--codec-auth', `Bearer ${TOKEN}`,
      '--output', 'json',
    ];
    const shown = await runCli(binary!, args);
    assert.equal(shown.code, 0, shown.stderr);
    const printed = payloadsIn(JSON.parse(shown.stdout));
    assert.ok(printed.length > 0, shown.stdout.slice(0, 2000));
    assert.deepEqual([...new Set(printed.map((p) => p.encoding))].filter((e) => e === 'binary/encrypted'), [], 'the CLI printed encrypted payloads');
    assert.ok(printed.some((p) => p.text.includes(marker)), `decrypted report not in the CLI output:\n${shown.stdout.slice(0, 2000)}`);

    // Without the token the codec refuses: the CLI fails or prints ciphertext, never the text.
    const refused = await runCli(binary!, args.filter((a, i) => a !== '--codec-auth' && args[i - 1] !== '--codec-auth'));
    assert.ok(refused.code !== 0 || !payloadsIn(JSON.parse(refused.stdout)).some((p) => p.text.includes(marker)), 'decoded without the codec token');
  });
});
