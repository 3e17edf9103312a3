/** Request bodies for recipients and onboardings, and a recipient ready for transfers. */
import assert from 'node:assert/strict';
import type { IssuedCredentials } from '../../domain/credentials';
import { call } from './stack';

export const SECRET_TEXT = 'IDENTITY-DOC-PLAINTEXT-4711';
export const DOC = { file_name: 'id-front.pdf', content_type: 'application/pdf', content_category: 'IDENTIFICATION_DOCUMENT', content: Buffer.from(SECRET_TEXT).toString('base64') };

export function recipientBody(m: IssuedCredentials, overrides: Record<string, unknown> = {}) {
  return {
    account_id: m.account_id,
    merchant_recipient_id: `seller-${Math.random().toString(36).slice(2, 10)}`,
    national_entity: 'INDIVIDUAL',
    entity_type: 'PRIVATE',
    first_name: 'Joana',
    last_name: 'Silva',
    email: 'joana@example.com',
    date_of_birth: '1990-04-01',
    country: 'BR',
    merchant_category_code: '5411',
    document: { document_type: 'CPF', document_number: '12345678909' },
    phone: { country_code: '55', number: '11987654321' },
    address: { address_line_1: 'Rua A, 100', city: 'Sao Paulo', country: 'BR', state: 'SP', zip_code: '01000-000', neighborhood: 'Centro' },
    withdrawal_methods: { bank: { code: '341', branch: '1234-5', account: '98765-4', account_type: 'CHECKINGS', country: 'BR', currency: 'BRL' } },
    ...overrides,
  };
}

export function onboardingBody(m: IssuedCredentials, overrides: Record<string, unknown> = {}) {
  return {
    account_id: m.account_id,
    type: 'NEW',
    workflow: 'DIRECT',
    provider: { id: 'SANDBOX', recipient_type: 'INDIVIDUAL' },
    documentation: [DOC],
    terms_of_service: { acceptance: true, date: '2026-11-01T10:00:00Z', ip: '203.0.113.7' },
    ...overrides,
  };
}

/** A recipient with a SUCCEEDED onboarding. */
export async function onboardedRecipient(m: IssuedCredentials): Promise<string> {
  const r = await call('/v1/recipients', { body: recipientBody(m), credentials: m });
  assert.equal(r.status, 201, r.text);
  const o = await call(`/v1/recipients/${r.body.id}/onboardings`, { body: onboardingBody(m), credentials: m });
  assert.equal(o.body.status, 'SUCCEEDED', o.text);
  return r.body.id;
}
