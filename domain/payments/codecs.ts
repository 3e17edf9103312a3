/**
 * Payment contract: the creation request (also validated by dry-run) and the Payment
 * resource returned by creation and retrieval.
 *
 * The spec shows only retrieval; creation follows what merchants of payment orchestrators
 * expect: one request names the account, the order, the amount, the payer and exactly one
 * source of card data (inline detail, a one-time token or a vaulted token).
 */
import * as t from 'io-ts';
import {
  annotate,
  boundedArray,
  boundedString,
  amountFieldProblems,
  CountryCode,
  currencyAmount,
  CurrencyCode,
  DateOnly,
  DecimalAmount,
  enumOf,
  HttpsUrl,
  intRange,
  maxString,
  metadataList,
  nullable,
  PositiveDecimalAmount,
  refined,
  struct,
  Timestamp,
  Uuid,
} from '../codecs/common';
import type { FieldError } from '../errors';
import { cardExpiryProblems } from './cards';
import { CARD_METHOD_TYPES, flowOf, PAYMENT_METHOD_TYPES, PaymentFlow } from './methods';
import { CONNECTION_ID_DOC } from './connections';
import {
  PAYMENT_STATUSES,
  PAYMENT_SUB_STATUSES,
  TRANSACTION_CATEGORIES,
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
} from './states';

// ---------------------------------------------------------------------------------------
// Vocabularies
// ---------------------------------------------------------------------------------------

export { CARD_METHOD_TYPES, PAYMENT_METHOD_TYPES } from './methods';
export type { PaymentMethodType } from './methods';
export const PaymentMethodTypeCodec = annotate(enumOf('PaymentMethodType', PAYMENT_METHOD_TYPES), {
  description: 'The payment method vocabulary; each value has a flow (card, redirect, voucher, bank_transfer, wallet_token), listed in the README',
});

/**
 * How the payer's interaction is driven:
 * DIRECT (server to server, the merchant holds the card data or a token),
 * REDIRECT (the payer is sent to a provider page and comes back to callback_url),
 * SDK_CHECKOUT (Switchyard's checkout SDK collects the data in a customer session),
 * SDK_SEAMLESS (the SDK renders inside the merchant page without a session screen).
 */
export const PAYMENT_WORKFLOWS = ['DIRECT', 'REDIRECT', 'SDK_CHECKOUT', 'SDK_SEAMLESS'] as const;
export type PaymentWorkflowKind = (typeof PAYMENT_WORKFLOWS)[number];

export const CARD_BRANDS = ['VISA', 'MASTERCARD', 'AMERICAN_EXPRESS', 'DISCOVER', 'DINERS', 'JCB', 'ELO', 'HIPERCARD', 'MAESTRO', 'UNIONPAY', 'CABAL'] as const;
export type CardBrand = (typeof CARD_BRANDS)[number];

export const CARD_TYPES = ['CREDIT', 'DEBIT', 'PREPAID'] as const;

export const GENDERS = ['M', 'F', 'NB', 'NA'] as const;

export const DOCUMENT_TYPES = ['CPF', 'CNPJ', 'DNI', 'CUIT', 'RUT', 'CC', 'CE', 'NIT', 'RFC', 'CURP', 'CI', 'RUC', 'PASSPORT', 'SSN', 'EIN', 'OTHER'] as const;

export const TAX_TYPES = ['VAT', 'SALES', 'IVA', 'ICMS', 'ISS', 'OTHER'] as const;

// ---------------------------------------------------------------------------------------
// Shared pieces (request side)
// ---------------------------------------------------------------------------------------

const digits = (name: string, min: number, max: number, message: string) =>
  refined(name, t.string, (s) => new RegExp(`^\\d{${min},${max}}$`).test(s), message, { type: 'string', pattern: `^\\d{${min},${max}}$` });

/** Luhn check; the card network's own checksum, so typos are caught before any provider call. */
export function luhnValid(pan: string): boolean {
  let sum = 0;
  for (let i = 0; i < pan.length; i++) {
    let d = pan.charCodeAt(pan.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export const CardNumber = refined(
  'CardNumber',
  t.string,
  (s) => /^\d{12,19}$/.test(s) && luhnValid(s),
  'must be a card number of 12 to 19 digits with a valid check digit',
  { type: 'string', pattern: '^\\d{12,19}$', description: 'PAN; never stored or logged in plaintext', writeOnly: true },
);

export const SecurityCode = annotate(digits('SecurityCode', 3, 4, 'must be 3 or 4 digits'), {
  description: 'CVV/CVC; used for one authorization and then forgotten',
  writeOnly: true,
});

/** Two-digit (26) or four-digit (2026) year, as card forms send both. */
export const ExpirationYear = annotate(intRange(0, 2099, 'ExpirationYear'), { description: 'two-digit (e.g. 29) or four-digit (e.g. 2029) year' });

export const Address = struct(
  'Address',
  {},
  {
    address_line_1: nullable(maxString(255)),
    address_line_2: nullable(maxString(255)),
    city: nullable(maxString(255)),
    state: nullable(maxString(255)),
    country: nullable(CountryCode),
    zip_code: nullable(maxString(32)),
  },
);

export const Document = struct('Document', { document_type: enumOf('DocumentType', DOCUMENT_TYPES), document_number: boundedString(3, 40) }, {});

export const Phone = struct('Phone', { number: digits('PhoneNumber', 4, 20, 'must be 4 to 20 digits') }, {
  country_code: digits('PhoneCountryCode', 1, 4, 'must be 1 to 4 digits'),
  extension: nullable(maxString(10)),
});

export const BrowserInfo = struct(
  'BrowserInfo',
  {},
  {
    user_agent: nullable(maxString(1024)),
    accept_header: nullable(maxString(1024)),
    accept_content: nullable(maxString(1024)),
    accept_browser: nullable(maxString(1024)),
    color_depth: nullable(maxString(8)),
    screen_height: nullable(maxString(8)),
    screen_width: nullable(maxString(8)),
    javascript_enabled: nullable(t.boolean),
    java_enabled: nullable(t.boolean),
    browser_time_difference: nullable(maxString(8)),
    language: nullable(maxString(16)),
  },
);

/** The payer's fields; shared by payments (inline payer) and customers. */
export const customerPayerFields = {
  merchant_customer_id: nullable(boundedString(1, 255)),
  first_name: nullable(boundedString(1, 255)),
  last_name: nullable(boundedString(1, 255)),
  gender: nullable(enumOf('Gender', GENDERS)),
  date_of_birth: nullable(DateOnly),
  email: nullable(refined('Email', t.string, (s) => /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(s) && s.length <= 255, 'must be an e-mail address', { type: 'string', format: 'email', maxLength: 255 })),
  nationality: nullable(CountryCode),
  ip_address: nullable(maxString(45)),
  device_fingerprint: nullable(maxString(4000)),
  browser_info: nullable(BrowserInfo),
  document: nullable(Document),
  phone: nullable(Phone),
  billing_address: nullable(Address),
  shipping_address: nullable(Address),
};

/** customer_payer: `{id}` of a customer created with POST /v1/customers, or inline fields (or both: inline fields override for this payment). */
export const CustomerPayerInput = annotate(struct('CustomerPayerInput', {}, { id: Uuid, ...customerPayerFields }), {
  description: 'Either {"id": "<customer_id>"} of an existing customer or the payer inline',
});

export const StoredCredentials = struct('StoredCredentials', {}, {
  reason: enumOf('StoredCredentialReason', ['CARD_ON_FILE', 'SUBSCRIPTION', 'UNSCHEDULED_CARD_ON_FILE']),
  usage: enumOf('StoredCredentialUsage', ['FIRST', 'USED']),
  network_transaction_id: nullable(maxString(255)),
});

/**
 * payment_method.detail.card. With inline card data, number, holder_name, expiration_month
 * and expiration_year are required; with a token or vaulted_token only the options
 * (security_code re-entered by the payer, installments...) apply. paymentCreateProblems
 * checks which case applies, so every field error names the exact field.
 */
export const CardDetailInput = struct(
  'CardDetailInput',
  {},
  {
    number: CardNumber,
    holder_name: boundedString(1, 255),
    expiration_month: intRange(1, 12, 'ExpirationMonth'),
    expiration_year: ExpirationYear,
    security_code: SecurityCode,
    brand: enumOf('CardBrand', CARD_BRANDS),
    type: enumOf('CardType', CARD_TYPES),
    installments: intRange(1, 48, 'Installments'),
    soft_descriptor: maxString(255),
    stored_credentials: StoredCredentials,
  },
);

export const PaymentMethodInput = struct(
  'PaymentMethodInput',
  { type: PaymentMethodTypeCodec },
  {
    token: annotate(boundedString(1, 4096), { description: 'card methods: one-time token from POST /v1/payment-method-tokens (single use, expires); wallet_token methods: the wallet\'s payment data' }),
    vaulted_token: annotate(Uuid, { description: 'vaulted_token of a method enrolled for the customer' }),
    vault_on_success: annotate(t.boolean, { description: 'enroll the card for customer_payer.id when the payment succeeds (default false)' }),
    detail: struct('PaymentMethodDetailInput', {}, { card: CardDetailInput }),
  },
);

export const AmountInput = currencyAmount('Amount', PositiveDecimalAmount);

export const TaxInput = struct('Tax', { type: enumOf('TaxType', TAX_TYPES), value: DecimalAmount }, {
  tax_base: DecimalAmount,
  percentage: DecimalAmount,
});

/** One share of a marketplace payment: who receives how much, and who pays the fees. */
export const SplitInput = struct(
  'Split',
  { recipient_id: boundedString(1, 255), amount: currencyAmount('SplitAmount', PositiveDecimalAmount) },
  { type: enumOf('SplitType', ['PURCHASE', 'COMMISSION', 'FEE']), merchant_reference: nullable(boundedString(3, 255)), liable_for_chargebacks: t.boolean },
);

export const PaymentCreateRequest = struct(
  'PaymentCreateRequest',
  {
    account_id: Uuid,
    description: boundedString(3, 255),
    country: CountryCode,
    merchant_order_id: boundedString(3, 255),
    amount: AmountInput,
    payment_method: PaymentMethodInput,
  },
  {
    merchant_reference: annotate(boundedString(3, 255), { description: 'defaults to merchant_order_id' }),
    customer_payer: CustomerPayerInput,
    capture: annotate(t.boolean, { description: 'true (default): authorize and capture (PURCHASE); false: authorize only, capture later' }),
    workflow: annotate(enumOf('PaymentWorkflow', PAYMENT_WORKFLOWS), { description: 'default DIRECT' }),
    callback_url: annotate(refined('CallbackUrl', HttpsUrl, (s) => s.length <= 526, 'must be at most 526 characters', { type: 'string', format: 'uri', maxLength: 526 }), {
      description: 'receives the signed webhook events of this payment; the account webhook otherwise',
    }),
    checkout: struct('CheckoutInput', {}, { session: Uuid }),
    metadata: metadataList(50, 512),
    additional_data: nullable(t.UnknownRecord),
    taxes: nullable(boundedArray(TaxInput, 0, 20)),
    split: boundedArray(SplitInput, 0, 50),
  },
);
export type PaymentCreateRequest = t.TypeOf<typeof PaymentCreateRequest>;
export type CardDetailInput = t.TypeOf<typeof CardDetailInput>;

/** The request with its defaults applied (merchant_reference, capture, workflow, vault_on_success). */
export interface NormalizedPaymentCreate extends PaymentCreateRequest {
  merchant_reference: string;
  capture: boolean;
  workflow: PaymentWorkflowKind;
}

export function normalizePaymentCreate(request: PaymentCreateRequest): NormalizedPaymentCreate {
  return {
    ...request,
    merchant_reference: request.merchant_reference ?? request.merchant_order_id,
    capture: request.capture ?? true,
    workflow: request.workflow ?? 'DIRECT',
    payment_method: { ...request.payment_method, vault_on_success: request.payment_method.vault_on_success ?? false },
  };
}

/** Inline card data (as opposed to options given with a token). */
export interface InlineCard extends CardDetailInput {
  number: string;
  holder_name: string;
  expiration_month: number;
  expiration_year: number;
}

export function isInlineCard(card: CardDetailInput | undefined): card is InlineCard {
  return card?.number !== undefined;
}

const INLINE_CARD_FIELDS = ['number', 'holder_name', 'expiration_month', 'expiration_year'] as const;

/** The inline-card fields that are missing (number, holder_name, expiration). */
export function missingInlineCardFields(card: CardDetailInput | undefined, prefix: string): FieldError[] {
  return INLINE_CARD_FIELDS.filter((field) => card?.[field] === undefined).map((field) => ({ field: `${prefix}.${field}`, code: 'REQUIRED', message: `${prefix}.${field} is required` }));
}

/**
 * Sources a non-card method may carry. Card data, vaulted tokens (enrolled cards) and
 * vault_on_success belong to the card flow; a wallet_token method paid server to server
 * (workflow DIRECT) needs the wallet's payment data in `token`; redirect, voucher and
 * bank_transfer methods take nothing: the payer acts at the provider.
 */
function nonCardSourceProblems(request: PaymentCreateRequest, flow: PaymentFlow | undefined): FieldError[] {
  const method = request.payment_method;
  const type = method.type;
  const problems: FieldError[] = [];
  const refuse = (field: string, why: string) => problems.push({ field, code: 'INVALID', message: `${field} ${why}` });
  if (method.detail?.card !== undefined) refuse('payment_method.detail.card', `does not apply to ${type} (a ${flow} method)`);
  if (method.vaulted_token !== undefined) refuse('payment_method.vaulted_token', `is an enrolled card and does not apply to ${type}`);
  if (method.vault_on_success) refuse('payment_method.vault_on_success', `applies to cards only, not to ${type}`);
  if (flow === 'wallet_token') {
    if (method.token === undefined && (request.workflow ?? 'DIRECT') === 'DIRECT') {
      problems.push({ field: 'payment_method.token', code: 'REQUIRED', message: `payment_method.token (the wallet's payment data) is required for ${type} with workflow DIRECT` });
    }
  } else if (method.token !== undefined) {
    refuse('payment_method.token', `does not apply to ${type} (a ${flow} method)`);
  }
  return problems;
}

/**
 * Rules across fields that a codec cannot express. Returns one FieldError per problem
 * (empty when the request is consistent).
 */
export function paymentCreateProblems(request: PaymentCreateRequest, now: Date): FieldError[] {
  const problems: FieldError[] = [];
  const method = request.payment_method;
  const card = method.detail?.card;
  const tokenized = method.token !== undefined || method.vaulted_token !== undefined;
  const sources = [isInlineCard(card), method.token !== undefined, method.vaulted_token !== undefined].filter(Boolean).length;
  const flow = flowOf(method.type);
  if (!CARD_METHOD_TYPES.includes(method.type)) {
    problems.push(...nonCardSourceProblems(request, flow));
  } else if (sources !== 1) {
    problems.push({
      field: 'payment_method',
      code: 'INVALID_PAYMENT_METHOD_SOURCE',
      message: 'payment_method needs exactly one of detail.card.number (inline card), token or vaulted_token',
    });
  } else if (!tokenized) {
    problems.push(...missingInlineCardFields(card, 'payment_method.detail.card'));
  }
  if (method.vault_on_success && CARD_METHOD_TYPES.includes(method.type) && !request.customer_payer?.id) {
    problems.push({ field: 'payment_method.vault_on_success', code: 'INVALID', message: 'vault_on_success needs customer_payer.id (the customer the card is enrolled for)' });
  }
  if (method.vaulted_token && CARD_METHOD_TYPES.includes(method.type) && !request.customer_payer?.id) {
    problems.push({ field: 'customer_payer.id', code: 'REQUIRED', message: 'paying with a vaulted_token needs customer_payer.id (the customer it is enrolled for)' });
  }
  const year = card?.expiration_year;
  if (year !== undefined && year >= 100 && year < 2000) {
    problems.push({ field: 'payment_method.detail.card.expiration_year', code: 'INVALID', message: 'payment_method.detail.card.expiration_year must be two or four digits' });
  } else if (year !== undefined && card?.expiration_month !== undefined) {
    problems.push(...cardExpiryProblems('payment_method.detail.card', card.expiration_month, year, now));
  }
  (request.taxes ?? []).forEach((tax, i) => {
    for (const key of ['value', 'tax_base'] as const) problems.push(...amountFieldProblems(`taxes.${i}.${key}`, tax[key], request.amount.currency));
  });
  (request.split ?? []).forEach((share, i) => {
    if (share.amount.currency !== request.amount.currency) {
      problems.push({ field: `split.${i}.amount.currency`, code: 'INVALID', message: `split.${i}.amount.currency must equal amount.currency` });
    }
  });
  return problems;
}

// ---------------------------------------------------------------------------------------
// The Payment resource (responses)
// ---------------------------------------------------------------------------------------

const str = nullable(t.string);
const num = nullable(t.number);
const bool = nullable(t.boolean);

export const PaymentAmount = t.type(
  {
    currency: CurrencyCode,
    value: annotate(t.number, { description: 'amount requested' }),
    captured: annotate(t.number, { description: 'amount captured so far' }),
    refunded: annotate(t.number, { description: 'amount refunded so far (never more than captured)' }),
  },
  'PaymentAmount',
);

export const CardDetailView = t.type(
  {
    holder_name: str,
    iin: str,
    lfd: str,
    brand: str,
    type: str,
    expiration_month: num,
    expiration_year: num,
    number_length: num,
    installments: num,
    soft_descriptor: str,
    fingerprint: str,
  },
  'CardDetailView',
);

export const BankTransferDetailView = t.type(
  {
    provider_image: str,
    account_type: str,
    bank_name: str,
    beneficiary_name: str,
    bank_account: str,
    bank_account_2: str,
    beneficiary_document_type: str,
    beneficiary_document: str,
    payment_instruction: str,
    redirect_url: str,
  },
  'BankTransferDetailView',
);

export const PaymentMethodDetailView = t.type({ card: nullable(CardDetailView), bank_transfer: nullable(BankTransferDetailView) }, 'PaymentMethodDetailView');

export const PaymentMethodView = t.type(
  {
    vaulted_token: annotate(t.string, { description: 'empty string when the card is not vaulted' }),
    type: t.string,
    vault_on_success: t.boolean,
    token: str,
    payment_method_detail: PaymentMethodDetailView,
  },
  'PaymentMethodView',
);

export const TransactionPaymentMethodView = t.type(
  { vaulted_token: t.string, type: t.string, vault_on_success: t.boolean, token: str, detail: PaymentMethodDetailView },
  'TransactionPaymentMethodView',
);

export const AddressView = t.type(
  { address_line_1: str, address_line_2: str, city: str, state: str, country: str, zip_code: str },
  'AddressView',
);

export const BrowserInfoView = t.type(
  {
    user_agent: str, accept_header: str, accept_content: str, accept_browser: str, color_depth: str, screen_height: str,
    screen_width: str, javascript_enabled: bool, java_enabled: bool, browser_time_difference: str, language: str,
  },
  'BrowserInfoView',
);

export const CustomerPayerView = t.type(
  {
    id: str,
    merchant_customer_id: str,
    first_name: str,
    last_name: str,
    gender: str,
    date_of_birth: str,
    email: str,
    nationality: str,
    ip_address: str,
    device_fingerprint: str,
    browser_info: nullable(BrowserInfoView),
    document: nullable(t.type({ document_type: str, document_number: str })),
    phone: nullable(t.type({ number: str, country_code: str })),
    billing_address: nullable(AddressView),
    shipping_address: nullable(AddressView),
  },
  'CustomerPayerView',
);

export const ProviderDataView = t.type(
  {
    id: annotate(str, { description: 'provider code, e.g. SANDBOX' }),
    transaction_id: annotate(str, { description: 'the provider\'s id of this operation' }),
    account_id: annotate(str, { description: `the provider connection used: ${CONNECTION_ID_DOC}` }),
    status: annotate(str, { description: 'provider status: APPROVED, DECLINED, PENDING, ERROR, TIMEOUT, REVERSED' }),
    status_detail: str,
    response_code: str,
    response_message: str,
    iso8583_response_code: annotate(str, { description: 'ISO 8583 field 39 response code, e.g. 00, 05, 51, 43' }),
    iso8583_response_message: str,
    raw_response: annotate(t.unknown, { description: 'the provider\'s response body; null unless include_raw_response=true' }),
    third_party_transaction_id: str,
  },
  'ProviderDataView',
);

export const TransactionView = t.type(
  {
    id: Uuid,
    type: annotate(enumOf('TransactionType', TRANSACTION_TYPES), { description: 'PURCHASE (authorize + capture), AUTHORIZE, CAPTURE, CANCEL (void), REFUND, CHARGEBACK (a dispute the provider reported by webhook: PENDING while disputed, SUCCEEDED once the funds are withdrawn)' }),
    status: enumOf('TransactionStatus', TRANSACTION_STATUSES),
    category: enumOf('TransactionCategory', TRANSACTION_CATEGORIES),
    amount: t.number,
    provider_id: str,
    payment_method: TransactionPaymentMethodView,
    response_code: str,
    response_message: str,
    reason: str,
    description: str,
    merchant_reference: str,
    provider_data: nullable(ProviderDataView),
    three_d_secure_action_required: t.boolean,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  'Transaction',
);
export type TransactionView = t.TypeOf<typeof TransactionView>;

/** Where a dry-run payment is in its pairing with the registered provider traffic. */
export const DRY_RUN_PAIRING_STATUSES = ['WAITING_FOR_PROVIDER_EVENTS', 'PAIRED', 'UNMATCHED'] as const;

export const DryRunPairing = t.type(
  {
    merchant_reference: annotate(t.string, { description: 'the reference both legs pair on (merchant_reference, else merchant_order_id)' }),
    status: annotate(enumOf('DryRunPairingStatus', DRY_RUN_PAIRING_STATUSES), {
      description: 'WAITING_FOR_PROVIDER_EVENTS until traffic is registered under the reference; PAIRED; UNMATCHED when none came within the pairing window (a late registration still pairs)',
    }),
    registration_id: annotate(nullable(t.string), { description: 'the paired registration (GET /v1/dry-run/provider-events/{id} holds the report)' }),
  },
  'DryRunPairing',
);

const PaymentFields = t.type(
  {
    id: Uuid,
    account_id: Uuid,
    description: t.string,
    country: CountryCode,
    status: annotate(enumOf('PaymentStatus', PAYMENT_STATUSES), { description: 'see the Payments tag for the transition table' }),
    sub_status: enumOf('PaymentSubStatus', PAYMENT_SUB_STATUSES),
    merchant_order_id: t.string,
    merchant_reference: t.string,
    created_at: Timestamp,
    updated_at: Timestamp,
    amount: PaymentAmount,
    checkout: t.type({ session: nullable(Uuid), sdk_action_required: t.boolean }, 'Checkout'),
    payment_method: PaymentMethodView,
    customer_payer: nullable(CustomerPayerView),
    additional_data: nullable(t.UnknownRecord),
    taxes: nullable(t.array(t.type({ type: t.string, value: t.number, tax_base: num, percentage: num }))),
    transactions: annotate(t.array(TransactionView), {
      description: 'the latest transaction only, unless include_transactions=true (whole history, oldest first)',
    }),
    split: t.array(t.type({ recipient_id: t.string, type: str, merchant_reference: str, liable_for_chargebacks: bool, amount: t.type({ currency: t.string, value: t.number }) }, 'SplitView')),
    callback_url: str,
    workflow: t.string,
    metadata: t.array(t.type({ key: t.string, value: t.string })),
  },
  'PaymentFields',
);

/**
 * A payment as answered by creation and GET. A payment created with `Dry-run: true` is a
 * payment too (GET /v1/payments/{id} reads it) and says so: `dry_run: true` and its
 * `dry_run_pairing`; it was never routed, so it stays READY_TO_PAY / CREATED.
 */
export const Payment = t.intersection(
  [
    PaymentFields,
    t.partial({
      dry_run: annotate(t.literal(true), { description: 'present (true) only on a dry-run payment (created with Dry-run: true): validated and stored, never routed to a provider, never captured or refunded' }),
      dry_run_pairing: annotate(DryRunPairing, { description: 'present only on a dry-run payment' }),
    }),
  ],
  'Payment',
);
export type Payment = t.TypeOf<typeof Payment>;

export const PaymentList = t.array(Payment, 'PaymentList');
