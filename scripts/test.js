#!/usr/bin/env node
'use strict';
/**
 * `npm test`: set-up, then a private Temporal dev server and FerretDB on free ports with a
 * throw-away data directory (a running `npm start` is never disturbed), then the whole mocha
 * suite (unit + integration), then everything is stopped. Exits non-zero on any failure.
 * Extra arguments go to mocha (e.g. `npm test -- --grep idempotency`).
 */
const path = require('node:path');
const { prepare, log, ROOT } = require('./lib/prepare');
const { withPrivateInfra, runNode } = require('./lib/infra');

async function main() {
  const started = Date.now();
  const binaries = prepare();
  const mocha = path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
  const exitCode = await withPrivateInfra(
    { binaries, prefix: 'test', database: 'switchyard_test', keepDataOnFailure: process.env.KEEP_TEST_DATA === 'true' },
    (env) => {
      log(`infrastructure up after ${((Date.now() - started) / 1000).toFixed(1)} s; running mocha`);
      return runNode([mocha, '--config', path.join(ROOT, '.mocharc.json'), ...process.argv.slice(2)], { ...env, NODE_ENV: 'test' });
    },
  );
  log(`tests finished in ${((Date.now() - started) / 1000).toFixed(1)} s with exit code ${exitCode}`);
  process.exit(exitCode);
}

main();
