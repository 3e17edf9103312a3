#!/usr/bin/env node
'use strict';
/**
 * `npm test`: set-up, then a private Temporal dev server and FerretDB on free ports with a
 * throw-away data directory (a running `npm start` is never disturbed), then the whole mocha
 * suite (unit + integration), then everything is stopped. Exits non-zero on any failure.
 * Extra arguments go to mocha (e.g. `npm test -- --grep idempotency`).
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { prepare, ensureChromium, log, ROOT } = require('./lib/prepare');
const { freePort, startFerretdb, startTemporal, stopAll } = require('./lib/infra');

async function main() {
  const started = Date.now();
  const binaries = prepare();
  const chromium = ensureChromium();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-test-'));
  const logDir = path.join(dataDir, 'logs');
  const children = [];
  let exitCode = 1;
  const cleanup = async () => {
    await stopAll(children);
    if (exitCode === 0 || process.env.KEEP_TEST_DATA !== 'true') fs.rmSync(dataDir, { recursive: true, force: true });
  };
  process.once('SIGINT', () => cleanup().then(() => process.exit(130)));
  try {
    const [mongoPort, temporalPort] = [await freePort(), await freePort()];
    log(`starting FerretDB on ${mongoPort} and Temporal on ${temporalPort} (data: ${dataDir})`);
    const [ferret, temporal] = await Promise.all([
      startFerretdb({ binary: binaries.ferretdb, port: mongoPort, dataDir, logDir }),
      startTemporal({ binary: binaries.temporal, port: temporalPort, dataDir, logDir, headless: true }),
    ]);
    children.push(ferret, temporal);
    log(`infrastructure up after ${((Date.now() - started) / 1000).toFixed(1)} s; running mocha`);
    const env = {
      ...process.env,
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      MONGODB_URI: ferret.uri,
      MONGODB_DB: 'switchyard_test',
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: 'default',
      FERRETDB_BIN: binaries.ferretdb,
      LOG_LEVEL: process.env.LOG_LEVEL || 'silent',
      SWITCHYARD_TEST_LOG_DIR: logDir,
      ...(chromium ? { CHROMIUM_PATH: chromium } : {}),
    };
    const mocha = path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
    const child = spawn(process.execPath, [mocha, '--config', path.join(ROOT, '.mocharc.json'), ...process.argv.slice(2)], { cwd: ROOT, env, stdio: 'inherit' });
    exitCode = await new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    exitCode = 1;
  } finally {
    await cleanup();
  }
  log(`tests finished in ${((Date.now() - started) / 1000).toFixed(1)} s with exit code ${exitCode}`);
  process.exit(exitCode);
}

main();
