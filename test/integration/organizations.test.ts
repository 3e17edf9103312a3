/**
 * Organization administration on the real stack: whitelabel users, embed tokens (JWT) and
 * the Bearer auth mode, account groups.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { IssuedCredentials } from '../../domain/credentials';
import { signWhitelabelToken } from '../../domain/whitelabel';
import { call, getStack, newMerchant, TestStack, errorBody } from '../support/stack';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('organization administration (integration)', function () {
  let stack: TestStack;
  let merchant: IssuedCredentials;
  let other: IssuedCredentials;

  before(async function () {
    this.timeout(120_000);
    stack = await getStack();
    merchant = await newMerchant('Org admin merchant');
    other = await newMerchant('Org admin other');
  });

  async function createUser(credentials: IssuedCredentials, email = `u-${randomUUID()}@example.com`, role?: string) {
    const response = await call('/v1/organizations/users', { body: { name: 'Embed User', email, ...(role ? { role } : {}) }, credentials });
    assert.equal(response.status, 201, response.text);
    return response.body;
  }

  async function tokenFor(credentials: IssuedCredentials, userId: string) {
    const response = await call('/v1/organizations/authenticate', { body: { user_id: userId }, credentials });
    assert.equal(response.status, 200, response.text);
    return response.body.access_token as string;
  }

  describe('whitelabel users', () => {
    it('creates a user with a default VIEWER role and a lower-cased e-mail', async () => {
      const user = await createUser(merchant, `Mixed.${randomUUID()}@Example.com`);
      assert.match(user.id, /^[0-9a-f-]{36}$/);
      assert.equal(user.organization_code, merchant.organization_code);
      assert.equal(user.role, 'VIEWER');
      assert.equal(user.status, 'ACTIVE');
      assert.equal(user.email, user.email.toLowerCase());
      const read = await call(`/v1/organizations/users/${user.id}`, { credentials: merchant });
      assert.deepEqual(read.body, user);
    });

    it('409 USER_ALREADY_EXISTS for the same e-mail in one organization (any case), allowed in another', async () => {
      const email = `dup-${randomUUID()}@example.com`;
      await createUser(merchant, email, 'ADMIN');
      const duplicate = await call('/v1/organizations/users', { body: { name: 'Again', email: email.toUpperCase() }, credentials: merchant });
      assert.equal(duplicate.status, 409);
      assert.deepEqual(Object.keys(duplicate.body).sort(), ['code', 'doc_url', 'message']);
      assert.equal(duplicate.body.code, 'USER_ALREADY_EXISTS');
      const elsewhere = await createUser(other, email);
      assert.equal(elsewhere.organization_code, other.organization_code);
    });

    it('400 INVALID_PARAMETERS for name length boundaries, a bad e-mail and an unknown role', async () => {
      for (const body of [
        { name: 'ab', email: 'a@example.com' },
        { name: 'x'.repeat(256), email: 'a@example.com' },
        { name: 'Valid', email: 'not-an-email' },
        { name: 'Valid', email: 'a@example.com', role: 'ROOT' },
      ]) {
        const response = await call('/v1/organizations/users', { body, credentials: merchant });
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.equal(response.body.code, 'INVALID_PARAMETERS');
      }
      const longest = await call('/v1/organizations/users', { body: { name: 'x'.repeat(255), email: `b-${randomUUID()}@example.com` }, credentials: merchant });
      assert.equal(longest.status, 201);
      const shortest = await call('/v1/organizations/users', { body: { name: 'abc', email: `c-${randomUUID()}@example.com` }, credentials: merchant });
      assert.equal(shortest.status, 201);
    });

    it("another organization's user answers exactly like a missing one", async () => {
      const user = await createUser(merchant);
      const foreign = await call(`/v1/organizations/users/${user.id}`, { credentials: other });
      const missing = await call(`/v1/organizations/users/${randomUUID()}`, { credentials: other });
      assert.equal(foreign.status, 404);
      assert.deepEqual(foreign.body, missing.body);
      assert.deepEqual(errorBody(foreign.body), { code: 'USER_NOT_FOUND', message: 'whitelabel user not found' });
    });
  });

  describe('POST /v1/organizations/authenticate', () => {
    it('returns a Bearer JWT valid for 86400 seconds, signed HS256 with the key id', async () => {
      const user = await createUser(merchant);
      const response = await call('/v1/organizations/authenticate', { body: { user_id: user.id }, credentials: merchant });
      assert.equal(response.status, 200);
      assert.deepEqual(Object.keys(response.body).sort(), ['access_token', 'expires_in', 'token_type']);
      assert.equal(response.body.token_type, 'Bearer');
      assert.equal(response.body.expires_in, 86400);
      assert.equal(response.headers.get('cache-control'), 'no-store');
      const [header, payload] = (response.body.access_token as string).split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
      assert.equal(header.alg, 'HS256');
      assert.equal(header.kid, stack.keyring.activeKeyId);
      assert.equal(payload.sub, user.id);
      assert.equal(payload.org, merchant.organization_code);
      assert.equal(payload.exp - payload.iat, 86400);
    });

    it('stores only the token id, never the token', async () => {
      const user = await createUser(merchant);
      const token = await tokenFor(merchant, user.id);
      const jti = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).jti;
      const docs = await stack.db.collection('whitelabel_tokens').find({ user_id: user.id }).toArray();
      assert.equal(docs.length, 1);
      assert.equal(docs[0]._id, jti);
      assert.ok(!JSON.stringify(docs).includes(token.split('.')[2]));
    });

    it('400 INVALID_PARAMETERS when user_id is missing or not a UUID, in the {code, message} shape', async () => {
      const missing = await call('/v1/organizations/authenticate', { body: {}, credentials: merchant });
      assert.equal(missing.status, 400);
      assert.deepEqual(Object.keys(missing.body).sort(), ['code', 'doc_url', 'message']);
      assert.equal(missing.body.code, 'INVALID_PARAMETERS');
      assert.match(missing.body.message, /user_id/);
      for (const userId of ['not-a-uuid', 42, `${randomUUID()}x`]) {
        const invalid = await call('/v1/organizations/authenticate', { body: { user_id: userId }, credentials: merchant });
        assert.equal(invalid.status, 400);
        assert.equal(invalid.body.code, 'INVALID_PARAMETERS');
        assert.match(invalid.body.message, /user_id/);
      }
    });

    it("401 LOGIN_FAILED for an unknown user, another organization's user and a disabled user", async () => {
      const foreignUser = await createUser(other);
      for (const userId of [randomUUID(), foreignUser.id]) {
        const response = await call('/v1/organizations/authenticate', { body: { user_id: userId }, credentials: merchant });
        assert.equal(response.status, 401);
        assert.deepEqual(errorBody(response.body), { code: 'LOGIN_FAILED', message: 'the user cannot be authenticated' });
      }
      const user = await createUser(merchant);
      const disabled = await call(`/v1/organizations/users/${user.id}`, { method: 'DELETE', credentials: merchant });
      assert.equal(disabled.body.status, 'DISABLED');
      const response = await call('/v1/organizations/authenticate', { body: { user_id: user.id }, credentials: merchant });
      assert.equal(response.body.code, 'LOGIN_FAILED');
    });

    it('401 INVALID_CREDENTIALS without the key pair', async () => {
      const response = await call('/v1/organizations/authenticate', { body: { user_id: randomUUID() } });
      assert.equal(response.status, 401);
      assert.equal(response.body.code, 'INVALID_CREDENTIALS');
    });
  });

  describe('Bearer embed token on read endpoints', () => {
    it("reads the organization's resources with the token and nothing of another organization", async () => {
      const user = await createUser(merchant);
      const token = await tokenFor(merchant, user.id);
      const group = await call('/v1/organizations/account-groups', { body: { name: `G ${randomUUID()}`, merchant_id: merchant.account_id }, credentials: merchant });
      const read = await call(`/v1/organizations/account-groups/${group.body.id}`, { headers: bearer(token) });
      assert.equal(read.status, 200);
      assert.equal(read.body.id, group.body.id);
      const foreignGroup = await call('/v1/organizations/account-groups', { body: { name: `G ${randomUUID()}`, merchant_id: other.account_id }, credentials: other });
      const foreign = await call(`/v1/organizations/account-groups/${foreignGroup.body.id}`, { headers: bearer(token) });
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.code, 'ACCOUNT_GROUP_NOT_FOUND');
    });

    it('is refused on write endpoints (they require the key pair)', async () => {
      const user = await createUser(merchant);
      const token = await tokenFor(merchant, user.id);
      const response = await call('/v1/organizations/account-groups', { body: { name: 'Via token', merchant_id: merchant.account_id }, headers: bearer(token) });
      assert.equal(response.status, 401);
    });

    it('rejects a tampered token, a token signed with another key, an expired token and a never-issued one', async () => {
      const user = await createUser(merchant);
      const token = await tokenFor(merchant, user.id);
      const [h, p, s] = token.split('.');
      const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
      const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, org: other.organization_code })).toString('base64url')}.${s}`;
      const flipped = `${h}.${p}.${s.slice(0, -2)}${s.endsWith('AA') ? 'BB' : 'AA'}`;
      const { generateKeyring } = await import('../../domain/crypto');
      const foreignRing = generateKeyring(stack.keyring.activeKeyId);
      const now = Math.floor(Date.now() / 1000);
      const base = { userId: user.id, organizationCode: merchant.organization_code, role: 'VIEWER' as const, jti: claims.jti };
      const otherKey = await signWhitelabelToken(foreignRing, { ...base, issuedAt: now, ttlSeconds: 60 });
      const expired = await signWhitelabelToken(stack.keyring, { ...base, issuedAt: now - 100, ttlSeconds: 50 });
      const neverIssued = await signWhitelabelToken(stack.keyring, { ...base, jti: randomUUID(), issuedAt: now, ttlSeconds: 60 });
      const url = `/v1/organizations/users/${user.id}`;
      assert.equal((await call(url, { headers: bearer(token) })).status, 200);
      for (const [label, bad] of Object.entries({ forged, flipped, otherKey, neverIssued, garbage: 'abc.def.ghi' })) {
        const response = await call(url, { headers: bearer(bad) });
        assert.equal(response.status, 401, label);
        assert.deepEqual(errorBody(response.body), { code: 'INVALID_CREDENTIALS', message: 'the bearer token is not valid' }, label);
      }
      const late = await call(url, { headers: bearer(expired) });
      assert.equal(late.status, 401);
      assert.equal(late.body.message, 'the bearer token has expired');
    });

    it('a token expires after expires_in seconds (short TTL configured)', async function () {
      this.timeout(20_000);
      const { startApi } = await import('../../api/server');
      const { testConfig } = await import('../support/stack');
      const { createLogger } = await import('../../activities/runtime/logger');
      const api = await startApi({ config: testConfig({ whitelabelTokenTtlSeconds: 1 }), keyring: stack.keyring, db: stack.db, temporal: stack.temporal, logger: createLogger('silent') });
      try {
        const user = await createUser(merchant);
        const issued = await call('/v1/organizations/authenticate', { body: { user_id: user.id }, credentials: merchant }, api.url);
        assert.equal(issued.body.expires_in, 1);
        assert.equal((await call(`/v1/organizations/users/${user.id}`, { headers: bearer(issued.body.access_token) }, api.url)).status, 200);
        await new Promise((r) => setTimeout(r, 2_100));
        const expired = await call(`/v1/organizations/users/${user.id}`, { headers: bearer(issued.body.access_token) }, api.url);
        assert.equal(expired.status, 401);
        assert.equal(expired.body.message, 'the bearer token has expired');
      } finally {
        await api.close();
      }
    });

    it('stops working as soon as the user is disabled', async () => {
      const user = await createUser(merchant);
      const token = await tokenFor(merchant, user.id);
      assert.equal((await call(`/v1/organizations/users/${user.id}`, { headers: bearer(token) })).status, 200);
      await call(`/v1/organizations/users/${user.id}`, { method: 'DELETE', credentials: merchant });
      assert.equal((await call(`/v1/organizations/users/${user.id}`, { headers: bearer(token) })).status, 401);
    });

    it('401 without any credentials on a pair-or-bearer route, naming both ways', async () => {
      const response = await call(`/v1/organizations/account-groups`);
      assert.equal(response.status, 401);
      assert.match(response.body.message, /Bearer/);
    });

    it('is documented in the OpenAPI document', async () => {
      const doc = (await call('/v1/openapi.json')).body;
      assert.equal(doc.components.securitySchemes.WhitelabelBearer.scheme, 'bearer');
      assert.deepEqual(doc.paths['/v1/organizations/account-groups/{account_group_id}'].get.security, [{ PublicApiKey: [], PrivateSecretKey: [] }, { WhitelabelBearer: [] }]);
      assert.deepEqual(doc.paths['/v1/organizations/account-groups'].post.security, [{ PublicApiKey: [], PrivateSecretKey: [] }]);
    });
  });

  describe('account groups', () => {
    it('creates (201) and reads back a group with every field', async () => {
      const name = `Group ${randomUUID()}`;
      const created = await call('/v1/organizations/account-groups', { body: { name, merchant_id: merchant.account_id }, credentials: merchant });
      assert.equal(created.status, 201);
      assert.deepEqual(Object.keys(created.body).sort(), ['created_at', 'id', 'merchant_id', 'name', 'updated_at']);
      assert.equal(created.body.name, name);
      assert.equal(created.body.merchant_id, merchant.account_id);
      assert.equal(created.headers.get('location'), `/v1/organizations/account-groups/${created.body.id}`);
      const read = await call(`/v1/organizations/account-groups/${created.body.id}`, { credentials: merchant });
      assert.deepEqual(read.body, created.body);
    });

    it('requires name (3 to 255) and merchant_id (UUID)', async () => {
      const cases: Array<[unknown, string]> = [
        [{ merchant_id: merchant.account_id }, 'name'],
        [{ name: 'Valid name' }, 'merchant_id'],
        [{ name: 'ab', merchant_id: merchant.account_id }, 'name'],
        [{ name: 'x'.repeat(256), merchant_id: merchant.account_id }, 'name'],
        [{ name: 'Valid name', merchant_id: 'm-1' }, 'merchant_id'],
      ];
      for (const [body, field] of cases) {
        const response = await call('/v1/organizations/account-groups', { body, credentials: merchant });
        assert.equal(response.status, 400);
        assert.equal(response.body.code, 'INVALID_PARAMETERS');
        assert.match(response.body.message, new RegExp(field));
      }
    });

    it("404 MERCHANT_NOT_FOUND for another organization's account, 409 for a duplicate name", async () => {
      const foreign = await call('/v1/organizations/account-groups', { body: { name: 'Foreign merchant', merchant_id: other.account_id }, credentials: merchant });
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.code, 'MERCHANT_NOT_FOUND');
      const name = `Dup ${randomUUID()}`;
      assert.equal((await call('/v1/organizations/account-groups', { body: { name, merchant_id: merchant.account_id }, credentials: merchant })).status, 201);
      const duplicate = await call('/v1/organizations/account-groups', { body: { name, merchant_id: merchant.account_id }, credentials: merchant });
      assert.equal(duplicate.status, 409);
      assert.equal(duplicate.body.code, 'ACCOUNT_GROUP_ALREADY_EXISTS');
    });

    it('replays the same group for a repeated X-Idempotency-Key', async () => {
      const key = randomUUID();
      const body = { name: `Idem ${randomUUID()}`, merchant_id: merchant.account_id };
      const first = await call('/v1/organizations/account-groups', { body, credentials: merchant, headers: { 'x-idempotency-key': key } });
      const second = await call('/v1/organizations/account-groups', { body, credentials: merchant, headers: { 'x-idempotency-key': key } });
      assert.equal(second.status, 201);
      assert.equal(second.body.id, first.body.id);
      assert.equal(second.headers.get('idempotent-replayed'), 'true');
    });

    it('lists newest first with cursor pages and a merchant filter, never another organization\'s groups', async () => {
      const fresh = await newMerchant('Group lister');
      const second = (await call('/v1/organizations/account-groups', { body: { name: 'Second account', merchant_id: fresh.account_id }, credentials: fresh })).body;
      const { createAccount } = await import('../../activities/repositories/merchants');
      const account2 = await createAccount(stack.db, fresh.organization_code, 'second');
      const ids: string[] = [second.id];
      for (const name of ['Alpha', 'Bravo', 'Charlie', 'Delta']) {
        ids.push((await call('/v1/organizations/account-groups', { body: { name, merchant_id: account2._id }, credentials: fresh })).body.id);
      }
      await call('/v1/organizations/account-groups', { body: { name: 'Not mine', merchant_id: other.account_id }, credentials: other });
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await call(`/v1/organizations/account-groups?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { credentials: fresh });
        assert.equal(page.status, 200);
        assert.ok(page.body.data.length <= 2);
        seen.push(...page.body.data.map((g: { id: string }) => g.id));
        cursor = page.body.next_cursor;
        assert.equal(page.body.has_more, cursor !== null);
      } while (cursor);
      assert.deepEqual(seen, [...ids].reverse());
      const filtered = await call(`/v1/organizations/account-groups?merchant_id=${fresh.account_id}`, { credentials: fresh });
      assert.deepEqual(filtered.body.data.map((g: { id: string }) => g.id), [second.id]);
      for (const query of ['limit=0', 'limit=101', 'limit=x', 'cursor=%%%', 'merchant_id=nope']) {
        const bad = await call(`/v1/organizations/account-groups?${query}`, { credentials: fresh });
        assert.equal(bad.status, 400, query);
        assert.equal(bad.body.code, 'INVALID_PARAMETERS');
      }
      assert.equal((await call('/v1/organizations/account-groups?limit=100', { credentials: fresh })).body.data.length, 5);
    });

    it("another organization's group answers exactly like a missing one", async () => {
      const created = await call('/v1/organizations/account-groups', { body: { name: `Mine ${randomUUID()}`, merchant_id: merchant.account_id }, credentials: merchant });
      const foreign = await call(`/v1/organizations/account-groups/${created.body.id}`, { credentials: other });
      const missing = await call(`/v1/organizations/account-groups/${randomUUID()}`, { credentials: other });
      assert.equal(foreign.status, 404);
      assert.deepEqual(foreign.body, missing.body);
    });
  });
});
