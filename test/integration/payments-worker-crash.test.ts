import assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { TEST_CARDS } from '../../activities/sandbox-gateway/test-cards';
import { startApi, RunningApi } from '../../api/server';
import { createLogger } from '../../activities/runtime/logger';
import { call, getStack, newMerchant } from '../support/stack';
import { chargesFor, paymentBody, waitForPayment } from '../support/payments';

/** A worker in its own process on a private task queue, so the test can kill -9 it. */
async function spawnWorker(taskQueue: string, gatewayUrl: string): Promise<ChildProcess> {
  const script = path.resolve(__dirname, '..', '..', 'activities', 'worker.js');
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, TEMPORAL_TASK_QUEUE: taskQueue, SANDBOX_GATEWAY_URL: gatewayUrl, PROVIDER_TIMEOUT_MS: '10000', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Ready once it logs that it polls the queue (bundling the workflows takes a few seconds).
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('Switchyard worker running')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
  });
  return child;
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() - started > timeoutMs) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('payments: a worker killed mid-payment', function () {
  this.timeout(120_000);
  let api: RunningApi | undefined;
  const workers: ChildProcess[] = [];

  after(async () => {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await api?.close();
  });

  it('completes after a new worker takes over, and the card is charged exactly once', async () => {
    const s = await getStack();
    const taskQueue = `crash-test-${Date.now()}`;
    api = await startApi({ config: { ...s.config, taskQueue }, db: s.db, keyring: s.keyring, temporal: s.temporal, logger: createLogger('silent') });
    const first = await spawnWorker(taskQueue, s.gateway.url);
    workers.push(first);
    const m = await newMerchant();
    const created = await call('/v1/payments', { body: paymentBody(m, TEST_CARDS.slow), credentials: m }, api.url);
    assert.equal(created.status, 201, created.text);
    assert.ok(['READY_TO_PAY', 'PENDING'].includes(created.body.status), created.body.status);
    // The slow card is now in flight at the gateway, inside the first worker's activity.
    const inFlight = await until(() => chargesFor(created.body.id), (c) => c.length > 0);
    assert.deepEqual(inFlight.map((c) => c.status), ['PROCESSING']);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));

    workers.push(await spawnWorker(taskQueue, s.gateway.url));
    const done = await waitForPayment(m, created.body.id, (p) => p.status === 'SUCCEEDED', 60_000);
    assert.equal(done.sub_status, 'CAPTURED');
    assert.equal(done.transactions.length, 1);
    const charges = await chargesFor(created.body.id);
    assert.equal(charges.length, 1, 'one authorization at the acquirer');
    assert.equal(charges[0].status, 'APPROVED');
    assert.equal(charges[0].idempotency_key, `${created.body.id}:attempt:1`);
  });
});
