/**
 * Customers, customer sessions and enrolled payment methods (spec: "Customer session",
 * "Enrollable payment method", "Enrolled payment method").
 */
import * as t from 'io-ts';
import { annotate, boundedString, enumOf, HttpsUrl, refined, struct, Timestamp, Uuid } from '../codecs/common';
import { CardNumber, customerPayerFields, ExpirationYear, PaymentMethodTypeCodec, SecurityCode } from '../payments/codecs';
import { METHOD_CATEGORIES, paymentMethodDefinition, PaymentMethodType } from '../payments/methods';
import { intRange } from '../codecs/common';

/** Countries where customer sessions (and enrollment) are offered (spec, "Customer session"). */
export const SESSION_COUNTRIES = ['AR', 'BO', 'BR', 'CL', 'CO', 'CR', 'EC', 'SV', 'GT', 'HN', 'MX', 'NI', 'PA', 'PY', 'PE', 'US', 'UY'] as const;

export const CustomerCreate = struct('CustomerCreate', { merchant_customer_id: boundedString(1, 255) }, {
  ...customerPayerFields,
  merchant_customer_id: boundedString(1, 255),
  country: enumOf('Country', SESSION_COUNTRIES),
});
export type CustomerCreate = t.TypeOf<typeof CustomerCreate>;

const str = t.union([t.string, t.null]);

export const Customer = t.type(
  {
    id: Uuid,
    merchant_customer_id: t.string,
    first_name: str, last_name: str, gender: str, date_of_birth: str, email: str, nationality: str, country: str,
    ip_address: str, device_fingerprint: str, browser_info: t.unknown, document: t.unknown, phone: t.unknown,
    billing_address: t.unknown, shipping_address: t.unknown,
    created_at: Timestamp, updated_at: Timestamp,
  },
  'Customer',
);

export const CustomerSessionCreate = struct(
  'CustomerSessionCreate',
  {
    account_id: Uuid,
    customer_id: Uuid,
    country: enumOf('SessionCountry', SESSION_COUNTRIES),
  },
  {
    callback_url: annotate(refined('SessionCallbackUrl', HttpsUrl, (s) => s.length >= 3 && s.length <= 526, 'must be 3 to 526 characters', { type: 'string', format: 'uri', minLength: 3, maxLength: 526 }), {
      description: 'where the customer is sent after enrollment at a provider',
    }),
    created_at: annotate(Timestamp, { description: 'accepted as sent by some integrations; the session\'s own creation time is returned' }),
  },
);
export type CustomerSessionCreate = t.TypeOf<typeof CustomerSessionCreate>;

export const CustomerSession = t.type(
  { customer_session: Uuid, account_id: Uuid, customer_id: Uuid, country: t.string, callback_url: str, created_at: Timestamp, expires_at: Timestamp },
  'CustomerSession',
);

export const EnrollmentInfo = t.type({ session: t.string, sdk_required_action: t.boolean }, 'EnrollmentInfo');

export const EnrollablePaymentMethod = t.type(
  {
    name: t.string,
    description: t.string,
    type: annotate(PaymentMethodTypeCodec, { description: 'a value of the payment method vocabulary' }),
    category: annotate(enumOf('MethodCategory', METHOD_CATEGORIES), { description: 'the method\'s family in the vocabulary (CARD, WALLET, ...)' }),
    icon: t.string,
    enrollment: EnrollmentInfo,
  },
  'EnrollablePaymentMethod',
);

/**
 * Method types a customer can enroll. Cards are vaulted by Switchyard itself, so they are
 * enrollable in every session country; enrolling a wallet needs the provider's own
 * enrollment flow, which no connector implements yet.
 */
export const ENROLLABLE_METHOD_TYPES: readonly PaymentMethodType[] = ['CARD'];

/** The enrollable list of a session, described from the vocabulary. */
export function enrollableMethods(session: string, iconBase: string) {
  return ENROLLABLE_METHOD_TYPES.map((type) => {
    const method = paymentMethodDefinition(type)!;
    return {
      name: method.name,
      description: method.category === 'CARD' ? 'Credit and debit cards' : method.name,
      type,
      category: method.category,
      icon: `${iconBase}/static/icons/${method.category.toLowerCase()}.svg`,
      enrollment: { session, sdk_required_action: false },
    };
  });
}
export const EnrollablePaymentMethods = t.type({ payment_methods: t.array(EnrollablePaymentMethod) }, 'EnrollablePaymentMethods');

/** Card enrollment inside a customer session (the form the checkout shows posts this). */
export const EnrollCardRequest = struct(
  'EnrollCardRequest',
  {
    type: enumOf('EnrollableType', ['CARD']),
    card: struct('EnrollCard', { number: CardNumber, holder_name: boundedString(1, 255), expiration_month: intRange(1, 12, 'ExpirationMonth'), expiration_year: ExpirationYear }, { security_code: SecurityCode }),
  },
  { preferred: t.boolean, name: boundedString(1, 255) },
);
export type EnrollCardRequest = t.TypeOf<typeof EnrollCardRequest>;

const addr = t.union([t.type({ address_line_1: str, address_line_2: str, country: str, state: str, city: str, zip_code: str }), t.null]);

export const EnrolledPaymentMethod = t.type(
  {
    idempotency_key: t.union([Uuid, t.null]),
    id: Uuid,
    account_id: Uuid,
    name: t.string,
    description: t.string,
    type: t.string,
    category: t.string,
    country: t.string,
    status: annotate(enumOf('EnrollmentStatus', ['ENROLLED', 'UNENROLLED']), { description: 'ENROLLED once vaulted' }),
    sub_status: str,
    vaulted_token: annotate(Uuid, { description: 'also the payment_method_id of the retrieval path and payment_method.vaulted_token of payments' }),
    action: annotate(t.string, { description: 'FORM: card data captured in a form (the only action of card enrollment)' }),
    redirect_url: str,
    created_at: Timestamp,
    updated_at: Timestamp,
    enrollment: EnrollmentInfo,
    provider: t.type({ id: t.string, type: t.string, token: t.string, provider_status: t.string }),
    customer_payer: t.type({
      first_name: str, last_name: str, email: str, gender: str, date_of_birth: str,
      document: t.union([t.type({ document_number: str, document_type: str }), t.null]),
      phone: t.union([t.type({ number: str, country_code: str }), t.null]),
      billing_address: addr,
    }),
    card_data: t.type({
      iin: t.string,
      lfd: t.string,
      expiration_month: t.number,
      expiration_year: annotate(t.number, { description: 'two digits, as observed' }),
      number_length: t.number,
      security_code_length: t.number,
      brand: str,
      issuer: str,
      issuer_code: str,
      category: str,
      type: str,
      fingerprint: annotate(t.string, { description: 'keyed hash of the PAN: equal for the same card within an organization' }),
    }),
    last_successfully_used: t.union([t.boolean, t.null]),
    last_successfully_used_at: t.union([Timestamp, t.null]),
    verify: t.type({ vault_on_success: t.boolean, payment: t.union([t.type({ id: Uuid }), t.null]) }),
    preferred: t.union([t.boolean, t.null]),
  },
  'EnrolledPaymentMethod',
);
export type EnrolledPaymentMethod = t.TypeOf<typeof EnrolledPaymentMethod>;
