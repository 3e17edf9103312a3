/**
 * Organization administration records: whitelabel users, the ids of the embed tokens
 * issued to them, and account groups. These are configuration records without a lifecycle,
 * so the API writes them directly (uniqueness is a unique index, atomic on FerretDB too).
 */
import { findByIdWithin } from '../runtime/mongo';
import type { Db } from 'mongodb';
import type { WhitelabelUserRole } from '../../domain/whitelabel';

export interface WhitelabelUserDoc {
  _id: string;
  organization_code: string;
  name: string;
  /** lower-cased; unique per organization */
  email: string;
  role: WhitelabelUserRole;
  status: 'ACTIVE' | 'DISABLED';
  created_at: Date;
  updated_at: Date;
}

/** One issued embed token, by its jti: the token itself is never stored. */
export interface WhitelabelTokenDoc {
  _id: string;
  user_id: string;
  organization_code: string;
  issued_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

export interface AccountGroupDoc {
  _id: string;
  organization_code: string;
  name: string;
  merchant_id: string;
  created_at: Date;
  updated_at: Date;
}

export const whitelabelUsers = (db: Db) => db.collection<WhitelabelUserDoc>('whitelabel_users');
export const whitelabelTokens = (db: Db) => db.collection<WhitelabelTokenDoc>('whitelabel_tokens');
export const accountGroups = (db: Db) => db.collection<AccountGroupDoc>('account_groups');

export function isDuplicateKey(error: unknown): boolean {
  return (error as { code?: number }).code === 11000;
}

export function findOwnedWhitelabelUser(db: Db, organizationCode: string, userId: string) {
  return findByIdWithin(whitelabelUsers(db), userId, { organization_code: organizationCode });
}

export function findOwnedAccountGroup(db: Db, organizationCode: string, groupId: string) {
  return findByIdWithin(accountGroups(db), groupId, { organization_code: organizationCode });
}
