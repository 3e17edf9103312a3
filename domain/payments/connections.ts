/**
 * Provider connection ids, in one format wherever the service returns or accepts them: the
 * UUID of a connection an account configured, or the id of one of the two default sandbox
 * connections every account has (default-sandbox-1, default-sandbox-2). Whatever an answer
 * carries (an onboarding's provider.connection_id, a refund's provider.connection_id, a
 * routing rule's connection_ids) can be sent back as is.
 */
import * as t from 'io-ts';
import { annotate, isUuid, refined } from '../codecs/common';

const DEFAULT_SANDBOX_ID = /^default-sandbox-[1-9][0-9]*$/;

export function defaultSandboxConnectionId(n: number): string {
  return `default-sandbox-${n}`;
}

export function isConnectionId(s: string): boolean {
  return isUuid(s) || DEFAULT_SANDBOX_ID.test(s);
}

/** Connection ids compare in lower case (a UUID may be sent in upper case). */
export function sameConnectionId(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

export const CONNECTION_ID_DOC =
  'a connection id as listed by GET /v1/accounts/{account_id}/provider-connections: the UUID of a configured connection, ' +
  'or default-sandbox-1 / default-sandbox-2 (the default sandbox connections of every account)';

const CONNECTION_ID_SCHEMA = {
  type: 'string',
  pattern: '^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|default-sandbox-[1-9][0-9]*)$',
  maxLength: 36,
  description: CONNECTION_ID_DOC,
};

/** A connection id in a request. */
export const ConnectionId = refined(
  'ConnectionId',
  t.string,
  isConnectionId,
  'must be a connection id: the UUID of a configured connection, or default-sandbox-1 / default-sandbox-2',
  CONNECTION_ID_SCHEMA,
);

/** A connection id in an answer (documented with the same format). */
export const ConnectionIdView = annotate(t.string, CONNECTION_ID_SCHEMA);
