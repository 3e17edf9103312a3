/**
 * Customers, customer sessions, enrollment of cards in a session, enrolled methods, and
 * one-time card tokens (area 'enrollment' for the checkout endpoints, per the spec).
 */
import { refuseTestCardWithLiveKeys } from '../modes';
import { withinSyncWait } from '../lifecycle';
import { WorkflowIdConflictPolicy } from '@temporalio/client';
import { findOwnedAccount } from '../../activities/repositories/merchants';
import { CustomerDoc, CustomerSessionDoc, findCustomer, findPaymentMethod, findSession, renderPaymentMethod, EnrollInput } from '../../activities/repositories/customers';
import { createCardToken } from '../../activities/repositories/card-tokens';
import { vaultCard } from '../../activities/repositories/vault';
import { struct, Timestamp, Uuid } from '../../domain/codecs/common';
import * as t from 'io-ts';
import { newId } from '../../domain/credentials';
import { ApiError } from '../../domain/errors';
import { cardExpiryProblems } from '../../domain/payments/cards';
import { Customer, CustomerCreate, CustomerSession, CustomerSessionCreate, EnrollablePaymentMethods, enrollableMethods, EnrollCardRequest, EnrolledPaymentMethod } from '../../domain/customers/codecs';
import { CardDetailInput, InlineCard, missingInlineCardFields } from '../../domain/payments/codecs';
import type { AppDeps } from '../context';
import type { RouteTable } from '../routes';
import { resourceSearchAttributes } from '../../domain/search-attributes';

const SESSION_TTL_MS = 60 * 60 * 1000;
const UUID_PARAM = (name: string, description: string) => ({ name, description, schema: { type: 'string', format: 'uuid' } });

function renderCustomer(doc: CustomerDoc) {
  const { _id, organization_code: _o, created_at, updated_at, ...fields } = doc;
  const nulls = { first_name: null, last_name: null, gender: null, date_of_birth: null, email: null, nationality: null, country: null, ip_address: null, device_fingerprint: null, browser_info: null, document: null, phone: null, billing_address: null, shipping_address: null };
  return { id: _id, ...nulls, ...fields, created_at: created_at.toISOString(), updated_at: updated_at.toISOString() };
}

function renderSession(doc: CustomerSessionDoc) {
  return { customer_session: doc._id, account_id: doc.account_id, customer_id: doc.customer_id, country: doc.country, callback_url: doc.callback_url, created_at: doc.created_at.toISOString(), expires_at: doc.expires_at.toISOString() };
}

const CardTokenRequest = struct('CardTokenRequest', { account_id: Uuid, card: CardDetailInput }, {});
const CardToken = t.type({ token: t.string, expires_at: Timestamp, card: t.type({ iin: t.string, lfd: t.string, brand: t.union([t.string, t.null]), expiration_month: t.number, expiration_year: t.number, fingerprint: t.string }) }, 'CardToken');

export function registerCustomerRoutes(routes: RouteTable, deps: AppDeps): void {
  routes.add(
    {
      method: 'POST', path: '/v1/customers', operationId: 'createCustomer', tag: 'Customers', area: 'default', auth: 'pair',
      summary: 'Create a customer (the payer whose methods can be enrolled)',
      idempotency: { required: false, format: 'uuid', onDifferentPayload: 'replay' },
      body: CustomerCreate,
      responses: { 201: { description: 'The customer', body: Customer } },
    },
    async (ctx, body) => {
      const now = new Date();
      const doc = { _id: newId(), organization_code: ctx.state.principal!.organizationCode, ...body, created_at: now, updated_at: now } as CustomerDoc;
      await deps.db.collection<CustomerDoc>('customers').insertOne(doc);
      ctx.status = 201;
      ctx.set('Location', `/v1/customers/${doc._id}`);
      ctx.body = renderCustomer(doc);
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/customers/:customer_id', operationId: 'getCustomer', tag: 'Customers', area: 'default', auth: 'pair',
      summary: 'Retrieve a customer', pathParams: [UUID_PARAM('customer_id', 'id from POST /v1/customers')],
      responses: { 200: { description: 'The customer', body: Customer }, 404: { description: 'No such customer for this organization' } },
    },
    async (ctx) => {
      const doc = await findCustomer(deps.db, ctx.state.principal!.organizationCode, ctx.params.customer_id);
      if (!doc) throw new ApiError('not_found', 'customer not found', { code: 'CUSTOMER_NOT_FOUND' });
      ctx.body = renderCustomer(doc);
    },
  );

  routes.add(
    {
      method: 'POST', path: '/v1/customers/sessions', operationId: 'createCustomerSession', tag: 'Customers', area: 'default', auth: 'pair',
      summary: 'Create a customer session (to enroll payment methods)',
      description: 'account_id, customer_id (an existing customer) and country (one of the 17 session countries) are required; callback_url is optional. The session is valid for 1 hour.',
      idempotency: { required: false, format: 'uuid', onDifferentPayload: 'replay' },
      body: CustomerSessionCreate,
      responses: { 201: { description: 'The session', body: CustomerSession }, 404: { description: 'account or customer not found' } },
    },
    async (ctx, body) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      if (!(await findOwnedAccount(deps.db, organizationCode, body.account_id))) throw new ApiError('not_found', 'account not found', { code: 'ACCOUNT_NOT_FOUND' });
      if (!(await findCustomer(deps.db, organizationCode, body.customer_id))) throw new ApiError('not_found', 'customer not found', { code: 'CUSTOMER_NOT_FOUND' });
      const now = new Date();
      const doc: CustomerSessionDoc = { _id: newId(), organization_code: organizationCode, account_id: body.account_id, customer_id: body.customer_id, country: body.country, callback_url: body.callback_url ?? null, created_at: now, expires_at: new Date(now.getTime() + SESSION_TTL_MS) };
      await deps.db.collection<CustomerSessionDoc>('customer_sessions').insertOne(doc);
      ctx.status = 201;
      ctx.body = renderSession(doc);
    },
  );

  const liveSession = async (organizationCode: string, id: string) => {
    const session = await findSession(deps.db, organizationCode, id);
    if (!session || session.expires_at.getTime() <= Date.now()) throw new ApiError('not_found', 'customer session not found or expired', { code: 'CUSTOMER_SESSION_NOT_FOUND' });
    return session;
  };

  routes.add(
    {
      method: 'GET', path: '/v1/checkout/customers/sessions/:customer_session/payment-methods', operationId: 'listEnrollablePaymentMethods', tag: 'Customers', area: 'enrollment', auth: 'pair',
      summary: 'Payment methods the customer can enroll in this session',
      pathParams: [UUID_PARAM('customer_session', 'customer_session from POST /v1/customers/sessions')],
      responses: { 200: { description: 'Enrollable methods for the session\'s account and country', body: EnrollablePaymentMethods }, 404: { description: 'No such session' } },
    },
    async (ctx) => {
      const session = await liveSession(ctx.state.principal!.organizationCode, ctx.params.customer_session);
      ctx.body = { payment_methods: enrollableMethods(session._id, deps.config.publicBaseUrl) };
    },
  );

  routes.add(
    {
      method: 'POST', path: '/v1/checkout/customers/sessions/:customer_session/payment-methods', operationId: 'enrollPaymentMethod', awaitsWorkflow: true, tag: 'Customers', area: 'enrollment', auth: 'pair',
      summary: 'Enroll a card for the session\'s customer',
      description: 'The card form of the checkout posts the card here; it is vaulted (PAN sealed, CVV not kept) and enrolled. The answer is the enrolled method; its vaulted_token pays later payments (payment_method.vaulted_token with customer_payer.id). Enrolling the same card again returns the existing method.',
      idempotency: { required: false, format: 'uuid', onDifferentPayload: 'replay' },
      pathParams: [UUID_PARAM('customer_session', 'customer_session from POST /v1/customers/sessions')],
      body: EnrollCardRequest,
      responses: { 201: { description: 'The enrolled method', body: EnrolledPaymentMethod }, 404: { description: 'No such session' } },
    },
    async (ctx, body) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      const expired = cardExpiryProblems('card', body.card.expiration_month, body.card.expiration_year, new Date());
      if (expired.length) throw new ApiError('validation', expired.map((p) => p.message), { fieldErrors: expired });
      const session = await liveSession(organizationCode, ctx.params.customer_session);
      refuseTestCardWithLiveKeys(ctx, (body.card as InlineCard).number, 'card.number');
      const { cardId } = await vaultCard(deps.db, deps.keyring, { organizationCode, accountId: session.account_id }, body.card as InlineCard);
      const input: EnrollInput = {
        vaultedToken: newId(), organizationCode, accountId: session.account_id, customerId: session.customer_id, cardId, country: session.country,
        sessionId: session._id, verifyPaymentId: null, idempotencyKey: ctx.get('x-idempotency-key') || null,
        securityCodeLength: body.card.security_code?.length ?? null, preferred: body.preferred ?? null, name: body.name ?? null,
      };
      const { vaultedToken } = await withinSyncWait(deps, deps.temporal.workflow.execute('enrollmentWorkflow', {
        taskQueue: deps.config.taskQueue, workflowId: `enrollment-${input.vaultedToken}`, args: [input], workflowExecutionTimeout: '1 minute',
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        searchAttributes: resourceSearchAttributes({ type: 'payment_method', id: input.vaultedToken, accountId: session.account_id, organizationCode }),
      }) as Promise<{ vaultedToken: string }>);
      const doc = await findPaymentMethod(deps.db, organizationCode, session.customer_id, vaultedToken);
      ctx.status = 201;
      ctx.body = renderPaymentMethod(doc!);
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/customers/:customer_id/payment-methods/:payment_method_id', operationId: 'getEnrolledPaymentMethod', tag: 'Customers', area: 'enrollment', auth: 'pair',
      summary: 'Retrieve an enrolled payment method',
      pathParams: [UUID_PARAM('customer_id', 'the customer'), UUID_PARAM('payment_method_id', 'the vaulted_token received at enrollment')],
      responses: { 200: { description: 'The enrolled method', body: EnrolledPaymentMethod }, 404: { description: 'No such method for this customer' } },
    },
    async (ctx) => {
      const doc = await findPaymentMethod(deps.db, ctx.state.principal!.organizationCode, ctx.params.customer_id, ctx.params.payment_method_id);
      if (!doc) throw new ApiError('not_found', 'payment method not found', { code: 'PAYMENT_METHOD_NOT_FOUND' });
      ctx.body = renderPaymentMethod(doc);
    },
  );

  routes.add(
    {
      method: 'POST', path: '/v1/payment-method-tokens', operationId: 'createCardToken', tag: 'Payments', area: 'default', auth: 'pair',
      summary: 'Exchange card data for a one-time token',
      description: 'The card is vaulted at once; the token (tok_...) pays one payment (payment_method.token) within 15 minutes. A CVV given here serves that payment\'s authorization only.',
      body: CardTokenRequest,
      responses: { 201: { description: 'The token', body: CardToken } },
    },
    async (ctx, body) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      const card = body.card;
      const missing = missingInlineCardFields(card, 'card');
      if (!missing.length && card.expiration_month !== undefined && card.expiration_year !== undefined) missing.push(...cardExpiryProblems('card', card.expiration_month, card.expiration_year, new Date()));
      if (missing.length) throw new ApiError('validation', missing.map((p) => p.message), { fieldErrors: missing });
      if (!(await findOwnedAccount(deps.db, organizationCode, body.account_id))) throw new ApiError('not_found', 'account not found', { code: 'ACCOUNT_NOT_FOUND' });
      refuseTestCardWithLiveKeys(ctx, (body.card as InlineCard).number, 'card.number');
      const { token, expiresAt, summary } = await createCardToken(deps.db, deps.keyring, { organizationCode, accountId: body.account_id }, body.card as InlineCard);
      ctx.status = 201;
      ctx.body = { token, expires_at: expiresAt.toISOString(), card: { iin: summary.iin, lfd: summary.lfd, brand: summary.brand, expiration_month: summary.expiration_month, expiration_year: summary.expiration_year, fingerprint: summary.fingerprint } };
    },
  );
}
