'use strict';
/**
 * DATA_DIR/stack.json: how to reach the stack that `npm start` is running (MongoDB URI and
 * database, Temporal address and namespace, API URL, ports), so `npm run admin` and operators
 * find it whatever ports it was started on. Never secrets: credentials in a MongoDB URI are
 * left out (the file says so), keys and tokens are not written. Read by api/admin.ts.
 */
const fs = require('node:fs');
const path = require('node:path');

const STACK_FILE = 'stack.json';

/** The URI without user:password, and whether there were any. */
function withoutCredentials(uri) {
  const stripped = uri.replace(/^(mongodb(?:\+srv)?:\/\/)[^@/]*@/, '$1');
  return { uri: stripped, credentialsRemoved: stripped !== uri };
}

function stackFacts({ pid = process.pid, dataDir, apiUrl, host, port, mongodbUri, mongodbDb, embeddedMongo, ferretdbPort, temporalAddress, temporalNamespace, embeddedTemporal, temporalPort, temporalUiUrl, temporalUiPort, taskQueue, sandboxGatewayUrl, sandboxGatewayPort }) {
  const mongo = withoutCredentials(mongodbUri);
  return {
    written_by: 'npm start',
    pid,
    started_at: new Date().toISOString(),
    data_dir: dataDir,
    api_url: apiUrl,
    codec_endpoint: `${apiUrl}/codec`,
    mongodb_uri: mongo.uri,
    mongodb_uri_credentials_removed: mongo.credentialsRemoved,
    mongodb_db: mongodbDb,
    temporal_address: temporalAddress,
    temporal_namespace: temporalNamespace,
    temporal_task_queue: taskQueue,
    temporal_ui_url: temporalUiUrl,
    sandbox_gateway_url: sandboxGatewayUrl,
    host,
    ports: {
      api: port,
      ferretdb: embeddedMongo ? ferretdbPort : null,
      temporal: embeddedTemporal ? temporalPort : null,
      temporal_ui: embeddedTemporal ? temporalUiPort : null,
      sandbox_gateway: sandboxGatewayPort,
    },
  };
}

/** Written to a temporary file first and renamed, so a reader never sees half a file. */
function writeStackFile(dataDir, facts) {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, STACK_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(facts, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(temporary, 0o600); // the umask may have taken bits away, never added them; be exact
  fs.renameSync(temporary, file);
  return file;
}

/** Removes the file if this process wrote it (a second stack on the same DATA_DIR keeps its own). */
function removeStackFile(dataDir, pid = process.pid) {
  const file = path.join(dataDir, STACK_FILE);
  try {
    if (JSON.parse(fs.readFileSync(file, 'utf8')).pid === pid) fs.rmSync(file, { force: true });
  } catch {
    /* already gone or unreadable: nothing of ours to remove */
  }
}

module.exports = { STACK_FILE, stackFacts, writeStackFile, removeStackFile, withoutCredentials };
