/**
 * Marketplace recipients and their onboarding at a provider.
 *   POST /v1/recipients                                    create a recipient (payee)
 *   GET  /v1/recipients/{recipient_id}
 *   POST /v1/recipients/{recipient_id}/onboardings         onboard it at a provider (lifecycle)
 *   GET  /v1/recipients/{recipient_id}/onboardings/{onboarding_id}
 */
import { findByIdWithin } from '../../activities/runtime/mongo';
import { storeDocuments } from '../../activities/repositories/documents';
import { findOwnedAccount } from '../../activities/repositories/merchants';
import { findOwnedRecord } from '../../activities/repositories/records';
import { newId } from '../../domain/credentials';
import { ApiError } from '../../domain/errors';
import { uuidFromKey } from '../../domain/ids';
import {
  bankWithdrawalOf, Onboarding, OnboardingCreateRequest, onboardingProblems, OnboardingRecord, Recipient, RecipientCreateRequest, recipientProblems, RecipientRecord, renderOnboarding, renderRecipient,
} from '../../domain/recipients/codecs';
import { onboardingAnsweredUpdate } from '../../workflows/onboarding';
import type { AppDeps } from '../context';
import { startLifecycle } from '../lifecycle';
import { namedConnection, pinnedConnections } from '../provider-connections';
import { hasMoneyMovementConnector } from '../../activities/providers/money-movement';
import { hasCapability } from '../../domain/providers/catalogue';
import type { RouteTable } from '../routes';
import { resourceSearchAttributes } from '../../domain/search-attributes';

const IDEMPOTENCY = { required: false, format: 'uuid', onDifferentPayload: 'replay' } as const;
const RECIPIENT_PARAM = { name: 'recipient_id', description: 'id returned by POST /v1/recipients', schema: { type: 'string', format: 'uuid' } };

export async function findRecipient(deps: AppDeps, organizationCode: string, recipientId: string): Promise<RecipientRecord | null> {
  const doc = await findByIdWithin(deps.db.collection('recipients'), recipientId as never, { organization_code: organizationCode });
  if (!doc) return null;
  const { _id, ...rest } = doc;
  return { id: _id, ...rest } as unknown as RecipientRecord;
}

function notFound(): never {
  throw new ApiError('not_found', 'recipient not found', { code: 'RECIPIENT_NOT_FOUND' });
}

export function registerRecipientRoutes(routes: RouteTable, deps: AppDeps): void {
  routes.add(
    {
      method: 'POST', path: '/v1/recipients', operationId: 'createRecipient', tag: 'Recipients', area: 'default', auth: 'pair',
      summary: 'Create a marketplace recipient',
      description: 'A payee of split transfers. It receives transfers once an onboarding at a provider has SUCCEEDED. documentation[].content (base64) is stored sealed and answered as a reference (doc_...). merchant_recipient_id is unique per account: a second recipient with the same one answers 409 RECIPIENT_ALREADY_EXISTS.',
      idempotency: IDEMPOTENCY,
      body: RecipientCreateRequest,
      responses: { 201: { description: 'The recipient', body: Recipient }, 404: { description: 'ACCOUNT_NOT_FOUND' }, 409: { description: 'RECIPIENT_ALREADY_EXISTS' } },
    },
    async (ctx, body) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      const problems = recipientProblems(body);
      if (problems.length) throw new ApiError('validation', problems.map((p) => p.message), { fieldErrors: problems });
      const account = await findOwnedAccount(deps.db, organizationCode, body.account_id);
      if (!account) throw new ApiError('not_found', 'account not found', { code: 'ACCOUNT_NOT_FOUND' });
      const key = ctx.get('x-idempotency-key');
      const id = key ? uuidFromKey('recipient', organizationCode, key) : newId();
      const now = new Date().toISOString();
      const record: RecipientRecord = {
        id,
        organization_code: organizationCode,
        account_id: account._id,
        merchant_recipient_id: body.merchant_recipient_id,
        national_entity: body.national_entity,
        entity_type: body.entity_type ?? null,
        first_name: body.first_name ?? null,
        last_name: body.last_name ?? null,
        legal_name: body.legal_name ?? null,
        email: body.email ?? null,
        date_of_birth: body.date_of_birth ?? null,
        country: body.country,
        website: body.website ?? null,
        industry: body.industry ?? null,
        merchant_category_code: body.merchant_category_code ?? null,
        document: body.document ?? null,
        phone: body.phone ? { country_code: body.phone.country_code ?? null, number: body.phone.number } : null,
        address: body.address ? { address_line_1: null, address_line_2: null, city: null, country: null, state: null, zip_code: null, neighborhood: null, ...body.address } : null,
        legal_representatives: body.legal_representatives ?? [],
        withdrawal_methods: { bank: body.withdrawal_methods?.bank ? bankWithdrawalOf(body.withdrawal_methods.bank) : null },
        documentation: await storeDocuments(deps.db, deps.keyring, { organizationCode, ownerId: id }, body.documentation ?? []),
        created_at: now,
        updated_at: now,
      };
      const { id: _id, ...doc } = record;
      try {
        await deps.db.collection('recipients').insertOne({ _id: id as never, ...doc });
      } catch (error) {
        if ((error as { code?: number }).code !== 11000) throw error;
        throw new ApiError('conflict', 'a recipient with this merchant_recipient_id exists for the account', { code: 'RECIPIENT_ALREADY_EXISTS' });
      }
      ctx.status = 201;
      ctx.set('Location', `/v1/recipients/${id}`);
      ctx.body = renderRecipient(record);
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/recipients/:recipient_id', operationId: 'getRecipient', tag: 'Recipients', area: 'default', auth: 'pair',
      summary: 'Retrieve a recipient', pathParams: [RECIPIENT_PARAM],
      responses: { 200: { description: 'The recipient', body: Recipient }, 404: { description: 'RECIPIENT_NOT_FOUND' } },
    },
    async (ctx) => {
      const record = await findRecipient(deps, ctx.state.principal!.organizationCode, ctx.params.recipient_id);
      if (!record) notFound();
      ctx.body = renderRecipient(record);
    },
  );

  routes.add(
    {
      method: 'POST', path: '/v1/recipients/:recipient_id/onboardings', operationId: 'createOnboarding', awaitsWorkflow: true, tag: 'Recipients', area: 'default', auth: 'pair',
      summary: 'Onboard a recipient at a provider',
      description:
        'type PREVIOUSLY_ONBOARDED links a recipient that exists at the provider (provider.recipient_id); NEW registers it there. workflow DIRECT (the default and only value): everything is sent server to server now. ' +
        'Answers 201 once the provider answered: SUCCEEDED (can receive split transfers), PENDING_REVIEW (requirements lists what is missing) or FAILED (e.g. terms_of_service.acceptance false); ' +
        'CREATED when the provider is slower than LIFECYCLE_SYNC_WAIT_MS (the outcome follows by webhook: onboarding.succeeded / .pending_review / .failed to callback_url, else the account webhook). ' +
        'history holds a snapshot per status. A SUCCEEDED onboarding\'s withdrawal_methods.bank (when given), legal_representatives and documentation become the recipient\'s (GET /v1/recipients/{id}) before the answer. Sandbox: a NEW onboarding without an IDENTIFICATION_DOCUMENT goes to PENDING_REVIEW. Optional X-Idempotency-Key (UUID) replays the first answer.',
      idempotency: IDEMPOTENCY,
      pathParams: [RECIPIENT_PARAM],
      body: OnboardingCreateRequest,
      responses: {
        201: { description: 'The onboarding', body: Onboarding },
        404: { description: 'RECIPIENT_NOT_FOUND, ACCOUNT_NOT_FOUND or CONNECTION_NOT_FOUND' },
        422: { description: 'SPLIT_NOT_SUPPORTED: the provider has no split capability in the catalogue, or no connector yet' },
      },
    },
    async (ctx, body) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      const problems = onboardingProblems(body);
      if (problems.length) throw new ApiError('validation', problems.map((p) => p.message), { fieldErrors: problems });
      const recipient = await findRecipient(deps, organizationCode, ctx.params.recipient_id);
      if (!recipient) notFound();
      const account = await findOwnedAccount(deps.db, organizationCode, body.account_id);
      if (!account || account._id !== recipient.account_id) throw new ApiError('not_found', 'account not found', { code: 'ACCOUNT_NOT_FOUND' });
      // Capability before connections: a provider that cannot pay recipients never will on any connection.
      if (!hasCapability(body.provider.id, 'split')) {
        throw new ApiError('unprocessable', `${body.provider.id} does not onboard marketplace recipients (no split capability in the provider catalogue)`, { code: 'SPLIT_NOT_SUPPORTED' });
      }
      const wanted = body.provider.connection_id;
      const connection = wanted ? await namedConnection(deps, account._id, body.provider.id, wanted) : (await pinnedConnections(deps, account._id, body.provider.id))[0];
      if (!connection) throw new ApiError('not_found', `no ${body.provider.id} connection ${body.provider.connection_id ?? ''} for this account`, { code: 'CONNECTION_NOT_FOUND' });
      if (!hasMoneyMovementConnector(body.provider.id)) {
        throw new ApiError('unprocessable', `Switchyard has no ${body.provider.id} connector for recipient onboarding yet`, { code: 'SPLIT_NOT_SUPPORTED' });
      }
      const key = ctx.get('x-idempotency-key');
      const id = key ? uuidFromKey('onboarding', organizationCode, key) : newId();
      const bank = body.withdrawal_methods?.bank ? bankWithdrawalOf(body.withdrawal_methods.bank) : recipient.withdrawal_methods.bank;
      const now = new Date().toISOString();
      const provider = { id: body.provider.id, connection_id: connection.connectionId, recipient_id: body.provider.recipient_id ?? null, recipient_type: body.provider.recipient_type ?? null, redirect_url: null, onboarding_url: null, legal_entity: null };
      const record: OnboardingRecord = {
        id,
        version: 1,
        organization_code: organizationCode,
        account_id: account._id,
        recipient_id: recipient.id,
        type: body.type,
        workflow: body.workflow ?? 'DIRECT',
        status: 'CREATED',
        callback_url: body.callback_url ?? null,
        provider,
        merchant_id: connection.merchantId,
        documentation: [...recipient.documentation, ...(await storeDocuments(deps.db, deps.keyring, { organizationCode, ownerId: id }, body.documentation ?? []))],
        legal_representatives: body.legal_representatives ?? recipient.legal_representatives,
        requirements: [],
        withdrawal_methods: { bank },
        terms_of_service: { acceptance: body.terms_of_service.acceptance, date: body.terms_of_service.date, ip: body.terms_of_service.ip ?? null },
        recipient: renderRecipient(recipient),
        history: [{ status: 'CREATED', requirements: [], provider, created_at: now, updated_at: now }],
        failure_reason: null,
        created_at: now,
        updated_at: now,
      };
      const answered = await startLifecycle(deps, {
        workflowType: 'onboardingWorkflow',
        // Both public ids in the workflow id: a recipient's onboardings are the ids starting with onboarding-<recipient_id>.
        workflowId: `onboarding-${recipient.id}-${id}`,
        args: [{ record, connection, bank: bank ? { ...bank } : null }],
        update: onboardingAnsweredUpdate,
        searchAttributes: resourceSearchAttributes({ type: 'onboarding', id, accountId: account._id, organizationCode }),
        fallback: () => findOwnedRecord<OnboardingRecord>(deps.db, 'recipient_onboardings', organizationCode, id),
      });
      ctx.status = 201;
      ctx.set('Location', `/v1/recipients/${recipient.id}/onboardings/${answered.id}`);
      ctx.body = renderOnboarding(answered);
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/recipients/:recipient_id/onboardings/:onboarding_id', operationId: 'getOnboarding', tag: 'Recipients', area: 'default', auth: 'pair',
      summary: 'Retrieve an onboarding',
      pathParams: [RECIPIENT_PARAM, { name: 'onboarding_id', description: 'id returned at creation', schema: { type: 'string', format: 'uuid' } }],
      responses: { 200: { description: 'The onboarding', body: Onboarding }, 404: { description: 'ONBOARDING_NOT_FOUND' } },
    },
    async (ctx) => {
      const record = await findOwnedRecord<OnboardingRecord>(deps.db, 'recipient_onboardings', ctx.state.principal!.organizationCode, ctx.params.onboarding_id);
      if (!record || record.recipient_id !== ctx.params.recipient_id) throw new ApiError('not_found', 'onboarding not found', { code: 'ONBOARDING_NOT_FOUND' });
      ctx.body = renderOnboarding(record);
    },
  );
}
