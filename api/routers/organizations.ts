/**
 * Organization administration: whitelabel users and their embed tokens (JWT), and account
 * groups (sub-organizations). Errors use the whitelabel shape {code, message}.
 *
 * Embed tokens: POST /v1/organizations/authenticate returns a Bearer JWT for one user of the
 * caller's organization; `Authorization: Bearer <access_token>` is then accepted instead of
 * the key pair on the read endpoints whose security lists WhitelabelBearer.
 */
import { randomUUID } from 'node:crypto';
import * as t from 'io-ts';
import { findOwnedAccount } from '../../activities/repositories/merchants';
import {
  AccountGroupDoc,
  accountGroups,
  findOwnedAccountGroup,
  findOwnedWhitelabelUser,
  isDuplicateKey,
  whitelabelTokens,
  WhitelabelUserDoc,
  whitelabelUsers,
} from '../../activities/repositories/organizations';
import {
  AccountGroup,
  AccountGroupCreateRequest,
  AccountGroupList,
  AuthenticateRequest,
  WhitelabelToken,
  WhitelabelUser,
  WhitelabelUserCreateRequest,
} from '../../domain/codecs/organizations';
import { Uuid, isUuid } from '../../domain/codecs/common';
import { ApiError } from '../../domain/errors';
import { signWhitelabelToken } from '../../domain/whitelabel';
import type { AppDeps } from '../context';
import { PAGE_QUERY_DOCS, readPage, readPageRequest } from '../pagination';
import type { RouteTable } from '../routes';

const TAG = 'Organization administration';

function userView(doc: WhitelabelUserDoc): t.TypeOf<typeof WhitelabelUser> {
  return {
    id: doc._id,
    organization_code: doc.organization_code,
    name: doc.name,
    email: doc.email,
    role: doc.role,
    status: doc.status,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}

function groupView(doc: AccountGroupDoc): t.TypeOf<typeof AccountGroup> {
  return { id: doc._id, name: doc.name, merchant_id: doc.merchant_id, created_at: doc.created_at.toISOString(), updated_at: doc.updated_at.toISOString() };
}

const userNotFound = () => new ApiError('not_found', 'whitelabel user not found', { code: 'USER_NOT_FOUND' });
const groupNotFound = () => new ApiError('not_found', 'account group not found', { code: 'ACCOUNT_GROUP_NOT_FOUND' });

export function registerOrganizationRoutes(routes: RouteTable, deps: AppDeps): void {
  routes.add(
    {
      method: 'POST', path: '/v1/organizations/users', operationId: 'createWhitelabelUser', tag: TAG, area: 'whitelabel', auth: 'pair',
      summary: 'Create a whitelabel user of your organization',
      description: 'The user can then be exchanged for an embed token with POST /v1/organizations/authenticate. E-mail addresses are unique within an organization (case-insensitive).',
      idempotency: { required: false, format: 'uuid', onDifferentPayload: 'replay' },
      body: WhitelabelUserCreateRequest,
      responses: {
        201: { description: 'The user, status ACTIVE', body: WhitelabelUser },
        409: { description: 'USER_ALREADY_EXISTS: a user of the organization has this e-mail' },
      },
    },
    async (ctx, body) => {
      const now = new Date();
      const doc: WhitelabelUserDoc = {
        _id: randomUUID(),
        organization_code: ctx.state.principal!.organizationCode,
        name: body.name,
        email: body.email.toLowerCase(),
        role: body.role ?? 'VIEWER',
        status: 'ACTIVE',
        created_at: now,
        updated_at: now,
      };
      try {
        await whitelabelUsers(deps.db).insertOne(doc);
      } catch (error) {
        if (isDuplicateKey(error)) throw new ApiError('conflict', 'a user with this e-mail already exists in the organization', { code: 'USER_ALREADY_EXISTS' });
        throw error;
      }
      ctx.status = 201;
      ctx.set('Location', `/v1/organizations/users/${doc._id}`);
      ctx.body = userView(doc);
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/organizations/users/:user_id', operationId: 'getWhitelabelUser', tag: TAG, area: 'whitelabel', auth: 'pair-or-bearer',
      summary: 'Read a whitelabel user',
      pathParams: [{ name: 'user_id', description: 'id returned at creation', schema: { type: 'string', format: 'uuid' } }],
      responses: { 200: { description: 'The user', body: WhitelabelUser }, 404: { description: 'USER_NOT_FOUND' } },
    },
    async (ctx) => {
      const doc = isUuid(ctx.params.user_id) ? await findOwnedWhitelabelUser(deps.db, ctx.state.principal!.organizationCode, ctx.params.user_id) : null;
      if (!doc) throw userNotFound();
      ctx.body = userView(doc);
    },
  );

  routes.add(
    {
      method: 'DELETE', path: '/v1/organizations/users/:user_id', operationId: 'disableWhitelabelUser', tag: TAG, area: 'whitelabel', auth: 'pair',
      summary: 'Disable a whitelabel user',
      description: 'The user can no longer authenticate and every embed token already issued to it stops working at once. The record is kept (status DISABLED).',
      pathParams: [{ name: 'user_id', description: 'id returned at creation', schema: { type: 'string', format: 'uuid' } }],
      responses: { 200: { description: 'The user, status DISABLED', body: WhitelabelUser }, 404: { description: 'USER_NOT_FOUND' } },
    },
    async (ctx) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      if (!isUuid(ctx.params.user_id)) throw userNotFound();
      const updated = await whitelabelUsers(deps.db).findOneAndUpdate(
        { _id: ctx.params.user_id, organization_code: organizationCode },
        { $set: { status: 'DISABLED', updated_at: new Date() } },
        { returnDocument: 'after' },
      );
      if (!updated) throw userNotFound();
      ctx.body = userView(updated);
    },
  );

  routes.add(
    {
      method: 'POST', path: '/v1/organizations/authenticate', operationId: 'authenticateWhitelabelUser', tag: TAG, area: 'whitelabel', auth: 'pair',
      summary: 'Exchange a whitelabel user id for an embed token (JWT)',
      description:
        'Returns a Bearer JWT (HS256) valid for `expires_in` seconds. Present it as `Authorization: Bearer <access_token>` ' +
        'instead of the key pair on read endpoints of your organization (see the WhitelabelBearer security scheme). ' +
        'Errors: 400 INVALID_PARAMETERS when user_id is missing or not a UUID; 401 LOGIN_FAILED when the user does not exist ' +
        'in your organization or is disabled; 401 INVALID_CREDENTIALS for missing or wrong keys.',
      body: AuthenticateRequest,
      responses: {
        200: { description: 'The embed token', body: WhitelabelToken },
        401: { description: 'LOGIN_FAILED (unknown or disabled user) or INVALID_CREDENTIALS' },
      },
    },
    async (ctx, body) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      const user = await findOwnedWhitelabelUser(deps.db, organizationCode, body.user_id);
      if (!user || user.status !== 'ACTIVE') throw new ApiError('unauthenticated', 'the user cannot be authenticated', { code: 'LOGIN_FAILED' });
      const jti = randomUUID();
      const issuedAt = Math.floor(Date.now() / 1000);
      const ttl = deps.config.whitelabelTokenTtlSeconds;
      // The jti is recorded before the token exists, so a token is never valid without it.
      await whitelabelTokens(deps.db).insertOne({
        _id: jti,
        user_id: user._id,
        organization_code: organizationCode,
        issued_at: new Date(issuedAt * 1000),
        expires_at: new Date((issuedAt + ttl) * 1000),
        revoked_at: null,
      });
      const accessToken = await signWhitelabelToken(deps.keyring, { userId: user._id, organizationCode, role: user.role, jti, issuedAt, ttlSeconds: ttl });
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { access_token: accessToken, token_type: 'Bearer', expires_in: ttl };
    },
  );

  routes.add(
    {
      method: 'POST', path: '/v1/organizations/account-groups', operationId: 'createAccountGroup', tag: TAG, area: 'whitelabel', auth: 'pair',
      summary: 'Create an account group (sub-organization)',
      description: 'name and merchant_id are required. merchant_id is an account_id of your organization; group names are unique within the organization.',
      idempotency: { required: false, format: 'uuid', onDifferentPayload: 'replay' },
      body: AccountGroupCreateRequest,
      responses: {
        201: { description: 'The account group', body: AccountGroup },
        404: { description: 'MERCHANT_NOT_FOUND: merchant_id is not an account of your organization' },
        409: { description: 'ACCOUNT_GROUP_ALREADY_EXISTS: the organization has a group with this name' },
      },
    },
    async (ctx, body) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      if (!(await findOwnedAccount(deps.db, organizationCode, body.merchant_id))) {
        throw new ApiError('not_found', 'merchant_id is not an account of this organization', { code: 'MERCHANT_NOT_FOUND' });
      }
      const now = new Date();
      const doc: AccountGroupDoc = { _id: randomUUID(), organization_code: organizationCode, name: body.name, merchant_id: body.merchant_id, created_at: now, updated_at: now };
      try {
        await accountGroups(deps.db).insertOne(doc);
      } catch (error) {
        if (isDuplicateKey(error)) throw new ApiError('conflict', 'an account group with this name already exists', { code: 'ACCOUNT_GROUP_ALREADY_EXISTS' });
        throw error;
      }
      ctx.status = 201;
      ctx.set('Location', `/v1/organizations/account-groups/${doc._id}`);
      ctx.body = groupView(doc);
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/organizations/account-groups/:account_group_id', operationId: 'getAccountGroup', tag: TAG, area: 'whitelabel', auth: 'pair-or-bearer',
      summary: 'Read an account group',
      pathParams: [{ name: 'account_group_id', description: 'id returned at creation', schema: { type: 'string', format: 'uuid' } }],
      responses: { 200: { description: 'The account group', body: AccountGroup }, 404: { description: 'ACCOUNT_GROUP_NOT_FOUND' } },
    },
    async (ctx) => {
      const id = ctx.params.account_group_id;
      const doc = isUuid(id) ? await findOwnedAccountGroup(deps.db, ctx.state.principal!.organizationCode, id) : null;
      if (!doc) throw groupNotFound();
      ctx.body = groupView(doc);
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/organizations/account-groups', operationId: 'listAccountGroups', tag: TAG, area: 'whitelabel', auth: 'pair-or-bearer',
      summary: 'List account groups, newest first',
      query: [{ name: 'merchant_id', description: 'only the groups of this merchant (account_id)', schema: { type: 'string', format: 'uuid' } }, ...PAGE_QUERY_DOCS],
      responses: { 200: { description: 'One page of account groups', body: AccountGroupList }, 400: { description: 'INVALID_PARAMETERS: limit, cursor or merchant_id invalid' } },
    },
    async (ctx) => {
      const page = readPageRequest(ctx);
      const merchantId = ctx.query.merchant_id;
      if (merchantId !== undefined && !Uuid.is(merchantId)) {
        throw new ApiError('validation', 'merchant_id must be a UUID', { fieldErrors: [{ field: 'merchant_id', code: 'INVALID', message: 'merchant_id must be a UUID' }] });
      }
      const filter = { organization_code: ctx.state.principal!.organizationCode, ...(merchantId ? { merchant_id: merchantId as string } : {}) };
      const result = await readPage(accountGroups(deps.db), filter, page);
      ctx.body = { data: result.items.map(groupView), has_more: result.hasMore, next_cursor: result.nextCursor };
    },
  );
}
