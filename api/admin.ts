/**
 * Administration command (`npm run --silent admin -- <command>`), against the database in
 * MONGODB_URI / MONGODB_DB when set, else the running stack's: `npm start` writes how to reach
 * it to DATA_DIR/stack.json (DATA_DIR defaults to the repository's .data/, as for npm start).
 *
 *   create-merchant --name NAME   prints {organization_code, account_id, public_api_key, private_secret_key}
 *   sandbox-merchant --file PATH  the development stack's merchant: created once, its
 *                                 credentials kept in PATH (mode 600) so each start can print them
 *   rotate-key [--id ID]          development keyring (DATA_DIR/master-keys.txt): puts a new key
 *                                 first and keeps the old ones, prints {active_key_id, key_ids, key_file}
 *   reseal-vault                  after a rotation and a restart: re-encrypts every vaulted card and
 *                                 provider connection credential under the active key,
 *                                 prints {resealed, provider_credentials_resealed, active_key_id}
 */
import fs from 'node:fs';
import path from 'node:path';
import { createMerchant } from '../activities/repositories/merchants';
import { resealVault } from '../activities/repositories/vault';
import { resealConnectionCredentials } from '../activities/repositories/routing';
import { keyFilePath, loadKeyring, rotateKeyFile } from '../activities/runtime/keys';
import { loadConfig } from '../activities/runtime/config';
import { connectMongo, ensureIndexes } from '../activities/runtime/mongo';
import { readStackFile, stackFilePath, writerAlive } from '../activities/runtime/stack-file';
import type { IssuedCredentials } from '../domain/credentials';
import { hashSecret } from '../domain/credentials';

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1] : undefined;
}

/** dist/api/admin.js -> the repository root, whose .data/ is npm start's default DATA_DIR. */
const ROOT = path.resolve(__dirname, '..', '..');

/** A problem the operator fixes by passing something: exit 2 with the message, no stack trace. */
class UsageError extends Error {}

function dataDirOf(env: NodeJS.ProcessEnv): string {
  return env.DATA_DIR ? path.resolve(env.DATA_DIR) : path.join(ROOT, '.data');
}

/**
 * The environment a command runs with: MONGODB_URI (and the rest) as given, or else the facts
 * of the stack running on DATA_DIR. Never falls back to a guessed default address: a stack on
 * other ports would only time out there.
 */
function connectionEnv(env: NodeJS.ProcessEnv, argv: string[]): NodeJS.ProcessEnv {
  const dataDir = dataDirOf(env);
  if (env.MONGODB_URI) return { ...env, DATA_DIR: dataDir };
  const file = stackFilePath(dataDir);
  const quoted = argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`));
  const rerun = `npm run --silent admin -- ${quoted.join(' ')}`.trim();
  const howTo = [
    'Pass the data directory of the running stack (the DATA_DIR it was started with):',
    `  DATA_DIR=/path/to/its/data ${rerun}`,
    'or its database:',
    `  MONGODB_URI=mongodb://127.0.0.1:<FERRETDB_PORT>/ MONGODB_DB=switchyard ${rerun}`,
  ].join('\n');
  const facts = readStackFile(dataDir);
  if (!facts) throw new UsageError(`no running Switchyard stack found: ${file} does not exist (npm start writes it once the stack is up).\n${howTo}`);
  if (!writerAlive(facts)) throw new UsageError(`${file} was written by npm start (pid ${facts.pid}), which is no longer running: start the stack again.\n${howTo}`);
  if (facts.mongodb_uri_credentials_removed) {
    throw new UsageError(`the stack's MongoDB URI (${facts.mongodb_uri}) needs credentials, which ${file} does not keep. Pass it:\n  MONGODB_URI='<the URI with user and password>' MONGODB_DB=${facts.mongodb_db} ${rerun}`);
  }
  return {
    ...env,
    DATA_DIR: dataDir,
    MONGODB_URI: facts.mongodb_uri,
    MONGODB_DB: env.MONGODB_DB || facts.mongodb_db,
    TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS || facts.temporal_address,
    TEMPORAL_NAMESPACE: env.TEMPORAL_NAMESPACE || facts.temporal_namespace,
  };
}

/**
 * Resealing under a key the running processes have not loaded would make every vaulted card
 * unreadable to them: the stack must have started after the key file last changed.
 */
function refuseStackOlderThanKeyFile(dataDir: string): void {
  const facts = readStackFile(dataDir);
  const keyFile = keyFilePath(dataDir);
  if (!facts || !writerAlive(facts) || !fs.existsSync(keyFile)) return;
  const startedAt = Date.parse(facts.started_at ?? '');
  if (Number.isFinite(startedAt) && fs.statSync(keyFile).mtimeMs > startedAt) {
    throw new UsageError(`the running stack (pid ${facts.pid}) started before ${keyFile} last changed, so it does not have the new key yet: restart it (Ctrl-C, then npm start), then run reseal-vault again`);
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (!command || !['rotate-key', 'reseal-vault', 'create-merchant', 'sandbox-merchant'].includes(command)) {
    return usage(command ? `unknown command "${command}"` : 'no command given');
  }
  if (command === 'rotate-key') {
    if (process.env.SWITCHYARD_MASTER_KEYS) {
      throw new UsageError(
        'the keyring comes from SWITCHYARD_MASTER_KEYS, which this command cannot change. Put a new key first and keep the others:\n' +
          '  export SWITCHYARD_MASTER_KEYS="k2:$(openssl rand -base64 32),$SWITCHYARD_MASTER_KEYS"\n' +
          'then restart every API and worker process with it, and run reseal-vault with it.',
      );
    }
    const id = option(args, 'id');
    const rotated = rotateKeyFile(dataDirOf(process.env), id);
    process.stdout.write(`${JSON.stringify({ active_key_id: rotated.activeKeyId, key_ids: [...rotated.keys.keys()], key_file: keyFilePath(dataDirOf(process.env)) })}\n`);
    process.stderr.write('Restart the stack (Ctrl-C, then npm start) so every process loads the new key, then run: npm run --silent admin -- reseal-vault\n');
    return 0;
  }
  const config = loadConfig(connectionEnv(process.env, argv));
  if (command === 'reseal-vault') {
    if (!process.env.SWITCHYARD_MASTER_KEYS) refuseStackOlderThanKeyFile(config.dataDir);
    const keyring = loadKeyring(config.dataDir);
    const mongo = await connectMongo(config.mongodbUri, config.mongodbDb);
    try {
      const resealed = await resealVault(mongo.db, keyring);
      const credentialsResealed = await resealConnectionCredentials(mongo.db, keyring);
      process.stdout.write(`${JSON.stringify({ resealed, provider_credentials_resealed: credentialsResealed, active_key_id: keyring.activeKeyId })}\n`);
      return 0;
    } finally {
      await mongo.client.close();
    }
  }
  if (command === 'create-merchant' || command === 'sandbox-merchant') {
    const mongo = await connectMongo(config.mongodbUri, config.mongodbDb);
    try {
      await ensureIndexes(mongo.db);
      if (command === 'create-merchant') {
        const name = option(args, 'name');
        if (!name) return usage('create-merchant needs --name NAME');
        process.stdout.write(`${JSON.stringify(await createMerchant(mongo.db, name), null, 2)}\n`);
        return 0;
      }
      const file = option(args, 'file');
      if (!file) return usage('sandbox-merchant needs --file PATH');
      let issued: IssuedCredentials | undefined;
      if (fs.existsSync(file)) {
        const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as IssuedCredentials;
        const stillThere = await mongo.db.collection('credentials').findOne({ public_api_key: saved.public_api_key, secret_hash: hashSecret(saved.private_secret_key) });
        if (stillThere) issued = saved;
      }
      if (!issued) {
        issued = await createMerchant(mongo.db, 'Sandbox merchant');
        fs.writeFileSync(file, JSON.stringify(issued, null, 2), { mode: 0o600 });
      }
      process.stdout.write(`${JSON.stringify(issued)}\n`);
      return 0;
    } finally {
      await mongo.client.close();
    }
  }
  return usage(command ? `unknown command "${command}"` : 'no command given');
}

function usage(problem: string): number {
  process.stderr.write(`${problem}\nusage: npm run --silent admin -- create-merchant --name NAME | rotate-key [--id ID] | reseal-vault\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`admin command failed: ${error instanceof Error ? error.message : error}\n`);
    process.exit(1);
  },
);
