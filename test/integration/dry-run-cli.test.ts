/**
 * `npx switchyard dry-run check` against the real stack: exit codes, summary, JUnit XML,
 * Switchyard JSON and HAR 1.2 inputs.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { IssuedCredentials } from '../../domain/credentials';
import { getStack, newMerchant } from '../support/stack';
import { paymentFor } from '../support/dry-run';
import { sandboxRequestBody, sandboxResponseBody, TEST_PAN } from '../support/dry-run-fixtures';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'scripts', 'switchyard-cli.js');

function run(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('switchyard dry-run check (integration, CLI)', function () {
  this.timeout(120_000);
  let dir: string;
  let url: string;
  let merchant: IssuedCredentials;
  let env: Record<string, string>;
  const write = (name: string, value: unknown) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, JSON.stringify(value, null, 2));
    return file;
  };

  before(async () => {
    url = (await getStack()).url;
    merchant = await newMerchant('CI merchant');
    env = { SWITCHYARD_PUBLIC_API_KEY: merchant.public_api_key, SWITCHYARD_PRIVATE_SECRET_KEY: merchant.private_secret_key };
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-cli-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const traffic = (request: Record<string, unknown> = {}) => ({
    provider_id: 'SANDBOX',
    events: [
      { type: 'REQUEST', http_method: 'POST', operation_type: 'PURCHASE', base_url: 'https://sandbox.example', endpoint: '/v1/authorizations', headers: { 'Content-Type': 'application/json' }, body: sandboxRequestBody({ reference: 'ci-order-1', ...request }) },
      { type: 'RESPONSE', http_method: 'POST', operation_type: 'PURCHASE', http_status_code: 201, headers: 'Content-Type: application/json\r\n', body: sandboxResponseBody({ reference: 'ci-order-1' }) },
    ],
  });

  it('exits 0 on PASS and writes JUnit XML', async () => {
    const junit = path.join(dir, 'out', 'pass.xml');
    const r = await run(['dry-run', 'check', '--url', url, '--traffic', write('pass.json', traffic()), '--payment', write('payment.json', paymentFor(merchant, 'ci-order-1')), '--fail-on', 'warn', '--junit', junit], env);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /verdict PASS {2}score 100\/100/);
    assert.match(r.stderr, /registered [A-Za-z0-9_-]{21}/);
    const xml = fs.readFileSync(junit, 'utf8');
    assert.match(xml, /<testsuite name="switchyard dry-run ci-order-1-[a-z0-9]+" tests="1" failures="0"/);
  });

  it('exits 1 when the verdict is FAIL, listing each finding in the summary and in JUnit', async () => {
    const junit = path.join(dir, 'fail.xml');
    const r = await run(['dry-run', 'check', '--url', url, '--traffic', write('fail.json', traffic({ installments: 6 })), '--payment', write('payment.json', paymentFor(merchant, 'ci-order-1')), '--junit', junit], env);
    assert.equal(r.code, 1, r.stderr + r.stdout);
    assert.match(r.stdout, /verdict FAIL/);
    assert.match(r.stdout, /ERROR {3}INSTALLMENTS_MISMATCH/);
    const xml = fs.readFileSync(junit, 'utf8');
    assert.match(xml, /<failure message="installments differ[^"]*" type="INSTALLMENTS_MISMATCH">/);
    assert.match(xml, /failures="2"/);
  });

  it('HAR 1.2 input; a WARN verdict exits 1 with --fail-on warn and 0 with --fail-on fail', async () => {
    const har = {
      log: {
        version: '1.2', creator: { name: 'test', version: '1' },
        entries: [
          {
            request: { method: 'POST', url: 'https://acquirer.example/api/payments?v=2', headers: [{ name: 'Content-Type', value: 'application/json' }, { name: 'Authorization', value: 'Bearer abcdefghijklmnop' }], postData: { mimeType: 'application/json', text: JSON.stringify({ orderId: 'ci-order-1', amount: { value: 15050, currency: 'BRL' }, card: { pan: TEST_PAN }, metadata: { campaign: 'spring', channel: 'app' } }) } },
            response: { status: 200, headers: [{ name: 'Content-Type', value: 'application/json' }, { name: 'Content-Encoding', value: 'gzip' }], content: { mimeType: 'application/json', text: JSON.stringify({ status: 'approved', amount: { value: 15050, currency: 'BRL' } }) } },
          },
          { request: { method: 'OPTIONS', url: 'https://acquirer.example/api/payments', headers: [] }, response: { status: 204, headers: [], content: {} } },
        ],
      },
    };
    const args = ['dry-run', 'check', '--url', url, '--provider', 'PAGSEGURO', '--traffic', write('capture.har', har), '--payment', write('payment.json', paymentFor(merchant, 'ci-order-1'))];
    const strict = await run([...args, '--fail-on', 'warn'], env);
    assert.equal(strict.code, 1, strict.stderr + strict.stdout);
    assert.match(strict.stdout, /verdict WARN/);
    assert.match(strict.stdout, /UNMAPPED_METADATA/);
    const lenient = await run([...args, '--fail-on', 'fail'], env);
    assert.equal(lenient.code, 0, lenient.stderr + lenient.stdout);
  });

  it('the README names only shipped files, and its GitHub Actions command passes on them (examples/dry-run)', async () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const named = [...readme.matchAll(/--(?:traffic|payment) +([^\s\\]+)/g)].map((m) => m[1]);
    assert.ok(named.length >= 4, `README names ${named.length} input files`);
    for (const file of named) assert.ok(fs.existsSync(path.join(ROOT, file)), `README names ${file}, which is not in the repository`);

    // The step uses the CLI package shipped in the repository, with the variables its env block names.
    const step = /- run: (npx --yes --package \.\/packages\/cli switchyard dry-run check [^\n]+)\n +env:\n((?: {10}[A-Z_]+: [^\n]+\n)+)/.exec(readme);
    assert.ok(step, 'no GitHub Actions step running the packages/cli switchyard dry-run check in the README');
    const names = [...step![2].matchAll(/([A-Z_]+):/g)].map((m) => m[1]).sort();
    assert.deepEqual(names, ['SWITCHYARD_ACCOUNT_ID', 'SWITCHYARD_PUBLIC_KEY', 'SWITCHYARD_SECRET_KEY', 'SWITCHYARD_URL']);
    const args = step![1].trim().split(/ +/);
    // The step runs in a checkout: the same relative paths, from a directory of our own for the report.
    const checkout = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-ci-'));
    fs.symlinkSync(path.join(ROOT, 'examples'), path.join(checkout, 'examples'));
    fs.cpSync(path.join(ROOT, 'packages', 'cli'), path.join(checkout, 'packages', 'cli'), { recursive: true });
    try {
      const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        const stepEnv: Record<string, string> = { ...process.env, SWITCHYARD_URL: url, SWITCHYARD_ACCOUNT_ID: merchant.account_id, SWITCHYARD_PUBLIC_KEY: merchant.public_api_key, SWITCHYARD_SECRET_KEY: merchant.private_secret_key } as Record<string, string>;
        delete stepEnv.SWITCHYARD_PUBLIC_API_KEY;
        delete stepEnv.SWITCHYARD_PRIVATE_SECRET_KEY;
        const child = spawn(args[0], args.slice(1), { env: stepEnv, stdio: ['ignore', 'pipe', 'pipe'], cwd: checkout });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c) => (stdout += c));
        child.stderr.on('data', (c) => (stderr += c));
        child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      });
      assert.equal(r.code, 0, r.stderr + r.stdout);
      assert.match(r.stdout, /verdict PASS {2}score 100\/100/);
      const junitArg = args[args.indexOf('--junit') + 1];
      assert.match(fs.readFileSync(path.join(checkout, junitArg), 'utf8'), /tests="1" failures="0"/);
    } finally {
      fs.rmSync(checkout, { recursive: true, force: true });
    }
  });

  it('exits 2 on usage errors and 3 when Switchyard refuses the call', async () => {
    assert.equal((await run(['dry-run', 'check', '--traffic', 'x.json'], env)).code, 2);
    assert.equal((await run(['dry-run', 'check', '--url', url, '--traffic', write('t.json', traffic()), '--payment', write('p.json', paymentFor(merchant, 'ci-order-1'))], {})).code, 2, 'no credentials');
    assert.equal((await run(['dry-run', 'check', '--url', url, '--traffic', write('t.json', traffic()), '--payment', write('p.json', paymentFor(merchant, 'ci-order-1')), '--fail-on', 'maybe'], env)).code, 2);
    const noAccount = await run(['dry-run', 'check', '--url', url, '--traffic', path.join(ROOT, 'examples', 'dry-run', 'provider-traffic.har'), '--payment', path.join(ROOT, 'examples', 'dry-run', 'payment-request.json')], env);
    assert.equal(noAccount.code, 2, 'a request file without account_id and no --account-id');
    assert.match(noAccount.stderr, /--account-id or set SWITCHYARD_ACCOUNT_ID/);
    const refused = await run(['dry-run', 'check', '--url', url, '--traffic', write('t.json', traffic()), '--payment', write('p.json', paymentFor(merchant, 'ci-order-1'))], { SWITCHYARD_PUBLIC_API_KEY: 'pk_nope', SWITCHYARD_PRIVATE_SECRET_KEY: 'sk_nope' });
    assert.equal(refused.code, 3);
    assert.match(refused.stderr, /401 AuthenticationFail/);
  });
});
