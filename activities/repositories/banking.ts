/**
 * Banking accounts (configuration records, written by the API) and banking transfers with
 * their progress events (written only by the transfer workflow's activities).
 *
 * Account numbers and IBANs are stored sealed (AES-256-GCM, purpose 'bank-account', bound
 * to the document id); only their last four characters are stored in clear.
 */
import { findByIdWithin } from '../runtime/mongo';
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import type { BankingRegion, BankingTransferStatus, PaymentRail } from '../../domain/banking';

export interface BankingAccountDoc {
  _id: string;
  organization_code: string;
  account_id: string;
  provider: string;
  provider_account_id: string;
  region: BankingRegion;
  currency: string;
  name: string | null;
  account_number_sealed: string | null;
  account_number_last_4: string | null;
  status: 'ACTIVE';
  created_at: Date;
  updated_at: Date;
}

export interface StoredDestinationAccount {
  account_number_sealed: string | null;
  account_number_last_4: string | null;
  iban_sealed: string | null;
  iban_last_4: string | null;
  routing_number: string | null;
  bsb: string | null;
  swift: string | null;
  sort_code: string | null;
  account_name: string | null;
  bank_name: string | null;
}

/** A transfer as stored; dates are ISO strings in workflow payloads and Dates in MongoDB. */
export interface BankingTransferRecord<D = string> {
  _id: string;
  organization_code: string;
  account_id: string;
  source_account_id: string;
  destination_account_id: string | null;
  merchant_transfer_id: string | null;
  provider: { name: string; account_id: string; transfer_id: string | null };
  status: BankingTransferStatus;
  direction: 'OUTGOING';
  destination_account: StoredDestinationAccount | null;
  amount: { value: number; currency: string };
  payment_rail: PaymentRail;
  description: string | null;
  failure: { code: string; message: string } | null;
  created_at: D;
  updated_at: D;
  completed_at: D | null;
}

export type BankingTransferDoc = BankingTransferRecord<Date>;

export interface BankingTransferEventDoc {
  _id: string; // <transfer id>:<status>, so recording an event twice is a no-op
  transfer_id: string;
  organization_code: string;
  type: string;
  status: BankingTransferStatus;
  created_at: Date;
}

export const bankingAccounts = (db: Db) => db.collection<BankingAccountDoc>('banking_accounts');
export const bankingTransfers = (db: Db) => db.collection<BankingTransferDoc>('banking_transfers');
export const bankingTransferEvents = (db: Db) => db.collection<BankingTransferEventDoc>('banking_transfer_events');

export function findOwnedBankingAccount(db: Db, organizationCode: string, id: string) {
  return findByIdWithin(bankingAccounts(db), id, { organization_code: organizationCode });
}

/** The transfer when it belongs to the organization and to `accountId` (its account_id or its source account). */
export async function findOwnedBankingTransfer(db: Db, organizationCode: string, accountId: string, transferId: string) {
  const transfer = await findByIdWithin(bankingTransfers(db), transferId, { organization_code: organizationCode });
  return transfer && (transfer.account_id === accountId || transfer.source_account_id === accountId) ? transfer : null;
}

export function listBankingTransferEvents(db: Db, transferId: string) {
  return bankingTransferEvents(db).find({ transfer_id: transferId }).sort({ created_at: 1 }).toArray();
}

/** Banking accounts get an id at the (simulated) provider when they are registered. */
export function newProviderAccountId(): string {
  return `sbk_acc_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
}
