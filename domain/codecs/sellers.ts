/**
 * Sellers: franchise seller mappings, retrievable by the merchant's own identifier.
 */
import * as t from 'io-ts';
import { annotate, boundedArray, boundedString, CountryCode, HttpsUrl, nullable, refined, struct, Timestamp, Uuid } from './common';
import { Email } from './organizations';

const pattern = (name: string, regex: RegExp, message: string, schema: Record<string, unknown> = {}) =>
  refined(name, t.string, (s) => regex.test(s), message, { type: 'string', pattern: regex.source, ...schema });

export const MerchantSellerId = annotate(
  pattern('MerchantSellerId', /^[A-Za-z0-9._:-]{1,255}$/, 'must be 1 to 255 letters, digits, ".", "_", ":" or "-"', { minLength: 1, maxLength: 255 }),
  { description: 'your own identifier of the seller; unique within your organization; used in GET /v1/sellers/{merchant_seller_id}' },
);

export const MerchantCategoryCode = pattern('MerchantCategoryCode', /^\d{4}$/, 'must be 4 digits (ISO 18245 merchant category code)', { minLength: 4, maxLength: 4 });

export const SellerPhone = struct(
  'SellerPhone',
  {
    code: annotate(pattern('PhoneCountryCode', /^\+?\d{1,4}$/, 'must be a country calling code of 1 to 4 digits'), { example: '55' }),
    number: pattern('SellerPhoneNumber', /^\d{4,20}$/, 'must be 4 to 20 digits'),
  },
  {},
);

export const SellerDocument = struct(
  'SellerDocument',
  { type: pattern('SellerDocumentType', /^[A-Z_]{2,20}$/, 'must be an upper-case document type such as CNPJ, EIN or RUT'), number: boundedString(3, 40) },
  {},
);

export const SellerAddress = struct(
  'SellerAddress',
  { line_1: boundedString(1, 255), city: boundedString(1, 255), country: CountryCode },
  { line_2: nullable(boundedString(0, 255)), state: nullable(boundedString(1, 255)), zip_code: nullable(boundedString(1, 20)) },
);

/** Keys MongoDB treats specially ($-prefixed, dotted) are refused, and the size is capped. */
function storableObject(value: unknown, depth = 0): boolean {
  if (Array.isArray(value)) return depth < 8 && value.every((v) => storableObject(v, depth + 1));
  if (value === null || typeof value !== 'object') return true;
  return depth < 8 && Object.entries(value).every(([k, v]) => /^[A-Za-z0-9_-]{1,64}$/.test(k) && storableObject(v, depth + 1));
}

const WalletDetails = refined(
  'WalletDetails',
  t.UnknownRecord,
  (o) => storableObject(o) && JSON.stringify(o).length <= 4096,
  'must be an object of at most 4096 JSON characters whose keys are 1 to 64 letters, digits, "_" or "-"',
  { type: 'object', description: 'provider-specific wallet settings' },
);

export const SellerPaymentMethodInput = struct(
  'SellerPaymentMethod',
  {
    provider_id: pattern('ProviderId', /^[A-Z0-9_]{2,50}$/, 'must be an upper-case provider code'),
    payment_method_type: pattern('SellerPaymentMethodType', /^[A-Z_]{2,60}$/, 'must be an upper-case payment method type such as CARD'),
    merchant_id: annotate(boundedString(1, 255), { description: "the seller's merchant identifier at the provider" }),
  },
  { wallet_details: nullable(WalletDetails) },
);

export const SellerCreateRequest = struct(
  'SellerCreateRequest',
  {
    merchant_seller_id: MerchantSellerId,
    name: boundedString(3, 255),
    email: Email,
    country: CountryCode,
    merchant_category_code: MerchantCategoryCode,
  },
  {
    phone: nullable(SellerPhone),
    document: nullable(SellerDocument),
    address: nullable(SellerAddress),
    website: nullable(HttpsUrl),
    industry: nullable(boundedString(2, 255)),
    payment_methods: boundedArray(SellerPaymentMethodInput, 0, 50),
  },
);

export const Seller = t.type(
  {
    seller_id: Uuid,
    merchant_seller_id: t.string,
    name: t.string,
    email: t.string,
    phone: nullable(t.type({ code: t.string, number: t.string })),
    document: nullable(t.type({ type: t.string, number: t.string })),
    address: nullable(
      t.type({ line_1: t.string, line_2: nullable(t.string), city: t.string, state: nullable(t.string), country: t.string, zip_code: nullable(t.string) }),
    ),
    country: t.string,
    website: nullable(t.string),
    industry: nullable(t.string),
    merchant_category_code: t.string,
    payment_methods: t.array(t.type({ provider_id: t.string, payment_method_type: t.string, merchant_id: t.string, wallet_details: nullable(t.UnknownRecord) })),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  'Seller',
);
export type Seller = t.TypeOf<typeof Seller>;
