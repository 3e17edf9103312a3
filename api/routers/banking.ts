/**
 * Banking connectivity: banking accounts and outgoing transfers. Errors use the banking
 * shape {code, messages, http_code}: VALIDATION_ERROR (400) and ACCOUNT_NOT_FOUND (404).
 *
 * A transfer is accepted (202, PENDING) once its workflow has stored it; its progress
 * (PROCESSING, then COMPLETED or FAILED) is read with GET .../transfers/{transfer_id}, whose
 * `events` list the recorded progress events.
 */
import { randomUUID } from 'node:crypto';
import { findOwnedAccount } from '../../activities/repositories/merchants';
import {
  BankingAccountDoc,
  bankingAccounts,
  BankingTransferRecord,
  findOwnedBankingAccount,
  findOwnedBankingTransfer,
  listBankingTransferEvents,
  newProviderAccountId,
  StoredDestinationAccount,
} from '../../activities/repositories/banking';
import { bankingStatusReached, last4, transferErrors, type BankingTransferStatus, type DestinationAccountInput, type TransferAccountFacts } from '../../domain/banking';
import { BankingAccount, BankingAccountCreateRequest, BankingTransfer, BankingTransferRequest } from '../../domain/codecs/banking';
import { isUuid } from '../../domain/codecs/common';
import { openString, sealString, type Keyring } from '../../domain/crypto';
import { ApiError, FieldError } from '../../domain/errors';
import type { AppDeps } from '../context';
import { startLifecycle } from '../lifecycle';
import { uuidFromKey } from '../../domain/ids';
import type { RouteTable } from '../routes';
import { resourceSearchAttributes } from '../../domain/search-attributes';

const TAG = 'Banking connectivity';

const accountNotFound = (what: string) => new ApiError('not_found', `${what} not found`, { code: 'ACCOUNT_NOT_FOUND' });
const invalid = (errors: FieldError[]) => new ApiError('validation', errors.map((e) => e.message), { fieldErrors: errors });

function accountView(doc: BankingAccountDoc) {
  return {
    id: doc._id,
    account_id: doc.account_id,
    provider: doc.provider,
    provider_account_id: doc.provider_account_id,
    region: doc.region,
    currency: doc.currency,
    name: doc.name,
    account_number_last_4: doc.account_number_last_4,
    status: doc.status,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}

const iso = (value: Date | string) => new Date(value).toISOString();

function sealDestination(keyring: Keyring, transferId: string, input: DestinationAccountInput): StoredDestinationAccount {
  const iban = input.iban?.replace(/\s+/g, '').toUpperCase();
  return {
    account_number_sealed: input.account_number ? sealString(keyring, 'bank-account', input.account_number, transferId) : null,
    account_number_last_4: input.account_number ? last4(input.account_number) : null,
    iban_sealed: iban ? sealString(keyring, 'bank-account', iban, transferId) : null,
    iban_last_4: iban ? last4(iban) : null,
    routing_number: input.routing_number ?? null,
    bsb: input.bsb?.replace('-', '') ?? null,
    swift: input.swift ?? null,
    sort_code: input.sort_code?.replace(/-/g, '') ?? null,
    account_name: input.account_name ?? null,
    bank_name: input.bank_name ?? null,
  };
}

/** The contract's transfer: account_number becomes account_number_last_4; the IBAN is opened for its owner. */
function transferView(keyring: Keyring, record: BankingTransferRecord<Date | string>, events: Array<{ _id: string; type: string; status: string; created_at: Date | string }>) {
  const destination = record.destination_account;
  return {
    id: record._id,
    account_id: record.account_id,
    source_account_id: record.source_account_id,
    destination_account_id: record.destination_account_id,
    merchant_transfer_id: record.merchant_transfer_id,
    provider: { account_id: record.provider.account_id, transfer_id: record.provider.transfer_id },
    status: record.status,
    direction: record.direction,
    destination_account: destination
      ? {
          account_number_last_4: destination.account_number_last_4,
          routing_number: destination.routing_number,
          iban: destination.iban_sealed ? openString(keyring, 'bank-account', destination.iban_sealed, record._id) : null,
          bsb: destination.bsb,
          swift: destination.swift,
          sort_code: destination.sort_code,
          account_name: destination.account_name,
          bank_name: destination.bank_name,
        }
      : null,
    amount: record.amount,
    payment_rail: record.payment_rail,
    description: record.description,
    failure: record.failure,
    // An event is written just before the status it announces: show those the transfer has reached.
    events: events
      .filter((e) => bankingStatusReached(record.status, e.status as BankingTransferStatus))
      .map((e) => ({ id: e._id, type: e.type, status: e.status, created_at: iso(e.created_at) })),
    created_at: iso(record.created_at),
    updated_at: iso(record.updated_at),
    completed_at: record.completed_at ? iso(record.completed_at) : null,
  };
}

const facts = (doc: BankingAccountDoc): TransferAccountFacts => ({ id: doc._id, region: doc.region, currency: doc.currency, provider: doc.provider });

export function registerBankingRoutes(routes: RouteTable, deps: AppDeps): void {
  routes.add(
    {
      method: 'POST', path: '/v1/banking/accounts', operationId: 'createBankingAccount', tag: TAG, area: 'banking', auth: 'pair',
      summary: 'Register a banking account at a banking-connectivity provider',
      description:
        'The account is the source (or book-transfer destination) of banking transfers. Its region (US, UK, AU) decides the ' +
        'payment rails and destination fields of its transfers; its currency is the only currency it can send.',
      idempotency: { required: false, format: 'uuid', onDifferentPayload: 'replay' },
      body: BankingAccountCreateRequest,
      responses: {
        201: { description: 'The banking account', body: BankingAccount },
        404: { description: 'ACCOUNT_NOT_FOUND: account_id is not an account of your organization' },
      },
    },
    async (ctx, body) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      if (!(await findOwnedAccount(deps.db, organizationCode, body.account_id))) throw accountNotFound('account_id');
      const id = randomUUID();
      const now = new Date();
      const doc: BankingAccountDoc = {
        _id: id,
        organization_code: organizationCode,
        account_id: body.account_id,
        provider: body.provider,
        provider_account_id: newProviderAccountId(),
        region: body.region,
        currency: body.currency,
        name: body.name ?? null,
        account_number_sealed: body.account_number ? sealString(deps.keyring, 'bank-account', body.account_number, id) : null,
        account_number_last_4: body.account_number ? last4(body.account_number) : null,
        status: 'ACTIVE',
        created_at: now,
        updated_at: now,
      };
      await bankingAccounts(deps.db).insertOne(doc);
      ctx.status = 201;
      ctx.set('Location', `/v1/banking/accounts/${id}`);
      ctx.body = accountView(doc);
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/banking/accounts/:banking_account_id', operationId: 'getBankingAccount', tag: TAG, area: 'banking', auth: 'pair-or-bearer',
      summary: 'Read a banking account',
      pathParams: [{ name: 'banking_account_id', description: 'id returned at registration', schema: { type: 'string', format: 'uuid' } }],
      responses: { 200: { description: 'The banking account', body: BankingAccount }, 404: { description: 'ACCOUNT_NOT_FOUND' } },
    },
    async (ctx) => {
      const id = ctx.params.banking_account_id;
      const doc = isUuid(id) ? await findOwnedBankingAccount(deps.db, ctx.state.principal!.organizationCode, id) : null;
      if (!doc) throw accountNotFound('banking account');
      ctx.body = accountView(doc);
    },
  );

  routes.add(
    {
      method: 'POST', path: '/v1/banking/transfers', operationId: 'createBankingTransfer', awaitsWorkflow: true, tag: TAG, area: 'banking', auth: 'pair',
      summary: 'Initiate an outgoing banking transfer',
      description:
        'Rules: source_account_id is required; exactly one of destination_account (external transfer) and destination_account_id ' +
        '(book transfer to another banking account of the same provider and currency); destination fields by the source region: ' +
        'US account_number + routing_number, UK iban or account_number + sort_code, AU account_number + bsb; amount.currency equals ' +
        'the source account currency and amount.value has no more decimals than the currency allows; payment_rail must be ' +
        'available in the source region; direction is OUTGOING. The answer is 202 with status PENDING; the transfer then moves ' +
        'to PROCESSING (submitted to the rail) and to COMPLETED or FAILED when the rail settles (seconds for RTP/FPS/NPP, hours ' +
        'for WIRE/CHAPS/ACH_SAME_DAY, days for ACH_STANDARD/BACS/BPAY). Sandbox bank: a destination account number or IBAN ' +
        'ending in 9999 fails with ACCOUNT_CLOSED, an amount ending in .13 fails with INSUFFICIENT_FUNDS.',
      idempotency: { required: true, format: 'uuid', onDifferentPayload: 'replay' },
      body: BankingTransferRequest,
      responses: {
        202: { description: 'Accepted: the transfer in status PENDING', body: BankingTransfer },
        404: { description: 'ACCOUNT_NOT_FOUND: account_id, source_account_id or destination_account_id is not an account of your organization' },
      },
    },
    async (ctx, body) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      const hasDestination = body.destination_account != null;
      const hasDestinationId = body.destination_account_id != null;
      if (hasDestination === hasDestinationId) {
        const message = hasDestination
          ? 'send either destination_account or destination_account_id, not both'
          : 'either destination_account or destination_account_id is required';
        throw invalid([{ field: 'destination_account', code: hasDestination ? 'INVALID' : 'REQUIRED', message }]);
      }
      if (!(await findOwnedAccount(deps.db, organizationCode, body.account_id))) throw accountNotFound('account_id');
      const source = await findOwnedBankingAccount(deps.db, organizationCode, body.source_account_id);
      if (!source || source.account_id !== body.account_id) throw accountNotFound('source account');
      const target = hasDestinationId ? await findOwnedBankingAccount(deps.db, organizationCode, body.destination_account_id!) : null;
      if (hasDestinationId && !target) throw accountNotFound('destination account');
      const errors = transferErrors({
        payment_rail: body.payment_rail,
        amount: body.amount.value,
        currency: body.amount.currency,
        destination_account: body.destination_account,
        source: facts(source),
        destination: target ? facts(target) : undefined,
      });
      if (errors.length) throw invalid(errors);

      // From the idempotency key (required here): a retry after a lost lock lands on the same
      // transfer, and the workflow id carries the transfer's public id.
      const id = uuidFromKey('banking-transfer', organizationCode, ctx.get('x-idempotency-key').toLowerCase());
      const now = new Date().toISOString();
      const record: BankingTransferRecord = {
        _id: id,
        organization_code: organizationCode,
        account_id: body.account_id,
        source_account_id: source._id,
        destination_account_id: target?._id ?? null,
        merchant_transfer_id: body.merchant_transfer_id ?? null,
        provider: { name: source.provider, account_id: source.provider_account_id, transfer_id: null },
        status: 'PENDING',
        direction: 'OUTGOING',
        destination_account: body.destination_account ? sealDestination(deps.keyring, id, body.destination_account) : null,
        amount: { value: body.amount.value, currency: body.amount.currency },
        payment_rail: body.payment_rail,
        description: body.description ?? null,
        failure: null,
        created_at: now,
        updated_at: now,
        completed_at: null,
      };
      const stored = await startLifecycle<BankingTransferRecord>(deps, {
        workflowType: 'bankingTransferWorkflow',
        workflowId: `banking-transfer-${id}`,
        args: [{ transfer: record }],
        searchAttributes: resourceSearchAttributes({ type: 'banking_transfer', id, organizationCode, accountId: body.account_id, status: 'PENDING', merchantReference: body.merchant_transfer_id }),
      });
      ctx.status = 202;
      ctx.set('Location', `/v1/banking/accounts/${stored.account_id}/transfers/${stored._id}`);
      ctx.body = transferView(deps.keyring, stored, [
        { _id: `${stored._id}:PENDING`, type: 'banking_transfer.pending', status: 'PENDING', created_at: stored.created_at },
      ]);
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/banking/accounts/:account_id/transfers/:transfer_id', operationId: 'getBankingTransfer', tag: TAG, area: 'banking', auth: 'pair-or-bearer',
      summary: 'Read a banking transfer and its progress events',
      pathParams: [
        { name: 'account_id', description: 'your Switchyard account (account_id of the transfer) or the transfer\'s source banking account id', schema: { type: 'string', format: 'uuid' } },
        { name: 'transfer_id', description: 'id from the initiation response', schema: { type: 'string', format: 'uuid' } },
      ],
      responses: {
        200: { description: 'The transfer', body: BankingTransfer },
        404: { description: 'ACCOUNT_NOT_FOUND (account_id is not yours) or TRANSFER_NOT_FOUND' },
      },
    },
    async (ctx) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      const { account_id: accountId, transfer_id: transferId } = ctx.params;
      const owned = isUuid(accountId) && ((await findOwnedAccount(deps.db, organizationCode, accountId)) || (await findOwnedBankingAccount(deps.db, organizationCode, accountId)));
      if (!owned) throw accountNotFound('account');
      const transfer = isUuid(transferId) ? await findOwnedBankingTransfer(deps.db, organizationCode, accountId, transferId) : null;
      if (!transfer) throw new ApiError('not_found', 'transfer not found', { code: 'TRANSFER_NOT_FOUND' });
      ctx.body = transferView(deps.keyring, transfer, await listBankingTransferEvents(deps.db, transfer._id));
    },
  );
}
