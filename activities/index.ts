/**
 * Every activity the worker runs, built from the process dependencies. Workflows import
 * only the type (`proxyActivities<Activities>`).
 */
import type { Db } from 'mongodb';
import type { Config } from './runtime/config';
import type { Keyring } from '../domain/crypto';
import type { Logger } from './runtime/logger';
import { EXPIRING_COLLECTIONS } from './runtime/mongo';
import { purgeExpiredSecurityCodesOnCards } from './repositories/vault';
import { newId } from '../domain/credentials';
import { createPaymentActivities } from './payments';
import { createWebhookActivities } from './webhooks';
import { createCustomerActivities } from './customers';
import { createMoneyMovementActivities } from './money-movement';
import { createBankingActivities } from './banking';
import { createReportActivities } from './reports';
import { createDryRunActivities } from './dry-run';
import { createCampaignActivities } from './campaigns';

export interface ActivityDeps {
  config: Config;
  db: Db;
  keyring: Keyring;
  logger: Logger;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createPaymentActivities(deps),
    ...createWebhookActivities(deps),
    ...createCustomerActivities(deps),
    ...createMoneyMovementActivities(deps),
    ...createBankingActivities(deps),
    ...createReportActivities(deps),
    ...createDryRunActivities(deps),
    ...createCampaignActivities(deps),
    async recordPing(input: { organizationCode: string; message: string }): Promise<{ pingId: string; echoed: string }> {
      const pingId = newId();
      await deps.db.collection('pings').insertOne({ _id: pingId as never, organization_code: input.organizationCode, at: new Date() });
      return { pingId, echoed: input.message };
    },

    /** Deletes documents past their expires_at (emulates TTL indexes; see runtime/mongo.ts). */
    async purgeExpired(): Promise<Record<string, number>> {
      const now = new Date();
      const deleted: Record<string, number> = {};
      for (const name of EXPIRING_COLLECTIONS) {
        const result = await deps.db.collection(name).deleteMany({ expires_at: { $lte: now } });
        deleted[name] = result.deletedCount;
      }
      deleted['vault_cards.security_code'] = await purgeExpiredSecurityCodesOnCards(deps.db, now);
      return deleted;
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
