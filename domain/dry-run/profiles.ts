/**
 * Provider knowledge as data. A mapping profile says, for one provider_id, where each
 * payment concept sits in the provider's request, response and webhook bodies, in what unit
 * or vocabulary, and how the provider reports status and errors. The pipeline has no
 * provider-specific code: a new provider is a new profile (JSON-serialisable, so profiles
 * can also be loaded from a file, see DRY_RUN_PROFILES_FILE). Providers without a profile are
 * validated in generic mode, which infers the mapping by matching values.
 */
import { isCatalogueProvider } from '../providers/catalogue';

export type Leg = 'REQUEST' | 'RESPONSE' | 'WEBHOOK';

/** Payment concepts the pipeline compares across the two legs. */
export type Concept =
  | 'merchant_reference' | 'amount' | 'currency' | 'country' | 'description' | 'payment_method_type'
  | 'card_number' | 'card_last4' | 'card_brand' | 'capture' | 'installments'
  | 'email' | 'first_name' | 'last_name' | 'document_number' | 'phone' | 'date_of_birth';

export type FieldType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array';

export interface ProfileField {
  concept: Concept;
  leg: Leg;
  /** Dotted path in the provider body (array items by index: items.0.sku). */
  path: string;
  /** JSON type the provider uses here; a different type is a shape mismatch. */
  type?: FieldType;
  /** The provider rejects requests without it: a missing service value is an ERROR. */
  required?: boolean;
  /** Service value -> provider value, for enumerations and flags. */
  values?: Record<string, string | number | boolean>;
}

export interface MappingProfile {
  id: string;
  provider_id: string;
  description: string;
  /** How the provider expresses amounts. */
  amount_unit: 'minor' | 'major';
  /** Country codes as alpha-2 or alpha-3. */
  country_format: 'alpha2' | 'alpha3';
  fields: ProfileField[];
  metadata?: { leg: Leg; path: string };
  /** Where each answering leg carries the payment status, and what the values mean. */
  status?: { paths: Partial<Record<Leg, string>>; approved: string[]; declined: string[]; pending: string[] };
  /** Paths that, when present and not null, carry a provider error (code or message). */
  error_paths?: Partial<Record<Leg, string[]>>;
}

/**
 * Where each concept sits in the service payment request (POST /v1/payments). Several
 * candidates: the first present wins.
 */
export const SERVICE_PATHS: Record<Exclude<Concept, 'card_last4' | 'card_brand'>, string[]> = {
  merchant_reference: ['merchant_order_id', 'merchant_reference'],
  amount: ['amount.value'],
  currency: ['amount.currency'],
  country: ['country'],
  description: ['description'],
  payment_method_type: ['payment_method.type'],
  card_number: ['payment_method.detail.card.number', 'payment_method.card.number'],
  capture: ['capture', 'payment_method.detail.card.capture'],
  installments: ['payment_method.detail.card.installments', 'installments'],
  email: ['customer_payer.email'],
  first_name: ['customer_payer.first_name'],
  last_name: ['customer_payer.last_name'],
  document_number: ['customer_payer.document.document_number'],
  phone: ['customer_payer.phone.number'],
  date_of_birth: ['customer_payer.date_of_birth'],
};
export const SERVICE_METADATA_PATH = 'metadata';

/**
 * The built-in sandbox gateway (activities/sandbox-gateway/server.ts), amounts in minor units:
 *   POST /v1/authorizations  {amount, currency, capture, reference, installments, soft_descriptor,
 *                             card: {number, holder_name, exp_month, exp_year, cvv}}
 *   201 / 402 / 4xx / 5xx    {id, status: APPROVED | DECLINED | PENDING_AUTHENTICATION | ERROR | REVERSED,
 *                             amount, currency, captured_amount, reference, card: {last4, bin},
 *                             iso8583_response_code, decline_code?, error?, message?}
 *   webhook (notification)   {type, data: {id, status, amount, currency, reference, card: {last4, bin}}}
 */
export const SANDBOX_PROFILE: MappingProfile = {
  id: 'sandbox-gateway-v1',
  provider_id: 'SANDBOX',
  description: 'Switchyard sandbox gateway, acquirer API v1',
  amount_unit: 'minor',
  country_format: 'alpha2',
  fields: [
    { concept: 'merchant_reference', leg: 'REQUEST', path: 'reference', type: 'string', required: true },
    { concept: 'amount', leg: 'REQUEST', path: 'amount', type: 'integer', required: true },
    { concept: 'currency', leg: 'REQUEST', path: 'currency', type: 'string', required: true },
    { concept: 'capture', leg: 'REQUEST', path: 'capture', type: 'boolean' },
    { concept: 'installments', leg: 'REQUEST', path: 'installments', type: 'integer' },
    { concept: 'card_number', leg: 'REQUEST', path: 'card.number', type: 'string', required: true },
    { concept: 'amount', leg: 'RESPONSE', path: 'amount', type: 'integer' },
    { concept: 'currency', leg: 'RESPONSE', path: 'currency', type: 'string' },
    { concept: 'card_last4', leg: 'RESPONSE', path: 'card.last4', type: 'string' },
    { concept: 'amount', leg: 'WEBHOOK', path: 'data.amount', type: 'integer' },
    { concept: 'currency', leg: 'WEBHOOK', path: 'data.currency', type: 'string' },
    { concept: 'card_last4', leg: 'WEBHOOK', path: 'data.card.last4', type: 'string' },
  ],
  status: {
    paths: { RESPONSE: 'status', WEBHOOK: 'data.status' },
    approved: ['APPROVED'],
    declined: ['DECLINED', 'ERROR'],
    pending: ['PENDING_AUTHENTICATION', 'PROCESSING'],
  },
  error_paths: { RESPONSE: ['error', 'decline_code'] },
};

export const BUILT_IN_PROFILES: MappingProfile[] = [SANDBOX_PROFILE];

/** Checks a profile loaded from outside (file); returns the problems found. */
export function profileProblems(profile: unknown): string[] {
  const p = profile as Partial<MappingProfile>;
  const problems: string[] = [];
  if (!p || typeof p !== 'object') return ['a profile must be an object'];
  if (typeof p.id !== 'string' || !p.id) problems.push('id is required');
  if (typeof p.provider_id !== 'string' || !/^[A-Z0-9_]{2,40}$/.test(p.provider_id)) problems.push('provider_id must be an upper-case provider code');
  // No registration can name a provider outside the catalogue, so such a profile would never apply.
  else if (!isCatalogueProvider(p.provider_id)) problems.push(`provider_id ${p.provider_id} is not in the provider catalogue`);
  if (p.amount_unit !== 'minor' && p.amount_unit !== 'major') problems.push('amount_unit must be minor or major');
  if (p.country_format !== 'alpha2' && p.country_format !== 'alpha3') problems.push('country_format must be alpha2 or alpha3');
  if (!Array.isArray(p.fields)) problems.push('fields must be an array');
  for (const [i, f] of (p.fields ?? []).entries()) {
    if (!f || typeof f.path !== 'string' || !['REQUEST', 'RESPONSE', 'WEBHOOK'].includes(f.leg) || typeof f.concept !== 'string') problems.push(`fields.${i} needs concept, leg and path`);
  }
  return problems;
}
