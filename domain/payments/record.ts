/**
 * The payment as the workflow holds it (PaymentRecord) and as the API shows it (Payment).
 * The record is what activities write to MongoDB; it never holds a PAN or CVV, only the
 * card's displayable facts and vault references.
 */
import { flowOf } from './methods';
import { addAmounts, compareAmounts, subtractAmounts } from '../money';
import type { NormalizedPaymentCreate, Payment, TransactionView } from './codecs';
import { PaymentState, transition, PaymentEvent, TransactionCategory, TransactionStatus, TransactionType } from './states';

/** What may be shown about a card (never the PAN). */
export interface CardSummary {
  holder_name: string | null;
  iin: string;
  lfd: string;
  brand: string | null;
  type: string | null;
  expiration_month: number;
  expiration_year: number;
  number_length: number;
  fingerprint: string;
}

export interface CustomerPayerRecord {
  id: string | null;
  merchant_customer_id: string | null;
  first_name: string | null;
  last_name: string | null;
  gender: string | null;
  date_of_birth: string | null;
  email: string | null;
  nationality: string | null;
  ip_address: string | null;
  device_fingerprint: string | null;
  browser_info: Record<string, unknown> | null;
  document: { document_type: string | null; document_number: string | null } | null;
  phone: { number: string | null; country_code: string | null } | null;
  billing_address: Record<string, string | null> | null;
  shipping_address: Record<string, string | null> | null;
}

export interface ProviderDataRecord {
  id: string | null;
  transaction_id: string | null;
  account_id: string | null;
  status: string | null;
  status_detail: string | null;
  response_code: string | null;
  response_message: string | null;
  iso8583_response_code: string | null;
  iso8583_response_message: string | null;
  raw_response: unknown;
  third_party_transaction_id: string | null;
}

export interface TransactionRecord {
  id: string;
  type: TransactionType;
  status: TransactionStatus;
  category: TransactionCategory;
  amount: number;
  provider_id: string | null;
  connection_id: string | null;
  response_code: string | null;
  response_message: string | null;
  reason: string | null;
  description: string | null;
  merchant_reference: string | null;
  provider_data: ProviderDataRecord | null;
  three_d_secure_action_required: boolean;
  created_at: string;
  updated_at: string;
}

export interface PaymentRecord extends PaymentState {
  id: string;
  organization_code: string;
  account_id: string;
  /** Bumped on every change; the store keeps only the highest version. */
  version: number;
  description: string;
  country: string;
  merchant_order_id: string;
  merchant_reference: string;
  created_at: string;
  updated_at: string;
  amount: { currency: string; value: number; captured: number; refunded: number };
  capture: boolean;
  checkout: { session: string | null; sdk_action_required: boolean };
  payment_method: {
    type: string;
    vaulted_token: string;
    token: string | null;
    vault_on_success: boolean;
    card: (CardSummary & { installments: number | null; soft_descriptor: string | null }) | null;
  };
  customer_payer: CustomerPayerRecord | null;
  additional_data: Record<string, unknown> | null;
  taxes: Array<{ type: string; value: number; tax_base: number | null; percentage: number | null }> | null;
  transactions: TransactionRecord[];
  split: Array<{ recipient_id: string; type: string | null; merchant_reference: string | null; liable_for_chargebacks: boolean | null; amount: { currency: string; value: number } }>;
  callback_url: string | null;
  workflow: string;
  metadata: Array<{ key: string; value: string }>;
}

/** The request without any card secret: what a workflow may carry in its history. */
export type SanitizedPaymentRequest = Omit<NormalizedPaymentCreate, 'payment_method'> & {
  payment_method: Omit<NormalizedPaymentCreate['payment_method'], 'detail'> & {
    detail?: { card?: { installments?: number; soft_descriptor?: string; type?: string; brand?: string } };
  };
};

export function sanitizePaymentRequest(request: NormalizedPaymentCreate): SanitizedPaymentRequest {
  const card = request.payment_method.detail?.card;
  const { detail: _detail, ...method } = request.payment_method;
  // Wallet payment data carries a cryptogram: authentication data is never kept or echoed.
  if (flowOf(method.type) === 'wallet_token') delete method.token;
  return {
    ...request,
    payment_method: {
      ...method,
      ...(card
        ? { detail: { card: { installments: card.installments, soft_descriptor: card.soft_descriptor, type: card.type, brand: card.brand } } }
        : {}),
    },
  };
}

export interface NewPaymentInput {
  paymentId: string;
  organizationCode: string;
  accountId: string;
  createdAt: string;
  request: SanitizedPaymentRequest;
  card: CardSummary | null;
  customer: CustomerPayerRecord | null;
  /** Set when paying with an enrolled method. */
  vaultedToken: string | null;
}

export function newPaymentRecord(input: NewPaymentInput): PaymentRecord {
  const r = input.request;
  const cardOptions = r.payment_method.detail?.card;
  return {
    id: input.paymentId,
    organization_code: input.organizationCode,
    account_id: input.accountId,
    version: 1,
    status: 'READY_TO_PAY',
    sub_status: 'CREATED',
    description: r.description,
    country: r.country,
    merchant_order_id: r.merchant_order_id,
    merchant_reference: r.merchant_reference,
    created_at: input.createdAt,
    updated_at: input.createdAt,
    amount: { currency: r.amount.currency, value: r.amount.value, captured: 0, refunded: 0 },
    capture: r.capture,
    checkout: { session: r.checkout?.session ?? null, sdk_action_required: false },
    payment_method: {
      type: r.payment_method.type,
      vaulted_token: input.vaultedToken ?? '',
      token: r.payment_method.token ?? null,
      vault_on_success: r.payment_method.vault_on_success ?? false,
      card: input.card
        ? {
            ...input.card,
            type: input.card.type ?? cardOptions?.type ?? null,
            installments: cardOptions?.installments ?? null,
            soft_descriptor: cardOptions?.soft_descriptor ?? null,
          }
        : null,
    },
    customer_payer: input.customer,
    additional_data: r.additional_data ?? null,
    taxes: r.taxes ? r.taxes.map((tax) => ({ type: tax.type, value: tax.value, tax_base: tax.tax_base ?? null, percentage: tax.percentage ?? null })) : null,
    transactions: [],
    split: (r.split ?? []).map((s) => ({
      recipient_id: s.recipient_id,
      type: s.type ?? null,
      merchant_reference: s.merchant_reference ?? null,
      liable_for_chargebacks: s.liable_for_chargebacks ?? null,
      amount: { currency: s.amount.currency, value: s.amount.value },
    })),
    callback_url: r.callback_url ?? null,
    workflow: r.workflow,
    metadata: (r.metadata ?? []).map((m) => ({ key: m.key, value: m.value })),
  };
}

/** A new version of the record with a state change applied (throws on a forbidden one). */
export function applyEvent(record: PaymentRecord, event: PaymentEvent, at: string): PaymentRecord {
  const next = transition(record, event);
  return { ...record, ...next, version: record.version + 1, updated_at: at };
}

export function withTransaction(record: PaymentRecord, transaction: TransactionRecord, at: string): PaymentRecord {
  return { ...record, transactions: [...record.transactions, transaction], version: record.version + 1, updated_at: at };
}

export function withChanges(record: PaymentRecord, changes: Partial<PaymentRecord>, at: string): PaymentRecord {
  return { ...record, ...changes, version: record.version + 1, updated_at: at };
}

/** Amount still refundable: captured minus refunded (0.0001 units, no float sums). */
export function refundable(record: PaymentRecord): number {
  return subtractAmounts(record.amount.captured, record.amount.refunded);
}

export function addRefund(record: PaymentRecord, amount: number): PaymentRecord['amount'] {
  return { ...record.amount, refunded: addAmounts(record.amount.refunded, amount) };
}

export function isFullRefund(record: PaymentRecord, amount: number): boolean {
  return compareAmounts(addAmounts(record.amount.refunded, amount), record.amount.captured) === 0;
}

/** The transaction that authorized the payment (its provider and id serve later operations). */
export function authorizingTransaction(record: PaymentRecord): TransactionRecord | undefined {
  return [...record.transactions].reverse().find((t) => (t.type === 'PURCHASE' || t.type === 'AUTHORIZE') && t.status === 'SUCCEEDED');
}

export interface RenderOptions {
  includeRawResponse: boolean;
  includeTransactions: boolean;
}

const EMPTY_BANK_TRANSFER = null;

function cardDetail(record: PaymentRecord) {
  const card = record.payment_method.card;
  return {
    card: card
      ? {
          holder_name: card.holder_name,
          iin: card.iin,
          lfd: card.lfd,
          brand: card.brand,
          type: card.type,
          expiration_month: card.expiration_month,
          expiration_year: card.expiration_year,
          number_length: card.number_length,
          installments: card.installments,
          soft_descriptor: card.soft_descriptor,
          fingerprint: card.fingerprint,
        }
      : null,
    bank_transfer: EMPTY_BANK_TRANSFER,
  };
}

function renderTransaction(record: PaymentRecord, t: TransactionRecord, options: RenderOptions): TransactionView {
  return {
    id: t.id,
    type: t.type,
    status: t.status,
    category: t.category,
    amount: t.amount,
    provider_id: t.provider_id,
    payment_method: {
      vaulted_token: record.payment_method.vaulted_token,
      type: record.payment_method.type,
      vault_on_success: record.payment_method.vault_on_success,
      token: record.payment_method.token,
      detail: cardDetail(record),
    },
    response_code: t.response_code,
    response_message: t.response_message,
    reason: t.reason,
    description: t.description,
    merchant_reference: t.merchant_reference,
    provider_data: t.provider_data ? { ...t.provider_data, raw_response: options.includeRawResponse ? t.provider_data.raw_response ?? null : null } : null,
    three_d_secure_action_required: t.three_d_secure_action_required,
    created_at: t.created_at,
    updated_at: t.updated_at,
  };
}

const NULL_PAYER_FIELDS = {
  id: null, merchant_customer_id: null, first_name: null, last_name: null, gender: null, date_of_birth: null, email: null,
  nationality: null, ip_address: null, device_fingerprint: null, browser_info: null, document: null, phone: null,
  billing_address: null, shipping_address: null,
};

/** The Payment resource as the spec lists it. */
export function renderPayment(record: PaymentRecord, options: RenderOptions = { includeRawResponse: false, includeTransactions: false }): Payment {
  const transactions = options.includeTransactions ? record.transactions : record.transactions.slice(-1);
  return {
    id: record.id,
    account_id: record.account_id,
    description: record.description,
    country: record.country,
    status: record.status,
    sub_status: record.sub_status,
    merchant_order_id: record.merchant_order_id,
    merchant_reference: record.merchant_reference,
    created_at: record.created_at,
    updated_at: record.updated_at,
    amount: { ...record.amount },
    checkout: { ...record.checkout },
    payment_method: {
      vaulted_token: record.payment_method.vaulted_token,
      type: record.payment_method.type,
      vault_on_success: record.payment_method.vault_on_success,
      token: record.payment_method.token,
      payment_method_detail: cardDetail(record),
    },
    customer_payer: record.customer_payer ? ({ ...NULL_PAYER_FIELDS, ...record.customer_payer } as Payment['customer_payer']) : null,
    additional_data: record.additional_data,
    taxes: record.taxes,
    transactions: transactions.map((t) => renderTransaction(record, t, options)),
    split: record.split,
    callback_url: record.callback_url,
    workflow: record.workflow,
    metadata: record.metadata,
  };
}
