#!/usr/bin/env node
'use strict';
/**
 * `npm run bench:<name>` -> `node scripts/bench.js <name>`: set-up, then a private Temporal
 * dev server and FerretDB on free ports with a throw-away data directory (like npm test),
 * then `dist/test/bench/<name>.js`, then everything is stopped. The bench prints its own
 * figures; extra arguments are passed to it.
 */
const fs = require('node:fs');
const path = require('node:path');
const { prepare, ensurePostgres, chooseFerretdbBackend, log, ROOT } = require('./lib/prepare');
const { withPrivateInfra, runNode } = require('./lib/infra');

async function main() {
  const [name, ...rest] = process.argv.slice(2);
  const benchDir = path.join(ROOT, 'dist', 'test', 'bench');
  const script = name && path.join(benchDir, `${name}.js`);
  const binaries = prepare();
  if (!script || !fs.existsSync(script)) {
    const known = fs.existsSync(benchDir) ? fs.readdirSync(benchDir).filter((f) => f.endsWith('.js') && f !== 'support.js').map((f) => f.slice(0, -3)) : [];
    console.error(`usage: node scripts/bench.js <name>   (known: ${known.join(', ') || 'none'})`);
    process.exit(2);
  }
  // FerretDB's storage backend(s) to run on, one after the other in this run, each on a fresh
  // stack: BENCH_BACKENDS=sqlite,postgresql compares SQLite with the embedded default, PostgreSQL.
  const backends = (process.env.BENCH_BACKENDS || chooseFerretdbBackend().backend).split(',').map((b) => b.trim()).filter(Boolean);
  const unknown = backends.filter((b) => b !== 'sqlite' && b !== 'postgresql');
  if (unknown.length) {
    console.error(`unknown FerretDB backend(s): ${unknown.join(', ')} (sqlite, postgresql)`);
    process.exit(2);
  }
  if (backends.includes('postgresql')) binaries.postgres = ensurePostgres();
  let exitCode = 0;
  for (const backend of backends) {
    const code = await withPrivateInfra({ binaries, prefix: 'bench', database: 'switchyard_bench', backend }, (env) => {
      log(`running bench "${name}" on FerretDB's ${backend} backend`);
      return runNode([script, ...rest], { ...env, NODE_ENV: 'production', BENCH_BACKEND: backend });
    });
    exitCode ||= code;
  }
  process.exit(exitCode);
}

main();
