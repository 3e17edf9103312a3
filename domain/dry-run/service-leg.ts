/**
 * The service side of a dry run: the payment request sent with `Dry-run: true` (validated
 * with the payment codec, then redacted), its payment-shaped answer, and, when a
 * registration names a real payment_id, a service view rebuilt from that payment.
 */
import * as t from 'io-ts';
import { brandOf } from '../payments/cards';
import { DryRunPairing, isInlineCard, normalizePaymentCreate, Payment, PaymentCreateRequest } from '../payments/codecs';
import { CustomerPayerRecord, newPaymentRecord, PaymentRecord, renderPayment, sanitizePaymentRequest } from '../payments/record';

/** The answer to POST /v1/payments with Dry-run: true: a Payment that says it is a dry run. */
export const DryRunPayment = t.intersection(
  [
    Payment,
    t.type({ dry_run: t.literal(true), dry_run_pairing: DryRunPairing }),
  ],
  'DryRunPayment',
);
export type DryRunPayment = t.TypeOf<typeof DryRunPayment>;

/** The merchant reference both legs pair on (payment creation defaults it to merchant_order_id). */
export function pairingReference(request: PaymentCreateRequest): string {
  return request.merchant_reference ?? request.merchant_order_id;
}

function customerOf(request: PaymentCreateRequest): CustomerPayerRecord | null {
  const c = request.customer_payer;
  if (!c) return null;
  return {
    id: c.id ?? null, merchant_customer_id: c.merchant_customer_id ?? null, first_name: c.first_name ?? null, last_name: c.last_name ?? null,
    gender: c.gender ?? null, date_of_birth: c.date_of_birth ?? null, email: c.email ?? null, nationality: c.nationality ?? null,
    ip_address: c.ip_address ?? null, device_fingerprint: c.device_fingerprint ?? null, browser_info: (c.browser_info as Record<string, unknown>) ?? null,
    document: c.document ? { document_type: c.document.document_type, document_number: c.document.document_number } : null,
    phone: c.phone ? { number: c.phone.number, country_code: c.phone.country_code ?? null } : null,
    billing_address: (c.billing_address as Record<string, string | null>) ?? null, shipping_address: (c.shipping_address as Record<string, string | null>) ?? null,
  };
}

/** The payment-shaped view of a dry-run payment (no PAN: the card is IIN, last 4 and fingerprint). */
export function dryRunPaymentView(input: {
  paymentId: string; organizationCode: string; accountId: string; createdAt: string; request: PaymentCreateRequest; cardFingerprint: string | null;
}): Payment {
  const normalized = normalizePaymentCreate(input.request);
  const card = normalized.payment_method.detail?.card;
  const record = newPaymentRecord({
    paymentId: input.paymentId, organizationCode: input.organizationCode, accountId: input.accountId, createdAt: input.createdAt,
    request: sanitizePaymentRequest(normalized),
    card: isInlineCard(card)
      ? { holder_name: card.holder_name, iin: card.number.slice(0, card.number.length >= 16 ? 8 : 6), lfd: card.number.slice(-4), brand: card.brand ?? brandOf(card.number), type: card.type ?? null, expiration_month: card.expiration_month, expiration_year: card.expiration_year, number_length: card.number.length, fingerprint: input.cardFingerprint ?? '' }
      : null,
    customer: customerOf(input.request),
    vaultedToken: input.request.payment_method.vaulted_token ?? null,
  });
  return renderPayment(record);
}

/** A dry-run payment as answered: its view marked dry_run, with where its pairing stands. */
export function renderDryRunPayment(view: Payment, pairing: { merchantReference: string; status: DryRunPayment['dry_run_pairing']['status']; registrationId: string | null }): DryRunPayment {
  return {
    ...view,
    dry_run: true,
    dry_run_pairing: { merchant_reference: pairing.merchantReference, status: pairing.status, registration_id: pairing.registrationId },
  };
}

/** Hash part of a PAN placeholder when only IIN and last 4 are known (compared by digits). */
const UNKNOWN_PAN_HASH = '000000000000';

/**
 * A real payment (registration with payment_id) seen as the service request the pipeline
 * grades: the stored record has no PAN, so the card is IIN + last 4.
 */
export function serviceViewOfPayment(record: PaymentRecord): Record<string, unknown> {
  const card = record.payment_method.card;
  return {
    account_id: record.account_id,
    merchant_order_id: record.merchant_order_id,
    merchant_reference: record.merchant_reference,
    description: record.description,
    country: record.country,
    amount: { currency: record.amount.currency, value: record.amount.value },
    capture: record.capture,
    payment_method: {
      type: record.payment_method.type,
      ...(card ? { detail: { card: { number: `[PAN:${card.iin.slice(0, 6)}${'*'.repeat(Math.max(0, card.number_length - 10))}${card.lfd}:${UNKNOWN_PAN_HASH}]`, installments: card.installments ?? undefined, holder_name: card.holder_name } } } : {}),
    },
    customer_payer: record.customer_payer,
    metadata: record.metadata,
  };
}

/**
 * What a registration without provider_id / payment_method_type takes from its partner leg
 * (the dry-run payment it pairs with by merchant_reference): the payment method type, and the
 * facts routing needs to name the provider the payment would go to.
 */
export function partnerLegFacts(request: Record<string, unknown>): {
  paymentMethodType: string | null;
  routing: { country: string; paymentMethodType: string; currency: string; amount: number; cardBrand: string | null; iin: string | null } | null;
} {
  const method = request.payment_method as { type?: unknown; detail?: { card?: { number?: unknown; brand?: unknown } } } | undefined;
  const type = typeof method?.type === 'string' ? method.type : null;
  const amount = request.amount as { currency?: unknown; value?: unknown } | undefined;
  const pan = typeof method?.detail?.card?.number === 'string' ? /\[PAN:(\d{6})/.exec(method.detail.card.number)?.[1] ?? null : null;
  const declared = typeof method?.detail?.card?.brand === 'string' ? method.detail.card.brand : null;
  const routing = type && typeof request.country === 'string' && typeof amount?.currency === 'string' && typeof amount.value === 'number'
    ? { country: request.country, paymentMethodType: type, currency: amount.currency, amount: amount.value, cardBrand: declared ?? (pan ? brandOf(pan) : null), iin: pan }
    : null;
  return { paymentMethodType: type, routing };
}
