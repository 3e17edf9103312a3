/**
 * Unreferenced refunds: credits pushed to a card, bank account or wallet without an
 * original payment. Request codec, cross-field rules, the stored record and its rendering.
 *
 * Lifecycle (the workflow enforces it):
 * | from                 | event                               | to                          |
 * |----------------------|-------------------------------------|-----------------------------|
 * | (none)               | request accepted                    | CREATED/CREATED             |
 * | CREATED/CREATED      | fraud screening rejects             | DECLINED/FRAUD_REJECTED     |
 * | CREATED/CREATED      | submitted to a provider             | PROCESSING/SUBMITTED        |
 * | PROCESSING/SUBMITTED | provider approves                   | SUCCEEDED/APPROVED          |
 * | PROCESSING/SUBMITTED | provider declines (after failover)  | DECLINED/DECLINED           |
 * | PROCESSING/SUBMITTED | provider errors on every connection | FAILED/PROVIDER_ERROR       |
 * SUCCEEDED, DECLINED and FAILED are final.
 */
import * as t from 'io-ts';
import {
  annotate, boundedString, CountryCode, currencyAmount, DecimalAmount, enumOf, intRange, maxString, metadataList, nullable, struct, Uuid,
} from '../codecs/common';
import type { FieldError } from '../errors';
import { isIsoCountry } from '../iso-codes';
import { CARD_BRANDS, CARD_TYPES, CardNumber, customerPayerFields, Document, ExpirationYear, SecurityCode, StoredCredentials } from '../payments/codecs';
import { PROVIDER_IDS } from '../payments/routing';
import { CREDIT_PROVIDER_CODES } from '../providers/catalogue';
import { ConnectionIdView } from '../payments/connections';
import { bankRailOf, CreditMethod, lastFourOf, SecureCallbackUrl } from '../money-movement/common';

export const BANK_ACCOUNT_TYPES = ['IBAN', 'CHECKING', 'SAVINGS', 'CLABE', 'CCI', 'LOCAL', 'MANDATE'] as const;
export const PARTY_TYPES = ['INDIVIDUAL', 'ENTITY'] as const;
/** Corridors whose local rails need the beneficiary's tax document. */
export const DOCUMENT_CORRIDORS = ['BR', 'CO', 'PE', 'CL', 'AR'];

const RefundCardData = struct(
  'RefundCardData',
  {
    number: CardNumber,
    holder_name: boundedString(1, 255),
    expiration_month: intRange(1, 12, 'ExpirationMonth'),
    expiration_year: ExpirationYear,
    brand: enumOf('CardBrand', CARD_BRANDS),
  },
  { security_code: annotate(SecurityCode, { description: 'accepted for compatibility; a credit does not use it and it is never stored' }), type: enumOf('CardType', CARD_TYPES) },
);

const NetworkToken = struct('NetworkToken', {}, {
  token_requestor_id: maxString(64),
  token_reference_id: maxString(255),
  eci: maxString(2),
});

export const RefundCardDetail = struct('RefundCardDetail', { card_data: RefundCardData }, {
  soft_descriptor: maxString(255),
  stored_credentials: StoredCredentials,
  network_token: NetworkToken,
});

export const RefundBankTransferDetail = struct(
  'RefundBankTransferDetail',
  { account_type: enumOf('BankAccountType', BANK_ACCOUNT_TYPES), beneficiary_name: boundedString(1, 255) },
  {
    provider_token: annotate(boundedString(1, 255), { description: 'provider reference of an existing bank object; the mandate id for MANDATE' }),
    bank_account: annotate(boundedString(4, 64), { description: 'IBAN or account number; required without provider_token' }),
    bank_id: annotate(boundedString(1, 64), { description: 'BIC/SWIFT, or the 9-digit routing number (required for ACH)' }),
    beneficiary_type: enumOf('BeneficiaryType', PARTY_TYPES),
    beneficiary_document: Document,
  },
);

export const RefundWalletDetail = struct('RefundWalletDetail', { payment_token: annotate(boundedString(1, 255), { description: 'the recipient\'s payer identifier in the wallet scheme' }) }, {});

export const RefundPaymentMethod = annotate(
  struct('RefundPaymentMethod', {}, {
    vaulted_token: annotate(Uuid, { description: 'vaulted_token of an enrolled card (preferred)' }),
    detail: struct('RefundPaymentMethodDetail', {}, { card: RefundCardDetail, bank_transfer: RefundBankTransferDetail, wallet: RefundWalletDetail }),
  }),
  { description: 'Exactly one of vaulted_token, detail.card, detail.bank_transfer or detail.wallet (else INVALID_PAYMENT_METHOD_SOURCE)' },
);

export const RefundCustomerPayer = struct('RefundCustomerPayer', {}, {
  id: annotate(Uuid, { description: 'an existing customer (alternative to inline data)' }),
  ...customerPayerFields,
  type: enumOf('PayerType', PARTY_TYPES),
  business_name: annotate(boundedString(1, 255), { description: 'required when type is ENTITY' }),
});

export const UnreferencedRefundRequest = struct(
  'UnreferencedRefundRequest',
  {
    account_id: Uuid,
    merchant_order_id: boundedString(3, 255),
    description: annotate(boundedString(3, 255), { description: 'appears on dashboards and statements' }),
    country: annotate(CountryCode, { description: 'drives provider routing' }),
    amount: currencyAmount('RefundAmount', annotate(DecimalAmount, { description: 'greater than 0 (else OUT_OF_RANGE), at most the currency\'s ISO 4217 decimal places', exclusiveMinimum: 0 })),
    payment_method: RefundPaymentMethod,
  },
  {
    merchant_reference: annotate(boundedString(3, 255), { description: 'defaults to merchant_order_id' }),
    provider_data: struct('RefundProviderData', {
      id: annotate(enumOf('ProviderId', PROVIDER_IDS), {
        description: `a provider catalogue code; pins the refund to this provider and bypasses routing rules. The ${CREDIT_PROVIDER_CODES.length} that can push credits: ${CREDIT_PROVIDER_CODES.join(', ')}; any other catalogue code answers 422 UNREFERENCED_REFUND_NOT_SUPPORTED`,
      }),
    }, {}),
    customer_payer: annotate(RefundCustomerPayer, { description: 'required for ACH, SEPA and wallet destinations (sanctions/AML screening)' }),
    metadata: annotate(metadataList(50, 512), { description: 'echoed in the response and in webhook payloads' }),
    callback_url: SecureCallbackUrl,
    fraud_screening: struct('FraudScreening', {}, { stand_alone: annotate(t.boolean, { description: 'true: a fraud check runs before the provider is called' }) }),
  },
);
export type UnreferencedRefundRequest = t.TypeOf<typeof UnreferencedRefundRequest>;

export function creditMethodOf(request: UnreferencedRefundRequest): CreditMethod {
  const detail = request.payment_method.detail;
  return detail?.bank_transfer ? 'BANK_TRANSFER' : detail?.wallet ? 'WALLET' : 'CARD';
}

const BIC = /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/;

/** ISO 13616 check (mod 97). */
export function ibanValid(iban: string): boolean {
  const compact = iban.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(compact) || !isIsoCountry(compact.slice(0, 2))) return false;
  const digits = (compact.slice(4) + compact.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rest = 0;
  for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  return rest === 1;
}

/** Cross-field rules; one FieldError per problem. */
export function unreferencedRefundProblems(request: UnreferencedRefundRequest): FieldError[] {
  const problems: FieldError[] = [];
  const add = (field: string, code: string, message: string) => problems.push({ field, code, message });
  if (request.amount.value <= 0) add('amount.value', 'OUT_OF_RANGE', 'amount.value must be greater than 0');

  const method = request.payment_method;
  const detail = method.detail ?? {};
  const sources = [method.vaulted_token, detail.card, detail.bank_transfer, detail.wallet].filter((s) => s !== undefined).length;
  if (sources !== 1) {
    add('payment_method', 'INVALID_PAYMENT_METHOD_SOURCE', 'payment_method needs exactly one of vaulted_token, detail.card, detail.bank_transfer or detail.wallet');
    return problems;
  }
  const payer = request.customer_payer;
  const year = detail.card?.card_data.expiration_year;
  if (year !== undefined && year >= 100 && year < 2000) add('payment_method.detail.card.card_data.expiration_year', 'INVALID', 'expiration_year must be two or four digits');

  const bank = detail.bank_transfer;
  if (bank) {
    const prefix = 'payment_method.detail.bank_transfer';
    const rail = bankRailOf(request.country, bank.account_type);
    if (!bank.provider_token && !bank.bank_account) add(`${prefix}.bank_account`, 'REQUIRED', `${prefix}.bank_account is required when there is no provider_token`);
    if (bank.account_type === 'MANDATE' && !bank.provider_token) add(`${prefix}.provider_token`, 'REQUIRED', `${prefix}.provider_token (the mandate id) is required for MANDATE destinations`);
    if (bank.account_type === 'IBAN' && bank.bank_account && !ibanValid(bank.bank_account)) add(`${prefix}.bank_account`, 'INVALID', `${prefix}.bank_account is not a valid IBAN`);
    if (rail === 'ACH') {
      if (!bank.bank_id) add(`${prefix}.bank_id`, 'REQUIRED', `${prefix}.bank_id (9-digit routing number) is required for ACH`);
      else if (!/^\d{9}$/.test(bank.bank_id)) add(`${prefix}.bank_id`, 'INVALID', `${prefix}.bank_id must be a 9-digit routing number for ACH`);
    } else if (bank.bank_id && !(BIC.test(bank.bank_id) && isIsoCountry(bank.bank_id.slice(4, 6))) && !/^\d{3,11}$/.test(bank.bank_id)) {
      add(`${prefix}.bank_id`, 'INVALID', `${prefix}.bank_id must be a BIC/SWIFT code or a numeric bank code`);
    }
    if ((rail === 'ACH' || DOCUMENT_CORRIDORS.includes(request.country)) && !bank.beneficiary_document) {
      add(`${prefix}.beneficiary_document`, 'REQUIRED', `${prefix}.beneficiary_document is required for ${rail === 'ACH' ? 'ACH' : `bank credits in ${request.country}`}`);
    }
    if ((rail === 'ACH' || rail === 'SEPA') && !payer) add('customer_payer', 'REQUIRED', `customer_payer is required for ${rail} destinations`);
  }
  if (detail.wallet && !payer) add('customer_payer', 'REQUIRED', 'customer_payer is required for wallet destinations');
  if (payer?.type === 'ENTITY' && !payer.business_name) add('customer_payer.business_name', 'REQUIRED', 'customer_payer.business_name is required when type is ENTITY');
  return problems;
}

// ---- the stored record ------------------------------------------------------------------

export type RefundStatus = 'CREATED' | 'PROCESSING' | 'SUCCEEDED' | 'DECLINED' | 'FAILED';

export interface RefundPayerSummary {
  id: string | null;
  merchant_customer_id: string | null;
  type: string | null;
  first_name: string | null;
  last_name: string | null;
  business_name: string | null;
  email: string | null;
  nationality: string | null;
}

export interface CreditAttempt {
  attempt: number;
  provider_id: string;
  connection_id: string;
  category: string;
  status: string;
  reference: string | null;
  response_code: string;
  raw_response_code: string | null;
  message: string;
  at: string;
}

export interface RefundRecord {
  id: string;
  version: number;
  organization_code: string;
  account_id: string;
  merchant_order_id: string;
  merchant_reference: string;
  country: string;
  description: string;
  amount: { value: number; currency: string };
  status: RefundStatus;
  sub_status: string;
  method: {
    kind: CreditMethod;
    vaulted_token: string | null;
    card: { brand: string | null; last_four: string; type: string | null } | null;
    bank_transfer: { account_type: string; rail: string; last_four: string | null; beneficiary_name: string } | null;
    wallet: { last_four: string | null } | null;
    soft_descriptor: string | null;
  };
  customer_payer: RefundPayerSummary | null;
  /** The connection chosen first (provider pinned or routed); replaced by the one that answered. */
  provider: { name: string; type: string; connection_id: string; reference: string | null; category: string | null; raw_response_code: string | null } | null;
  attempts: CreditAttempt[];
  fraud_screening: { stand_alone: boolean; status: 'NOT_REQUESTED' | 'APPROVED' | 'REJECTED'; reasons: string[] };
  metadata: Array<{ key: string; value: string }>;
  callback_url: string | null;
  /** Keyed hash of the destination (card fingerprint or account), for velocity screening; never rendered. */
  destination_fingerprint: string;
  created_at: string;
  updated_at: string;
}

/** Provider "type": the rail the credit travels on. */
export function creditRailOf(record: Pick<RefundRecord, 'method'>): string {
  if (record.method.kind === 'CARD') return 'CARD_CREDIT';
  if (record.method.kind === 'WALLET') return 'WALLET';
  return record.method.bank_transfer!.rail === 'LOCAL' ? 'LOCAL_BANK_TRANSFER' : record.method.bank_transfer!.rail;
}

export function withRefundChanges(record: RefundRecord, changes: Partial<RefundRecord>, at: string): RefundRecord {
  return { ...record, ...changes, version: record.version + 1, updated_at: at };
}

// ---- the resource (responses) -----------------------------------------------------------

const str = nullable(t.string);

export const UnreferencedRefund = t.type(
  {
    id: Uuid,
    account_id: Uuid,
    merchant_order_id: t.string,
    merchant_reference: t.string,
    country: t.string,
    description: t.string,
    amount: t.type({ value: t.number, currency: t.string }),
    status: annotate(enumOf('RefundStatus', ['CREATED', 'PROCESSING', 'SUCCEEDED', 'DECLINED', 'FAILED']), { description: 'CREATED on acceptance; then PROCESSING, and SUCCEEDED, DECLINED or FAILED' }),
    sub_status: annotate(t.string, { description: 'CREATED, SUBMITTED, APPROVED, DECLINED, FRAUD_REJECTED, PROVIDER_ERROR' }),
    payment_method: t.type({
      vaulted_token: str,
      detail: t.partial({
        card: t.type({ card_data: t.type({ brand: str, last_four: t.string, type: str }) }),
        bank_transfer: t.type({ account_type: t.string, last_four: str, beneficiary_name: t.string }),
        wallet: t.type({ last_four: str }),
      }),
    }),
    customer_payer: nullable(t.type({ id: str, merchant_customer_id: str, type: str, first_name: str, last_name: str, business_name: str, email: str, nationality: str })),
    provider: nullable(t.type({ name: t.string, type: t.string, connection_id: ConnectionIdView, reference: str, category: str, raw_response_code: str })),
    metadata: t.array(t.type({ key: t.string, value: t.string })),
    created_at: t.string,
    updated_at: t.string,
  },
  'UnreferencedRefund',
);
export type UnreferencedRefund = t.TypeOf<typeof UnreferencedRefund>;

export function renderRefund(r: RefundRecord): UnreferencedRefund {
  const m = r.method;
  const detail: UnreferencedRefund['payment_method']['detail'] = {};
  if (m.card) detail.card = { card_data: { brand: m.card.brand, last_four: m.card.last_four, type: m.card.type } };
  if (m.bank_transfer) detail.bank_transfer = { account_type: m.bank_transfer.account_type, last_four: m.bank_transfer.last_four, beneficiary_name: m.bank_transfer.beneficiary_name };
  if (m.wallet) detail.wallet = { last_four: m.wallet.last_four };
  return {
    id: r.id,
    account_id: r.account_id,
    merchant_order_id: r.merchant_order_id,
    merchant_reference: r.merchant_reference,
    country: r.country,
    description: r.description,
    amount: { value: r.amount.value, currency: r.amount.currency },
    status: r.status,
    sub_status: r.sub_status,
    payment_method: { vaulted_token: m.vaulted_token, detail },
    customer_payer: r.customer_payer,
    provider: r.provider,
    metadata: r.metadata,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** The stored method summary for a bank or wallet destination (never the full account). */
export function bankSummaryOf(country: string, bank: t.TypeOf<typeof RefundBankTransferDetail>) {
  return { account_type: bank.account_type, rail: bankRailOf(country, bank.account_type), last_four: lastFourOf(bank.bank_account ?? bank.provider_token), beneficiary_name: bank.beneficiary_name };
}
