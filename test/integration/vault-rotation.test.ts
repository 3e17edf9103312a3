/**
 * Vault key rotation with the admin command, on a database of its own (re-sealing touches
 * every card, which the shared test database's other tests must keep reading).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { createConnection, openConnectionCredentials } from '../../activities/repositories/routing';
import { findVaultCard, openPan, vaultCard } from '../../activities/repositories/vault';
import { connectMongo } from '../../activities/runtime/mongo';
import { formatKeyring, generateKeyring, parseKeyring } from '../../domain/crypto';
import { testConfig } from '../support/stack';

describe('vault key rotation (integration)', function () {
  this.timeout(60_000);

  it('reseal-vault re-encrypts every card and provider credential under the new first key; the old key alone no longer opens them', async () => {
    const config = testConfig();
    const database = `vault_rotation_${Date.now()}`;
    const mongo = await connectMongo(config.mongodbUri, database);
    try {
      const oldRing = generateKeyring('old1');
      const owner = { organizationCode: 'org-rotation', accountId: 'acc-rotation' };
      const card = { number: '4111111111111111', holder_name: 'ROTA', expiration_month: 1, expiration_year: 2031 };
      const { cardId } = await vaultCard(mongo.db, oldRing, owner, card as never);
      assert.equal((await findVaultCard(mongo.db, cardId))?.key_id, 'old1');
      const connection = await createConnection(mongo.db, oldRing, owner.organizationCode, owner.accountId, { provider_id: 'STRIPE', name: 'Stripe rotation', merchant_id: 'acct_rotation', credentials: { secret_key: 'sk_test_rotation0123456789' } });
      await createConnection(mongo.db, oldRing, owner.organizationCode, owner.accountId, { provider_id: 'SANDBOX', name: 'Sandbox rotation', merchant_id: 'sbx-rotation' });

      const rotated = parseKeyring(`${formatKeyring(generateKeyring('new1'))},${formatKeyring(oldRing)}`);
      const run = () =>
        spawnSync(process.execPath, [path.resolve(__dirname, '../../api/admin.js'), 'reseal-vault'], {
          env: { ...process.env, MONGODB_DB: database, SWITCHYARD_MASTER_KEYS: formatKeyring(rotated) },
          encoding: 'utf8',
        });
      const first = run();
      assert.equal(first.status, 0, first.stderr);
      assert.deepEqual(JSON.parse(first.stdout), { resealed: 1, provider_credentials_resealed: 1, active_key_id: 'new1' });

      const stored = (await findVaultCard(mongo.db, cardId))!;
      assert.equal(stored.key_id, 'new1');
      assert.ok(stored.pan_sealed.startsWith('new1.'));
      assert.equal(openPan(rotated, stored), card.number);
      assert.throws(() => openPan(oldRing, stored), /unknown encryption key id "new1"/);
      assert.deepEqual(await openConnectionCredentials(mongo.db, rotated, connection._id), { secretKey: 'sk_test_rotation0123456789' });
      await assert.rejects(openConnectionCredentials(mongo.db, oldRing, connection._id), /unknown encryption key id "new1"/);

      // Running it again finds nothing left under an old key.
      assert.deepEqual(JSON.parse(run().stdout), { resealed: 0, provider_credentials_resealed: 0, active_key_id: 'new1' });
    } finally {
      await mongo.db.dropDatabase();
      await mongo.client.close();
    }
  });
});
