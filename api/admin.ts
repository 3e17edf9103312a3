/**
 * Administration command (`npm run --silent admin -- <command>`), against the database in
 * MONGODB_URI / MONGODB_DB (the running stack's by default).
 *
 *   create-merchant --name NAME   prints {organization_code, account_id, public_api_key, private_secret_key}
 *   sandbox-merchant --file PATH  the development stack's merchant: created once, its
 *                                 credentials kept in PATH (mode 600) so each start can print them
 *   reseal-vault                  after adding a new first key to SWITCHYARD_MASTER_KEYS:
 *                                 re-encrypts every vaulted card and provider connection credential under it,
 *                                 prints {resealed, provider_credentials_resealed, active_key_id}
 */
import fs from 'node:fs';
import { createMerchant } from '../activities/repositories/merchants';
import { resealVault } from '../activities/repositories/vault';
import { resealConnectionCredentials } from '../activities/repositories/routing';
import { loadKeyring } from '../activities/runtime/keys';
import { loadConfig } from '../activities/runtime/config';
import { connectMongo, ensureIndexes } from '../activities/runtime/mongo';
import type { IssuedCredentials } from '../domain/credentials';
import { hashSecret } from '../domain/credentials';

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1] : undefined;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  const config = loadConfig();
  if (command === 'reseal-vault') {
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
  process.stderr.write(`${problem}\nusage: npm run --silent admin -- create-merchant --name NAME | reseal-vault\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`admin command failed: ${error instanceof Error ? error.message : error}\n`);
    process.exit(1);
  },
);
