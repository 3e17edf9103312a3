/**
 * Shared dry-run fixtures: a service payment request and a sandbox-gateway exchange that
 * agree with each other, so each test changes one thing and expects one finding.
 */
import type { DryRunEvent } from '../../domain/dry-run/codecs';
import type { MappingProfile } from '../../domain/dry-run/profiles';

export const TEST_PAN = '4111111111111111';
export const TEST_CVV = '737';
export const TEST_TOKEN = 'tok_live_9f8e7d6c5b4a39281706';

export function b64(value: string | Buffer | object): string {
  const buffer = Buffer.isBuffer(value) ? value : Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));
  return buffer.toString('base64');
}

export function serviceRequest(overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    account_id: '00000000-0000-4000-8000-000000000000',
    merchant_order_id: 'order-1001',
    description: 'Two tickets',
    country: 'BR',
    amount: { currency: 'BRL', value: 150.5 },
    payment_method: {
      type: 'CARD',
      detail: { card: { number: TEST_PAN, expiration_month: 12, expiration_year: 2030, security_code: TEST_CVV, holder_name: 'ANA SILVA', installments: 3 } },
    },
    capture: true,
    customer_payer: { first_name: 'Ana', last_name: 'Silva', email: 'ana@example.com', document: { document_type: 'CPF', document_number: '12345678909' } },
    metadata: [{ key: 'campaign', value: 'spring' }],
    ...overrides,
  };
}

export function providerRequestBody(overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    reference: 'order-1001',
    amount: 15050,
    currency: 'BRL',
    capture: true,
    installments: 3,
    method: 'card',
    description: 'Two tickets',
    card: { number: TEST_PAN, expiry_month: 12, expiry_year: 2030, cvv: TEST_CVV, holder_name: 'ANA SILVA' },
    customer: { email: 'ana@example.com', first_name: 'Ana', last_name: 'Silva', document: '12345678909', country: 'BR' },
    metadata: { campaign: 'spring' },
    ...overrides,
  };
}

export function providerResponseBody(overrides: Record<string, unknown> = {}): Record<string, any> {
  return { id: 'ch_1', reference: 'order-1001', status: 'CAPTURED', amount: 15050, currency: 'BRL', card: { brand: 'visa', last4: '1111' }, error: null, ...overrides };
}

export function webhookBody(overrides: Record<string, unknown> = {}): Record<string, any> {
  return { type: 'charge.updated', data: { id: 'ch_1', reference: 'order-1001', status: 'CAPTURED', amount: 15050, currency: 'BRL', card: { brand: 'visa', last4: '1111' }, ...overrides } };
}

const jsonHeaders = (extra: Record<string, string> = {}) => b64({ 'Content-Type': 'application/json', ...extra });

export function requestEvent(body: object = providerRequestBody(), extra: Partial<DryRunEvent> = {}): DryRunEvent {
  return { type: 'REQUEST', http_method: 'POST', operation_type: 'PURCHASE', base_url: 'https://sandbox-gateway.example', endpoint: '/v1/charges', headers: jsonHeaders({ Authorization: `Bearer ${TEST_TOKEN}` }), body: b64(body), ...extra };
}

export function responseEvent(body: object = providerResponseBody(), extra: Partial<DryRunEvent> = {}): DryRunEvent {
  return { type: 'RESPONSE', http_method: 'POST', operation_type: 'PURCHASE', http_status_code: 200, headers: jsonHeaders(), body: b64(body), ...extra };
}

export function webhookEvent(body: object = webhookBody(), extra: Partial<DryRunEvent> = {}): DryRunEvent {
  return { type: 'WEBHOOK', http_method: 'POST', operation_type: 'PURCHASE', base_url: 'https://merchant.example', endpoint: '/hooks/sandbox', http_status_code: 200, headers: jsonHeaders({ 'X-Signature': 'sha256=abcdef0123456789' }), body: b64(body), ...extra };
}

/**
 * A richer provider than the sandbox (customer data, method enum, metadata, webhooks with
 * card brand), described purely as data: the pipeline needs no code for it.
 */
export const ACME_PROFILE: MappingProfile = {
  id: 'acme-v1',
  provider_id: 'ACME',
  description: 'A fictional acquirer with a JSON API',
  amount_unit: 'minor',
  country_format: 'alpha2',
  fields: [
    { concept: 'merchant_reference', leg: 'REQUEST', path: 'reference', type: 'string', required: true },
    { concept: 'amount', leg: 'REQUEST', path: 'amount', type: 'integer', required: true },
    { concept: 'currency', leg: 'REQUEST', path: 'currency', type: 'string', required: true },
    { concept: 'capture', leg: 'REQUEST', path: 'capture', type: 'boolean' },
    { concept: 'installments', leg: 'REQUEST', path: 'installments', type: 'integer' },
    { concept: 'card_number', leg: 'REQUEST', path: 'card.number', type: 'string', required: true },
    { concept: 'email', leg: 'REQUEST', path: 'customer.email', type: 'string' },
    { concept: 'first_name', leg: 'REQUEST', path: 'customer.first_name', type: 'string' },
    { concept: 'last_name', leg: 'REQUEST', path: 'customer.last_name', type: 'string' },
    { concept: 'document_number', leg: 'REQUEST', path: 'customer.document', type: 'string' },
    { concept: 'country', leg: 'REQUEST', path: 'customer.country', type: 'string' },
    { concept: 'description', leg: 'REQUEST', path: 'description', type: 'string' },
    { concept: 'payment_method_type', leg: 'REQUEST', path: 'method', type: 'string', values: { CARD: 'card', CREDIT_CARD: 'credit', DEBIT_CARD: 'debit', TEST_CREDIT_CARD: 'credit' } },
    { concept: 'amount', leg: 'RESPONSE', path: 'amount', type: 'integer' },
    { concept: 'currency', leg: 'RESPONSE', path: 'currency', type: 'string' },
    { concept: 'card_last4', leg: 'RESPONSE', path: 'card.last4', type: 'string' },
    { concept: 'card_brand', leg: 'RESPONSE', path: 'card.brand', type: 'string' },
    { concept: 'amount', leg: 'WEBHOOK', path: 'data.amount', type: 'integer' },
    { concept: 'currency', leg: 'WEBHOOK', path: 'data.currency', type: 'string' },
    { concept: 'card_last4', leg: 'WEBHOOK', path: 'data.card.last4', type: 'string' },
    { concept: 'card_brand', leg: 'WEBHOOK', path: 'data.card.brand', type: 'string' },
  ],
  metadata: { leg: 'REQUEST', path: 'metadata' },
  status: { paths: { RESPONSE: 'status', WEBHOOK: 'data.status' }, approved: ['AUTHORIZED', 'CAPTURED'], declined: ['DECLINED', 'FAILED'], pending: ['PENDING'] },
  error_paths: { RESPONSE: ['error.code', 'error.message'] },
};

/** The sandbox gateway's own shapes (activities/sandbox-gateway/server.ts). */
export function sandboxRequestBody(overrides: Record<string, unknown> = {}): Record<string, any> {
  return { amount: 15050, currency: 'BRL', capture: true, reference: 'order-1001', installments: 3, soft_descriptor: 'TICKETS', card: { number: TEST_PAN, holder_name: 'ANA SILVA', exp_month: 12, exp_year: 2030, cvv: TEST_CVV }, ...overrides };
}

export function sandboxResponseBody(overrides: Record<string, unknown> = {}): Record<string, any> {
  return { id: 'auth_1', status: 'APPROVED', amount: 15050, currency: 'BRL', captured_amount: 15050, reference: 'order-1001', card: { last4: '1111', bin: '411111' }, iso8583_response_code: '00', iso8583_response_message: 'Approved', ...overrides };
}
