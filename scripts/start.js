#!/usr/bin/env node
'use strict';
/**
 * `npm start`: set-up when needed, then Temporal (dev server + Web UI) and FerretDB unless
 * TEMPORAL_ADDRESS / MONGODB_URI point elsewhere, then the worker and the API. Prints the
 * URLs and the sandbox merchant's credentials. Ctrl-C stops every child; data stays in
 * DATA_DIR (default .data/) for the next start.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { prepare, chooseFerretdbBackend, log, ROOT } = require('./lib/prepare');
const { startFerretdb, startPostgres, startTemporal, stopAll, spawnLogged, tail, secureDataDir, withPrivateUmask } = require('./lib/infra');
const { stackFacts, writeStackFile, removeStackFile } = require('./lib/stack-file');

const env = { ...process.env };
const PORT = Number(env.PORT || 3000);
const HOST = env.HOST || '127.0.0.1';
const DATA_DIR = path.resolve(env.DATA_DIR || path.join(ROOT, '.data'));
const LOG_DIR = path.join(DATA_DIR, 'logs');
const TEMPORAL_PORT = Number(env.TEMPORAL_PORT || 7233);
const TEMPORAL_UI_PORT = Number(env.TEMPORAL_UI_PORT || 8233);
const FERRETDB_PORT = Number(env.FERRETDB_PORT || 27017);
const POSTGRES_PORT = Number(env.POSTGRES_PORT || 54329);

/**
 * The PostgreSQL cluster's directory: DATA_DIR/postgresql, except under root, where PostgreSQL
 * runs as the postgres user and cannot enter the root-only DATA_DIR: then a directory of its
 * own per DATA_DIR under /var/lib/switchyard.
 */
function postgresDataDir() {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root) return path.join(DATA_DIR, 'postgresql');
  const id = require('node:crypto').createHash('sha256').update(DATA_DIR).digest('hex').slice(0, 16);
  fs.mkdirSync('/var/lib/switchyard', { recursive: true, mode: 0o755 });
  return path.join('/var/lib/switchyard', `postgresql-${id}`);
}
/** Whether DATA_DIR holds FerretDB SQLite data of an earlier start (and no PostgreSQL cluster). */
function holdsSqliteData() {
  const dir = path.join(DATA_DIR, 'ferretdb');
  const sqlite = fs.existsSync(dir) && fs.readdirSync(dir).some((f) => f.endsWith('.sqlite'));
  return sqlite && !fs.existsSync(path.join(postgresDataDir(), 'PG_VERSION'));
}

const children = [];
let stopping = false;
/** What the embedded MongoDB stores into, for the printout (null: MONGODB_URI given). */
let storage = null;

async function stop(code) {
  if (stopping) return;
  stopping = true;
  log('stopping...');
  removeStackFile(DATA_DIR);
  await stopAll(children);
  log('stopped; data kept in ' + DATA_DIR);
  process.exit(code);
}

async function waitForReady(url, child, name, logFile, timeoutMs = 120_000) {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode}; last log lines:\n${tail(logFile)}`);
    try {
      const response = await fetch(url);
      if (response.status === 200) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${name} was not ready within ${timeoutMs / 1000} s; last log lines:\n${tail(logFile)}`);
}

async function main() {
  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));
  const embeddedTemporal = !env.TEMPORAL_ADDRESS;
  const embeddedMongo = !env.MONGODB_URI;
  const binaries = prepare({ temporal: embeddedTemporal, ferretdb: embeddedMongo });
  secureDataDir(DATA_DIR); // 0700, and files left by earlier runs lose group/other access
  fs.mkdirSync(LOG_DIR, { recursive: true, mode: 0o700 });
  const apiUrl = `http://${HOST === '0.0.0.0' ? '127.0.0.1' : HOST}:${PORT}`;
  env.DATA_DIR = DATA_DIR;
  env.PORT = String(PORT);

  let temporalUi = env.TEMPORAL_UI_URL || null;
  if (embeddedMongo) {
    // FerretDB's storage: a private PostgreSQL cluster when available, else SQLite files in DATA_DIR.
    const { backend, postgresBinDir } = chooseFerretdbBackend({ sqliteDataExists: holdsSqliteData() });
    storage = backend === 'postgresql' ? 'FerretDB on PostgreSQL' : 'FerretDB on SQLite';
    let postgresUrl = null;
    if (backend === 'postgresql') {
      if (!postgresBinDir) throw new Error('FERRETDB_BACKEND=postgresql needs PostgreSQL: install the Debian package postgresql (or set POSTGRES_BIN_DIR)');
      const postgres = await startPostgres({ binDir: postgresBinDir, port: POSTGRES_PORT, dir: postgresDataDir(), logDir: LOG_DIR });
      children.push(postgres);
      postgresUrl = postgres.url;
    }
    const ferret = await startFerretdb({ binary: binaries.ferretdb, port: FERRETDB_PORT, dataDir: DATA_DIR, logDir: LOG_DIR, backend, postgresUrl });
    children.push(ferret);
    env.MONGODB_URI = ferret.uri;
  }
  if (embeddedTemporal) {
    const temporal = await startTemporal({
      binary: binaries.temporal,
      port: TEMPORAL_PORT,
      uiPort: TEMPORAL_UI_PORT,
      dataDir: DATA_DIR,
      logDir: LOG_DIR,
      codecEndpoint: `${apiUrl}/codec`,
    });
    children.push(temporal);
    env.TEMPORAL_ADDRESS = temporal.address;
    temporalUi = temporal.uiUrl;
    env.TEMPORAL_UI_URL = temporalUi;
  }

  const admin = withPrivateUmask(() => spawnSync(process.execPath, [path.join(ROOT, 'dist', 'api', 'admin.js'), 'sandbox-merchant', '--file', path.join(DATA_DIR, 'sandbox-merchant.json')], { env, encoding: 'utf8' }));
  if (admin.status !== 0) throw new Error(`could not prepare the sandbox merchant: ${admin.stderr}`);
  const merchant = JSON.parse(admin.stdout);

  // The sandbox gateway (a loopback acquirer for test cards) starts first: the worker's
  // provider connector calls it at SANDBOX_GATEWAY_URL.
  const processes = [
    { name: 'sandbox-gateway', script: path.join(ROOT, 'dist', 'activities', 'sandbox-gateway', 'server.js') },
    { name: 'worker', script: path.join(ROOT, 'dist', 'activities', 'worker.js') },
    { name: 'api', script: path.join(ROOT, 'dist', 'api', 'server.js') },
  ];
  for (const p of processes) {
    p.logFile = path.join(LOG_DIR, `${p.name}.log`);
    p.child = spawnLogged(process.execPath, [p.script], p.logFile, { env });
    children.push(p.child);
    p.child.once('exit', (code) => {
      // On Ctrl-C the terminal signals the children too; give our own handler a moment to run.
      setTimeout(() => {
        if (stopping) return;
        log(`${p.name} exited with code ${code}; last log lines:\n${tail(p.logFile)}`);
        stop(1);
      }, 300);
    });
  }
  const api = processes.find((p) => p.name === 'api');
  await waitForReady(`${apiUrl}/readyz`, api.child, 'API', api.logFile);
  // How to reach this stack, for `npm run admin` and operators (no secrets; see the README).
  const sandboxGatewayPort = Number(env.SANDBOX_GATEWAY_PORT || 3100);
  const stackFile = writeStackFile(DATA_DIR, stackFacts({
    dataDir: DATA_DIR,
    apiUrl,
    host: HOST,
    port: PORT,
    mongodbUri: env.MONGODB_URI,
    mongodbDb: env.MONGODB_DB || 'switchyard',
    embeddedMongo,
    ferretdbPort: FERRETDB_PORT,
    temporalAddress: env.TEMPORAL_ADDRESS,
    temporalNamespace: env.TEMPORAL_NAMESPACE || 'default',
    embeddedTemporal,
    temporalPort: TEMPORAL_PORT,
    temporalUiUrl: temporalUi,
    temporalUiPort: TEMPORAL_UI_PORT,
    taskQueue: env.TEMPORAL_TASK_QUEUE || 'switchyard',
    sandboxGatewayUrl: env.SANDBOX_GATEWAY_URL || `http://127.0.0.1:${sandboxGatewayPort}`,
    sandboxGatewayPort,
  }));

  const lines = [
    '',
    'Switchyard is running.',
    `  API              ${apiUrl}/v1`,
    `  API docs         ${apiUrl}/docs`,
    `  Dry-run dashboard ${apiUrl}/dashboard/dry-run`,
    `  OpenAPI          ${apiUrl}/v1/openapi.json`,
    `  Readiness        ${apiUrl}/readyz`,
    `  Temporal UI      ${temporalUi || '(external cluster: see your Temporal UI)'}`,
    `  Temporal         ${env.TEMPORAL_ADDRESS}`,
    `  Sandbox gateway  ${env.SANDBOX_GATEWAY_URL || `http://127.0.0.1:${env.SANDBOX_GATEWAY_PORT || 3100}`}`,
    `  MongoDB          ${env.MONGODB_URI.replace(/\/\/[^@]*@/, '//***@')}${storage ? ` (${storage})` : ''}`,
    `  Logs             ${LOG_DIR}`,
    `  Connection facts ${stackFile} (read by npm run admin)`,
    '',
    `Sandbox merchant, test keys (sandbox and providers' test environments only):`,
    `  organization_code   ${merchant.organization_code}`,
    `  account_id          ${merchant.account_id}`,
    `  public-api-key      ${merchant.public_api_key}`,
    `  private-secret-key  ${merchant.private_secret_key}`,
    ...(merchant.live
      ? [
          'Live keys (real provider connections only; never the sandbox):',
          `  organization_code   ${merchant.live.organization_code}`,
          `  account_id          ${merchant.live.account_id}`,
          `  public-api-key      ${merchant.live.public_api_key}`,
          `  private-secret-key  ${merchant.live.private_secret_key}`,
        ]
      : []),
    '',
    'Press Ctrl-C to stop.',
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

main().catch(async (error) => {
  console.error(`[switchyard] start failed: ${error instanceof Error ? error.message : error}`);
  await stop(1);
});
