/**
 * The organization's accounts: what a newcomer (or the CLI) needs to find the account_id
 * that payments, dry-run registrations and webhooks name.
 */
import * as t from 'io-ts';
import type { AccountDoc } from '../../activities/repositories/merchants';
import { Timestamp, Uuid } from '../../domain/codecs/common';
import type { AppDeps } from '../context';
import type { RouteTable } from '../routes';

const Account = t.type({ id: Uuid, name: t.string, created_at: Timestamp }, 'Account');
const AccountList = t.type({ accounts: t.array(Account) }, 'AccountList');

export function registerAccountRoutes(routes: RouteTable, deps: AppDeps): void {
  routes.add(
    {
      method: 'GET', path: '/v1/accounts', operationId: 'listAccounts', tag: 'Accounts', area: 'default', auth: 'pair',
      summary: 'List the accounts of your organization (oldest first)',
      description: 'An organization created by `npm run admin -- create-merchant` (or the sandbox merchant of `npm start`) has one account; its `id` is the `account_id` of payments, dry-run registrations and the webhook endpoint.',
      responses: { 200: { description: 'The accounts', body: AccountList } },
    },
    async (ctx) => {
      const docs = await deps.db.collection<AccountDoc>('accounts').find({ organization_code: ctx.state.principal!.organizationCode }).sort({ created_at: 1 }).limit(1000).toArray();
      ctx.body = { accounts: docs.map((d) => ({ id: d._id, name: d.name, created_at: d.created_at.toISOString() })) };
    },
  );
}
