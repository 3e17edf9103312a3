/**
 * Split-marketplace standalone transfers: funds from the organization balance to an
 * onboarded recipient, independent of any payment.
 *
 * Lifecycle:
 * | from    | event                                              | to        |
 * |---------|----------------------------------------------------|-----------|
 * | (none)  | request accepted                                   | CREATED   |
 * | CREATED | balance debited, provider pays the recipient       | SUCCEEDED |
 * | CREATED | balance too low at debit time (the API debits first)| FAILED    |
 * | CREATED | provider declines or keeps failing (debit reversed) | FAILED   |
 */
import * as t from 'io-ts';
import { annotate, boundedString, currencyAmount, enumOf, metadataList, nullable, PositiveDecimalAmount, struct, Uuid } from '../codecs/common';
import { PROVIDER_IDS } from '../payments/routing';
import { ConnectionIdView } from '../payments/connections';

export const SplitTransferRequest = struct(
  'SplitTransferRequest',
  {
    account_id: Uuid,
    recipient_id: annotate(Uuid, { description: 'a recipient with a SUCCEEDED onboarding' }),
    amount: currencyAmount('TransferAmount', annotate(PositiveDecimalAmount, { description: 'taken from the organization balance in this currency' })),
    description: annotate(boundedString(3, 255), { description: 'sent to the provider' }),
  },
  {
    provider_id: annotate(enumOf('ProviderId', PROVIDER_IDS), { description: 'default: the provider the recipient was onboarded with (must match it)' }),
    merchant_reference: annotate(boundedString(3, 255), { description: 'the merchant\'s unique identifier for idempotency and tracking: unique per account (409 DUPLICATE_MERCHANT_REFERENCE otherwise)' }),
    metadata: metadataList(50, 512),
  },
);
export type SplitTransferRequest = t.TypeOf<typeof SplitTransferRequest>;

export interface TransferTransaction {
  code: string;
  type: 'SPLIT_TRANSFER';
  status: 'SUCCEEDED' | 'FAILED';
  provider_transfer_id: string | null;
  provider_response_message: string | null;
  provider_raw_response: string | null;
  created_at: string;
  updated_at: string;
}

export interface TransferRecord {
  id: string;
  version: number;
  organization_code: string;
  account_id: string;
  recipient_id: string;
  amount: { currency: string; value: number };
  status: 'CREATED' | 'SUCCEEDED' | 'FAILED';
  description: string;
  merchant_reference: string | null;
  metadata: Array<{ key: string; value: string }>;
  provider: { id: string; connection_id: string; recipient_id: string } | null;
  transactions: TransferTransaction[];
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export function withTransferChanges(record: TransferRecord, changes: Partial<TransferRecord>, at: string): TransferRecord {
  return { ...record, ...changes, version: record.version + 1, updated_at: at };
}

const str = nullable(t.string);

export const SplitTransfer = t.type(
  {
    id: Uuid,
    recipient_id: Uuid,
    amount: t.type({ currency: t.string, value: t.number }),
    status: annotate(enumOf('TransferStatus', ['CREATED', 'SUCCEEDED', 'FAILED']), { description: 'CREATED, then SUCCEEDED or FAILED' }),
    description: t.string,
    merchant_reference: str,
    metadata: t.array(t.type({ key: t.string, value: t.string })),
    provider: nullable(t.type({ id: t.string, connection_id: ConnectionIdView, recipient_id: t.string })),
    transactions: t.array(t.type({
      code: annotate(t.string, { description: 'APPROVED, INSUFFICIENT_BALANCE or the provider\'s decline code' }),
      type: annotate(t.literal('SPLIT_TRANSFER'), { description: 'SPLIT_TRANSFER' }),
      status: t.string,
      provider_transfer_id: str,
      provider_response_message: str,
      provider_raw_response: annotate(str, { description: 'the provider\'s JSON answer, as a string' }),
      created_at: t.string,
      updated_at: t.string,
    })),
    created_at: t.string,
    updated_at: t.string,
    completed_at: str,
  },
  'SplitTransfer',
);

export function renderTransfer(r: TransferRecord): t.TypeOf<typeof SplitTransfer> {
  return {
    id: r.id, recipient_id: r.recipient_id, amount: r.amount, status: r.status, description: r.description, merchant_reference: r.merchant_reference, metadata: r.metadata,
    provider: r.provider, transactions: r.transactions, created_at: r.created_at, updated_at: r.updated_at, completed_at: r.completed_at,
  };
}

export const BalanceTopUpRequest = struct(
  'BalanceTopUpRequest',
  { amount: currencyAmount('TopUpAmount', PositiveDecimalAmount) },
  { description: boundedString(3, 255) },
);

export const Balance = t.type({ currency: t.string, available: t.number, updated_at: t.string }, 'Balance');
export const BalanceList = t.type({ balances: t.array(Balance) }, 'BalanceList');
