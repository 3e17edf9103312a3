/**
 * Seller mappings: configuration records (no lifecycle), written by the API. The pair
 * (organization_code, merchant_seller_id) is a unique index, so duplicates fail atomically.
 */
import type { Db } from 'mongodb';

export interface SellerDoc {
  _id: string; // seller_id
  organization_code: string;
  merchant_seller_id: string;
  name: string;
  email: string;
  phone: { code: string; number: string } | null;
  document: { type: string; number: string } | null;
  address: { line_1: string; line_2: string | null; city: string; state: string | null; country: string; zip_code: string | null } | null;
  country: string;
  website: string | null;
  industry: string | null;
  merchant_category_code: string;
  payment_methods: Array<{ provider_id: string; payment_method_type: string; merchant_id: string; wallet_details: Record<string, unknown> | null }>;
  created_at: Date;
  updated_at: Date;
}

export const sellers = (db: Db) => db.collection<SellerDoc>('sellers');

export function findSellerByMerchantId(db: Db, organizationCode: string, merchantSellerId: string) {
  return sellers(db).findOne({ organization_code: organizationCode, merchant_seller_id: merchantSellerId });
}
