/**
 * Organizations, their accounts and credential pairs.
 */
import { Db } from 'mongodb';
import { hashSecret, IssuedCredentials, KeyMode, KeyPair, newId, newPrivateSecretKey, newPublicApiKey } from '../../domain/credentials';

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
  /** test or live; absent on organizations stored before modes (unrestricted, as they were). */
  mode?: KeyMode;
  /** The other mode's organization of the same merchant. */
  twin_organization_code?: string;
  created_at: Date;
}

export interface AccountDoc {
  _id: string; // account_id (UUID)
  organization_code: string;
  name: string;
  /** Its organization's mode (absent before modes). */
  mode?: KeyMode;
  webhook_url?: string | null;
  created_at: Date;
}

export interface CredentialDoc {
  _id: string;
  organization_code: string;
  public_api_key: string;
  secret_hash: string;
  /** Absent on keys issued before modes. */
  mode?: KeyMode;
  created_at: Date;
}

/** The identity a request acts as, once its credentials are verified. */
export interface Principal {
  organizationCode: string;
  credentialId: string;
  /** Set when the request presented a whitelabel embed token instead of the key pair. */
  whitelabelUserId?: string;
  /** The key pair's mode; null for keys issued before modes and for embed tokens. */
  mode?: KeyMode | null;
}

/** A merchant: a live organization and its test twin, an account and a key pair in each. */
export async function createMerchant(db: Db, name: string): Promise<IssuedCredentials> {
  const [liveCode, testCode] = [newId(), newId()];
  const live = await createModeOrganization(db, { code: liveCode, twin: testCode, name, mode: 'live' });
  const test = await createModeOrganization(db, { code: testCode, twin: liveCode, name, mode: 'test' });
  return { ...test, mode: 'test', live: { ...live, mode: 'live' } };
}

async function createModeOrganization(db: Db, input: { code: string; twin: string; name: string; mode: KeyMode }): Promise<KeyPair> {
  const accountId = newId();
  const publicApiKey = newPublicApiKey(input.mode);
  const secret = newPrivateSecretKey(input.mode);
  const now = new Date();
  await db.collection<OrganizationDoc>('organizations').insertOne({ _id: input.code, code: input.code, name: input.name, sole_account_id: accountId, mode: input.mode, twin_organization_code: input.twin, created_at: now });
  await db.collection<AccountDoc>('accounts').insertOne({ _id: accountId, organization_code: input.code, name: input.name, mode: input.mode, created_at: now });
  await db.collection<CredentialDoc>('credentials').insertOne({
    _id: newId(),
    organization_code: input.code,
    public_api_key: publicApiKey,
    secret_hash: hashSecret(secret),
    mode: input.mode,
    created_at: now,
  });
  return { organization_code: input.code, account_id: accountId, public_api_key: publicApiKey, private_secret_key: secret };
}

const accountModes = new Map<string, KeyMode | null>();

/** An account's mode (null before modes); accounts never change mode, so it is kept per process. */
export async function accountMode(db: Db, accountId: string): Promise<KeyMode | null> {
  const key = `${db.databaseName}\u0000${accountId}`;
  if (accountModes.has(key)) return accountModes.get(key)!;
  const account = await db.collection<AccountDoc>('accounts').findOne({ _id: accountId }, { projection: { mode: 1 } });
  if (!account) return null;
  const mode = account.mode ?? null;
  if (accountModes.size > 100_000) accountModes.clear();
  accountModes.set(key, mode);
  return mode;
}

export async function createAccount(db: Db, organizationCode: string, name: string): Promise<AccountDoc> {
  const organization = await db.collection<OrganizationDoc>('organizations').findOne({ _id: organizationCode }, { projection: { mode: 1 } });
  const account: AccountDoc = { _id: newId(), organization_code: organizationCode, name, ...(organization?.mode ? { mode: organization.mode } : {}), created_at: new Date() };
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

const knownAccounts = new Map<string, AccountDoc>();

/**
 * The account when it belongs to the organization; null otherwise (indistinguishable from
 * missing). Accounts are never changed nor removed once created, so each process keeps those
 * it found (every payment names one); an unknown id is read again each time.
 */
export async function findOwnedAccount(db: Db, organizationCode: string, accountId: string): Promise<AccountDoc | null> {
  const key = `${db.databaseName}\u0000${accountId}`;
  let account = knownAccounts.get(key) ?? null;
  if (!account) {
    account = await db.collection<AccountDoc>('accounts').findOne({ _id: accountId });
    if (!account) return null;
    if (knownAccounts.size >= 100_000) knownAccounts.clear();
    knownAccounts.set(key, account);
  }
  return account.organization_code === organizationCode ? { ...account } : null; // a copy: callers may change theirs
}
