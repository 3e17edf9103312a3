#!/usr/bin/env node
'use strict';
/**
 * `npm run bench:<name>` -> `node scripts/bench.js <name>`: set-up, then a private Temporal
 * dev server and FerretDB on free ports with a throw-away data directory (like npm test),
 * then `dist/test/bench/<name>.js`, then everything is stopped. The bench prints its own
 * figures; extra arguments are passed to it.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { prepare, log, ROOT } = require('./lib/prepare');
const { freePort, startFerretdb, startTemporal, stopAll } = require('./lib/infra');

async function main() {
  const [name, ...rest] = process.argv.slice(2);
  const script = name && path.join(ROOT, 'dist', 'test', 'bench', `${name}.js`);
  const binaries = prepare();
  if (!script || !fs.existsSync(script)) {
    const known = fs.existsSync(path.join(ROOT, 'dist', 'test', 'bench')) ? fs.readdirSync(path.join(ROOT, 'dist', 'test', 'bench')).filter((f) => f.endsWith('.js')).map((f) => f.slice(0, -3)) : [];
    console.error(`usage: node scripts/bench.js <name>   (known: ${known.join(', ') || 'none'})`);
    process.exit(2);
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-'));
  const logDir = path.join(dataDir, 'logs');
  const children = [];
  let exitCode = 1;
  const cleanup = async () => {
    await stopAll(children);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  process.once('SIGINT', () => cleanup().then(() => process.exit(130)));
  try {
    const [mongoPort, temporalPort] = [await freePort(), await freePort()];
    const [ferret, temporal] = await Promise.all([
      startFerretdb({ binary: binaries.ferretdb, port: mongoPort, dataDir, logDir }),
      startTemporal({ binary: binaries.temporal, port: temporalPort, dataDir, logDir, headless: true }),
    ]);
    children.push(ferret, temporal);
    log(`infrastructure up (FerretDB ${mongoPort}, Temporal ${temporalPort}); running bench "${name}"`);
    const env = {
      ...process.env,
      NODE_ENV: 'production',
      DATA_DIR: dataDir,
      MONGODB_URI: ferret.uri,
      MONGODB_DB: 'switchyard_bench',
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: 'default',
      LOG_LEVEL: process.env.LOG_LEVEL || 'silent',
    };
    const child = spawn(process.execPath, [script, ...rest], { cwd: ROOT, env, stdio: 'inherit' });
    exitCode = await new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    exitCode = 1;
  } finally {
    await cleanup();
  }
  process.exit(exitCode);
}

main();
