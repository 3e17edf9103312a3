'use strict';
/**
 * Starts and stops the embedded infrastructure: the Temporal CLI dev server (SQLite file,
 * Web UI, search attributes), FerretDB (MongoDB wire protocol, SQLite backend) and, for
 * tests, stripe-mock (Stripe's API answered from its OpenAPI document).
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { log } = require('./prepare');

// Must match activities/runtime/temporal.ts SEARCH_ATTRIBUTES.
const SEARCH_ATTRIBUTES = {
  AccountId: 'Keyword',
  MerchantReference: 'Keyword',
  ResourceType: 'Keyword',
  OrganizationCode: 'Keyword',
  ResourceStatus: 'Keyword',
  ResourceId: 'Keyword',
};

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function portOpen(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function waitForPort(port, child, name, logFile, timeoutMs = 60_000) {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode}; last log lines:\n${tail(logFile)}`);
    if (await portOpen(port)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} did not open port ${port} within ${timeoutMs / 1000} s; last log lines:\n${tail(logFile)}`);
}

function tail(file, lines = 20) {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

// Everything under DATA_DIR is private to the user running the stack: the dev keyring, logs
// (which may quote requests), FerretDB's and Temporal's SQLite files. Children we start get
// umask 077, so what they create is 0600 / 0700 whatever the shell's umask.
const PRIVATE_UMASK = 0o077;

/** Runs `fn` (which starts a child) with umask 077; the child keeps it, we restore ours. */
function withPrivateUmask(fn) {
  const previous = process.umask(PRIVATE_UMASK);
  try {
    return fn();
  } finally {
    process.umask(previous);
  }
}

// What we create in DATA_DIR; only these are tightened, so a DATA_DIR pointed at a shared
// directory by mistake does not get its unrelated files changed.
const OWN_DIRS = ['logs', 'ferretdb', 'postgresql'];
const OWN_FILES = /^(master-keys\.txt|sandbox-merchant\.json|temporal\.db(-.*)?)$/;

function tighten(file) {
  const stat = fs.lstatSync(file);
  if (stat.isSymbolicLink()) return;
  if (stat.isDirectory()) {
    if ((stat.mode & 0o777) !== 0o700) fs.chmodSync(file, 0o700);
    for (const name of fs.readdirSync(file)) tighten(path.join(file, name));
  } else if (stat.mode & 0o077) {
    fs.chmodSync(file, stat.mode & 0o700); // the owner keeps its own bits
  }
}

/** Creates DATA_DIR with mode 0700, or tightens an existing one and the files we put in it. */
function secureDataDir(dir) {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  for (const name of fs.readdirSync(dir)) {
    if (OWN_DIRS.includes(name) || OWN_FILES.test(name)) tighten(path.join(dir, name));
  }
}

function spawnLogged(command, args, logFile, options = {}) {
  fs.mkdirSync(path.dirname(logFile), { recursive: true, mode: 0o700 });
  const out = fs.openSync(logFile, 'a', 0o600);
  fs.fchmodSync(out, 0o600); // a log left by an earlier run may be world-readable
  const child = withPrivateUmask(() => spawn(command, args, { stdio: ['ignore', out, out], ...options }));
  fs.closeSync(out);
  return child;
}

/**
 * FerretDB on `backend` 'sqlite' (files under DATA_DIR/ferretdb) or 'postgresql' (the
 * PostgreSQL started by startPostgres, `postgresUrl`).
 */
async function startFerretdb({ binary, port, dataDir, logDir, backend = 'sqlite', postgresUrl = null }) {
  const dir = path.join(dataDir, 'ferretdb');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const logFile = path.join(logDir, 'ferretdb.log');
  if (await portOpen(port)) throw new Error(`port ${port} for FerretDB is taken; set FERRETDB_PORT or stop the other process`);
  const handler = backend === 'postgresql' ? ['--handler=postgresql', `--postgresql-url=${postgresUrl}`] : ['--handler=sqlite', `--sqlite-url=file:${dir}/`];
  const child = spawnLogged(
    binary,
    [
      ...handler,
      `--listen-addr=127.0.0.1:${port}`,
      '--debug-addr=-',
      '--telemetry=disable',
      `--state-dir=${dir}`,
      '--log-level=warn',
    ],
    logFile,
  );
  await waitForPort(port, child, 'FerretDB', logFile);
  return { name: 'FerretDB', child, uri: `mongodb://127.0.0.1:${port}/`, logFile };
}

/**
 * A private PostgreSQL cluster for FerretDB's PostgreSQL backend: initdb into `dir` (trust
 * authentication, loopback only, its socket inside `dir`), then the server on `port`.
 * PostgreSQL refuses to run as root, so under root the cluster belongs to the `postgres`
 * user (Debian's package creates it) and `dir` must be outside a root-only DATA_DIR.
 */
async function startPostgres({ binDir, port, dir, logDir }) {
  const { spawnSync } = require('node:child_process');
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const as = (command, args) => (root ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]);
  const logFile = path.join(logDir, 'postgresql.log');
  if (await portOpen(port)) throw new Error(`port ${port} for PostgreSQL is taken`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (root) spawnSync('chown', ['postgres:postgres', dir]);
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    const [command, args] = as(path.join(binDir, 'initdb'), ['-D', dir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8']);
    const init = spawnSync(command, args, { encoding: 'utf8' });
    if (init.status !== 0) throw new Error(`initdb failed: ${(init.stderr || init.stdout || '').trim().split('\n').slice(-3).join(' ')}`);
  }
  // force_custom_plan: FerretDB's prepared statements name the key as a parameter
  // (`_jsonb->$1 @> $2`); only a plan made with its value can use the index below.
  const [command, args] = as(path.join(binDir, 'postgres'), ['-D', dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`, '-c', 'fsync=on', '-c', 'synchronous_commit=on', '-c', 'plan_cache_mode=force_custom_plan']);
  const child = spawnLogged(command, args, logFile);
  await waitForPort(port, child, 'PostgreSQL', logFile);
  await indexDocumentIds(as(path.join(binDir, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-q', '-v', 'ON_ERROR_STOP=1', '-c', ID_INDEX_SQL]));
  return { name: 'PostgreSQL', child, url: `postgres://postgres@127.0.0.1:${port}/postgres`, logFile };
}

/**
 * FerretDB 1.24 on PostgreSQL finds a document by `_id` with `_jsonb->'_id' @> $value`, which
 * its own B-tree index on `_jsonb->'_id'` cannot serve: every keyed read and update scanned the
 * collection (measured: 150-230 ms per lookup with 10,000 dry-run registrations stored; 8 ms
 * against 1.3 ms for 10,000 small documents). A GIN index on the same expression serves `@>`.
 * An event trigger adds it to every table FerretDB creates from now on; the DO block to the
 * tables of an existing cluster. Idempotent, run at every start.
 */
const ID_INDEX_SQL = `
CREATE OR REPLACE FUNCTION switchyard_index_document_ids() RETURNS event_trigger LANGUAGE plpgsql AS $$
DECLARE created record;
BEGIN
  FOR created IN SELECT objid, object_identity FROM pg_event_trigger_ddl_commands() WHERE command_tag = 'CREATE TABLE' LOOP
    IF EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = created.objid AND attname = '_jsonb' AND NOT attisdropped) THEN
      EXECUTE format('CREATE INDEX ON %s USING gin ((_jsonb -> %L) jsonb_path_ops)', created.object_identity, '_id');
    END IF;
  END LOOP;
END $$;
DROP EVENT TRIGGER IF EXISTS switchyard_index_document_ids;
CREATE EVENT TRIGGER switchyard_index_document_ids ON ddl_command_end WHEN TAG IN ('CREATE TABLE') EXECUTE FUNCTION switchyard_index_document_ids();
DO $$
DECLARE existing record;
BEGIN
  FOR existing IN
    SELECT c.oid::regclass AS name FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = '_jsonb' AND NOT a.attisdropped
    WHERE c.relkind = 'r' AND NOT EXISTS (
      SELECT 1 FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_am am ON am.oid = ic.relam
      WHERE i.indrelid = c.oid AND am.amname = 'gin')
  LOOP
    EXECUTE format('CREATE INDEX ON %s USING gin ((_jsonb -> %L) jsonb_path_ops)', existing.name, '_id');
  END LOOP;
END $$;
`;

/** Runs the psql command installing ID_INDEX_SQL, retrying while the server still starts up. */
async function indexDocumentIds([command, args]) {
  const { spawnSync } = require('node:child_process');
  for (let attempt = 0; ; attempt++) {
    const run = spawnSync(command, args, { encoding: 'utf8' });
    if (run.status === 0) return;
    if (attempt >= 40) throw new Error(`PostgreSQL: could not install the _id index trigger: ${(run.stderr || run.stdout || '').trim().split('\n').slice(-2).join(' ')}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function startStripeMock({ binary, port, logDir }) {
  const logFile = path.join(logDir, 'stripe-mock.log');
  if (await portOpen(port)) throw new Error(`port ${port} for stripe-mock is taken`);
  // Loopback only. An explicit -http-addr does not turn off stripe-mock's default HTTPS
  // listener (all interfaces, fixed port 12112), so that one goes to a free loopback port.
  // Strict version check: a request pinned to another Stripe API version than the mock's
  // OpenAPI document is refused, so the SDK and the mock always speak the same version.
  const child = spawnLogged(binary, ['-http-addr', `127.0.0.1:${port}`, '-https-addr', '127.0.0.1:0', '-strict-version-check'], logFile);
  await waitForPort(port, child, 'stripe-mock', logFile);
  return { name: 'stripe-mock', child, url: `http://127.0.0.1:${port}`, logFile };
}

async function startTemporal({ binary, port, uiPort, dataDir, logDir, codecEndpoint, headless }) {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const logFile = path.join(logDir, 'temporal.log');
  if (await portOpen(port)) throw new Error(`port ${port} for Temporal is taken; set TEMPORAL_PORT or stop the other process`);
  const args = [
    'server', 'start-dev',
    '--db-filename', path.join(dataDir, 'temporal.db'),
    '--ip', '127.0.0.1',
    '--port', String(port),
    '--log-level', 'warn',
    '--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal',
  ];
  if (headless) args.push('--headless');
  else args.push('--ui-port', String(uiPort), '--ui-disable-news-fetch');
  if (codecEndpoint && !headless) args.push('--ui-codec-endpoint', codecEndpoint);
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${name}=${type}`);
  const child = spawnLogged(binary, args, logFile);
  await waitForPort(port, child, 'Temporal', logFile);
  if (!headless) await waitForPort(uiPort, child, 'Temporal UI', logFile);
  return { name: 'Temporal', child, address: `127.0.0.1:${port}`, uiUrl: headless ? null : `http://localhost:${uiPort}`, logFile };
}

/** Stops children in reverse start order: SIGTERM, then SIGKILL after a grace period. */
async function stopAll(children, graceMs = 10_000) {
  for (const item of [...children].reverse()) {
    const child = item.child || item;
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }
}

module.exports = { freePort, portOpen, waitForPort, startFerretdb, startPostgres, startTemporal, startStripeMock, stopAll, spawnLogged, tail, SEARCH_ATTRIBUTES, log, secureDataDir, withPrivateUmask };

/**
 * Runs `body(env)` against a private Temporal dev server and FerretDB (and stripe-mock when
 * its binary is given, exported as STRIPE_MOCK_URL) on free ports with a throw-away data
 * directory (npm test, benchmarks), then stops them and removes the data unless
 * `keepDataOnFailure` and the body failed. Resolves to the body's exit code.
 */
async function withPrivateInfra({ binaries, prefix, database, keepDataOnFailure = false, backend = 'sqlite' }, body) {
  const os = require('node:os');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `switchyard-${prefix}-`));
  secureDataDir(dataDir);
  const logDir = path.join(dataDir, 'logs');
  const children = [];
  let postgresDir = null;
  let exitCode = 1;
  const cleanup = async () => {
    await stopAll(children);
    if (postgresDir) fs.rmSync(postgresDir, { recursive: true, force: true });
    if (exitCode === 0 || !keepDataOnFailure) fs.rmSync(dataDir, { recursive: true, force: true });
    else log(`kept ${dataDir} for inspection`);
  };
  process.once('SIGINT', () => cleanup().then(() => process.exit(130)));
  try {
    const [mongoPort, temporalPort] = [await freePort(), await freePort()];
    let postgresUrl = null;
    if (backend === 'postgresql') {
      if (!binaries.postgres) throw new Error('FERRETDB_BACKEND=postgresql needs PostgreSQL (Debian package postgresql, or POSTGRES_BIN_DIR)');
      postgresDir = fs.mkdtempSync(path.join(os.tmpdir(), `switchyard-${prefix}-pg-`));
      const postgres = await startPostgres({ binDir: binaries.postgres, port: await freePort(), dir: postgresDir, logDir });
      children.push(postgres);
      postgresUrl = postgres.url;
    }
    const [ferret, temporal] = await Promise.all([
      startFerretdb({ binary: binaries.ferretdb, port: mongoPort, dataDir, logDir, backend, postgresUrl }),
      startTemporal({ binary: binaries.temporal, port: temporalPort, dataDir, logDir, headless: true }),
    ]);
    children.push(ferret, temporal);
    const stripeMock = binaries.stripeMock ? await startStripeMock({ binary: binaries.stripeMock, port: await freePort(), logDir }) : null;
    if (stripeMock) children.push(stripeMock);
    log(`FerretDB (${backend}) on ${mongoPort}, Temporal on ${temporalPort}${stripeMock ? `, stripe-mock at ${stripeMock.url}` : ''} (data: ${dataDir})`);
    exitCode = await body({
      ...process.env,
      DATA_DIR: dataDir,
      MONGODB_URI: ferret.uri,
      MONGODB_DB: database,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: 'default',
      FERRETDB_BIN: binaries.ferretdb,
      TEMPORAL_BIN: binaries.temporal,
      LOG_LEVEL: process.env.LOG_LEVEL || 'silent',
      SWITCHYARD_TEST_LOG_DIR: logDir,
      ...(stripeMock ? { STRIPE_MOCK_URL: stripeMock.url } : {}),
    });
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    exitCode = 1;
  } finally {
    await cleanup();
  }
  return exitCode;
}

/** Runs a Node script as a child with `env`, inheriting stdio; resolves to its exit code. */
function runNode(args, env) {
  const child = withPrivateUmask(() => spawn(process.execPath, args, { env, stdio: 'inherit' }));
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

module.exports.withPrivateInfra = withPrivateInfra;
module.exports.runNode = runNode;
