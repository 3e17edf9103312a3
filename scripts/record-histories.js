#!/usr/bin/env node
'use strict';
/**
 * `npm run record:histories [-- <release>]`: runs the whole test suite on private
 * infrastructure, then keeps the longest workflow histories of every lifecycle it produced
 * under test/fixtures/histories/<release>/ (default: today's date). `npm test` replays every
 * fixture against the current workflow code. Record a new release after a change that is
 * versioned with `patched()`; never delete the fixtures of a release whose workflows may
 * still be running somewhere.
 */
const path = require('node:path');
const { spawn } = require('node:child_process');

const release = process.argv[2] || new Date().toISOString().slice(0, 10);
if (!/^[A-Za-z0-9._-]+$/.test(release)) {
  process.stderr.write('the release name may hold letters, digits, ".", "_" and "-" only\n');
  process.exit(2);
}
const child = spawn(process.execPath, [path.join(__dirname, 'test.js')], {
  env: { ...process.env, RECORD_HISTORIES: release },
  stdio: 'inherit',
});
child.once('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
