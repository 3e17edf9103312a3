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
  | 'card_number' | 'card_last4' | 'card_bin' | 'card_brand' | 'capture' | 'installments'
  | 'email' | 'first_name' | 'last_name' | 'document_number' | 'phone' | 'date_of_birth';

export const CONCEPTS: readonly Concept[] = [
  'merchant_reference', 'amount', 'currency', 'country', 'description', 'payment_method_type', 'card_number', 'card_last4', 'card_bin', 'card_brand',
  'capture', 'installments', 'email', 'first_name', 'last_name', 'document_number', 'phone', 'date_of_birth',
];

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
  /** Service value -> provider value, for enumerations and flags (capture: "true" / "false" keys). */
  values?: Record<string, string | number | boolean>;
  /** What the provider assumes when the field is absent (e.g. capture_method automatic). */
  default?: string | number | boolean;
  /** Amounts: the unit of this field when it differs from the profile's amount_unit. */
  unit?: 'minor' | 'major';
}

/** How one leg reports the outcome: a field and the provider values per outcome (case-insensitive). */
export interface StatusVocabulary {
  approved: string[];
  declined: string[];
  pending: string[];
  cancelled?: string[];
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
  /**
   * Where the merchant's own metadata travels; `ignore`: keys the provider call adds that are
   * no merchant metadata (e.g. a connector's own ids). Keys mapped to a concept by a field
   * (e.g. metadata.order_id as merchant_reference) are not metadata either.
   */
  metadata?: { leg: Leg; path: string; ignore?: string[] };
  /**
   * Where each answering leg carries the payment status, and what the values mean. A leg may
   * have several paths (first present wins). Values outside the lists fall back to the shared
   * status vocabulary (approved, refused, failed...).
   */
  status?: { paths: Partial<Record<Leg, string | string[]>>; approved: string[]; declined: string[]; pending: string[]; cancelled?: string[] };
  /** Webhooks whose event type says the outcome (payment_intent.payment_failed, payment_declined). */
  event_types?: StatusVocabulary & { path: string };
  /** Provider card brand values -> Switchyard brand (VI -> VISA); the shared brand vocabulary is the fallback. */
  brands?: Record<string, string>;
  /** Paths that, when present and not null, carry a provider error (code or message). */
  error_paths?: Partial<Record<Leg, string[]>>;
}

/**
 * Where each concept sits in the service payment request (POST /v1/payments). Several
 * candidates: the first present wins.
 */
export type ServiceConcept = Exclude<Concept, 'card_last4' | 'card_bin'>;
export const SERVICE_PATHS: Record<ServiceConcept, string[]> = {
  merchant_reference: ['merchant_order_id', 'merchant_reference'],
  amount: ['amount.value'],
  currency: ['amount.currency'],
  country: ['country'],
  description: ['description'],
  payment_method_type: ['payment_method.type'],
  card_number: ['payment_method.detail.card.number', 'payment_method.card.number'],
  card_brand: ['payment_method.detail.card.brand'],
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

/** Payment creation defaults, applied to the service request before comparing. */
export const SERVICE_DEFAULTS: Partial<Record<ServiceConcept, { path: string; value: unknown }>> = {
  capture: { path: 'capture', value: true },
  installments: { path: 'payment_method.detail.card.installments', value: 1 },
};

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
    { concept: 'card_bin', leg: 'RESPONSE', path: 'card.bin', type: 'string' },
    { concept: 'amount', leg: 'WEBHOOK', path: 'data.amount', type: 'integer' },
    { concept: 'currency', leg: 'WEBHOOK', path: 'data.currency', type: 'string' },
    { concept: 'card_last4', leg: 'WEBHOOK', path: 'data.card.last4', type: 'string' },
    { concept: 'card_bin', leg: 'WEBHOOK', path: 'data.card.bin', type: 'string' },
  ],
  status: {
    paths: { RESPONSE: 'status', WEBHOOK: 'data.status' },
    approved: ['APPROVED'],
    declined: ['DECLINED', 'ERROR'],
    pending: ['PENDING_AUTHENTICATION', 'PROCESSING'],
  },
  error_paths: { RESPONSE: ['error', 'decline_code'] },
};

/**
 * Stripe, PaymentIntents API (form-encoded requests, JSON answers), amounts in the currency's
 * smallest unit, currencies in lower case. Authorization only is capture_method=manual. The
 * merchant reference travels in metadata (Switchyard's connector: metadata[switchyard_reference]).
 * The card appears in payment_method_data[card] (or in an earlier POST /v1/payment_methods),
 * and on the Charge (payment_method_details.card) of the charge.* webhooks.
 */
export const STRIPE_PROFILE: MappingProfile = {
  id: 'stripe-payment-intents-v1',
  provider_id: 'STRIPE',
  description: 'Stripe PaymentIntents (confirm at creation), charge.* and payment_intent.* webhooks',
  amount_unit: 'minor',
  country_format: 'alpha2',
  fields: [
    { concept: 'merchant_reference', leg: 'REQUEST', path: 'metadata.switchyard_reference', type: 'string' },
    { concept: 'merchant_reference', leg: 'REQUEST', path: 'metadata.order_id', type: 'string' },
    { concept: 'merchant_reference', leg: 'REQUEST', path: 'metadata.merchant_reference', type: 'string' },
    { concept: 'merchant_reference', leg: 'REQUEST', path: 'metadata.reference', type: 'string' },
    { concept: 'amount', leg: 'REQUEST', path: 'amount', required: true },
    { concept: 'currency', leg: 'REQUEST', path: 'currency', type: 'string', required: true },
    { concept: 'capture', leg: 'REQUEST', path: 'capture_method', type: 'string', values: { true: 'automatic', false: 'manual' }, default: 'automatic' },
    { concept: 'card_number', leg: 'REQUEST', path: 'payment_method_data.card.number', type: 'string' },
    { concept: 'card_number', leg: 'REQUEST', path: 'card.number', type: 'string' },
    { concept: 'email', leg: 'REQUEST', path: 'receipt_email', type: 'string' },
    { concept: 'email', leg: 'REQUEST', path: 'payment_method_data.billing_details.email', type: 'string' },
    { concept: 'description', leg: 'REQUEST', path: 'description', type: 'string' },
    { concept: 'amount', leg: 'RESPONSE', path: 'amount', type: 'integer' },
    { concept: 'currency', leg: 'RESPONSE', path: 'currency', type: 'string' },
    { concept: 'card_last4', leg: 'RESPONSE', path: 'card.last4', type: 'string' },
    { concept: 'card_brand', leg: 'RESPONSE', path: 'card.brand', type: 'string' },
    { concept: 'card_last4', leg: 'RESPONSE', path: 'payment_method_details.card.last4', type: 'string' },
    { concept: 'card_brand', leg: 'RESPONSE', path: 'payment_method_details.card.brand', type: 'string' },
    { concept: 'amount', leg: 'WEBHOOK', path: 'data.object.amount', type: 'integer' },
    { concept: 'currency', leg: 'WEBHOOK', path: 'data.object.currency', type: 'string' },
    { concept: 'card_last4', leg: 'WEBHOOK', path: 'data.object.payment_method_details.card.last4', type: 'string' },
    { concept: 'card_brand', leg: 'WEBHOOK', path: 'data.object.payment_method_details.card.brand', type: 'string' },
  ],
  metadata: { leg: 'REQUEST', path: 'metadata', ignore: ['switchyard_connection_id'] },
  status: {
    paths: { RESPONSE: ['status'], WEBHOOK: [] },
    approved: ['SUCCEEDED', 'REQUIRES_CAPTURE'],
    declined: ['FAILED'],
    pending: ['PROCESSING', 'REQUIRES_ACTION', 'REQUIRES_CONFIRMATION', 'PENDING'],
    cancelled: ['CANCELED'],
  },
  event_types: {
    path: 'type',
    approved: ['payment_intent.succeeded', 'payment_intent.amount_capturable_updated', 'charge.succeeded', 'charge.captured'],
    declined: ['payment_intent.payment_failed', 'charge.failed'],
    pending: ['payment_intent.created', 'payment_intent.processing', 'payment_intent.requires_action', 'charge.pending'],
    cancelled: ['payment_intent.canceled'],
  },
  error_paths: { RESPONSE: ['error', 'last_payment_error'] },
  brands: { visa: 'VISA', mastercard: 'MASTERCARD', amex: 'AMERICAN_EXPRESS', discover: 'DISCOVER', diners: 'DINERS', jcb: 'JCB', unionpay: 'UNIONPAY' },
};

/**
 * Adyen Checkout API v71, POST /payments (JSON): amount {value, currency} in minor units,
 * reference, merchantAccount, shopperEmail, shopperName, countryCode, socialSecurityNumber (BR),
 * additionalData.manualCapture for authorization only (immediate capture otherwise). Answers:
 * resultCode (Authorised, Refused, Error, Cancelled, Pending, Received, RedirectShopper...),
 * refusalReason; additionalData.cardSummary (last 4) and paymentMethod (visa, mc, amex...).
 * Webhooks: notificationItems[].NotificationRequestItem with eventCode and success "true"/"false".
 */
export const ADYEN_PROFILE: MappingProfile = {
  id: 'adyen-checkout-v71',
  provider_id: 'ADYEN',
  description: 'Adyen Checkout API v71 /payments, AUTHORISATION notifications',
  amount_unit: 'minor',
  country_format: 'alpha2',
  fields: [
    { concept: 'merchant_reference', leg: 'REQUEST', path: 'reference', type: 'string', required: true },
    { concept: 'amount', leg: 'REQUEST', path: 'amount.value', type: 'integer', required: true },
    { concept: 'currency', leg: 'REQUEST', path: 'amount.currency', type: 'string', required: true },
    { concept: 'capture', leg: 'REQUEST', path: 'additionalData.manualCapture', values: { true: 'false', false: 'true' }, default: 'false' },
    { concept: 'installments', leg: 'REQUEST', path: 'installments.value', type: 'integer' },
    { concept: 'card_number', leg: 'REQUEST', path: 'paymentMethod.number', type: 'string' },
    { concept: 'email', leg: 'REQUEST', path: 'shopperEmail', type: 'string' },
    { concept: 'first_name', leg: 'REQUEST', path: 'shopperName.firstName', type: 'string' },
    { concept: 'last_name', leg: 'REQUEST', path: 'shopperName.lastName', type: 'string' },
    { concept: 'document_number', leg: 'REQUEST', path: 'socialSecurityNumber', type: 'string' },
    { concept: 'country', leg: 'REQUEST', path: 'countryCode', type: 'string' },
    { concept: 'date_of_birth', leg: 'REQUEST', path: 'dateOfBirth', type: 'string' },
    { concept: 'amount', leg: 'RESPONSE', path: 'amount.value', type: 'integer' },
    { concept: 'currency', leg: 'RESPONSE', path: 'amount.currency', type: 'string' },
    { concept: 'card_last4', leg: 'RESPONSE', path: 'additionalData.cardSummary', type: 'string' },
    { concept: 'card_brand', leg: 'RESPONSE', path: 'paymentMethod.brand', type: 'string' },
    { concept: 'card_brand', leg: 'RESPONSE', path: 'additionalData.paymentMethod', type: 'string' },
    { concept: 'amount', leg: 'WEBHOOK', path: 'notificationItems.0.NotificationRequestItem.amount.value', type: 'integer' },
    { concept: 'currency', leg: 'WEBHOOK', path: 'notificationItems.0.NotificationRequestItem.amount.currency', type: 'string' },
    { concept: 'card_last4', leg: 'WEBHOOK', path: 'notificationItems.0.NotificationRequestItem.additionalData.cardSummary', type: 'string' },
    { concept: 'card_brand', leg: 'WEBHOOK', path: 'notificationItems.0.NotificationRequestItem.paymentMethod', type: 'string' },
  ],
  metadata: { leg: 'REQUEST', path: 'metadata' },
  status: {
    paths: { RESPONSE: 'resultCode', WEBHOOK: 'notificationItems.0.NotificationRequestItem.success' },
    approved: ['AUTHORISED', 'TRUE'],
    declined: ['REFUSED', 'ERROR', 'FALSE'],
    pending: ['PENDING', 'RECEIVED', 'REDIRECTSHOPPER', 'IDENTIFYSHOPPER', 'CHALLENGESHOPPER', 'PRESENTTOSHOPPER'],
    cancelled: ['CANCELLED'],
  },
  error_paths: { RESPONSE: ['refusalReason', 'errorCode'] },
  brands: { visa: 'VISA', mc: 'MASTERCARD', amex: 'AMERICAN_EXPRESS', diners: 'DINERS', discover: 'DISCOVER', jcb: 'JCB', elo: 'ELO', hipercard: 'HIPERCARD', maestro: 'MAESTRO', cup: 'UNIONPAY' },
};

/**
 * Checkout.com Payments API, POST /payments (JSON): amount in minor units, currency, reference,
 * capture (default true), source {type: card, number...}, customer {email, name}, metadata.
 * Answers (201/202): approved, status (Authorized, Captured, Declined, Pending), response_code
 * (10000 approved, 20xxx declined), source {scheme, last4, bin}. Webhooks: type payment_approved,
 * payment_captured, payment_declined... with data {amount, currency, reference}.
 */
export const CHECKOUT_PROFILE: MappingProfile = {
  id: 'checkout-com-payments-v1',
  provider_id: 'CHECKOUT',
  description: 'Checkout.com Unified Payments API /payments, payment_* webhooks',
  amount_unit: 'minor',
  country_format: 'alpha2',
  fields: [
    { concept: 'merchant_reference', leg: 'REQUEST', path: 'reference', type: 'string' },
    { concept: 'amount', leg: 'REQUEST', path: 'amount', type: 'integer', required: true },
    { concept: 'currency', leg: 'REQUEST', path: 'currency', type: 'string', required: true },
    { concept: 'capture', leg: 'REQUEST', path: 'capture', type: 'boolean', default: true },
    { concept: 'card_number', leg: 'REQUEST', path: 'source.number', type: 'string' },
    { concept: 'email', leg: 'REQUEST', path: 'customer.email', type: 'string' },
    { concept: 'country', leg: 'REQUEST', path: 'source.billing_address.country', type: 'string' },
    { concept: 'description', leg: 'REQUEST', path: 'description', type: 'string' },
    { concept: 'amount', leg: 'RESPONSE', path: 'amount', type: 'integer' },
    { concept: 'currency', leg: 'RESPONSE', path: 'currency', type: 'string' },
    { concept: 'card_last4', leg: 'RESPONSE', path: 'source.last4', type: 'string' },
    { concept: 'card_bin', leg: 'RESPONSE', path: 'source.bin', type: 'string' },
    { concept: 'card_brand', leg: 'RESPONSE', path: 'source.scheme', type: 'string' },
    { concept: 'amount', leg: 'WEBHOOK', path: 'data.amount', type: 'integer' },
    { concept: 'currency', leg: 'WEBHOOK', path: 'data.currency', type: 'string' },
  ],
  metadata: { leg: 'REQUEST', path: 'metadata' },
  status: {
    paths: { RESPONSE: ['status', 'approved', 'response_code'], WEBHOOK: [] },
    approved: ['AUTHORIZED', 'CAPTURED', 'PAID', 'CARD VERIFIED', 'TRUE'],
    declined: ['DECLINED', 'FALSE'],
    pending: ['PENDING'],
    cancelled: ['VOIDED', 'CANCELED'],
  },
  event_types: {
    path: 'type',
    approved: ['payment_approved', 'payment_captured', 'payment_paid'],
    declined: ['payment_declined', 'payment_capture_declined', 'payment_expired'],
    pending: ['payment_pending', 'payment_authentication_required'],
    cancelled: ['payment_voided', 'payment_canceled'],
  },
  error_paths: { RESPONSE: ['error_type', 'error_codes'] },
};

/**
 * dLocal Payments API, POST /payments (JSON): amount in major units (decimal), currency,
 * country, payment_method_id CARD, payer {name, email, document}, card {number..., capture
 * (default true), installments}, order_id. Answers and notifications are the payment: status
 * (PAID, AUTHORIZED, PENDING, REJECTED, CANCELLED), status_code, card {brand VI / MC / AM..., last4}.
 */
export const DLOCAL_PROFILE: MappingProfile = {
  id: 'dlocal-payments-v2',
  provider_id: 'DLOCAL',
  description: 'dLocal Payments API (direct card flow) and payment notifications',
  amount_unit: 'major',
  country_format: 'alpha2',
  fields: [
    { concept: 'merchant_reference', leg: 'REQUEST', path: 'order_id', type: 'string', required: true },
    { concept: 'amount', leg: 'REQUEST', path: 'amount', type: 'number', required: true },
    { concept: 'currency', leg: 'REQUEST', path: 'currency', type: 'string', required: true },
    { concept: 'country', leg: 'REQUEST', path: 'country', type: 'string', required: true },
    { concept: 'capture', leg: 'REQUEST', path: 'card.capture', type: 'boolean', default: true },
    { concept: 'installments', leg: 'REQUEST', path: 'card.installments' },
    { concept: 'card_number', leg: 'REQUEST', path: 'card.number', type: 'string' },
    { concept: 'email', leg: 'REQUEST', path: 'payer.email', type: 'string' },
    { concept: 'document_number', leg: 'REQUEST', path: 'payer.document', type: 'string' },
    { concept: 'description', leg: 'REQUEST', path: 'description', type: 'string' },
    { concept: 'payment_method_type', leg: 'REQUEST', path: 'payment_method_id', type: 'string', values: { CARD: 'CARD', CREDIT_CARD: 'CARD', DEBIT_CARD: 'CARD', TEST_CREDIT_CARD: 'CARD', CREDIT_CARD_REFERENCE_TRANSACTION: 'CARD' } },
    { concept: 'amount', leg: 'RESPONSE', path: 'amount', type: 'number' },
    { concept: 'currency', leg: 'RESPONSE', path: 'currency', type: 'string' },
    { concept: 'card_last4', leg: 'RESPONSE', path: 'card.last4', type: 'string' },
    { concept: 'card_brand', leg: 'RESPONSE', path: 'card.brand', type: 'string' },
    { concept: 'amount', leg: 'WEBHOOK', path: 'amount', type: 'number' },
    { concept: 'currency', leg: 'WEBHOOK', path: 'currency', type: 'string' },
    { concept: 'card_last4', leg: 'WEBHOOK', path: 'card.last4', type: 'string' },
    { concept: 'card_brand', leg: 'WEBHOOK', path: 'card.brand', type: 'string' },
  ],
  status: {
    paths: { RESPONSE: 'status', WEBHOOK: 'status' },
    approved: ['PAID', 'AUTHORIZED', 'VERIFIED'],
    declined: ['REJECTED'],
    pending: ['PENDING'],
    cancelled: ['CANCELLED', 'EXPIRED'],
  },
  error_paths: { RESPONSE: ['code', 'message'] },
  brands: { VI: 'VISA', MC: 'MASTERCARD', AM: 'AMERICAN_EXPRESS', DC: 'DINERS', EL: 'ELO', HI: 'HIPERCARD', JC: 'JCB', CA: 'MASTERCARD', DI: 'DISCOVER' },
};

/**
 * Mercado Pago Payments API, POST /v1/payments (JSON): transaction_amount in major units,
 * token (card tokenised by the SDK), installments, payment_method_id (visa, master, amex...),
 * payer {email, identification {type, number}}, external_reference, capture (default true),
 * metadata. Answers: status (approved, authorized, in_process, pending, rejected, cancelled),
 * status_detail, currency_id, card {first_six_digits, last_four_digits}. Webhooks only name the
 * payment (action payment.created / payment.updated, data.id): no outcome to compare.
 */
export const MERCADO_PAGO_PROFILE: MappingProfile = {
  id: 'mercado-pago-payments-v1',
  provider_id: 'MERCADO_PAGO',
  description: 'Mercado Pago /v1/payments (card token), payment webhooks',
  amount_unit: 'major',
  country_format: 'alpha2',
  fields: [
    { concept: 'merchant_reference', leg: 'REQUEST', path: 'external_reference', type: 'string' },
    { concept: 'amount', leg: 'REQUEST', path: 'transaction_amount', type: 'number', required: true },
    { concept: 'capture', leg: 'REQUEST', path: 'capture', type: 'boolean', default: true },
    { concept: 'installments', leg: 'REQUEST', path: 'installments', type: 'integer', default: 1 },
    { concept: 'card_brand', leg: 'REQUEST', path: 'payment_method_id', type: 'string' },
    { concept: 'email', leg: 'REQUEST', path: 'payer.email', type: 'string', required: true },
    { concept: 'first_name', leg: 'REQUEST', path: 'payer.first_name', type: 'string' },
    { concept: 'last_name', leg: 'REQUEST', path: 'payer.last_name', type: 'string' },
    { concept: 'document_number', leg: 'REQUEST', path: 'payer.identification.number', type: 'string' },
    { concept: 'description', leg: 'REQUEST', path: 'description', type: 'string' },
    { concept: 'amount', leg: 'RESPONSE', path: 'transaction_amount', type: 'number' },
    { concept: 'currency', leg: 'RESPONSE', path: 'currency_id', type: 'string' },
    { concept: 'card_last4', leg: 'RESPONSE', path: 'card.last_four_digits', type: 'string' },
    { concept: 'card_bin', leg: 'RESPONSE', path: 'card.first_six_digits', type: 'string' },
    { concept: 'card_brand', leg: 'RESPONSE', path: 'payment_method_id', type: 'string' },
  ],
  metadata: { leg: 'REQUEST', path: 'metadata' },
  status: {
    paths: { RESPONSE: 'status' },
    approved: ['APPROVED', 'AUTHORIZED'],
    declined: ['REJECTED'],
    pending: ['PENDING', 'IN_PROCESS', 'IN_MEDIATION'],
    cancelled: ['CANCELLED', 'REFUNDED', 'CHARGED_BACK'],
  },
  error_paths: { RESPONSE: ['error', 'cause'] },
  brands: { visa: 'VISA', master: 'MASTERCARD', amex: 'AMERICAN_EXPRESS', elo: 'ELO', hipercard: 'HIPERCARD', cabal: 'CABAL', naranja: 'NARANJA', debvisa: 'VISA', debmaster: 'MASTERCARD', diners: 'DINERS' },
};

/**
 * PayU Latam Payments API, POST /payments-api/4.0/service.cgi, command SUBMIT_TRANSACTION
 * (JSON): transaction.order {referenceCode, additionalValues.TX_VALUE {value, currency} in major
 * units, buyer {emailAddress, dniNumber}}, creditCard {number...}, type AUTHORIZATION_AND_CAPTURE
 * or AUTHORIZATION, paymentMethod (VISA, MASTERCARD, AMEX...), paymentCountry, extraParameters
 * INSTALLMENTS_NUMBER. Answer: code (SUCCESS = the call worked), transactionResponse.state
 * (APPROVED, DECLINED, PENDING, ERROR). Confirmation webhook (form): state_pol 4 approved,
 * 6 declined, 5 expired, 7 pending; value and currency; reference_sale.
 */
export const PAYU_PROFILE: MappingProfile = {
  id: 'payu-latam-payments-v4',
  provider_id: 'PAYU',
  description: 'PayU Latam Payments API 4.0 SUBMIT_TRANSACTION, confirmation page webhook',
  amount_unit: 'major',
  country_format: 'alpha2',
  fields: [
    { concept: 'merchant_reference', leg: 'REQUEST', path: 'transaction.order.referenceCode', type: 'string', required: true },
    { concept: 'amount', leg: 'REQUEST', path: 'transaction.order.additionalValues.TX_VALUE.value', required: true },
    { concept: 'currency', leg: 'REQUEST', path: 'transaction.order.additionalValues.TX_VALUE.currency', type: 'string', required: true },
    { concept: 'capture', leg: 'REQUEST', path: 'transaction.type', type: 'string', values: { true: 'AUTHORIZATION_AND_CAPTURE', false: 'AUTHORIZATION' } },
    { concept: 'installments', leg: 'REQUEST', path: 'transaction.extraParameters.INSTALLMENTS_NUMBER', default: 1 },
    { concept: 'card_number', leg: 'REQUEST', path: 'transaction.creditCard.number', type: 'string' },
    { concept: 'card_brand', leg: 'REQUEST', path: 'transaction.paymentMethod', type: 'string' },
    { concept: 'email', leg: 'REQUEST', path: 'transaction.order.buyer.emailAddress', type: 'string' },
    { concept: 'email', leg: 'REQUEST', path: 'transaction.payer.emailAddress', type: 'string' },
    { concept: 'document_number', leg: 'REQUEST', path: 'transaction.order.buyer.dniNumber', type: 'string' },
    { concept: 'document_number', leg: 'REQUEST', path: 'transaction.payer.dniNumber', type: 'string' },
    { concept: 'country', leg: 'REQUEST', path: 'transaction.paymentCountry', type: 'string' },
    { concept: 'description', leg: 'REQUEST', path: 'transaction.order.description', type: 'string' },
    { concept: 'amount', leg: 'WEBHOOK', path: 'value' },
    { concept: 'currency', leg: 'WEBHOOK', path: 'currency', type: 'string' },
    { concept: 'card_last4', leg: 'WEBHOOK', path: 'cc_number', type: 'string' },
  ],
  status: {
    paths: { RESPONSE: 'transactionResponse.state', WEBHOOK: 'state_pol' },
    approved: ['APPROVED', '4'],
    declined: ['DECLINED', 'ERROR', '6', '104'],
    pending: ['PENDING', '7'],
    cancelled: ['EXPIRED', '5'],
  },
  error_paths: { RESPONSE: ['error'] },
  brands: { VISA: 'VISA', MASTERCARD: 'MASTERCARD', AMEX: 'AMERICAN_EXPRESS', DINERS: 'DINERS', ELO: 'ELO', HIPERCARD: 'HIPERCARD', CODENSA: 'CODENSA' },
};

/**
 * Authorize.net API (XML, POST /xml/v1/request.api): createTransactionRequest.transactionRequest
 * (or the same document as JSON) {transactionType authCaptureTransaction / authOnlyTransaction, amount in major units (decimal),
 * currencyCode, payment.creditCard.cardNumber, order.invoiceNumber, customer.email, billTo
 * {firstName, lastName}, userFields.userField [{name, value}]}. Answer: messages.resultCode
 * (Ok / Error), transactionResponse.responseCode 1 approved, 2 declined, 3 error, 4 held for
 * review; accountNumber XXXX1234, accountType (Visa, MasterCard, AmericanExpress...).
 * Webhooks (JSON): eventType net.authorize.payment.*, payload {responseCode, authAmount, invoiceNumber}.
 */
export const AUTHORIZE_NET_PROFILE: MappingProfile = {
  id: 'authorize-net-xml-v1',
  provider_id: 'AUTHORIZE_NET',
  description: 'Authorize.net createTransactionRequest (XML), net.authorize.payment.* webhooks',
  amount_unit: 'major',
  country_format: 'alpha2',
  fields: [
    { concept: 'merchant_reference', leg: 'REQUEST', path: 'createTransactionRequest.transactionRequest.order.invoiceNumber', type: 'string' },
    { concept: 'amount', leg: 'REQUEST', path: 'createTransactionRequest.transactionRequest.amount', required: true },
    { concept: 'currency', leg: 'REQUEST', path: 'createTransactionRequest.transactionRequest.currencyCode', type: 'string', default: 'USD' },
    { concept: 'capture', leg: 'REQUEST', path: 'createTransactionRequest.transactionRequest.transactionType', type: 'string', values: { true: 'authCaptureTransaction', false: 'authOnlyTransaction' }, required: true },
    { concept: 'card_number', leg: 'REQUEST', path: 'createTransactionRequest.transactionRequest.payment.creditCard.cardNumber', type: 'string' },
    { concept: 'email', leg: 'REQUEST', path: 'createTransactionRequest.transactionRequest.customer.email', type: 'string' },
    { concept: 'first_name', leg: 'REQUEST', path: 'createTransactionRequest.transactionRequest.billTo.firstName', type: 'string' },
    { concept: 'last_name', leg: 'REQUEST', path: 'createTransactionRequest.transactionRequest.billTo.lastName', type: 'string' },
    { concept: 'card_last4', leg: 'RESPONSE', path: 'createTransactionResponse.transactionResponse.accountNumber', type: 'string' },
    { concept: 'card_last4', leg: 'RESPONSE', path: 'transactionResponse.accountNumber', type: 'string' },
    { concept: 'card_brand', leg: 'RESPONSE', path: 'createTransactionResponse.transactionResponse.accountType', type: 'string' },
    { concept: 'card_brand', leg: 'RESPONSE', path: 'transactionResponse.accountType', type: 'string' },
    { concept: 'amount', leg: 'WEBHOOK', path: 'payload.authAmount', type: 'number' },
  ],
  metadata: { leg: 'REQUEST', path: 'createTransactionRequest.transactionRequest.userFields' },
  status: {
    // XML answers keep the root element; JSON answers of the same API have none.
    paths: { RESPONSE: ['createTransactionResponse.transactionResponse.responseCode', 'transactionResponse.responseCode'], WEBHOOK: 'payload.responseCode' },
    approved: ['1'],
    declined: ['2', '3'],
    pending: ['4'],
  },
  error_paths: { RESPONSE: ['createTransactionResponse.transactionResponse.errors', 'transactionResponse.errors'] },
  brands: { Visa: 'VISA', MasterCard: 'MASTERCARD', AmericanExpress: 'AMERICAN_EXPRESS', Discover: 'DISCOVER', DinersClub: 'DINERS', JCB: 'JCB' },
};

export const BUILT_IN_PROFILES: MappingProfile[] = [SANDBOX_PROFILE, STRIPE_PROFILE, ADYEN_PROFILE, CHECKOUT_PROFILE, DLOCAL_PROFILE, MERCADO_PAGO_PROFILE, PAYU_PROFILE, AUTHORIZE_NET_PROFILE];

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
  for (const [i, f] of (Array.isArray(p.fields) ? p.fields : []).entries()) {
    if (!f || typeof f.path !== 'string' || !['REQUEST', 'RESPONSE', 'WEBHOOK'].includes(f.leg) || typeof f.concept !== 'string') problems.push(`fields.${i} needs concept, leg and path`);
    else if (!CONCEPTS.includes(f.concept)) problems.push(`fields.${i}.concept ${f.concept} is not one of ${CONCEPTS.join(', ')}`);
    if (f?.unit !== undefined && f.unit !== 'minor' && f.unit !== 'major') problems.push(`fields.${i}.unit must be minor or major`);
    if (f?.values !== undefined && (typeof f.values !== 'object' || f.values === null || Array.isArray(f.values))) problems.push(`fields.${i}.values must map service values to provider values`);
  }
  const vocabulary = (v: unknown, at: string) => {
    const o = v as Partial<StatusVocabulary> | undefined;
    for (const k of ['approved', 'declined', 'pending'] as const) if (!Array.isArray(o?.[k])) problems.push(`${at}.${k} must be an array of provider values`);
  };
  if (p.status !== undefined) {
    if (!p.status || typeof p.status.paths !== 'object') problems.push('status.paths must map legs to paths');
    vocabulary(p.status, 'status');
  }
  if (p.event_types !== undefined) {
    if (typeof p.event_types?.path !== 'string') problems.push('event_types.path is required');
    vocabulary(p.event_types, 'event_types');
  }
  if (p.metadata !== undefined && typeof p.metadata?.path !== 'string') problems.push('metadata.path is required');
  if (p.brands !== undefined && (typeof p.brands !== 'object' || p.brands === null)) problems.push('brands must map provider brand values to Switchyard brands');
  return problems;
}
