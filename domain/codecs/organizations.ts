/**
 * Organization administration: whitelabel users, their embed tokens, account groups.
 */
import * as t from 'io-ts';
import { WHITELABEL_USER_ROLES } from '../whitelabel';
import { annotate, boundedString, enumOf, intRange, refined, struct, Timestamp, Uuid } from './common';

export const Email = refined(
  'Email',
  boundedString(3, 254),
  (s) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s),
  'must be an e-mail address',
  { type: 'string', format: 'email', maxLength: 254 },
);

export const WhitelabelUserRole = annotate(enumOf('WhitelabelUserRole', WHITELABEL_USER_ROLES), {
  description: 'ADMIN and OPERATOR are for the embedding application to interpret; every embed token is read-only on the API',
});

export const WhitelabelUserCreateRequest = struct(
  'WhitelabelUserCreateRequest',
  { name: boundedString(3, 255), email: Email },
  { role: annotate(WhitelabelUserRole, { description: 'defaults to VIEWER' }) },
);

export const WhitelabelUser = t.type(
  {
    id: Uuid,
    organization_code: Uuid,
    name: t.string,
    email: t.string,
    role: WhitelabelUserRole,
    status: enumOf('WhitelabelUserStatus', ['ACTIVE', 'DISABLED']),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  'WhitelabelUser',
);

export const AuthenticateRequest = struct('WhitelabelAuthenticateRequest', { user_id: annotate(Uuid, { description: 'UUID of a whitelabel user of your organization' }) }, {});

export const WhitelabelToken = t.type(
  {
    access_token: annotate(t.string, { description: 'JWT (HS256); send it as `Authorization: Bearer <access_token>`' }),
    token_type: t.literal('Bearer'),
    expires_in: annotate(t.number, { type: 'integer', description: 'seconds until the token expires (86400 by default)' }),
  },
  'WhitelabelToken',
);

export const AccountGroupCreateRequest = struct(
  'AccountGroupCreateRequest',
  {
    name: annotate(boundedString(3, 255), { description: 'unique within the organization' }),
    merchant_id: annotate(Uuid, { description: 'the merchant (account_id of your organization) the group sits under' }),
  },
  {},
);

export const AccountGroup = t.type(
  { id: Uuid, name: t.string, merchant_id: Uuid, created_at: Timestamp, updated_at: Timestamp },
  'AccountGroup',
);

export const AccountGroupList = t.type(
  {
    data: t.array(AccountGroup),
    has_more: t.boolean,
    next_cursor: annotate(t.union([t.string, t.null]), { description: 'pass as `cursor` to read the next page' }),
  },
  'AccountGroupList',
);

export const PageSize = intRange(1, 100, 'PageSize');
