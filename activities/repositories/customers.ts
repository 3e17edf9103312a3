/**
 * Customers, customer sessions and enrolled payment methods.
 */
import { findByIdWithin } from '../runtime/mongo';
import type { Db } from 'mongodb';
import type { CustomerPayerRecord } from '../../domain/payments/record';
import { twoDigitYear } from '../../domain/payments/cards';
import type { EnrolledPaymentMethod } from '../../domain/customers/codecs';
import type { VaultCardDoc } from './vault';

export interface CustomerDoc extends Omit<CustomerPayerRecord, 'id'> {
  _id: string;
  organization_code: string;
  country: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface CustomerSessionDoc {
  _id: string;
  organization_code: string;
  account_id: string;
  customer_id: string;
  country: string;
  callback_url: string | null;
  created_at: Date;
  expires_at: Date;
}

export interface PaymentMethodDoc extends Omit<EnrolledPaymentMethod, 'id' | 'created_at' | 'updated_at'> {
  _id: string;
  organization_code: string;
  customer_id: string;
  card_id: string;
  created_at: Date;
  updated_at: Date;
}

export function findCustomer(db: Db, organizationCode: string, customerId: string) {
  return findByIdWithin(db.collection<CustomerDoc>('customers'), customerId, { organization_code: organizationCode });
}

export function customerPayerOf(doc: CustomerDoc): CustomerPayerRecord {
  return {
    id: doc._id,
    merchant_customer_id: doc.merchant_customer_id ?? null,
    first_name: doc.first_name ?? null,
    last_name: doc.last_name ?? null,
    gender: doc.gender ?? null,
    date_of_birth: doc.date_of_birth ?? null,
    email: doc.email ?? null,
    nationality: doc.nationality ?? null,
    ip_address: doc.ip_address ?? null,
    device_fingerprint: doc.device_fingerprint ?? null,
    browser_info: doc.browser_info ?? null,
    document: doc.document ?? null,
    phone: doc.phone ?? null,
    billing_address: doc.billing_address ?? null,
    shipping_address: doc.shipping_address ?? null,
  };
}

export function findSession(db: Db, organizationCode: string, sessionId: string) {
  return findByIdWithin(db.collection<CustomerSessionDoc>('customer_sessions'), sessionId, { organization_code: organizationCode });
}

export function findPaymentMethod(db: Db, organizationCode: string, customerId: string, vaultedToken: string) {
  return findByIdWithin(db.collection<PaymentMethodDoc>('payment_methods'), vaultedToken, { organization_code: organizationCode, customer_id: customerId });
}

export interface EnrollInput {
  vaultedToken: string;
  organizationCode: string;
  accountId: string;
  customerId: string;
  cardId: string;
  country: string;
  sessionId: string | null;
  /** The payment whose success enrolled the card (vault_on_success). */
  verifyPaymentId: string | null;
  idempotencyKey?: string | null;
  securityCodeLength?: number | null;
  preferred?: boolean | null;
  name?: string | null;
}

export function buildPaymentMethodDoc(input: EnrollInput, card: VaultCardDoc, customer: CustomerDoc, now: Date): PaymentMethodDoc {
  const brand = card.brand ?? 'CARD';
  return {
    _id: input.vaultedToken,
    organization_code: input.organizationCode,
    customer_id: input.customerId,
    card_id: card._id,
    idempotency_key: input.idempotencyKey ?? null,
    account_id: input.accountId,
    name: input.name ?? `${brand} ****${card.lfd}`,
    description: `${brand} card ending in ${card.lfd}`,
    type: 'CARD',
    category: 'CARD',
    country: input.country,
    status: 'ENROLLED',
    sub_status: null,
    vaulted_token: input.vaultedToken,
    action: 'FORM',
    redirect_url: null,
    created_at: now,
    updated_at: now,
    enrollment: { session: input.sessionId ?? '', sdk_required_action: false },
    provider: { id: 'SWITCHYARD_VAULT', type: 'VAULT', token: card._id, provider_status: 'ACTIVE' },
    customer_payer: {
      first_name: customer.first_name ?? null,
      last_name: customer.last_name ?? null,
      email: customer.email ?? null,
      gender: customer.gender ?? null,
      date_of_birth: customer.date_of_birth ?? null,
      document: customer.document ? { document_number: customer.document.document_number ?? null, document_type: customer.document.document_type ?? null } : null,
      phone: customer.phone ? { number: customer.phone.number ?? null, country_code: customer.phone.country_code ?? null } : null,
      billing_address: customer.billing_address
        ? {
            address_line_1: customer.billing_address.address_line_1 ?? null,
            address_line_2: customer.billing_address.address_line_2 ?? null,
            country: customer.billing_address.country ?? null,
            state: customer.billing_address.state ?? null,
            city: customer.billing_address.city ?? null,
            zip_code: customer.billing_address.zip_code ?? null,
          }
        : null,
    },
    card_data: {
      iin: card.iin,
      lfd: card.lfd,
      expiration_month: card.expiration_month,
      expiration_year: twoDigitYear(card.expiration_year),
      number_length: card.number_length,
      security_code_length: input.securityCodeLength ?? (brand === 'AMERICAN_EXPRESS' ? 4 : 3),
      brand: card.brand,
      issuer: null,
      issuer_code: null,
      category: null,
      type: card.type,
      fingerprint: card.fingerprint,
    },
    last_successfully_used: input.verifyPaymentId ? true : null,
    last_successfully_used_at: input.verifyPaymentId ? now.toISOString() : null,
    verify: { vault_on_success: input.verifyPaymentId !== null, payment: input.verifyPaymentId ? { id: input.verifyPaymentId } : null },
    preferred: input.preferred ?? null,
  };
}

export function renderPaymentMethod(doc: PaymentMethodDoc): EnrolledPaymentMethod {
  const { _id, organization_code: _o, customer_id: _c, card_id: _k, created_at, updated_at, ...rest } = doc;
  return { ...rest, id: _id, created_at: created_at.toISOString(), updated_at: updated_at.toISOString() };
}

/**
 * Records a successful use of an enrolled method (a payment approved with its vaulted_token).
 * Only moves last_successfully_used_at forward, so a late retried write never rolls it back.
 */
export async function markPaymentMethodUsed(db: Db, organizationCode: string, vaultedToken: string, at: string): Promise<void> {
  await db.collection<PaymentMethodDoc>('payment_methods').updateOne(
    { _id: vaultedToken, organization_code: organizationCode, $or: [{ last_successfully_used_at: null }, { last_successfully_used_at: { $lt: at } }] },
    { $set: { last_successfully_used: true, last_successfully_used_at: at, updated_at: new Date() } },
  );
}
