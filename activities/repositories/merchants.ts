/**
 * Organizations, their accounts and credential pairs.
 */
import { Db } from 'mongodb';
import { hashSecret, IssuedCredentials, newId, newPrivateSecretKey, newPublicApiKey } from '../../domain/credentials';

export interface OrganizationDoc {
  _id: string; // organization code (UUID)
  code: string;
  name: string;
  /**
   * The organization's only account while it has one, null once it has several (absent on
   * organizations stored before): requests that may omit account_id read it by _id instead
   * of listing the accounts (a scan on FerretDB).
   */
  sole_account_id?: string | null;
  created_at: Date;
}

export interface AccountDoc {
  _id: string; // account_id (UUID)
  organization_code: string;
  name: string;
  webhook_url?: string | null;
  created_at: Date;
}

export interface CredentialDoc {
  _id: string;
  organization_code: string;
  public_api_key: string;
  secret_hash: string;
  created_at: Date;
}

/** The identity a request acts as, once its credentials are verified. */
export interface Principal {
  organizationCode: string;
  credentialId: string;
  /** Set when the request presented a whitelabel embed token instead of the key pair. */
  whitelabelUserId?: string;
}

export async function createMerchant(db: Db, name: string): Promise<IssuedCredentials> {
  const organizationCode = newId();
  const accountId = newId();
  const publicApiKey = newPublicApiKey();
  const secret = newPrivateSecretKey();
  const now = new Date();
  await db.collection<OrganizationDoc>('organizations').insertOne({ _id: organizationCode, code: organizationCode, name, sole_account_id: accountId, created_at: now });
  await db.collection<AccountDoc>('accounts').insertOne({ _id: accountId, organization_code: organizationCode, name, created_at: now });
  await db.collection<CredentialDoc>('credentials').insertOne({
    _id: newId(),
    organization_code: organizationCode,
    public_api_key: publicApiKey,
    secret_hash: hashSecret(secret),
    created_at: now,
  });
  return { organization_code: organizationCode, account_id: accountId, public_api_key: publicApiKey, private_secret_key: secret };
}

export async function createAccount(db: Db, organizationCode: string, name: string): Promise<AccountDoc> {
  const account: AccountDoc = { _id: newId(), organization_code: organizationCode, name, created_at: new Date() };
  await db.collection<AccountDoc>('accounts').insertOne(account);
  await db.collection<OrganizationDoc>('organizations').updateOne({ _id: organizationCode }, { $set: { sole_account_id: null } });
  return account;
}

/** The account a request without account_id means: the organization's only one; null when it has several. */
export async function soleAccountId(db: Db, organizationCode: string): Promise<string | null> {
  const organization = await db.collection<OrganizationDoc>('organizations').findOne({ _id: organizationCode }, { projection: { sole_account_id: 1 } });
  if (organization?.sole_account_id !== undefined) return organization.sole_account_id;
  const accounts = await db.collection<AccountDoc>('accounts').find({ organization_code: organizationCode }, { projection: { _id: 1 } }).limit(2).toArray();
  return accounts.length === 1 ? accounts[0]._id : null;
}

export function findCredentialByPublicKey(db: Db, publicApiKey: string) {
  return db.collection<CredentialDoc>('credentials').findOne({ public_api_key: publicApiKey });
}

export function findCredentialBySecretHash(db: Db, secretHash: string) {
  return db.collection<CredentialDoc>('credentials').findOne({ secret_hash: secretHash });
}

/** The account when it belongs to the organization; null otherwise (indistinguishable from missing). */
export function findOwnedAccount(db: Db, organizationCode: string, accountId: string) {
  return db.collection<AccountDoc>('accounts').findOne({ _id: accountId, organization_code: organizationCode });
}
