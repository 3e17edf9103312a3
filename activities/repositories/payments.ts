/**
 * The payment read model: one document per payment, written only by the payment
 * workflow's activities and read by the API.
 */
import { findByIdWithin, replaceIfNewer } from '../runtime/mongo';
import type { Db } from 'mongodb';
import type { PaymentRecord } from '../../domain/payments/record';

export type PaymentDoc = Omit<PaymentRecord, 'id'> & { _id: string };

const collection = (db: Db) => db.collection<PaymentDoc>('payments');

/**
 * Writes `record` unless a newer version is stored already. An activity retried late
 * (after its worker died) can therefore never roll the document back.
 */
export async function savePaymentRecord(db: Db, record: PaymentRecord): Promise<void> {
  const { id, ...rest } = record;
  await replaceIfNewer(db.collection('payments'), id, rest);
}

export function toRecord(doc: PaymentDoc): PaymentRecord {
  const { _id, ...rest } = doc;
  return { id: _id, ...rest } as PaymentRecord;
}

export async function findPayment(db: Db, organizationCode: string, paymentId: string): Promise<PaymentRecord | null> {
  const doc = await findByIdWithin(collection(db), paymentId, { organization_code: organizationCode });
  return doc ? toRecord(doc) : null;
}

export async function findPaymentsByMerchantOrderId(db: Db, organizationCode: string, merchantOrderId: string, limit = 100): Promise<PaymentRecord[]> {
  const docs = await collection(db).find({ organization_code: organizationCode, merchant_order_id: merchantOrderId }).sort({ created_at: 1 }).limit(limit).toArray();
  return docs.map(toRecord);
}
