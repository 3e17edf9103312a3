/**
 * The README's key-rotation procedure, step by step, against real API and worker processes
 * that started with the generated development key (DATA_DIR/master-keys.txt, key id dev1):
 * everything sealed before the rotation (webhook secrets, vaulted cards, workflow payloads)
 * must stay usable after it. The admin steps run dist/api/admin.js, which is what
 * `npm run --silent admin --` runs once the build is up to date.
 */
import assert from 'node:assert/strict';
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { once } from 'node:events';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import { connectMongo, Mongo } from '../../activities/runtime/mongo';
import type { IssuedCredentials } from '../../domain/credentials';
import { call, getStack } from '../support/stack';

const ROOT = path.resolve(__dirname, '..', '..', '..');

async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((r) => server.close(r));
  return port;
}

describe('key rotation as the README describes it (integration, real processes)', function () {
  this.timeout(240_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-rotation-'));
  const database = `key_rotation_${Date.now()}`;
  let env: NodeJS.ProcessEnv;
  let apiUrl: string;
  let processes: ChildProcess[] = [];
  let mongo: Mongo;
  let hooks: http.Server;

  /** The API and the worker, as `npm start` runs them: separate processes, keyring from DATA_DIR or the variable. */
  async function startProcesses(extra: NodeJS.ProcessEnv = {}): Promise<void> {
    const worker = spawn(process.execPath, [path.join(ROOT, 'dist', 'activities', 'worker.js')], { env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'inherit'] });
    const api = spawn(process.execPath, [path.join(ROOT, 'dist', 'api', 'server.js')], { env: { ...env, ...extra }, stdio: ['ignore', 'ignore', 'inherit'] });
    processes = [worker, api];
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      worker.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('Switchyard worker running')) resolve();
      });
      worker.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
    });
    for (let i = 0; ; i++) {
      if (api.exitCode !== null) throw new Error(`API exited with ${api.exitCode}`);
      const ready = await fetch(`${apiUrl}/readyz`).then((r) => r.status === 200, () => false);
      if (ready) break;
      if (i > 200) throw new Error('API not ready');
      await new Promise((r) => setTimeout(r, 150));
    }
  }

  async function stopProcesses(): Promise<void> {
    await Promise.all(processes.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }));
    processes = [];
  }

  function admin(args: string[], extra: NodeJS.ProcessEnv = {}) {
    const result = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'api', 'admin.js'), ...args], { env: { ...env, ...extra }, encoding: 'utf8', timeout: 60_000 });
    assert.equal(result.status, 0, `admin ${args.join(' ')}: ${result.stderr}`);
    return JSON.parse(result.stdout);
  }

  async function payWithVaultedCard(merchant: IssuedCredentials, customerId: string, vaultedToken: string) {
    const created = await call('/v1/payments', {
      body: {
        account_id: merchant.account_id, description: 'Rotation order', country: 'CO', merchant_order_id: `rot-${Date.now().toString(36)}`,
        amount: { currency: 'USD', value: 12.5 }, customer_payer: { id: customerId }, payment_method: { type: 'CARD', vaulted_token: vaultedToken },
      },
      credentials: merchant,
    }, apiUrl);
    assert.equal(created.status, 201, created.text);
    for (let i = 0; ; i++) {
      const read = await call(`/v1/payments/${created.body.id}`, { credentials: merchant }, apiUrl);
      assert.equal(read.status, 200, read.text);
      if (read.body.status !== 'PENDING' && read.body.status !== 'READY_TO_PAY') return read.body;
      if (i > 100) assert.fail(`payment ${created.body.id} stuck in ${read.body.status}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  before(async () => {
    const stack = await getStack(); // the shared stack's worker owns the namespace's singleton workflows
    hooks = http.createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end()));
    hooks.listen(0, '127.0.0.1');
    await once(hooks, 'listening');
    const port = await freePort();
    apiUrl = `http://127.0.0.1:${port}`;
    env = { ...process.env, DATA_DIR: dataDir, MONGODB_DB: database, PORT: String(port), TEMPORAL_TASK_QUEUE: `rotation-${Date.now()}`, SANDBOX_GATEWAY_URL: stack.gateway.url, LOG_LEVEL: 'info' };
    delete env.SWITCHYARD_MASTER_KEYS; // the stack starts with the generated development key
    mongo = await connectMongo(process.env.MONGODB_URI!, database);
  });

  after(async () => {
    await stopProcesses();
    hooks?.close();
    await mongo?.db.dropDatabase().catch(() => undefined);
    await mongo?.client.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('rotate-key, restart, reseal-vault; then the environment-variable form on top: webhooks, vaulted-card payments and payments keep working', async () => {
    await startProcesses();
    assert.match(fs.readFileSync(path.join(dataDir, 'master-keys.txt'), 'utf8'), /^dev1:/);

    // Data sealed under dev1: a webhook endpoint (its secret), an enrolled card, a payment.
    const merchant = admin(['create-merchant', '--name', 'Rotation merchant']) as IssuedCredentials;
    const hookUrl = `http://localhost:${(hooks.address() as net.AddressInfo).port}/hooks`;
    const endpoint = await call(`/v1/accounts/${merchant.account_id}/webhook`, { method: 'PUT', body: { url: hookUrl }, credentials: merchant }, apiUrl);
    assert.equal(endpoint.status, 200, endpoint.text);
    const customer = await call('/v1/customers', { body: { merchant_customer_id: 'rot-1', first_name: 'Ana', last_name: 'Gomez', email: 'ana@example.com', country: 'CO' }, credentials: merchant }, apiUrl);
    assert.equal(customer.status, 201, customer.text);
    const session = await call('/v1/customers/sessions', { body: { account_id: merchant.account_id, customer_id: customer.body.id, country: 'CO', callback_url: 'https://shop.example/enrolled' }, credentials: merchant }, apiUrl);
    assert.equal(session.status, 201, session.text);
    const enrolled = await call(`/v1/checkout/customers/sessions/${session.body.customer_session}/payment-methods`, {
      body: { type: 'CARD', card: { number: TEST_CARDS.approved, holder_name: 'ANA GOMEZ', expiration_month: 7, expiration_year: 2031 } }, credentials: merchant,
    }, apiUrl);
    assert.equal(enrolled.status, 201, enrolled.text);
    const token = enrolled.body.vaulted_token as string;
    const before = await payWithVaultedCard(merchant, customer.body.id, token);
    assert.equal(before.status, 'SUCCEEDED', JSON.stringify(before));

    const checkEverything = async (activeKeyId: string) => {
      const webhook = await call(`/v1/accounts/${merchant.account_id}/webhook`, { credentials: merchant }, apiUrl);
      assert.equal(webhook.status, 200, webhook.text);
      assert.equal(webhook.body.secret, endpoint.body.secret, 'the webhook secret changed');
      const method = await call(`/v1/customers/${customer.body.id}/payment-methods/${token}`, { credentials: merchant }, apiUrl);
      assert.equal(method.status, 200, method.text);
      const after = await payWithVaultedCard(merchant, customer.body.id, token);
      assert.equal(after.status, 'SUCCEEDED', JSON.stringify(after));
      for (const id of [before.id, after.id]) {
        const read = await call(`/v1/payments/${id}`, { credentials: merchant }, apiUrl);
        assert.equal(read.status, 200, read.text);
      }
      const cards = await mongo.db.collection('vault_cards').find({ organization_code: merchant.organization_code }).toArray();
      assert.ok(cards.length > 0);
      assert.deepEqual([...new Set(cards.map((c) => c.key_id))], [activeKeyId]);
    };

    // README, embedded stack: 1. rotate-key
    const rotated = admin(['rotate-key']);
    assert.deepEqual(rotated.key_ids, ['dev2', 'dev1']);
    assert.equal(rotated.active_key_id, 'dev2');
    assert.equal(fs.statSync(path.join(dataDir, 'master-keys.txt')).mode & 0o777, 0o600);
    // 2. restart the stack
    await stopProcesses();
    await startProcesses();
    // 3. reseal-vault
    assert.deepEqual(admin(['reseal-vault']), { resealed: 1, provider_credentials_resealed: 0, active_key_id: 'dev2' });
    await checkEverything('dev2');

    // README, keyring in SWITCHYARD_MASTER_KEYS (never set on this stack, so the export
    // line below expands the old value to nothing): the keys in the data directory stay readable.
    const exported = spawnSync('bash', ['-c', 'export SWITCHYARD_MASTER_KEYS="k2:$(openssl rand -base64 32),$SWITCHYARD_MASTER_KEYS"; printf %s "$SWITCHYARD_MASTER_KEYS"'], { env, encoding: 'utf8' });
    assert.equal(exported.status, 0, exported.stderr);
    const keys = { SWITCHYARD_MASTER_KEYS: exported.stdout };
    await stopProcesses();
    await startProcesses(keys);
    assert.deepEqual(admin(['reseal-vault'], keys), { resealed: 1, provider_credentials_resealed: 0, active_key_id: 'k2' });
    await checkEverything('k2');
  });
});
