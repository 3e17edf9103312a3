/**
 * @switchyard/cli as a user gets it: `npm pack` of packages/cli, installed from the tarball
 * into a fresh project (offline: it has no dependencies; the typed client ships inside it),
 * then its `switchyard` bin against the stack: dry-run check on the shipped example, trigger,
 * payments get, and listen forwarding signed events to a local HTTP server.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { IssuedCredentials } from '../../domain/credentials';
import { verifyWebhookSignature } from '../../domain/webhooks';
import { call, getStack, newMerchant } from '../support/stack';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const exec = promisify(execFile);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('@switchyard/cli, packed and installed (integration)', function () {
  this.timeout(240_000);
  let dir: string;
  let project: string;
  let bin: string;
  let url: string;
  let merchant: IssuedCredentials;
  let env: Record<string, string>;

  const run = (command: string, args: string[], extraEnv: Record<string, string> = {}): Promise<Run> =>
    new Promise((resolve) => {
      const child = spawn(command, args, { cwd: project, env: { ...process.env, ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    });

  before(async () => {
    url = (await getStack()).url;
    merchant = await newMerchant('CLI package merchant');
    // A newcomer's environment: only the three documented variables (and the account for dry-run).
    env = { SWITCHYARD_URL: url, SWITCHYARD_PUBLIC_KEY: merchant.public_api_key, SWITCHYARD_SECRET_KEY: merchant.private_secret_key };
    for (const legacy of ['SWITCHYARD_PUBLIC_API_KEY', 'SWITCHYARD_PRIVATE_SECRET_KEY', 'SWITCHYARD_ACCOUNT_ID']) env[legacy] = '';
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-cli-pack-'));
    const packed = await exec('npm', ['pack', path.join(ROOT, 'packages', 'cli'), '--pack-destination', dir, '--json'], { cwd: dir });
    const tarball = path.join(dir, JSON.parse(packed.stdout)[0].filename);
    project = path.join(dir, 'project');
    fs.mkdirSync(project);
    await exec('npm', ['init', '-y'], { cwd: project });
    await exec('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund'], { cwd: project });
    bin = path.join(project, 'node_modules', '.bin', 'switchyard');
    assert.ok(fs.existsSync(bin), 'the package installs a switchyard bin');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('ships only bin/, lib/ and its README, with no dependencies', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(project, 'node_modules', '@switchyard', 'cli', 'package.json'), 'utf8'));
    assert.equal(manifest.dependencies, undefined);
    assert.deepEqual(fs.readdirSync(path.join(project, 'node_modules', '@switchyard', 'cli')).sort(), ['README.md', 'bin', 'lib', 'package.json']);
  });

  it('carries the typed client it calls (lib/vendor/), as npm run client:generate writes it today', () => {
    const { vendorFiles, VENDOR } = require(path.join(ROOT, 'packages', 'cli', 'scripts', 'vendor-client.js')) as { vendorFiles(): Record<string, string>; VENDOR: string };
    const fresh = vendorFiles();
    const installed = path.join(project, 'node_modules', '@switchyard', 'cli', 'lib', 'vendor');
    assert.deepEqual(fs.readdirSync(VENDOR).sort(), Object.keys(fresh).sort());
    for (const [name, text] of Object.entries(fresh)) {
      assert.ok(fs.readFileSync(path.join(VENDOR, name), 'utf8') === text, `packages/cli/lib/vendor/${name} is stale: run \`npm run client:generate\` and commit it`);
      assert.ok(fs.readFileSync(path.join(installed, name), 'utf8') === text, `the tarball's lib/vendor/${name} differs from the repository's`);
    }
    // The commands go through it: every API call names an OpenAPI path of the client's schema.
    const schema = fs.readFileSync(path.join(ROOT, 'packages', 'client', 'src', 'schema.d.ts'), 'utf8');
    const lib = ['common.js', 'commands.js', 'dry-run.js'].map((f) => fs.readFileSync(path.join(installed, '..', f), 'utf8')).join('\n');
    assert.match(lib, /require\('\.\/vendor\/switchyard-client'\)/);
    const calls = [...lib.matchAll(/\bapi\(options, '(GET|POST|PUT|PATCH|DELETE)', ([^,)]+)/g)].map((m) => m[2]);
    assert.ok(calls.length >= 10, `found ${calls.length} API calls`);
    for (const template of calls) {
      assert.match(template, /^'\/v1\/[^']*'$/, `an API call with a computed path: ${template}`);
      assert.ok(schema.includes(`"${template.slice(1, -1)}": {`), `${template} is not a path of the client's schema`);
    }
    assert.doesNotMatch(lib, /\bfetch\(`\$\{options\.url\}/, 'no call around the client');
  });

  it('npx switchyard dry-run check passes on the shipped example', async () => {
    const examples = path.join(ROOT, 'examples', 'dry-run');
    const r = await run('npx', ['--no', 'switchyard', 'dry-run', 'check', '--traffic', path.join(examples, 'provider-traffic.har'), '--payment', path.join(examples, 'payment-request.json'), '--provider', 'SANDBOX', '--fail-on', 'warn', '--junit', 'reports/dry-run.xml'], { SWITCHYARD_ACCOUNT_ID: merchant.account_id });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /verdict PASS {2}score 100\/100/);
    assert.match(fs.readFileSync(path.join(project, 'reports', 'dry-run.xml'), 'utf8'), /tests="1" failures="0"/);
  });

  it('trigger creates payments producing each event, and payments get reads one', async () => {
    const outcomes: Record<string, string> = {};
    for (const event of ['payment.succeeded', 'payment.declined', 'payment.pending', 'payment.failed', 'payment.captured', 'payment.canceled', 'payment.refunded']) {
      const r = await run(bin, ['trigger', event]);
      assert.equal(r.code, 0, r.stderr + r.stdout);
      const printed = JSON.parse(r.stdout);
      outcomes[event] = `${printed.status}/${printed.sub_status}`;
      if (event === 'payment.refunded') {
        const got = await run(bin, ['payments', 'get', printed.payment_id, '--include-transactions']);
        assert.equal(got.code, 0, got.stderr);
        const payment = JSON.parse(got.stdout);
        assert.equal(payment.id, printed.payment_id);
        assert.equal(payment.transactions.at(-1).type, 'REFUND');
      }
    }
    assert.deepEqual(outcomes, {
      'payment.succeeded': 'SUCCEEDED/CAPTURED', 'payment.declined': 'DECLINED/DECLINED', 'payment.pending': 'PENDING/WAITING_ADDITIONAL_STEP', 'payment.failed': 'ERROR/PROVIDER_ERROR',
      'payment.captured': 'SUCCEEDED/PARTIALLY_CAPTURED', 'payment.canceled': 'CANCELED/CANCELED', 'payment.refunded': 'REFUNDED/REFUNDED',
    });
    // Each announced its event: the organization's event feed has one of every type.
    let announced = new Set<string>();
    for (const started = Date.now(); Date.now() - started < 20_000; await new Promise((r) => setTimeout(r, 500))) {
      const feed = await call('/v1/webhook-events?after=0&limit=100', { credentials: merchant });
      announced = new Set(feed.body.events.map((e: { type: string }) => e.type));
      if (Object.keys(outcomes).every((event) => announced.has(event))) break;
    }
    for (const event of Object.keys(outcomes)) assert.ok(announced.has(event), `${event} not announced: ${[...announced]}`);
    const missing = await run(bin, ['payments', 'get', '00000000-0000-4000-8000-000000000000']);
    assert.equal(missing.code, 3);
    assert.match(missing.stderr, /404 PAYMENT_NOT_FOUND: .* \(see .*\/docs#errors-payment-not-found\)/);
    assert.equal((await run(bin, ['trigger', 'payment.exploded'])).code, 2);
    assert.equal((await run(bin, ['payments', 'get', 'x'], { SWITCHYARD_SECRET_KEY: '' })).code, 2, 'no secret key');
  });

  it('listen forwards the account\'s events, signed as a delivery, to a local URL', async () => {
    const received: Array<{ body: string; signature: string; path: string }> = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ body, signature: String(req.headers['switchyard-signature']), path: req.url ?? '' });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const listener = spawn(bin, ['listen', '--forward-to', `http://127.0.0.1:${port}/webhooks`, '--events', 'payment.succeeded', '--max-events', '1'], { cwd: project, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      listener.stdout.on('data', (c) => (stdout += c));
      listener.stderr.on('data', (c) => (stderr += c));
      const exited = new Promise<number>((resolve) => listener.on('exit', (code) => resolve(code ?? -1)));
      const started = Date.now();
      while (!/Ready!/.test(stderr)) {
        assert.ok(Date.now() - started < 30_000 && listener.exitCode === null, `listen did not get ready: ${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const triggered = await run(bin, ['trigger', 'payment.succeeded']);
      assert.equal(triggered.code, 0, triggered.stderr);
      const paymentId = JSON.parse(triggered.stdout).payment_id;
      const code = await Promise.race([exited, new Promise<number>((r) => setTimeout(() => r(-2), 60_000))]);
      if (code === -2) listener.kill();
      assert.equal(code, 0, `listen: ${stderr}\n${stdout}`);
      assert.equal(received.length, 1);
      assert.equal(received[0].path, '/webhooks');
      const event = JSON.parse(received[0].body);
      assert.equal(event.type, 'payment.succeeded');
      assert.equal(event.data.id, paymentId);
      assert.match(stdout, /--> payment\.succeeded \[.+\] {2}<-- 200/);
      // Verified exactly as a receiver verifies a delivery: the account's webhook secret.
      const { body: endpoint } = await call(`/v1/accounts/${merchant.account_id}/webhook`, { credentials: merchant });
      assert.match(stderr, new RegExp(`signing secret of account ${merchant.account_id}: ${endpoint.secret}`));
      assert.ok(verifyWebhookSignature(received[0].signature, received[0].body, endpoint.secret, Math.floor(Date.now() / 1000)), received[0].signature);
    } finally {
      server.close();
    }
  });

  it('GET /v1/webhook-events pages the organization\'s events by cursor, only its own', async () => {
    const all = await call('/v1/webhook-events?after=0&limit=100', { credentials: merchant });
    assert.equal(all.status, 200, all.text);
    const types = all.body.events.map((e: { type: string }) => e.type);
    for (const type of ['payment.succeeded', 'payment.declined', 'payment.refunded']) assert.ok(types.includes(type), `${type} in ${types}`);
    for (const e of all.body.events) assert.equal(e.account_id, merchant.account_id);
    const first = await call('/v1/webhook-events?after=0&limit=1', { credentials: merchant });
    const second = await call(`/v1/webhook-events?after=${first.body.next_cursor}&limit=1`, { credentials: merchant });
    assert.deepEqual([first.body.events[0].id, second.body.events[0].id], all.body.events.slice(0, 2).map((e: { id: string }) => e.id));
    const other = await newMerchant('Another organization');
    assert.deepEqual((await call('/v1/webhook-events?after=0', { credentials: other })).body.events, []);
    // The key pair only: the events are signed with the account's webhook secret.
    const publicOnly = await call('/v1/webhook-events?after=0', { headers: { 'public-api-key': merchant.public_api_key } });
    assert.equal(publicOnly.status, 401, publicOnly.text);
    const bad = await call('/v1/webhook-events?after=not-a-cursor!', { credentials: merchant });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].field, 'after');
    const waited = Date.now();
    const empty = await call(`/v1/webhook-events?wait=2`, { credentials: merchant });
    assert.deepEqual(empty.body.events, []);
    assert.ok(Date.now() - waited >= 1_500, 'the long poll waited');
  });
});
