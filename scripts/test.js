#!/usr/bin/env node
'use strict';
/**
 * `npm test`: set-up, then a private Temporal dev server, FerretDB and stripe-mock on free ports with a
 * throw-away data directory (a running `npm start` is never disturbed), then the whole mocha
 * suite (unit + integration), then everything is stopped. Exits non-zero on any failure.
 * Extra arguments go to mocha (e.g. `npm test -- --grep idempotency`).
 */
const path = require('node:path');
const { prepare, ensureChromium, chooseFerretdbBackend, log, ROOT } = require('./lib/prepare');
const { withPrivateInfra, runNode } = require('./lib/infra');

async function main() {
  const started = Date.now();
  const binaries = prepare({ stripeMock: true });
  const chromium = ensureChromium(); // the dashboard test drives headless Chromium
  const mocha = path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
  // FerretDB on PostgreSQL when available (FERRETDB_BACKEND=sqlite runs the suite on SQLite).
  const { backend, postgresBinDir } = chooseFerretdbBackend();
  binaries.postgres = postgresBinDir;
  const exitCode = await withPrivateInfra(
    { binaries, prefix: 'test', database: 'switchyard_test', keepDataOnFailure: process.env.KEEP_TEST_DATA === 'true', backend },
    (env) => {
      log(`infrastructure up after ${((Date.now() - started) / 1000).toFixed(1)} s; running mocha`);
      return runNode([mocha, '--config', path.join(ROOT, '.mocharc.json'), ...process.argv.slice(2)], {
        ...env,
        NODE_ENV: 'test',
        // Simulated bank rails settle in milliseconds instead of hours or days.
        BANKING_SETTLEMENT_TIME_SCALE: process.env.BANKING_SETTLEMENT_TIME_SCALE || '0.00001',
        // Small enough for a test to reach the TOO_MANY_ROWS failure of a report.
        REPORT_MAX_ROWS: process.env.REPORT_MAX_ROWS || '200',
        // Owed dry-run pairing signals are swept within a second, so a test can show one delivered.
        DRY_RUN_SIGNAL_LEASE_MS: process.env.DRY_RUN_SIGNAL_LEASE_MS || '2000',
        ...(chromium ? { CHROMIUM_PATH: chromium } : {}),
      });
    },
  );
  log(`tests finished in ${((Date.now() - started) / 1000).toFixed(1)} s with exit code ${exitCode}`);
  process.exit(exitCode);
}

main();
