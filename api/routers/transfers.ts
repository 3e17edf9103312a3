/**
 * Split-marketplace standalone transfers and the organization balance they draw from.
 *   POST /v1/split-marketplace/transfers      pay an onboarded recipient from the balance
 *   GET  /v1/split-marketplace/transfers/{id}
 *   POST /v1/balances/top-ups                 fund the balance (sandbox funding / treasury top-up);
 *                                             captured payments' split entries credit it too (workflows/split-credits.ts)
 *   GET  /v1/balances                         available balance per currency
 */
import { findOwnedAccount } from '../../activities/repositories/merchants';
import { appendEntry, balancesOf, balanceUnitsOf } from '../../activities/repositories/ledger';
import { findOwnedRecord } from '../../activities/repositories/records';
import { AMOUNT_PRECISION_RULE } from '../../domain/codecs/common';
import { ApiError } from '../../domain/errors';
import { fromMinor, toMinor } from '../../domain/money';
import { uuidFromKey } from '../../domain/ids';
import type { OnboardingRecord } from '../../domain/recipients/codecs';
import { BalanceList, BalanceTopUpRequest, renderTransfer, SplitTransfer, SplitTransferRequest, TransferRecord } from '../../domain/transfers/split';
import { transferAnsweredUpdate } from '../../workflows/split-transfer';
import type { AppDeps } from '../context';
import { startLifecycle } from '../lifecycle';
import { namedConnection } from '../provider-connections';
import type { RouteTable } from '../routes';
import { findRecipient } from './recipients';
import { resourceSearchAttributes } from '../../domain/search-attributes';

const REQUIRED_KEY = { required: true, format: 'uuid', onDifferentPayload: 'replay' } as const;
const KEY_HEADER = [{ name: 'X-Idempotency-Key', description: 'UUID, required; the same key returns the first answer', required: true, schema: { type: 'string', format: 'uuid' } }];

export function registerTransferRoutes(routes: RouteTable, deps: AppDeps): void {
  routes.add(
    {
      method: 'POST', path: '/v1/split-marketplace/transfers', operationId: 'createSplitTransfer', awaitsWorkflow: true, tag: 'Split marketplace', area: 'default', auth: 'pair',
      summary: 'Transfer funds from the organization balance to a recipient',
      description:
        'The recipient must have a SUCCEEDED onboarding (422 RECIPIENT_NOT_ONBOARDED otherwise); the amount comes from the organization balance in amount.currency ' +
        '(422 INSUFFICIENT_BALANCE when it is lower). The balance is credited by the split entries of fully captured payments and by POST /v1/balances/top-ups. The balance check and the debit are one atomic ledger step ' +
        'taken before the transfer is created, so concurrent transfers over the balance get the same 422 as sequential ones. merchant_reference is unique per account: another transfer with it answers 409 DUPLICATE_MERCHANT_REFERENCE ' +
        'with details.existing_id (and Location) of the transfer that holds it. A provider refusal ends FAILED and credits the balance back. ' +
        `amount.value: ${AMOUNT_PRECISION_RULE}. ` +
        'Answers 201 with the outcome (SUCCEEDED or FAILED, both with completed_at), or CREATED when the provider is slower than LIFECYCLE_SYNC_WAIT_MS. Webhooks split_transfer.succeeded / .failed go to the account webhook.',
      idempotency: REQUIRED_KEY,
      headers: KEY_HEADER,
      body: SplitTransferRequest,
      responses: {
        201: { description: 'The transfer', body: SplitTransfer },
        404: { description: 'ACCOUNT_NOT_FOUND or RECIPIENT_NOT_FOUND' },
        409: { description: 'DUPLICATE_MERCHANT_REFERENCE: details.existing_id is the transfer holding that merchant_reference' },
        422: { description: 'RECIPIENT_NOT_ONBOARDED, PROVIDER_MISMATCH or INSUFFICIENT_BALANCE' },
      },
    },
    async (ctx, body) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      const account = await findOwnedAccount(deps.db, organizationCode, body.account_id);
      if (!account) throw new ApiError('not_found', 'account not found', { code: 'ACCOUNT_NOT_FOUND' });
      const recipient = await findRecipient(deps, organizationCode, body.recipient_id);
      if (!recipient) throw new ApiError('not_found', 'recipient not found', { code: 'RECIPIENT_NOT_FOUND' });
      const onboarding = (await deps.db.collection('recipient_onboardings').find({ organization_code: organizationCode, recipient_id: recipient.id, status: 'SUCCEEDED' }).sort({ updated_at: -1 }).limit(1).toArray())[0] as unknown as OnboardingRecord | undefined;
      if (!onboarding?.provider.recipient_id) throw new ApiError('unprocessable', 'the recipient has no SUCCEEDED onboarding', { code: 'RECIPIENT_NOT_ONBOARDED' });
      if (body.provider_id && body.provider_id !== onboarding.provider.id) throw new ApiError('unprocessable', `the recipient is onboarded with ${onboarding.provider.id}, not ${body.provider_id}`, { code: 'PROVIDER_MISMATCH' });
      const connection = await namedConnection(deps, onboarding.account_id, onboarding.provider.id, onboarding.provider.connection_id);
      if (!connection) throw new ApiError('unprocessable', 'the connection the recipient was onboarded on no longer exists', { code: 'RECIPIENT_NOT_ONBOARDED' });
      const id = uuidFromKey('split-transfer', organizationCode, ctx.get('x-idempotency-key'));
      if (body.merchant_reference) await reserveMerchantReference(deps, organizationCode, account._id, body.merchant_reference, id);
      // The balance check and the debit are one step (a unique ledger insert), so concurrent
      // transfers get the same answer as sequential ones. The workflow's own debit has the
      // same operation key and finds this one done.
      const debit = await appendEntry(deps.db, {
        organizationCode, currency: body.amount.currency, operationKey: `transfer:${id}`, kind: 'TRANSFER_DEBIT', amountUnits: -toMinor(body.amount.value), reference: id,
      });
      if (!debit.applied) {
        if (body.merchant_reference) await releaseMerchantReference(deps, organizationCode, account._id, body.merchant_reference, id);
        throw new ApiError('unprocessable', `the ${body.amount.currency} balance (${fromMinor(debit.balanceUnits)}) is lower than the amount`, { code: 'INSUFFICIENT_BALANCE' });
      }
      const now = new Date().toISOString();
      const record: TransferRecord = {
        id, version: 1, organization_code: organizationCode, account_id: account._id, recipient_id: recipient.id,
        amount: { currency: body.amount.currency, value: body.amount.value }, status: 'CREATED', description: body.description,
        merchant_reference: body.merchant_reference ?? null, metadata: body.metadata ?? [],
        provider: { id: onboarding.provider.id, connection_id: connection.connectionId, recipient_id: onboarding.provider.recipient_id },
        transactions: [], created_at: now, updated_at: now, completed_at: null,
      };
      const answered = await startLifecycle(deps, {
        workflowType: 'splitTransferWorkflow',
        workflowId: `split-transfer-${id}`,
        args: [{ record, connection, providerRecipientId: onboarding.provider.recipient_id }],
        update: transferAnsweredUpdate,
        searchAttributes: resourceSearchAttributes({ type: 'split_transfer', id, accountId: account._id, organizationCode, merchantReference: record.merchant_reference }),
        fallback: () => findOwnedRecord<TransferRecord>(deps.db, 'split_transfers', organizationCode, id),
      });
      ctx.status = 201;
      ctx.set('Location', `/v1/split-marketplace/transfers/${answered.id}`);
      ctx.body = renderTransfer(answered);
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/split-marketplace/transfers/:transfer_id', operationId: 'getSplitTransfer', tag: 'Split marketplace', area: 'default', auth: 'pair',
      summary: 'Retrieve a split transfer',
      pathParams: [{ name: 'transfer_id', description: 'id returned at creation', schema: { type: 'string', format: 'uuid' } }],
      responses: { 200: { description: 'The transfer', body: SplitTransfer }, 404: { description: 'TRANSFER_NOT_FOUND' } },
    },
    async (ctx) => {
      const record = await findOwnedRecord<TransferRecord>(deps.db, 'split_transfers', ctx.state.principal!.organizationCode, ctx.params.transfer_id);
      if (!record) throw new ApiError('not_found', 'transfer not found', { code: 'TRANSFER_NOT_FOUND' });
      ctx.body = renderTransfer(record);
    },
  );

  routes.add(
    {
      method: 'POST', path: '/v1/balances/top-ups', operationId: 'topUpBalance', tag: 'Split marketplace', area: 'default', auth: 'pair',
      summary: 'Fund the organization balance',
      description: 'Credits the organization balance in amount.currency (sandbox funding; in production the treasury top-up recorded after the wire arrived). X-Idempotency-Key (UUID) is required: the same key credits once.',
      idempotency: REQUIRED_KEY,
      headers: KEY_HEADER,
      body: BalanceTopUpRequest,
      responses: { 201: { description: 'The balances after the top-up', body: BalanceList } },
    },
    async (ctx, body) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      const operationKey = `top-up:${organizationCode}:${ctx.get('x-idempotency-key')}`;
      await appendEntry(deps.db, { organizationCode, currency: body.amount.currency, operationKey, kind: 'TOP_UP', amountUnits: toMinor(body.amount.value), reference: operationKey, description: body.description ?? null });
      ctx.status = 201;
      ctx.body = await renderBalances(deps, organizationCode);
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/balances', operationId: 'listBalances', tag: 'Split marketplace', area: 'default', auth: 'pair',
      summary: 'Available organization balance per currency',
      responses: { 200: { description: 'One entry per currency ever funded', body: BalanceList } },
    },
    async (ctx) => {
      ctx.body = await renderBalances(deps, ctx.state.principal!.organizationCode);
    },
  );
}

async function renderBalances(deps: AppDeps, organizationCode: string) {
  const latest = await balancesOf(deps.db, organizationCode);
  return { balances: latest.map((e) => ({ currency: e.currency, available: fromMinor(balanceUnitsOf(e)), updated_at: e.created_at.toISOString() })) };
}

/**
 * merchant_reference is unique per account: the first transfer to claim it wins a unique
 * insert (atomic across API processes); another transfer gets 409 with the holder's id. The
 * same transfer (a retry with its idempotency key) finds its own claim.
 */
async function reserveMerchantReference(deps: AppDeps, organizationCode: string, accountId: string, reference: string, transferId: string): Promise<void> {
  const claims = deps.db.collection<{ _id: string; transfer_id: string; created_at: Date }>('split_transfer_references');
  const _id = `${organizationCode}:${accountId}:${reference}`;
  try {
    await claims.insertOne({ _id, transfer_id: transferId, created_at: new Date() });
  } catch (error) {
    if ((error as { code?: number }).code !== 11000) throw error;
    const holder = await claims.findOne({ _id });
    if (holder && holder.transfer_id !== transferId) {
      throw new ApiError('conflict', `merchant_reference ${reference} is already used by transfer ${holder.transfer_id} of this account`, {
        code: 'DUPLICATE_MERCHANT_REFERENCE', details: { existing_id: holder.transfer_id }, headers: { Location: `/v1/split-marketplace/transfers/${holder.transfer_id}` },
      });
    }
  }
}

/** Frees a claim whose transfer was refused at the door (nothing was created). */
async function releaseMerchantReference(deps: AppDeps, organizationCode: string, accountId: string, reference: string, transferId: string): Promise<void> {
  await deps.db.collection<{ _id: string; transfer_id: string }>('split_transfer_references').deleteOne({ _id: `${organizationCode}:${accountId}:${reference}`, transfer_id: transferId });
}
