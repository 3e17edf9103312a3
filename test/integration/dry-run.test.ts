import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { Client } from '@temporalio/client';
import pino from 'pino';
import { startApi } from '../../api/server';
import { startWorker } from '../../activities/worker';
import { EncryptionCodec } from '../../activities/runtime/payload-codec';
import type { IssuedCredentials } from '../../domain/credentials';
import { DRY_RUN_LIMITS } from '../../domain/dry-run/codecs';
import { PAYMENT_METHOD_TYPES } from '../../domain/payments/methods';
import { PROVIDER_CODES } from '../../domain/providers/catalogue';
import { call, getStack, newMerchant, testConfig, TestStack } from '../support/stack';
import { b64, requestEvent, responseEvent, sandboxRequestBody, TEST_CVV, TEST_PAN, TEST_TOKEN, webhookEvent } from '../support/dry-run-fixtures';
import { dryRunPay, getRegistration, paymentFor, register, registrationBody, sandboxExchange, uniqueReference, waitForRegistration } from '../support/dry-run';
import { pay } from '../support/payments';

const ID = /^[A-Za-z0-9_-]{21}$/;

describe('dry-run (integration)', function () {
  this.timeout(90_000);
  let stack: TestStack;
  let merchant: IssuedCredentials;
  let other: IssuedCredentials;

  before(async () => {
    stack = await getStack();
    merchant = await newMerchant('Dry-run merchant');
    other = await newMerchant('Other organization');
  });

  const expectError = (r: { status: number; body: any }, status: number, code: string) => {
    assert.equal(r.status, status, JSON.stringify(r.body));
    assert.equal(r.body.code, code, JSON.stringify(r.body));
    assert.equal(r.body.httpCode, status);
    assert.ok(Array.isArray(r.body.messages) && r.body.messages.length > 0);
  };

  describe('registration', () => {
    it('201 with a 21-character id, REGISTERED, the resolved account and the operation type', async () => {
      const reference = uniqueReference();
      const r = await register(merchant, registrationBody(reference, { payment_method_type: 'CARD' }));
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.match(r.body.id, ID);
      assert.deepEqual(r.body, {
        id: r.body.id, status: 'REGISTERED', merchant_reference: reference, payment_id: null, account_id: merchant.account_id,
        provider_id: 'SANDBOX', payment_method_type: 'CARD', operation_type: 'PURCHASE',
      });
      assert.equal(r.headers.get('location'), `/v1/dry-run/provider-events/${r.body.id}`);
    });

    it('one of the two keys is enough; none answers NOT_AUTHENTICATED, a wrong one AuthenticationFail', async () => {
      const onlyPublic = await call('/v1/dry-run/provider-events', { body: registrationBody(uniqueReference()), headers: { 'PUBLIC-API-KEY': merchant.public_api_key } });
      assert.equal(onlyPublic.status, 201, JSON.stringify(onlyPublic.body));
      const onlySecret = await call('/v1/dry-run/provider-events', { body: registrationBody(uniqueReference()), headers: { 'PRIVATE-SECRET-KEY': merchant.private_secret_key } });
      assert.equal(onlySecret.status, 201);
      expectError(await call('/v1/dry-run/provider-events', { body: registrationBody(uniqueReference()) }), 401, 'NOT_AUTHENTICATED');
      expectError(await call('/v1/dry-run/provider-events', { body: registrationBody(uniqueReference()), headers: { 'private-secret-key': 'sk_wrong' } }), 401, 'AuthenticationFail');
      expectError(await call('/v1/dry-run/provider-events', { body: registrationBody(uniqueReference()), headers: { 'public-api-key': merchant.public_api_key, 'private-secret-key': other.private_secret_key } }), 401, 'AuthenticationFail');
    });

    it('415 TRAFFIC_LOG_UNSUPPORTED_CONTENT_TYPE for a non-JSON content type', async () => {
      const r = await call('/v1/dry-run/provider-events', { rawBody: JSON.stringify(registrationBody(uniqueReference())), headers: { 'content-type': 'text/plain' }, credentials: merchant });
      expectError(r, 415, 'TRAFFIC_LOG_UNSUPPORTED_CONTENT_TYPE');
    });

    it('idempotency: same key + payload replays, another payload 409, key up to 64 characters', async () => {
      const body = registrationBody(uniqueReference());
      const key = 'k'.repeat(64);
      const first = await register(merchant, body, { 'X-Idempotency-Key': key });
      const again = await register(merchant, body, { 'X-Idempotency-Key': key });
      assert.equal(first.status, 201);
      assert.equal(again.status, 201);
      assert.equal(again.body.id, first.body.id);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      expectError(await register(merchant, registrationBody(uniqueReference()), { 'X-Idempotency-Key': key }), 409, 'TRAFFIC_LOG_IDEMPOTENCY_REPLAY');
      const tooLong = await register(merchant, registrationBody(uniqueReference()), { 'X-Idempotency-Key': 'k'.repeat(65) });
      assert.equal(tooLong.status, 400);
      assert.equal(tooLong.body.httpCode, 400);
    });

    it('merchant_reference: required, 3..255, unique per account (a retry of the same payload is not a duplicate)', async () => {
      expectError(await register(merchant, { events: sandboxExchange('x') }), 400, 'TRAFFIC_LOG_MERCHANT_REFERENCE_REQUIRED');
      expectError(await register(merchant, registrationBody('ab')), 400, 'TRAFFIC_LOG_VALIDATION_FAILED');
      assert.equal((await register(merchant, registrationBody(`a${uniqueReference()}`.slice(0, 3)))).status, 201);
      const long = uniqueReference().padEnd(255, 'x');
      assert.equal((await register(merchant, registrationBody(long))).status, 201);
      expectError(await register(merchant, registrationBody(`${long}x`)), 400, 'TRAFFIC_LOG_VALIDATION_FAILED');
      const reference = uniqueReference();
      const first = await register(merchant, registrationBody(reference));
      const retry = await register(merchant, registrationBody(reference));
      assert.equal(retry.body.id, first.body.id);
      const duplicate = await register(merchant, { ...registrationBody(reference), payment_method_type: 'CARD' });
      expectError(duplicate, 400, 'TRAFFIC_LOG_SEMANTIC_INVALID');
      assert.match(duplicate.body.messages[0], new RegExp(first.body.id));
      // Unique per account, not globally.
      assert.equal((await register(other, registrationBody(reference))).status, 201);
    });

    it('events: 1 to 10', async () => {
      expectError(await register(merchant, registrationBody(uniqueReference(), { events: [] })), 400, 'TRAFFIC_LOG_VALIDATION_FAILED');
      const ten = Array.from({ length: 10 }, () => requestEvent(sandboxRequestBody()));
      assert.equal((await register(merchant, registrationBody(uniqueReference(), { events: ten }))).status, 201);
      expectError(await register(merchant, registrationBody(uniqueReference(), { events: [...ten, requestEvent()] })), 400, 'TRAFFIC_LOG_VALIDATION_FAILED');
    });

    it('event enums, base_url origin, endpoint, and the type-dependent fields', async () => {
      const bad = (patch: Record<string, unknown>, index = 0) => {
        const events = sandboxExchange('x') as any[];
        events[index] = { ...events[index], ...patch };
        for (const [k, v] of Object.entries(patch)) if (v === undefined) delete events[index][k];
        return register(merchant, registrationBody(uniqueReference(), { events }));
      };
      const wrongEnum = await bad({ operation_type: 'SALE' });
      expectError(wrongEnum, 400, 'TRAFFIC_LOG_VALIDATION_FAILED');
      assert.match(wrongEnum.body.messages[0], /events\.0\.operation_type/);
      expectError(await bad({ type: 'NOTIFICATION' }), 400, 'TRAFFIC_LOG_VALIDATION_FAILED');
      expectError(await bad({ http_method: 'HEAD' }), 400, 'TRAFFIC_LOG_VALIDATION_FAILED');
      expectError(await bad({ base_url: 'https://gateway.example/v1' }), 400, 'TRAFFIC_LOG_VALIDATION_FAILED');
      assert.equal((await bad({ base_url: 'https://gateway.example:8443' })).status, 201);
      expectError(await bad({ base_url: undefined }), 400, 'TRAFFIC_LOG_SEMANTIC_INVALID');
      expectError(await bad({ endpoint: undefined }), 400, 'TRAFFIC_LOG_SEMANTIC_INVALID');
      expectError(await bad({ http_status_code: 200 }), 400, 'TRAFFIC_LOG_SEMANTIC_INVALID');
      expectError(await bad({ http_status_code: undefined }, 1), 400, 'TRAFFIC_LOG_SEMANTIC_INVALID');
      for (const ok of [100, 599]) assert.equal((await bad({ http_status_code: ok }, 1)).status, 201);
      for (const out of [99, 600]) expectError(await bad({ http_status_code: out }, 1), 400, 'TRAFFIC_LOG_VALIDATION_FAILED');
      expectError(await bad({ body: '%%%not-base64' }), 400, 'TRAFFIC_LOG_VALIDATION_FAILED');
    });

    it('provider_id from the catalogue, payment_method_type from the vocabulary', async () => {
      expectError(await register(merchant, registrationBody(uniqueReference(), { provider_id: 'NOT_A_PROVIDER' })), 400, 'TRAFFIC_LOG_SEMANTIC_INVALID');
      expectError(await register(merchant, registrationBody(uniqueReference(), { payment_method_type: 'PIGEON' })), 400, 'TRAFFIC_LOG_VALIDATION_FAILED');
      const empty = await register(merchant, registrationBody(uniqueReference(), { payment_method_type: '', provider_id: 'ADYEN' }));
      assert.equal(empty.status, 201);
      assert.equal(empty.body.payment_method_type, '');
    });

    it('accepts every catalogue code and every vocabulary value; refuses others with the spec\'s error', async () => {
      // 50 registrations cover the 50 codes and, cycling, the 33 vocabulary values. One at a
      // time: each starts a pairing workflow, and a burst would slow the tests that follow.
      assert.ok(PROVIDER_CODES.length >= PAYMENT_METHOD_TYPES.length);
      for (const [i, provider_id] of PROVIDER_CODES.entries()) {
        const payment_method_type = PAYMENT_METHOD_TYPES[i % PAYMENT_METHOD_TYPES.length];
        const r = await register(merchant, registrationBody(uniqueReference('cat'), { provider_id, payment_method_type }));
        assert.equal(r.status, 201, `${provider_id} / ${payment_method_type}: ${JSON.stringify(r.body)}`);
        assert.deepEqual([r.body.provider_id, r.body.payment_method_type], [provider_id, payment_method_type]);
      }
      for (const provider_id of ['GENERIC', 'STRIPE_V2', 'PAYPAL_BRAINTREE']) {
        const r = await register(merchant, registrationBody(uniqueReference(), { provider_id }));
        expectError(r, 400, 'TRAFFIC_LOG_SEMANTIC_INVALID');
        assert.match(r.body.messages.join(' '), new RegExp(`provider_id ${provider_id} is not in the provider catalogue`));
      }
      for (const provider_id of ['adyen', 'Mercado Pago']) expectError(await register(merchant, registrationBody(uniqueReference(), { provider_id })), 400, 'TRAFFIC_LOG_VALIDATION_FAILED');
      for (const payment_method_type of ['WALLET', 'apple_pay', 'PIX ', 'KHIPU']) {
        const r = await register(merchant, registrationBody(uniqueReference(), { payment_method_type }));
        expectError(r, 400, 'TRAFFIC_LOG_VALIDATION_FAILED');
        assert.ok(r.body.messages.some((m: string) => m.startsWith('payment_method_type')), JSON.stringify(r.body));
      }
    });

    it('headers: 64 KB decoded is legal; one byte more, or past 87,400 encoded characters, is 413', async () => {
      const headersOf = (bytes: number) => {
        const frame = JSON.stringify({ 'Content-Type': 'application/json', 'X-Pad': '' });
        return b64(JSON.stringify({ 'Content-Type': 'application/json', 'X-Pad': 'p'.repeat(bytes - frame.length) }));
      };
      const at = headersOf(DRY_RUN_LIMITS.headersDecodedBytes);
      assert.ok(at.length <= DRY_RUN_LIMITS.headersEncodedChars);
      const events = (h: string) => [{ ...sandboxExchange('x')[0], headers: h }];
      assert.equal((await register(merchant, registrationBody(uniqueReference(), { events: events(at) }))).status, 201);
      expectError(await register(merchant, registrationBody(uniqueReference(), { events: events(headersOf(DRY_RUN_LIMITS.headersDecodedBytes + 1)) })), 413, 'TRAFFIC_LOG_PAYLOAD_TOO_LARGE');
      expectError(await register(merchant, registrationBody(uniqueReference(), { events: events('A'.repeat(DRY_RUN_LIMITS.headersEncodedChars + 4)) })), 413, 'TRAFFIC_LOG_PAYLOAD_TOO_LARGE');
    });

    it('body: 1,398,000 encoded characters is legal, 4 more is 413', async () => {
      const text = (chars: number) => [{ ...sandboxExchange('x')[0], headers: b64({ 'Content-Type': 'text/plain' }), body: 'QUFB'.repeat(chars / 4) }];
      const at = await register(merchant, registrationBody(uniqueReference(), { events: text(DRY_RUN_LIMITS.bodyEncodedChars) }));
      assert.equal(at.status, 201, JSON.stringify(at.body).slice(0, 300));
      const stored = await getRegistration(merchant, at.body.id);
      assert.equal(stored.body.events[0].body.encoded_bytes, (DRY_RUN_LIMITS.bodyEncodedChars / 4) * 3);
      expectError(await register(merchant, registrationBody(uniqueReference(), { events: text(DRY_RUN_LIMITS.bodyEncodedChars + 4) })), 413, 'TRAFFIC_LOG_PAYLOAD_TOO_LARGE');
    });

    it('a body that contradicts its Content-Type or Content-Encoding is TRAFFIC_LOG_BODY_ENCODING_MISMATCH', async () => {
      const events = [{ ...sandboxExchange('x')[0], headers: b64({ 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }), body: b64('{"not":"gzipped"}') }];
      const r = await register(merchant, registrationBody(uniqueReference(), { events }));
      expectError(r, 400, 'TRAFFIC_LOG_BODY_ENCODING_MISMATCH');
      assert.match(r.body.messages[0], /events\.0/);
      const xml = [{ ...sandboxExchange('x')[0], headers: b64({ 'Content-Type': 'application/xml' }), body: b64('<a><b></a>') }];
      expectError(await register(merchant, registrationBody(uniqueReference(), { events: xml })), 400, 'TRAFFIC_LOG_BODY_ENCODING_MISMATCH');
    });

    it('payment_id: resolved at once, 404 PAYMENT_NOT_FOUND when unknown or of another organization, defaults taken from the payment', async () => {
      const missing = await register(merchant, registrationBody(uniqueReference(), { payment_id: '6a6f2b52-6e3d-4a53-9f4b-1c1b0a7e2d10' }));
      expectError(missing, 404, 'PAYMENT_NOT_FOUND');
      const reference = uniqueReference('real');
      const payment = await pay(merchant, TEST_PAN, { merchant_order_id: reference, amount: { currency: 'BRL', value: 150.5 }, payment_method: { type: 'CREDIT_CARD', detail: { card: { number: TEST_PAN, holder_name: 'ANA SILVA', expiration_month: 12, expiration_year: 2030, security_code: TEST_CVV, installments: 3 } } } });
      assert.equal(payment.status, 201, JSON.stringify(payment.body));
      const foreign = await register(other, registrationBody(uniqueReference(), { payment_id: payment.body.id }));
      assert.equal(foreign.status, 404);
      assert.deepEqual({ ...foreign.body, messages: [] }, { ...missing.body, messages: [] });
      const { provider_id: _p, ...withoutProvider } = registrationBody(reference, { payment_id: payment.body.id });
      const r = await register(merchant, withoutProvider);
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.equal(r.body.payment_id, payment.body.id);
      assert.equal(r.body.provider_id, 'SANDBOX');
      assert.equal(r.body.payment_method_type, 'CREDIT_CARD');
      // Correlated with the real payment: graded without any dry-run payment.
      const report = await waitForRegistration(merchant, r.body.id, (x) => x.status === 'VALIDATED');
      assert.equal(report.report.service_source, 'payment');
      assert.equal(report.report.verdict, 'PASS', JSON.stringify(report.report.findings));
    });

    it('payment_id with the public key alone: the same 401 for an own, a foreign and an unknown payment', async () => {
      const reference = uniqueReference('probe');
      const payment = await pay(merchant, TEST_PAN, { merchant_order_id: reference });
      assert.equal(payment.status, 201, JSON.stringify(payment.body));
      const publicOnly = (m: IssuedCredentials, paymentId: string, headers: Record<string, string> = {}) =>
        call('/v1/dry-run/provider-events', { body: registrationBody(uniqueReference(), { payment_id: paymentId }), headers: { 'PUBLIC-API-KEY': m.public_api_key, ...headers } });
      const own = await publicOnly(merchant, payment.body.id);
      const unknown = await publicOnly(merchant, '6a6f2b52-6e3d-4a53-9f4b-1c1b0a7e2d10');
      const foreign = await publicOnly(other, payment.body.id);
      for (const r of [own, unknown, foreign]) expectError(r, 401, 'NOT_AUTHENTICATED');
      assert.deepEqual(own.body, unknown.body);
      assert.deepEqual(foreign.body, unknown.body);
      assert.match(own.body.messages[0], /PRIVATE-SECRET-KEY/);
      // The secret key alone still resolves it; without payment_id the public key is enough.
      const withSecret = await call('/v1/dry-run/provider-events', { body: registrationBody(uniqueReference(), { payment_id: payment.body.id }), headers: { 'PRIVATE-SECRET-KEY': merchant.private_secret_key } });
      assert.equal(withSecret.status, 201, JSON.stringify(withSecret.body));
      assert.equal(withSecret.body.payment_id, payment.body.id);
      // A 401 is not kept under the idempotency key: the same request with the secret key is processed.
      const body = registrationBody(uniqueReference(), { payment_id: payment.body.id });
      const key = `probe-${uniqueReference()}`;
      expectError(await call('/v1/dry-run/provider-events', { body, headers: { 'PUBLIC-API-KEY': merchant.public_api_key, 'X-Idempotency-Key': key } }), 401, 'NOT_AUTHENTICATED');
      const retried = await call('/v1/dry-run/provider-events', { body, credentials: merchant, headers: { 'X-Idempotency-Key': key } });
      assert.equal(retried.status, 201, JSON.stringify(retried.body));
      const doc = (await call('/v1/openapi.json')).body.paths['/v1/dry-run/provider-events'].post;
      assert.match(doc.description, /payment_id.*PRIVATE-SECRET-KEY/s);
    });

    it('provider bodies nested past 64 levels (JSON, XML) answer 400 naming the limit, never a stack overflow', async () => {
      const json = [{ ...sandboxExchange('x')[0], body: b64(`{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}`) }];
      const r = await register(merchant, registrationBody(uniqueReference(), { events: json }));
      expectError(r, 400, 'TRAFFIC_LOG_VALIDATION_FAILED');
      assert.match(r.body.messages[0], /events\.0.*body.*deeper than 64 levels/);
      const xml = [{ ...sandboxExchange('x')[0], headers: b64({ 'Content-Type': 'application/xml' }), body: b64(`<a>${'<b>'.repeat(5_000)}1${'</b>'.repeat(5_000)}</a>`) }];
      const x = await register(merchant, registrationBody(uniqueReference(), { events: xml }));
      expectError(x, 400, 'TRAFFIC_LOG_VALIDATION_FAILED');
      assert.match(x.body.messages[0], /events\.0.*deeper than 64 levels/);
      // Without a Content-Type the body is sniffed: the same limit applies.
      const sniffed = [{ ...sandboxExchange('x')[0], headers: b64({}), body: b64(`${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`) }];
      expectError(await register(merchant, registrationBody(uniqueReference(), { events: sniffed })), 400, 'TRAFFIC_LOG_VALIDATION_FAILED');
      // Large registrations are decoded on worker threads: same answer there.
      const padded = [{ ...sandboxExchange('x')[0], body: b64(`{"pad":"${'p'.repeat(300_000)}","a":${'['.repeat(10_000)}${']'.repeat(10_000)}}`) }];
      expectError(await register(merchant, registrationBody(uniqueReference(), { events: padded })), 400, 'TRAFFIC_LOG_VALIDATION_FAILED');
    });

    it('429 RATE_LIMITED from the shared limiter', async () => {
      const api = await startApi({ config: testConfig({ ...stack.config, port: 0, rateLimit: { points: 2, windowSeconds: 60 } }), keyring: stack.keyring, db: stack.db, temporal: stack.temporal, logger: pino({ level: 'silent' }) });
      try {
        const fresh = await newMerchant('Rate-limited dry-run merchant');
        const statuses = [];
        for (let i = 0; i < 3; i++) statuses.push((await call('/v1/dry-run/provider-events', { body: registrationBody(uniqueReference()), credentials: fresh }, api.url)).status);
        assert.deepEqual(statuses.slice(0, 2), [201, 201]);
        const limited = await call('/v1/dry-run/provider-events', { body: registrationBody(uniqueReference()), credentials: fresh }, api.url);
        expectError(limited, 429, 'RATE_LIMITED');
        assert.ok(Number(limited.headers.get('retry-after')) >= 1);
      } finally {
        await api.close();
      }
    });
  });

  describe('pairing and validation', () => {
    it('registration first, then the Dry-run payment: PAIRED then VALIDATED, never routed', async () => {
      const reference = uniqueReference('order');
      const reg = await register(merchant, registrationBody(reference));
      const payment = await dryRunPay(merchant, paymentFor(merchant, reference));
      assert.equal(payment.status, 201, JSON.stringify(payment.body));
      assert.equal(payment.body.dry_run, true);
      assert.equal(payment.body.status, 'READY_TO_PAY');
      assert.equal(payment.body.sub_status, 'CREATED');
      assert.equal(payment.body.dry_run_pairing.status, 'PAIRED');
      assert.equal(payment.body.dry_run_pairing.registration_id, reg.body.id);
      assert.equal(payment.body.payment_method.payment_method_detail.card.lfd, '1111');
      assert.ok(!JSON.stringify(payment.body).includes(TEST_PAN));
      const report = await waitForRegistration(merchant, reg.body.id, (r) => r.status === 'VALIDATED');
      assert.equal(report.report.verdict, 'PASS', JSON.stringify(report.report.findings));
      assert.equal(report.report.score, 100);
      assert.equal(report.report.mode, 'profile');
      assert.equal(report.pairing.service_leg_id, payment.body.id);
      assert.equal(report.service_request.merchant_order_id, reference);
      const charges = await (await fetch(`${stack.gateway.url}/_sandbox/charges?reference=${reference}`)).json() as { count: number };
      assert.equal(charges.count, 0, 'a dry-run payment never reaches a provider');
      assert.equal(await stack.db.collection('payments').countDocuments({ merchant_order_id: reference }), 0);
    });

    it('a registration paired by merchant_reference takes payment_method_type from its partner leg when omitted', async () => {
      const reference = uniqueReference('partner');
      const { provider_id: _omitted, ...body } = registrationBody(reference);
      const reg = await register(merchant, body);
      assert.equal(reg.status, 201, JSON.stringify(reg.body));
      assert.equal(reg.body.payment_method_type ?? null, null);
      await dryRunPay(merchant, paymentFor(merchant, reference));
      const validated = await waitForRegistration(merchant, reg.body.id, (r) => r.status === 'VALIDATED');
      assert.equal(validated.payment_method_type, 'CARD');
      // No routing rule names a provider for this account: provider_id stays unknown (generic mode).
      assert.equal(validated.provider_id ?? null, null);
      assert.equal(validated.report.mode, 'generic');
    });

    it('the Dry-run payment first, then the registration; validated with the same codec as a real payment', async () => {
      const reference = uniqueReference('order');
      const invalid = await dryRunPay(merchant, { ...paymentFor(merchant, reference), amount: { currency: 'BRL', value: -1 } });
      assert.equal(invalid.status, 400);
      assert.ok(invalid.body.errors.some((e: any) => e.field === 'amount.value'));
      const payment = await dryRunPay(merchant, paymentFor(merchant, reference, { amount: { currency: 'BRL', value: 15050 } }));
      assert.equal(payment.body.dry_run_pairing.status, 'WAITING_FOR_PROVIDER_EVENTS');
      const reg = await register(merchant, registrationBody(reference));
      const report = await waitForRegistration(merchant, reg.body.id, (r) => r.status === 'VALIDATED');
      assert.equal(report.report.verdict, 'FAIL');
      const unit = report.report.findings.find((f: any) => f.code === 'AMOUNT_UNIT_MISMATCH');
      assert.equal(unit.service_path, 'amount.value');
      assert.deepEqual(unit.provider, { leg: 'REQUEST', event_index: 0, path: 'amount' });
    });

    it('search attributes show the state in Temporal', async () => {
      const reference = uniqueReference('sa');
      const reg = await register(merchant, registrationBody(reference));
      await dryRunPay(merchant, paymentFor(merchant, reference));
      await waitForRegistration(merchant, reg.body.id, (r) => r.status === 'VALIDATED');
      const handle = stack.temporal.workflow.getHandle(`dry-run:${merchant.account_id}:${reference}`);
      let attributes: Record<string, unknown> = {};
      for (let i = 0; i < 50; i++) {
        attributes = (await handle.describe()).searchAttributes as Record<string, unknown>;
        if ((attributes.ResourceStatus as string[])?.[0] === 'VALIDATED') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual(attributes.ResourceStatus, ['VALIDATED']);
      assert.deepEqual(attributes.MerchantReference, [reference]);
      assert.deepEqual(attributes.AccountId, [merchant.account_id]);
      assert.deepEqual(attributes.ResourceType, ['dry_run']);
    });

    it('late webhooks re-run the pipeline: response / webhook disagreement in report v2', async () => {
      const reference = uniqueReference('late');
      const reg = await register(merchant, registrationBody(reference));
      await dryRunPay(merchant, paymentFor(merchant, reference));
      const v1 = await waitForRegistration(merchant, reg.body.id, (r) => r.report?.version === 1);
      assert.equal(v1.report.verdict, 'PASS');
      const hook = webhookEvent({ type: 'authorization.updated', data: { id: 'auth_1', status: 'DECLINED', amount: 15050, currency: 'BRL', reference, card: { last4: '1111' } } });
      const added = await call(`/v1/dry-run/provider-events/${reg.body.id}/events`, { body: { events: [hook] }, headers: { 'public-api-key': merchant.public_api_key } });
      assert.equal(added.status, 202, JSON.stringify(added.body));
      assert.equal(added.body.accepted_events, 1);
      const v2 = await waitForRegistration(merchant, reg.body.id, (r) => r.report?.version === 2);
      assert.equal(v2.event_count, 3);
      assert.equal(v2.events[2].type, 'WEBHOOK');
      const finding = v2.report.findings.find((f: any) => f.code === 'RESPONSE_WEBHOOK_STATUS_DISAGREEMENT');
      assert.equal(finding.category, 'LEG_DISAGREEMENT');
      assert.deepEqual(finding.provider, { leg: 'WEBHOOK', event_index: 2, path: 'data.status' });
      expectError(await call(`/v1/dry-run/provider-events/${reg.body.id}/events`, { body: { events: [hook] }, credentials: other }), 404, 'NOT_FOUND');
      expectError(await call(`/v1/dry-run/provider-events/${reg.body.id}/events`, { body: { events: [{ ...hook, http_status_code: undefined }] }, credentials: merchant }), 400, 'TRAFFIC_LOG_SEMANTIC_INVALID');
    });

    it('UNMATCHED after the pairing window, and a late leg still pairs', async () => {
      const previous = stack.config.dryRun.pairingTimeoutSeconds;
      stack.config.dryRun.pairingTimeoutSeconds = 2;
      try {
        const reference = uniqueReference('alone');
        const reg = await register(merchant, registrationBody(reference));
        const unmatched = await waitForRegistration(merchant, reg.body.id, (r) => r.status === 'UNMATCHED', 20_000);
        assert.ok(unmatched.pairing.unmatched_at);
        assert.equal(unmatched.report, null);
        await dryRunPay(merchant, paymentFor(merchant, reference));
        const validated = await waitForRegistration(merchant, reg.body.id, (r) => r.status === 'VALIDATED');
        assert.equal(validated.report.verdict, 'PASS');
      } finally {
        stack.config.dryRun.pairingTimeoutSeconds = previous;
      }
    });

    it('a pair waiting across a worker restart still forms', async () => {
      const reference = uniqueReference('restart');
      const reg = await register(merchant, registrationBody(reference));
      await waitForRegistration(merchant, reg.body.id, () => true);
      await stack.worker.shutdown();
      const payment = await dryRunPay(merchant, paymentFor(merchant, reference));
      assert.equal(payment.status, 201, 'the API accepts the leg while no worker runs');
      await new Promise((r) => setTimeout(r, 500));
      assert.equal((await getRegistration(merchant, reg.body.id)).body.status, 'REGISTERED');
      stack.worker = await startWorker({ config: stack.config, keyring: stack.keyring, mongo: stack.mongo, logger: pino({ level: 'silent' }) });
      const validated = await waitForRegistration(merchant, reg.body.id, (r) => r.status === 'VALIDATED', 60_000);
      assert.equal(validated.report.verdict, 'PASS');
    });

    it('sends dry_run.report_ready through the account webhook', async () => {
      const received: any[] = [];
      const server = http.createServer((req, res) => {
        let text = '';
        req.on('data', (c) => (text += c));
        req.on('end', () => {
          received.push({ headers: req.headers, body: JSON.parse(text) });
          res.end('ok');
        });
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      try {
        const port = (server.address() as { port: number }).port;
        const hooked = await newMerchant('Webhook merchant');
        const set = await call(`/v1/accounts/${hooked.account_id}/webhook`, { method: 'PUT', body: { url: `http://127.0.0.1:${port}/hooks` }, credentials: hooked });
        assert.equal(set.status, 200, JSON.stringify(set.body));
        const reference = uniqueReference('hook');
        const reg = await register(hooked, registrationBody(reference));
        await dryRunPay(hooked, paymentFor(hooked, reference));
        for (let i = 0; i < 100 && !received.length; i++) await new Promise((r) => setTimeout(r, 100));
        assert.equal(received.length, 1);
        assert.equal(received[0].body.type, 'dry_run.report_ready');
        assert.equal(received[0].body.data.id, reg.body.id);
        assert.equal(received[0].body.data.verdict, 'PASS');
        assert.match(String(received[0].headers['switchyard-signature']), /^t=\d+,v1=[0-9a-f]{64}$/);
      } finally {
        server.close();
      }
    });
  });

  describe('findings on the real stack', () => {
    it('generic mode (no profile): inferred mapping and value inconsistencies', async () => {
      const reference = uniqueReference('gen');
      const events = [
        requestEvent({ order: { orderId: reference, totalCents: 15050, currencyCode: 'usd' }, payer: { mail: 'ana@example.com', countryCode: 'BRA' }, payment: { pan: TEST_PAN, installmentCount: 2 }, metadata: { campaign: 'spring', channel: 'app' } }),
        responseEvent({ result: 'declined', error: { code: 'do_not_honor' } }, { http_status_code: 402 }),
      ];
      // PagSeguro has no mapping profile: generic mode (its wire facts match this traffic: minor units, alpha-3).
      const reg = await register(merchant, { merchant_reference: reference, provider_id: 'PAGSEGURO', events });
      await dryRunPay(merchant, paymentFor(merchant, reference));
      const report = (await waitForRegistration(merchant, reg.body.id, (r) => r.status === 'VALIDATED')).report;
      assert.equal(report.mode, 'generic');
      const codes = report.findings.map((f: any) => f.code);
      for (const code of ['CURRENCY_MISMATCH', 'INSTALLMENTS_MISMATCH', 'UNMAPPED_METADATA', 'PROVIDER_ERROR']) assert.ok(codes.includes(code), `${code} in ${codes}`);
      assert.ok(report.mapping.some((m: any) => m.service_path === 'amount.value' && m.transform === 'minor_units'));
      assert.ok(report.mapping.some((m: any) => m.service_path === 'country' && m.transform === 'country_alpha3'));
      assert.equal(report.verdict, 'FAIL');
      assert.ok(report.score < 50);
    });
  });

  describe('reading', () => {
    it('another organization reads a registration exactly like a missing one', async () => {
      const reg = await register(merchant, registrationBody(uniqueReference()));
      const foreign = await getRegistration(other, reg.body.id);
      const missing = await getRegistration(other, 'A'.repeat(21));
      assert.equal(foreign.status, 404);
      assert.deepEqual(foreign.body, missing.body);
      assert.equal(foreign.body.code, 'NOT_FOUND');
      const list = await call(`/v1/dry-run/provider-events?merchant_reference=${reg.body.merchant_reference}`, { credentials: other });
      assert.deepEqual(list.body.data, []);
    });

    it('lists with filters and cursor pagination', async () => {
      const lister = await newMerchant('Lister');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await register(lister, registrationBody(uniqueReference(`list${i}`)))).body.id);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await call(`/v1/dry-run/provider-events?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { credentials: lister });
        assert.equal(page.status, 200);
        assert.ok(page.body.data.length <= 2);
        seen.push(...page.body.data.map((r: any) => r.id));
        cursor = page.body.next_cursor;
      } while (cursor);
      assert.deepEqual(seen, [...ids].reverse(), 'newest first, each exactly once');
      const reference = (await getRegistration(lister, ids[2])).body.merchant_reference;
      const byRef = await call(`/v1/dry-run/provider-events?merchant_reference=${reference}`, { credentials: lister });
      assert.deepEqual(byRef.body.data.map((r: any) => r.id), [ids[2]]);
      const registered = await call('/v1/dry-run/provider-events?status=REGISTERED&verdict=PASS', { credentials: lister });
      assert.deepEqual(registered.body.data, []);
      const future = await call(`/v1/dry-run/provider-events?created_from=${new Date(Date.now() + 60_000).toISOString()}`, { credentials: lister });
      assert.deepEqual(future.body.data, []);
      const past = await call(`/v1/dry-run/provider-events?created_to=${new Date(Date.now() + 60_000).toISOString()}&limit=100`, { credentials: lister });
      assert.equal(past.body.data.length, 5);
      expectError(await call('/v1/dry-run/provider-events?verdict=MAYBE', { credentials: lister }), 400, 'TRAFFIC_LOG_VALIDATION_FAILED');
      expectError(await call('/v1/dry-run/provider-events?limit=101', { credentials: lister }), 400, 'TRAFFIC_LOG_VALIDATION_FAILED');
      expectError(await call('/v1/dry-run/provider-events?cursor=garbage', { credentials: lister }), 400, 'TRAFFIC_LOG_VALIDATION_FAILED');
    });

    it('publishes the TRAFFIC_LOG_* table in the OpenAPI description and on /docs', async () => {
      const doc = (await call('/v1/openapi.json')).body;
      const op = doc.paths['/v1/dry-run/provider-events'].post;
      assert.match(op.description, /`TRAFFIC_LOG_BODY_ENCODING_MISMATCH` \| 400 \|/);
      assert.ok(op.security.length === 2, 'either key');
      assert.ok(doc.paths['/v1/dry-run/provider-events/{registration_id}'].get);
      assert.ok(doc.paths['/v1/payments'].post.parameters.some((p: any) => p.name === 'Dry-run'));
      const docs = await call('/docs');
      assert.match(docs.text, /<td><code>TRAFFIC_LOG_SEMANTIC_INVALID<\/code><\/td><td>400<\/td>/);
    });
  });

  describe('redaction', () => {
    it('no PAN, CVV or token in MongoDB, the logs or the raw workflow history', async () => {
      const lines: string[] = [];
      const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
      const logger = pino({ level: 'trace' }, sink);
      const api = await startApi({ config: testConfig({ ...stack.config, port: 0 }), keyring: stack.keyring, db: stack.db, temporal: stack.temporal, logger });
      try {
        const reference = uniqueReference('secret');
        const spaced = '4111 1111 1111 1111';
        const events = [
          requestEvent(sandboxRequestBody({ reference, note: `card ${spaced}` }), { endpoint: `/v1/authorizations?pan=${TEST_PAN}&access_token=${TEST_TOKEN}`, headers: b64(`Authorization: Bearer ${TEST_TOKEN}\r\nContent-Type: application/json\r\nX-Api-Key: ${TEST_TOKEN}`) }),
          responseEvent({ id: 'auth_1', status: 'APPROVED', amount: 15050, currency: 'BRL', reference, card: { last4: '1111', bin: '411111' } }, { http_status_code: 201 }),
          { ...webhookEvent(), headers: b64({ 'Content-Type': 'application/x-www-form-urlencoded' }), body: b64(`card_number=${TEST_PAN}&cvv=${TEST_CVV}&token=${TEST_TOKEN}`) },
        ];
        const reg = await call('/v1/dry-run/provider-events', { body: { merchant_reference: reference, provider_id: 'SANDBOX', events }, credentials: merchant }, api.url);
        assert.equal(reg.status, 201, JSON.stringify(reg.body));
        await call('/v1/payments', { body: paymentFor(merchant, reference), credentials: merchant, headers: { 'Dry-run': 'true' } }, api.url);
        const report = await waitForRegistration(merchant, reg.body.id, (r) => r.status === 'VALIDATED');
        // the pipeline still compares cards through the placeholders
        assert.ok(!report.report.findings.some((f: any) => /CARD_/.test(f.code)), JSON.stringify(report.report.findings));
        assert.match(JSON.stringify(report.events), /\[PAN:411111\*{6}1111:[0-9a-f]{12}\]/);

        const forbidden = [TEST_PAN, spaced, TEST_TOKEN, `"${TEST_CVV}"`, `cvv=${TEST_CVV}`, `"security_code":"${TEST_CVV}"`];
        const scan = (where: string, text: string) => {
          for (const secret of forbidden) assert.ok(!text.includes(secret), `${where} holds ${secret}`);
        };
        for (const name of ['dry_run_registrations', 'dry_run_payments', 'dry_run_event_batches', 'webhook_deliveries', 'idempotency_keys']) {
          scan(name, JSON.stringify(await stack.db.collection(name).find({}).toArray()));
        }
        scan('API logs', lines.join(''));
        assert.ok(lines.length > 0, 'the API logged at trace level');

        // History fetched with a client that has no payload codec: what Temporal stores.
        const raw = new Client({ connection: stack.temporal.connection, namespace: stack.config.temporalNamespace });
        const history = await raw.workflow.getHandle(`dry-run:${merchant.account_id}:${reference}`).fetchHistory();
        const rawText = JSON.stringify(history);
        scan('raw workflow history', rawText);
        scan('raw workflow history (base64 payloads decoded)', Buffer.from(rawText).toString('latin1') + [...rawText.matchAll(/"data":"([A-Za-z0-9+/=]+)"/g)].map((m) => Buffer.from(m[1], 'base64').toString('latin1')).join(''));
        // and decrypted: workflow inputs, signals and activity results carry ids and verdicts only
        const codec = new EncryptionCodec(stack.keyring);
        const payloads: any[] = [];
        const walk = (node: any) => {
          if (!node || typeof node !== 'object') return;
          if (node.metadata && node.data && typeof node.metadata === 'object') payloads.push(node);
          for (const child of Object.values(node)) walk(child);
        };
        walk(history);
        assert.ok(payloads.length > 3, `found ${payloads.length} payloads`);
        const decoded = await codec.decode(payloads.map((p) => ({ metadata: p.metadata, data: p.data })));
        const plain = decoded.map((p) => Buffer.from(p.data ?? []).toString('utf8')).join('\n');
        assert.match(plain, new RegExp(reference), 'decrypted history is readable');
        scan('decrypted workflow history', plain);
      } finally {
        await api.close();
      }
    });
  });
});
