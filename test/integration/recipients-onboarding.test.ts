import assert from 'node:assert/strict';
import { call, newMerchant } from '../support/stack';
import { collectionsContaining, key, webhookReceiver } from '../support/money';
import { DOC, onboardingBody, recipientBody, SECRET_TEXT } from '../support/recipients';

describe('recipients and onboarding', function () {
  this.timeout(60_000);

  it('creates a recipient with its fields, bank digits split out and documents stored sealed as references', async () => {
    const m = await newMerchant();
    const r = await call('/v1/recipients', { body: recipientBody(m, { documentation: [DOC] }), credentials: m });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.national_entity, 'INDIVIDUAL');
    assert.equal(r.body.address.neighborhood, 'Centro');
    assert.deepEqual(r.body.withdrawal_methods.bank, { code: '341', branch: '1234', branch_digit: '5', account: '98765', account_digit: '4', account_type: 'CHECKINGS', routing: null, country: 'BR', currency: 'BRL' });
    assert.match(r.body.documentation[0].content, /^doc_[0-9a-f-]{36}$/);
    assert.deepEqual(await collectionsContaining(SECRET_TEXT), []);
    assert.deepEqual(await collectionsContaining(DOC.content), []);
    const read = await call(`/v1/recipients/${r.body.id}`, { credentials: m });
    assert.deepEqual(read.body, r.body);

    const duplicate = await call('/v1/recipients', { body: recipientBody(m, { merchant_recipient_id: r.body.merchant_recipient_id }), credentials: m });
    assert.equal(duplicate.status, 409);
    assert.equal(duplicate.body.code, 'RECIPIENT_ALREADY_EXISTS');
  });

  it('validates recipients and onboardings', async () => {
    const m = await newMerchant();
    const entity = await call('/v1/recipients', { body: recipientBody(m, { national_entity: 'ENTITY' }), credentials: m });
    assert.equal(entity.status, 400);
    assert.equal(entity.body.errors[0].field, 'legal_name');
    const individual = await call('/v1/recipients', { body: recipientBody(m, { first_name: undefined }), credentials: m });
    assert.equal(individual.body.errors[0].field, 'first_name');
    const mcc = await call('/v1/recipients', { body: recipientBody(m, { merchant_category_code: '541' }), credentials: m });
    assert.equal(mcc.body.errors[0].field, 'merchant_category_code');
    const shortRef = await call('/v1/recipients', { body: recipientBody(m, { merchant_recipient_id: 'ab' }), credentials: m });
    assert.equal(shortRef.body.errors[0].field, 'merchant_recipient_id');

    const recipient = await call('/v1/recipients', { body: recipientBody(m), credentials: m });
    const path = `/v1/recipients/${recipient.body.id}/onboardings`;
    const linkWithoutId = await call(path, { body: onboardingBody(m, { type: 'PREVIOUSLY_ONBOARDED' }), credentials: m });
    assert.equal(linkWithoutId.status, 400);
    assert.equal(linkWithoutId.body.errors[0].field, 'provider.recipient_id');
    const badType = await call(path, { body: onboardingBody(m, { type: 'SOMETHING' }), credentials: m });
    assert.equal(badType.body.errors[0].field, 'type');
    const badBase64 = await call(path, { body: onboardingBody(m, { documentation: [{ ...DOC, content: 'not base64!' }] }), credentials: m });
    assert.equal(badBase64.body.errors[0].field, 'documentation.0.content');
    const badCategory = await call(path, { body: onboardingBody(m, { documentation: [{ ...DOC, content_category: 'SELFIE' }] }), credentials: m });
    assert.equal(badCategory.body.errors[0].field, 'documentation.0.content_category');
    const insecure = await call(path, { body: onboardingBody(m, { callback_url: 'http://example.com/x' }), credentials: m });
    assert.equal(insecure.body.errors[0].field, 'callback_url');

    // Providers come from the catalogue; onboarding needs its split capability and a connector.
    const unknown = await call(path, { body: onboardingBody(m, { provider: { id: 'ACME', recipient_type: 'INDIVIDUAL' } }), credentials: m });
    assert.deepEqual([unknown.status, unknown.body.errors[0].field], [400, 'provider.id']);
    const noSplit = await call(path, { body: onboardingBody(m, { provider: { id: 'KLARNA', recipient_type: 'INDIVIDUAL' } }), credentials: m });
    assert.deepEqual([noSplit.status, noSplit.body.code], [422, 'SPLIT_NOT_SUPPORTED'], noSplit.text);
    const noConnection = await call(path, { body: onboardingBody(m, { provider: { id: 'STRIPE', recipient_type: 'INDIVIDUAL' } }), credentials: m });
    assert.deepEqual([noConnection.status, noConnection.body.code], [404, 'CONNECTION_NOT_FOUND'], noConnection.text);
    const stripe = await call(`/v1/accounts/${m.account_id}/provider-connections`, { body: { provider_id: 'STRIPE', name: 'Stripe Connect', merchant_id: 'acct_1', credentials: { secret_key: 'sk_test_onboarding0123456789' } }, credentials: m });
    assert.equal(stripe.status, 201, stripe.text);
    const noConnector = await call(path, { body: onboardingBody(m, { provider: { id: 'STRIPE', recipient_type: 'INDIVIDUAL' } }), credentials: m });
    assert.deepEqual([noConnector.status, noConnector.body.code], [422, 'SPLIT_NOT_SUPPORTED'], noConnector.text);
  });

  it('onboards a NEW recipient to SUCCEEDED with history, documents by reference and a webhook to callback_url', async () => {
    const m = await newMerchant();
    const hooks = await webhookReceiver();
    try {
      const recipient = await call('/v1/recipients', { body: recipientBody(m), credentials: m });
      const o = await call(`/v1/recipients/${recipient.body.id}/onboardings`, {
        body: onboardingBody(m, { callback_url: hooks.url, withdrawal_methods: { bank: { code: '001', branch: '0001', account: '55555-X', account_type: 'SAVINGS', country: 'BR', currency: 'BRL', routing: '00000000' } }, legal_representatives: [{ first_name: 'Rui', last_name: 'Silva', publicly_exposed_person: false, ultimate_beneficial_owner: true }] }),
        credentials: m,
      });
      assert.equal(o.status, 201, o.text);
      assert.deepEqual(Object.keys(o.body).sort(), ['callback_url', 'created_at', 'documentation', 'history', 'id', 'legal_representatives', 'provider', 'recipient', 'requirements', 'status', 'terms_of_service', 'type', 'updated_at', 'withdrawal_methods', 'workflow']);
      assert.equal(o.body.status, 'SUCCEEDED');
      assert.equal(o.body.type, 'NEW');
      assert.equal(o.body.workflow, 'DIRECT');
      assert.match(o.body.provider.recipient_id, /^rcp_/);
      assert.equal(o.body.provider.connection_id, 'default-sandbox-1');
      assert.deepEqual(Object.keys(o.body.provider).sort(), ['connection_id', 'id', 'legal_entity', 'onboarding_url', 'recipient_id', 'redirect_url']);
      assert.deepEqual(o.body.withdrawal_methods.bank, { code: '001', branch: '0001', branch_digit: null, account: '55555', account_digit: 'X', account_type: 'SAVINGS', routing: '00000000', country: 'BR', currency: 'BRL' });
      assert.match(o.body.documentation[0].content, /^doc_/);
      assert.equal(o.body.legal_representatives[0].ultimate_beneficial_owner, true);
      assert.equal(o.body.recipient.id, recipient.body.id);
      assert.deepEqual(o.body.history.map((h: any) => h.status), ['CREATED', 'SUCCEEDED']);
      assert.ok(o.body.history.every((h: any) => h.created_at && h.updated_at));
      assert.deepEqual(o.body.terms_of_service, { acceptance: true, date: '2026-11-01T10:00:00Z', ip: '203.0.113.7' });
      const event = await hooks.waitFor((e) => e.type === 'onboarding.succeeded');
      assert.equal(event.data.id, o.body.id);
      const read = await call(`/v1/recipients/${recipient.body.id}/onboardings/${o.body.id}`, { credentials: m });
      assert.equal(read.body.status, 'SUCCEEDED');
    } finally {
      await hooks.close();
    }
  });

  it('links a PREVIOUSLY_ONBOARDED recipient, holds one without identification for review, and fails one without accepted terms', async () => {
    const m = await newMerchant();
    const recipient = await call('/v1/recipients', { body: recipientBody(m), credentials: m });
    const path = `/v1/recipients/${recipient.body.id}/onboardings`;
    const linked = await call(path, { body: onboardingBody(m, { type: 'PREVIOUSLY_ONBOARDED', provider: { id: 'SANDBOX', recipient_id: 'rcp_existing_42' }, documentation: [] }), credentials: m });
    assert.equal(linked.body.status, 'SUCCEEDED', linked.text);
    assert.equal(linked.body.provider.recipient_id, 'rcp_existing_42');
    const review = await call(path, { body: onboardingBody(m, { documentation: [] }), credentials: m });
    assert.equal(review.body.status, 'PENDING_REVIEW');
    assert.equal(review.body.requirements[0].code, 'IDENTIFICATION_DOCUMENT');
    const refused = await call(path, { body: onboardingBody(m, { terms_of_service: { acceptance: false, date: '2026-11-01T10:00:00Z' } }), credentials: m });
    assert.equal(refused.body.status, 'FAILED');
    assert.deepEqual(refused.body.history.map((h: any) => h.status), ['CREATED', 'FAILED']);
  });

  it('replays an onboarding for the same idempotency key and hides other organizations\' recipients', async () => {
    const m = await newMerchant();
    const other = await newMerchant();
    const recipient = await call('/v1/recipients', { body: recipientBody(m), credentials: m });
    const k = key();
    const [a, b] = await Promise.all([1, 2].map(() => call(`/v1/recipients/${recipient.body.id}/onboardings`, { body: onboardingBody(m), credentials: m, headers: { 'x-idempotency-key': k } })));
    const ids = [a, b].filter((x) => x.status === 201).map((x) => x.body.id);
    assert.ok(ids.length >= 1);
    assert.equal(new Set(ids).size, 1);
    const again = await call(`/v1/recipients/${recipient.body.id}/onboardings`, { body: onboardingBody(m), credentials: m, headers: { 'x-idempotency-key': k } });
    assert.equal(again.body.id, ids[0]);

    const foreign = await call(`/v1/recipients/${recipient.body.id}`, { credentials: other });
    const missing = await call('/v1/recipients/00000000-0000-4000-8000-000000000000', { credentials: other });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.code, missing.body.code);
    assert.equal(foreign.body.message, missing.body.message);
    const foreignOnboarding = await call(`/v1/recipients/${recipient.body.id}/onboardings`, { body: onboardingBody(other), credentials: other });
    assert.equal(foreignOnboarding.status, 404);
    assert.equal(foreignOnboarding.body.code, 'RECIPIENT_NOT_FOUND');
    const foreignRead = await call(`/v1/recipients/${recipient.body.id}/onboardings/${ids[0]}`, { credentials: other });
    assert.equal(foreignRead.status, 404);
  });
});
