/**
 * Banking connectivity on the real stack: banking accounts, transfer rules at their
 * boundaries, idempotency (replays and 20 concurrent duplicates), the workflow lifecycle to
 * COMPLETED and FAILED, sealed account numbers and cross-organization isolation.
 * scripts/test.js shrinks the rails' settlement delays (BANKING_SETTLEMENT_TIME_SCALE).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { once } from 'node:events';
import { verifyWebhookSignature } from '../../domain/webhooks';
import type { IssuedCredentials } from '../../domain/credentials';
import { call, CallResult, getStack, newMerchant, TestStack, errorBody } from '../support/stack';
import { uuidFromKey } from '../../domain/ids';

const US_DESTINATION = { account_number: '123456789012', routing_number: '021000021', account_name: 'Jane Payee', bank_name: 'Chase' };

describe('banking connectivity (integration)', function () {
  let stack: TestStack;
  let merchant: IssuedCredentials;
  let other: IssuedCredentials;
  let us: any;
  let uk: any;
  let au: any;

  async function createAccount(credentials: IssuedCredentials, body: Record<string, unknown>) {
    const response = await call('/v1/banking/accounts', { body: { account_id: credentials.account_id, provider: 'SANDBOX_BANK', ...body }, credentials });
    assert.equal(response.status, 201, response.text);
    return response.body;
  }

  function transfer(body: Record<string, unknown>, options: { key?: string; credentials?: IssuedCredentials } = {}): Promise<CallResult> {
    const credentials = options.credentials ?? merchant;
    return call('/v1/banking/transfers', { body, credentials, headers: { 'x-idempotency-key': options.key ?? randomUUID() } });
  }

  const usTransfer = (overrides: Record<string, unknown> = {}) => ({
    account_id: merchant.account_id,
    source_account_id: us.id,
    direction: 'OUTGOING',
    amount: { value: 125.5, currency: 'USD' },
    payment_rail: 'RTP',
    destination_account: US_DESTINATION,
    description: 'Supplier payout',
    merchant_transfer_id: `po-${randomUUID()}`,
    ...overrides,
  });

  async function settled(accountId: string, transferId: string, credentials = merchant) {
    for (let i = 0; i < 100; i++) {
      const response = await call(`/v1/banking/accounts/${accountId}/transfers/${transferId}`, { credentials });
      if (response.body.status === 'COMPLETED' || response.body.status === 'FAILED') return response.body;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`transfer ${transferId} did not settle`);
  }

  before(async function () {
    this.timeout(120_000);
    stack = await getStack();
    merchant = await newMerchant('Banking merchant');
    other = await newMerchant('Banking other');
    us = await createAccount(merchant, { currency: 'USD', region: 'US', name: 'Operating USD', account_number: '000111222333' });
    uk = await createAccount(merchant, { currency: 'GBP', region: 'UK' });
    au = await createAccount(merchant, { currency: 'AUD', region: 'AU' });
  });

  describe('banking accounts', () => {
    it('registers an account with a provider id and only the last 4 digits of its number', async () => {
      assert.equal(us.account_id, merchant.account_id);
      assert.equal(us.region, 'US');
      assert.equal(us.currency, 'USD');
      assert.equal(us.provider, 'SANDBOX_BANK');
      assert.match(us.provider_account_id, /^sbk_acc_/);
      assert.equal(us.account_number_last_4, '2333');
      assert.equal(us.account_number, undefined);
      assert.equal(us.status, 'ACTIVE');
      const stored = await stack.db.collection('banking_accounts').findOne({ _id: us.id });
      assert.ok(stored && !JSON.stringify(stored).includes('000111222333'));
      const read = await call(`/v1/banking/accounts/${us.id}`, { credentials: merchant });
      assert.deepEqual(read.body, us);
    });

    it('validates region, currency and provider; 404 ACCOUNT_NOT_FOUND for another organization\'s account_id', async () => {
      for (const body of [
        { account_id: merchant.account_id, currency: 'USD', region: 'EU', provider: 'SANDBOX_BANK' },
        { account_id: merchant.account_id, currency: 'usd', region: 'US', provider: 'SANDBOX_BANK' },
        { account_id: merchant.account_id, currency: 'USD', region: 'US', provider: 'sandbox' },
        { account_id: merchant.account_id, currency: 'USD', region: 'US' },
      ]) {
        const response = await call('/v1/banking/accounts', { body, credentials: merchant });
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.equal(response.body.code, 'VALIDATION_ERROR');
        assert.equal(response.body.http_code, 400);
        assert.ok(Array.isArray(response.body.messages));
      }
      const foreign = await call('/v1/banking/accounts', { body: { account_id: other.account_id, currency: 'USD', region: 'US', provider: 'SANDBOX_BANK' }, credentials: merchant });
      assert.equal(foreign.status, 404);
      assert.deepEqual(errorBody(foreign.body), { code: 'ACCOUNT_NOT_FOUND', messages: ['account_id not found'], http_code: 404 });
      const hidden = await call(`/v1/banking/accounts/${us.id}`, { credentials: other });
      assert.equal(hidden.status, 404);
      assert.equal(hidden.body.code, 'ACCOUNT_NOT_FOUND');
    });
  });

  describe('transfer initiation', () => {
    it('202 PENDING with account_number replaced by account_number_last_4, and the full number stored nowhere in clear', async () => {
      const body = usTransfer();
      const response = await transfer(body);
      assert.equal(response.status, 202, response.text);
      const t = response.body;
      assert.match(t.id, /^[0-9a-f-]{36}$/);
      assert.equal(t.status, 'PENDING');
      assert.equal(t.direction, 'OUTGOING');
      assert.equal(t.account_id, merchant.account_id);
      assert.equal(t.source_account_id, us.id);
      assert.equal(t.destination_account_id, null);
      assert.equal(t.merchant_transfer_id, body.merchant_transfer_id);
      assert.deepEqual(t.amount, { value: 125.5, currency: 'USD' });
      assert.equal(t.payment_rail, 'RTP');
      assert.equal(t.description, 'Supplier payout');
      assert.equal(t.provider.account_id, us.provider_account_id);
      assert.deepEqual(t.destination_account, {
        account_number_last_4: '9012', routing_number: '021000021', iban: null, bsb: null, swift: null, sort_code: null, account_name: 'Jane Payee', bank_name: 'Chase',
      });
      assert.equal(t.failure, null);
      assert.deepEqual(t.events.map((e: { type: string }) => e.type), ['banking_transfer.pending']);
      assert.equal(response.headers.get('location'), `/v1/banking/accounts/${merchant.account_id}/transfers/${t.id}`);
      assert.ok(!response.text.includes(US_DESTINATION.account_number));
      await settled(merchant.account_id, t.id);
      const stored = JSON.stringify(await stack.db.collection('banking_transfers').findOne({ _id: t.id }));
      assert.ok(stored.includes('9012'));
      assert.ok(!stored.includes(US_DESTINATION.account_number), 'account number stored in clear');
    });

    it('reaches COMPLETED through PROCESSING, with the provider transfer id and ordered events', async () => {
      const response = await transfer(usTransfer({ payment_rail: 'ACH_STANDARD' }));
      const done = await settled(merchant.account_id, response.body.id);
      assert.equal(done.status, 'COMPLETED');
      assert.equal(done.failure, null);
      assert.match(done.provider.transfer_id, /^sbk_tr_[0-9a-f]{24}$/);
      assert.ok(done.completed_at >= done.created_at);
      assert.deepEqual(done.events.map((e: { status: string }) => e.status), ['PENDING', 'PROCESSING', 'COMPLETED']);
      const times = done.events.map((e: { created_at: string }) => e.created_at);
      assert.deepEqual(times, [...times].sort());
      const events = await stack.db.collection('banking_transfer_events').find({ transfer_id: done.id }).toArray();
      assert.deepEqual(events.map((e) => e.type).sort(), ['banking_transfer.completed', 'banking_transfer.pending', 'banking_transfer.processing']);
    });

    it('sends signed progress webhooks to the account webhook URL, without destination details', async () => {
      const received: Array<{ signature: string; body: string }> = [];
      const server = http.createServer((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => (received.push({ signature: String(req.headers['switchyard-signature']), body }), res.writeHead(204).end()));
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      try {
        const hooked = await newMerchant('Banking webhooks');
        const account = await createAccount(hooked, { currency: 'USD', region: 'US' });
        const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/banking`;
        const endpoint = await call(`/v1/accounts/${hooked.account_id}/webhook`, { method: 'PUT', body: { url }, credentials: hooked });
        assert.equal(endpoint.status, 200);
        const response = await transfer({ ...usTransfer(), account_id: hooked.account_id, source_account_id: account.id }, { credentials: hooked });
        assert.equal(response.status, 202, response.text);
        await settled(hooked.account_id, response.body.id, hooked);
        for (let i = 0; i < 100 && received.length < 3; i++) await new Promise((r) => setTimeout(r, 100));
        const events = received.map((r) => JSON.parse(r.body));
        assert.deepEqual(events.map((e) => e.type).sort(), ['banking_transfer.completed', 'banking_transfer.pending', 'banking_transfer.processing']);
        for (const [i, event] of events.entries()) {
          assert.equal(event.data.id, response.body.id);
          assert.ok(verifyWebhookSignature(received[i].signature, received[i].body, endpoint.body.secret, Math.floor(Date.now() / 1000)));
          assert.ok(!received[i].body.includes(US_DESTINATION.account_number), 'account number in a webhook');
        }
      } finally {
        server.close();
      }
    });

    it('FAILED with ACCOUNT_CLOSED for a destination ending in 9999 and INSUFFICIENT_FUNDS for an amount ending in .13', async () => {
      const closed = await transfer(usTransfer({ destination_account: { ...US_DESTINATION, account_number: '55559999' } }));
      const poor = await transfer(usTransfer({ amount: { value: 1000.13, currency: 'USD' } }));
      const [closedDone, poorDone] = await Promise.all([settled(merchant.account_id, closed.body.id), settled(merchant.account_id, poor.body.id)]);
      assert.equal(closedDone.status, 'FAILED');
      assert.deepEqual(closedDone.failure, { code: 'ACCOUNT_CLOSED', message: 'the destination account is closed' });
      assert.deepEqual(closedDone.events.map((e: { status: string }) => e.status), ['PENDING', 'PROCESSING', 'FAILED']);
      assert.equal(poorDone.status, 'FAILED');
      assert.equal(poorDone.failure.code, 'INSUFFICIENT_FUNDS');
    });

    it('tags the workflow with search attributes and ends it with the final status', async () => {
      const body = usTransfer();
      const response = await transfer(body);
      await settled(merchant.account_id, response.body.id);
      let found: string[] = [];
      for (let i = 0; i < 50 && !found.length; i++) {
        found = [];
        for await (const wf of stack.temporal.workflow.list({ query: `ResourceType = 'banking_transfer' AND MerchantReference = '${body.merchant_transfer_id}' AND ResourceStatus = 'COMPLETED'` })) found.push(wf.workflowId);
        if (!found.length) await new Promise((r) => setTimeout(r, 200));
      }
      assert.equal(found.length, 1);
      assert.equal(found[0], `banking-transfer-${response.body.id}`, 'the workflow id carries the transfer id');
    });

    it('UK: iban, or account_number with sort_code; AU: account_number with bsb', async () => {
      const base = { account_id: merchant.account_id, direction: 'OUTGOING' };
      const ibanTransfer = await transfer({ ...base, source_account_id: uk.id, amount: { value: 10, currency: 'GBP' }, payment_rail: 'FPS', destination_account: { iban: 'GB82 WEST 1234 5698 7654 32' } });
      assert.equal(ibanTransfer.status, 202, ibanTransfer.text);
      assert.equal(ibanTransfer.body.destination_account.iban, 'GB82WEST12345698765432');
      assert.equal(ibanTransfer.body.destination_account.account_number_last_4, null);
      const stored = JSON.stringify(await stack.db.collection('banking_transfers').findOne({ _id: ibanTransfer.body.id }));
      assert.ok(!stored.includes('GB82WEST12345698765432'), 'IBAN (which holds the account number) stored in clear');
      const sortCode = await transfer({ ...base, source_account_id: uk.id, amount: { value: 10, currency: 'GBP' }, payment_rail: 'CHAPS', destination_account: { account_number: '31926819', sort_code: '60-16-13' } });
      assert.equal(sortCode.status, 202, sortCode.text);
      assert.equal(sortCode.body.destination_account.sort_code, '601613');
      assert.equal(sortCode.body.destination_account.account_number_last_4, '6819');
      const auTransfer = await transfer({ ...base, source_account_id: au.id, amount: { value: 10, currency: 'AUD' }, payment_rail: 'NPP', destination_account: { account_number: '12345678', bsb: '062-000' } });
      assert.equal(auTransfer.status, 202, auTransfer.text);
      assert.equal(auTransfer.body.destination_account.bsb, '062000');
      const read = await settled(merchant.account_id, ibanTransfer.body.id);
      assert.equal(read.destination_account.iban, 'GB82WEST12345698765432');
    });

    it('rejects every rule violation with 400 VALIDATION_ERROR in the banking shape', async () => {
      const base = usTransfer();
      const ukBase = { ...base, source_account_id: uk.id, amount: { value: 10, currency: 'GBP' }, payment_rail: 'FPS' };
      const auBase = { ...base, source_account_id: au.id, amount: { value: 10, currency: 'AUD' }, payment_rail: 'NPP' };
      const cases: Array<[string, Record<string, unknown>, RegExp]> = [
        ['source_account_id missing', { ...base, source_account_id: undefined }, /source_account_id is required/],
        ['account_id missing', { ...base, account_id: undefined }, /account_id is required/],
        ['neither destination', { ...base, destination_account: undefined }, /either destination_account or destination_account_id is required/],
        ['null destinations', { ...base, destination_account: null, destination_account_id: null }, /either destination_account or destination_account_id/],
        ['both destinations', { ...base, destination_account_id: uk.id }, /not both/],
        ['direction INCOMING', { ...base, direction: 'INCOMING' }, /direction must be one of OUTGOING/],
        ['direction missing', { ...base, direction: undefined }, /direction is required/],
        ['unknown rail', { ...base, payment_rail: 'SEPA' }, /payment_rail must be one of/],
        ['rail of another region', { ...base, payment_rail: 'FPS' }, /FPS is not available in region US/],
        ['AU rail on UK', { ...ukBase, payment_rail: 'NPP' }, /NPP is not available in region UK/],
        ['currency differs from source', { ...base, amount: { value: 10, currency: 'EUR' } }, /must equal the source account currency USD/],
        ['amount zero', { ...base, amount: { value: 0, currency: 'USD' } }, /amount\.value must be greater than 0/],
        ['amount negative', { ...base, amount: { value: -1, currency: 'USD' } }, /amount\.value/],
        ['amount 5 decimals', { ...base, amount: { value: 1.00001, currency: 'USD' } }, /amount\.value/],
        ['amount beyond cents', { ...base, amount: { value: 1.001, currency: 'USD' } }, /at most 2 decimal places for USD/],
        ['amount above the maximum', { ...base, amount: { value: 1e21, currency: 'USD' } }, /at most 9999999999999.99 USD/],
        ['currency not in ISO 4217', { ...base, amount: { value: 10, currency: 'ABC' } }, /ISO 4217/],
        ['US missing routing_number', { ...base, destination_account: { account_number: '123456789' } }, /routing_number is required for US/],
        ['US missing account_number', { ...base, destination_account: { routing_number: '021000021' } }, /account_number is required for US/],
        ['US bad routing checksum', { ...base, destination_account: { ...US_DESTINATION, routing_number: '021000022' } }, /valid 9-digit ABA/],
        ['US iban only', { ...base, destination_account: { iban: 'GB82WEST12345698765432' } }, /account_number is required for US/],
        ['UK account_number without sort_code', { ...ukBase, destination_account: { account_number: '31926819' } }, /sort_code is required for UK/],
        ['UK sort_code without account_number', { ...ukBase, destination_account: { sort_code: '601613' } }, /account_number is required for UK/],
        ['UK bad IBAN checksum', { ...ukBase, destination_account: { iban: 'GB82WEST12345698765433' } }, /valid GB IBAN/],
        ['UK foreign IBAN', { ...ukBase, destination_account: { iban: 'DE89370400440532013000' } }, /valid GB IBAN/],
        ['UK 7-digit account', { ...ukBase, destination_account: { account_number: '3192681', sort_code: '601613' } }, /8 digits/],
        ['AU missing bsb', { ...auBase, destination_account: { account_number: '12345678' } }, /bsb is required for AU/],
        ['AU 10-digit account', { ...auBase, destination_account: { account_number: '1234567890', bsb: '062000' } }, /5 to 9 digits/],
        ['description too short', { ...base, description: 'ab' }, /description must be 3 to 255/],
        ['description too long', { ...base, description: 'x'.repeat(256) }, /description must be 3 to 255/],
      ];
      for (const [label, body, message] of cases) {
        const response = await transfer(body);
        assert.equal(response.status, 400, `${label}: ${response.text}`);
        assert.deepEqual(Object.keys(response.body).sort(), ['code', 'doc_url', 'http_code', 'messages'], label);
        assert.equal(response.body.code, 'VALIDATION_ERROR', label);
        assert.equal(response.body.http_code, 400, label);
        assert.ok(response.body.messages.some((m: string) => message.test(m)), `${label}: ${JSON.stringify(response.body.messages)}`);
      }
      const longest = await transfer({ ...base, description: 'x'.repeat(255) });
      assert.equal(longest.status, 202);
      const smallest = await transfer({ ...base, amount: { value: 0.01, currency: 'USD' } });
      assert.equal(smallest.status, 202);
    });

    it('accepts destination numbers and references at their length limits and refuses one past them', async () => {
      const ukBase = { ...usTransfer(), source_account_id: uk.id, amount: { value: 10, currency: 'GBP' }, payment_rail: 'BACS' };
      const auBase = { ...usTransfer(), source_account_id: au.id, amount: { value: 10, currency: 'AUD' }, payment_rail: 'BPAY' };
      const accepted: Array<[string, Record<string, unknown>]> = [
        ['US 4 digits', usTransfer({ destination_account: { ...US_DESTINATION, account_number: '1234' } })],
        ['US 17 digits', usTransfer({ destination_account: { ...US_DESTINATION, account_number: '1'.repeat(17) } })],
        ['AU 5 digits', { ...auBase, destination_account: { account_number: '12345', bsb: '062000' } }],
        ['AU 9 digits', { ...auBase, destination_account: { account_number: '123456789', bsb: '062000' } }],
        ['UK 8 digits', { ...ukBase, destination_account: { account_number: '12345678', sort_code: '123456' } }],
        ['merchant_transfer_id 255', usTransfer({ merchant_transfer_id: 'm'.repeat(255) })],
        ['description 3', usTransfer({ description: 'abc' })],
      ];
      for (const [label, body] of accepted) assert.equal((await transfer(body)).status, 202, label);
      const refused: Array<[string, Record<string, unknown>]> = [
        ['US 3 digits', usTransfer({ destination_account: { ...US_DESTINATION, account_number: '123' } })],
        ['US 18 digits', usTransfer({ destination_account: { ...US_DESTINATION, account_number: '1'.repeat(18) } })],
        ['AU 4 digits', { ...auBase, destination_account: { account_number: '1234', bsb: '062000' } }],
        ['UK 9 digits', { ...ukBase, destination_account: { account_number: '123456789', sort_code: '123456' } }],
        ['UK 5-digit sort code', { ...ukBase, destination_account: { account_number: '12345678', sort_code: '12345' } }],
        ['AU 5-digit bsb', { ...auBase, destination_account: { account_number: '12345', bsb: '06200' } }],
        ['merchant_transfer_id 256', usTransfer({ merchant_transfer_id: 'm'.repeat(256) })],
        ['merchant_transfer_id empty', usTransfer({ merchant_transfer_id: '' })],
        ['swift 9 characters', usTransfer({ destination_account: { ...US_DESTINATION, swift: 'CHASUS33X' } })],
      ];
      for (const [label, body] of refused) {
        const response = await transfer(body);
        assert.equal(response.status, 400, label);
        assert.equal(response.body.code, 'VALIDATION_ERROR', label);
      }
    });

    it('404 ACCOUNT_NOT_FOUND for an unknown or foreign source, account_id or destination_account_id', async () => {
      const foreignSource = await createAccount(other, { currency: 'USD', region: 'US' });
      const cases: Array<[Record<string, unknown>, string]> = [
        [usTransfer({ source_account_id: randomUUID() }), 'source account not found'],
        [usTransfer({ source_account_id: foreignSource.id }), 'source account not found'],
        [usTransfer({ account_id: other.account_id }), 'account_id not found'],
        [usTransfer({ destination_account: undefined, destination_account_id: foreignSource.id }), 'destination account not found'],
      ];
      for (const [body, message] of cases) {
        const response = await transfer(body);
        assert.equal(response.status, 404, response.text);
        assert.deepEqual(errorBody(response.body), { code: 'ACCOUNT_NOT_FOUND', messages: [message], http_code: 404 });
      }
    });

    it('book transfers go between accounts of the same provider and currency', async () => {
      const sibling = await createAccount(merchant, { currency: 'USD', region: 'US', name: 'Reserve' });
      const book = await transfer(usTransfer({ destination_account: undefined, destination_account_id: sibling.id, payment_rail: 'WIRE' }));
      assert.equal(book.status, 202, book.text);
      assert.equal(book.body.destination_account_id, sibling.id);
      assert.equal(book.body.destination_account, null);
      const done = await settled(merchant.account_id, book.body.id);
      assert.equal(done.status, 'COMPLETED');
      const otherProvider = await createAccount(merchant, { currency: 'USD', region: 'US', provider: 'OTHER_BANK' });
      for (const [target, message] of [[otherProvider.id, /same provider/], [us.id, /must differ from source_account_id/], [uk.id, /same currency/]] as const) {
        const response = await transfer(usTransfer({ destination_account: undefined, destination_account_id: target }));
        assert.equal(response.status, 400);
        assert.ok(response.body.messages.some((m: string) => message.test(m)), JSON.stringify(response.body.messages));
      }
    });
  });

  describe('idempotency', () => {
    it('requires x-idempotency-key as a UUID', async () => {
      const missing = await call('/v1/banking/transfers', { body: usTransfer(), credentials: merchant });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.code, 'VALIDATION_ERROR');
      assert.equal(missing.body.http_code, 400);
      assert.match(missing.body.messages[0], /X-Idempotency-Key header is required/);
      const notUuid = await transfer(usTransfer(), { key: 'not-a-uuid' });
      assert.equal(notUuid.status, 400);
      assert.match(notUuid.body.messages[0], /must be a UUID/);
    });

    it('replays the original transfer for the same key, even with another body', async () => {
      const key = randomUUID();
      const body = usTransfer();
      const first = await transfer(body, { key });
      const again = await transfer(body, { key });
      const changed = await transfer({ ...body, amount: { value: 999, currency: 'USD' } }, { key });
      assert.equal(first.status, 202);
      assert.deepEqual(again.body, first.body);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(changed.status, 202);
      assert.equal(changed.body.id, first.body.id);
      assert.equal(changed.body.amount.value, 125.5);
      assert.equal(await stack.db.collection('banking_transfers').countDocuments({ merchant_transfer_id: body.merchant_transfer_id }), 1);
    });

    it('20 concurrent duplicates create exactly one transfer', async () => {
      const key = randomUUID();
      const body = usTransfer();
      const responses = await Promise.all(Array.from({ length: 20 }, () => transfer(body, { key })));
      const accepted = responses.filter((r) => r.status === 202);
      const inProcess = responses.filter((r) => r.status === 400);
      assert.equal(accepted.length + inProcess.length, 20, `statuses ${responses.map((r) => r.status)}`);
      assert.ok(accepted.length >= 1);
      assert.equal(new Set(accepted.map((r) => r.body.id)).size, 1);
      for (const r of inProcess) assert.deepEqual([r.body.code, r.body.http_code], ['REQUEST_IN_PROCESS', 400]);
      const after = await transfer(body, { key });
      assert.equal(after.body.id, accepted[0].body.id);
      assert.equal(await stack.db.collection('banking_transfers').countDocuments({ merchant_transfer_id: body.merchant_transfer_id }), 1);
    });

    it('keys are scoped per organization', async () => {
      const key = randomUUID();
      const mine = await transfer(usTransfer(), { key });
      const theirUs = await createAccount(other, { currency: 'USD', region: 'US' });
      const theirs = await transfer({ ...usTransfer(), account_id: other.account_id, source_account_id: theirUs.id }, { key, credentials: other });
      assert.equal(theirs.status, 202, theirs.text);
      assert.notEqual(theirs.body.id, mine.body.id);
    });
  });

  describe('when no worker confirms the transfer', () => {
    it('answers 503 after the bounded wait and releases the idempotency key', async function () {
      this.timeout(40_000);
      const { startApi } = await import('../../api/server');
      const { testConfig } = await import('../support/stack');
      const { createLogger } = await import('../../activities/runtime/logger');
      // An API whose task queue no worker polls: the workflow starts but never records.
      const api = await startApi({ config: testConfig({ taskQueue: `idle-${randomUUID()}`, lifecycleSyncWaitMs: 2_000 }), keyring: stack.keyring, db: stack.db, temporal: stack.temporal, logger: createLogger('silent') });
      const key = randomUUID();
      try {
        const started = Date.now();
        const response = await call('/v1/banking/transfers', { body: usTransfer(), credentials: merchant, headers: { 'x-idempotency-key': key } }, api.url);
        assert.equal(response.status, 503);
        assert.equal(response.body.code, 'SERVICE_UNAVAILABLE');
        assert.equal(response.body.http_code, 503);
        assert.match(response.body.messages[0], /retry it with the same X-Idempotency-Key/);
        assert.ok(Date.now() - started >= 1_900);
        assert.equal(await stack.db.collection('idempotency_keys').countDocuments({ _id: `${merchant.organization_code}:POST /v1/banking/transfers:${key}` as never }), 0);
      } finally {
        await api.close();
        await stack.temporal.workflow.getHandle(`banking-transfer-${uuidFromKey('banking-transfer', merchant.organization_code, key)}`).terminate('test cleanup').catch(() => undefined);
      }
    });
  });

  describe('transfer status lookup', () => {
    it("another organization's transfer answers exactly like a missing one", async () => {
      const created = await transfer(usTransfer());
      const foreign = await call(`/v1/banking/accounts/${merchant.account_id}/transfers/${created.body.id}`, { credentials: other });
      const missingAccount = await call(`/v1/banking/accounts/${randomUUID()}/transfers/${created.body.id}`, { credentials: other });
      assert.equal(foreign.status, 404);
      assert.deepEqual(foreign.body, missingAccount.body);
      assert.deepEqual(errorBody(foreign.body), { code: 'ACCOUNT_NOT_FOUND', messages: ['account not found'], http_code: 404 });
      const otherAccount = await call(`/v1/banking/accounts/${other.account_id}/transfers/${created.body.id}`, { credentials: other });
      const missingTransfer = await call(`/v1/banking/accounts/${other.account_id}/transfers/${randomUUID()}`, { credentials: other });
      assert.deepEqual(otherAccount.body, missingTransfer.body);
      assert.deepEqual(errorBody(otherAccount.body), { code: 'TRANSFER_NOT_FOUND', messages: ['transfer not found'], http_code: 404 });
    });

    it('finds a transfer under its account_id or its source banking account, not under another account', async () => {
      const created = await transfer(usTransfer());
      const bySource = await call(`/v1/banking/accounts/${us.id}/transfers/${created.body.id}`, { credentials: merchant });
      assert.equal(bySource.status, 200);
      assert.equal(bySource.body.id, created.body.id);
      const underOtherAccount = await call(`/v1/banking/accounts/${uk.id}/transfers/${created.body.id}`, { credentials: merchant });
      assert.equal(underOtherAccount.status, 404);
      assert.equal(underOtherAccount.body.code, 'TRANSFER_NOT_FOUND');
      const foreignSource = await call(`/v1/banking/accounts/${us.id}/transfers/${created.body.id}`, { credentials: other });
      assert.deepEqual(errorBody(foreignSource.body), { code: 'ACCOUNT_NOT_FOUND', messages: ['account not found'], http_code: 404 });
    });

    it('reads a transfer with a whitelabel embed token of the organization', async () => {
      const created = await transfer(usTransfer());
      const user = await call('/v1/organizations/users', { body: { name: 'Treasury viewer', email: `t-${randomUUID()}@example.com` }, credentials: merchant });
      const token = await call('/v1/organizations/authenticate', { body: { user_id: user.body.id }, credentials: merchant });
      const read = await call(`/v1/banking/accounts/${merchant.account_id}/transfers/${created.body.id}`, { headers: { authorization: `Bearer ${token.body.access_token}` } });
      assert.equal(read.status, 200);
      assert.equal(read.body.id, created.body.id);
      const write = await call('/v1/banking/transfers', { body: usTransfer(), headers: { authorization: `Bearer ${token.body.access_token}`, 'x-idempotency-key': randomUUID() } });
      assert.equal(write.status, 401);
    });
  });
});
