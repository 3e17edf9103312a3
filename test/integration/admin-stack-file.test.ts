/**
 * `npm run admin` finds the running stack by itself: npm start writes DATA_DIR/stack.json
 * (scripts/lib/stack-file.js) and the admin command reads it when MONGODB_URI is not set.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectMongo } from '../../activities/runtime/mongo';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const ADMIN = path.join(ROOT, 'dist', 'api', 'admin.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const stackFile = require(path.join(ROOT, 'scripts', 'lib', 'stack-file.js')) as {
  stackFacts(input: Record<string, unknown>): Record<string, any>;
  writeStackFile(dataDir: string, facts: Record<string, unknown>): string;
  withoutCredentials(uri: string): { uri: string; credentialsRemoved: boolean };
};

/** The environment of an operator's shell: no MONGODB_URI / MONGODB_DB / DATA_DIR of the test run. */
function shellEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['MONGODB_URI', 'MONGODB_DB', 'DATA_DIR', 'FERRETDB_PORT', 'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'SWITCHYARD_MASTER_KEYS']) delete env[name];
  return { ...env, ...extra };
}

function admin(args: string[], env: NodeJS.ProcessEnv) {
  const started = Date.now();
  const result = spawnSync(process.execPath, [ADMIN, ...args], { env, encoding: 'utf8', timeout: 60_000 });
  return { ...result, seconds: (Date.now() - started) / 1000 };
}

function facts(dataDir: string, overrides: Record<string, unknown> = {}) {
  return stackFile.stackFacts({
    dataDir, apiUrl: 'http://127.0.0.1:39001', host: '127.0.0.1', port: 39001,
    mongodbUri: process.env.MONGODB_URI, mongodbDb: 'switchyard', embeddedMongo: true, ferretdbPort: 39017,
    temporalAddress: process.env.TEMPORAL_ADDRESS, temporalNamespace: 'default', embeddedTemporal: true, temporalPort: 39233,
    temporalUiUrl: 'http://localhost:39234', temporalUiPort: 39234, taskQueue: 'switchyard',
    sandboxGatewayUrl: 'http://127.0.0.1:39100', sandboxGatewayPort: 39100,
    ...overrides,
  });
}

describe('admin finds the running stack through DATA_DIR/stack.json (integration)', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  const newDataDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-admin-'));
    dirs.push(dir);
    return dir;
  };
  after(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

  it('writes the connection facts with mode 0600 and without MongoDB credentials', () => {
    const dataDir = newDataDir();
    const file = stackFile.writeStackFile(dataDir, facts(dataDir, { mongodbUri: 'mongodb://app:s3cret@db.example:27017/?authSource=admin' }));
    assert.equal(file, path.join(dataDir, 'stack.json'));
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const text = fs.readFileSync(file, 'utf8');
    assert.ok(!text.includes('s3cret') && !text.includes('app:'), text);
    const written = JSON.parse(text);
    assert.equal(written.mongodb_uri, 'mongodb://db.example:27017/?authSource=admin');
    assert.equal(written.mongodb_uri_credentials_removed, true);
    for (const key of ['api_url', 'codec_endpoint', 'mongodb_db', 'temporal_address', 'temporal_namespace', 'ports', 'pid', 'data_dir']) assert.ok(key in written, key);
    assert.deepEqual(written.ports, { api: 39001, ferretdb: 39017, temporal: 39233, temporal_ui: 39234, sandbox_gateway: 39100 });
  });

  it('create-merchant with only DATA_DIR set uses the database named in stack.json (non-default ports)', async () => {
    const dataDir = newDataDir();
    const database = `admin_stack_file_${Date.now()}`;
    stackFile.writeStackFile(dataDir, facts(dataDir, { mongodbDb: database }));
    const result = admin(['create-merchant', '--name', 'Found by stack.json'], shellEnv({ DATA_DIR: dataDir }));
    assert.equal(result.status, 0, result.stderr);
    const issued = JSON.parse(result.stdout);
    const mongo = await connectMongo(process.env.MONGODB_URI!, database);
    try {
      assert.ok(await mongo.db.collection('organizations').findOne({ code: issued.organization_code }), 'organization not in the database of stack.json');
    } finally {
      await mongo.db.dropDatabase();
      await mongo.client.close();
    }
  });

  it('says exactly what to pass when there is no stack.json, when its writer is gone, and when the URI needs credentials', () => {
    const empty = newDataDir();
    const missing = admin(['create-merchant', '--name', 'X'], shellEnv({ DATA_DIR: empty }));
    assert.equal(missing.status, 2, missing.stderr);
    assert.ok(missing.seconds < 5, `took ${missing.seconds} s: it waited for a guessed address`);
    assert.match(missing.stderr, new RegExp(`${path.join(empty, 'stack.json').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} does not exist`));
    assert.match(missing.stderr, /DATA_DIR=\/path\/to\/its\/data npm run --silent admin -- create-merchant --name X/);
    assert.match(missing.stderr, /MONGODB_URI=mongodb:\/\/127\.0\.0\.1:<FERRETDB_PORT>\/ MONGODB_DB=switchyard npm run --silent admin -- create-merchant --name X/);

    const stale = newDataDir();
    stackFile.writeStackFile(stale, facts(stale, { pid: 2 ** 22 + 12345 }));
    const gone = admin(['create-merchant', '--name', 'X'], shellEnv({ DATA_DIR: stale }));
    assert.equal(gone.status, 2, gone.stderr);
    assert.match(gone.stderr, /no longer running/);

    const secured = newDataDir();
    stackFile.writeStackFile(secured, facts(secured, { mongodbUri: 'mongodb://app:s3cret@127.0.0.1:1/' }));
    const credentials = admin(['create-merchant', '--name', 'X'], shellEnv({ DATA_DIR: secured }));
    assert.equal(credentials.status, 2, credentials.stderr);
    assert.match(credentials.stderr, /MONGODB_URI='<the URI with user and password>' MONGODB_DB=switchyard npm run --silent admin -- create-merchant --name X/);
  });
});
