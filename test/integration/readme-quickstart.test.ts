/**
 * The README's "Quick start" runs as written: its ```sh blocks, in order, in one bash
 * process (so shell variables carry from block to block), against the test stack. The only
 * edits are the ones a newcomer makes: the values on the `export` line, and a free port for
 * the local webhook receiver instead of 8080.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { getStack, newMerchant } from '../support/stack';

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** The fenced ```sh blocks of the README section `title`. */
export function shellBlocksOf(markdown: string, title: string): string[] {
  const start = markdown.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `README has no "## ${title}" section`);
  const end = markdown.indexOf('\n## ', start + 4);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function bash(script: string, cwd: string, timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env };
    for (const name of Object.keys(env)) if (name.startsWith('SWITCHYARD_')) delete env[name];
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

describe('README quick start (integration: the blocks run as written)', function () {
  this.timeout(180_000);

  it('runs every block in order and each prints the JSON it promises', async () => {
    const { url } = await getStack();
    const merchant = await newMerchant('Quick start merchant');
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const blocks = shellBlocksOf(readme, 'Quick start');
    assert.equal(blocks.length, 10, `expected 10 sh blocks, found ${blocks.length}`);

    // What a newcomer types: their URL and keys on the export line.
    assert.match(blocks[0], /^export SWITCHYARD_URL=http:\/\/127\.0\.0\.1:3000 SWITCHYARD_PUBLIC_KEY=pk_\.\.\. SWITCHYARD_SECRET_KEY=sk_\.\.\.\n$/);
    blocks[0] = blocks[0]
      .replace('http://127.0.0.1:3000', url)
      .replace('pk_...', merchant.public_api_key)
      .replace('sk_...', merchant.private_secret_key);
    const port = await freePort();
    const last = blocks.length - 1;
    assert.match(blocks[last], /localhost:8080/);
    assert.match(blocks[last], /listen\(8080\)/);
    blocks[last] = blocks[last].replace(/8080/g, String(port));

    const script = ['set -eo pipefail', ...blocks.map((b, i) => `${b}\nprintf '\\n@@block ${i}@@\\n'`)].join('\n');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-quickstart-'));
    try {
      const run = await bash(script, dir, 150_000);
      assert.equal(run.code, 0, `bash exited ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
      const outputs: string[] = [];
      let rest = run.stdout;
      for (let i = 0; i < blocks.length; i++) {
        const marker = `\n@@block ${i}@@\n`;
        const at = rest.indexOf(marker);
        assert.ok(at >= 0, `no end marker for block ${i}: ${run.stdout}`);
        outputs.push(rest.slice(0, at).trim());
        rest = rest.slice(at + marker.length);
      }
      const json = (i: number) => {
        const text = outputs[i].split('\n').filter(Boolean).pop() ?? '';
        try {
          return JSON.parse(text);
        } catch {
          assert.fail(`block ${i} printed no JSON:\n${outputs[i]}\n--- block:\n${blocks[i]}`);
        }
      };

      assert.equal(outputs[0], '', 'the export line prints nothing');
      assert.deepEqual(json(1).accounts.map((a: { id: string }) => a.id), [merchant.account_id]);
      const payment = json(2);
      assert.equal(`${payment.status}/${payment.sub_status}`, 'SUCCEEDED/AUTHORIZED', outputs[2]);
      const captured = json(3);
      assert.equal(captured.id, payment.id);
      assert.equal(`${captured.status}/${captured.sub_status}`, 'SUCCEEDED/CAPTURED', outputs[3]);
      assert.equal(captured.amount.captured, 25);
      const refunded = json(4);
      assert.equal(`${refunded.status}/${refunded.sub_status}`, 'SUCCEEDED/PARTIALLY_REFUNDED', outputs[4]);
      assert.equal(refunded.amount.refunded, 10);
      const read = json(5);
      assert.equal(read.id, payment.id);
      assert.deepEqual(read.transactions.map((t: { type: string; status: string }) => `${t.type}:${t.status}`).slice(-2), ['CAPTURE:SUCCEEDED', 'REFUND:SUCCEEDED'], outputs[5]);
      const registration = json(6);
      assert.equal(registration.status, 'REGISTERED', outputs[6]);
      assert.match(registration.id, /^[A-Za-z0-9_-]{21}$/);
      const dryRun = json(7);
      assert.equal(dryRun.dry_run, true, outputs[7]);
      const report = json(8);
      assert.equal(report.id, registration.id);
      assert.equal(report.status, 'VALIDATED', outputs[8]);
      assert.equal(report.report.verdict, 'PASS', JSON.stringify(report.report.findings));
      const webhook = json(9);
      assert.equal(webhook.verified, true, outputs[9]);
      assert.equal(webhook.type, 'payment.succeeded');
      assert.ok(fs.existsSync(path.join(dir, 'verify-webhook.js')));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
