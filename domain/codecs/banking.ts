/**
 * Banking connectivity: banking accounts and outgoing transfers.
 */
import * as t from 'io-ts';
import { BANKING_REGIONS, BANKING_TRANSFER_STATUSES, PAYMENT_RAILS } from '../banking';
import { annotate, boundedString, currencyAmount, CurrencyCode, enumOf, nullable, PositiveDecimalAmount, refined, struct, Timestamp, Uuid } from './common';

const pattern = (name: string, regex: RegExp, message: string) => refined(name, t.string, (s) => regex.test(s), message, { type: 'string', pattern: regex.source });

export const BankingRegion = annotate(enumOf('BankingRegion', BANKING_REGIONS), { description: 'US, UK or AU; decides the available rails and destination fields' });
export const PaymentRail = annotate(enumOf('PaymentRail', PAYMENT_RAILS), {
  description: 'US: ACH_STANDARD, ACH_SAME_DAY, WIRE, RTP; UK: FPS, CHAPS, BACS; AU: NPP, PAYTO, BPAY (region of the source account)',
});
export const BankingProvider = annotate(pattern('BankingProvider', /^[A-Z0-9_]{2,50}$/, 'must be an upper-case provider code'), {
  description: 'banking-connectivity provider code; SANDBOX_BANK is the built-in simulated bank',
  example: 'SANDBOX_BANK',
});
export const BankingTransferStatus = annotate(enumOf('BankingTransferStatus', BANKING_TRANSFER_STATUSES), {
  description: 'PENDING (accepted) -> PROCESSING (submitted to the rail) -> COMPLETED (settled) or FAILED (rejected by the bank; see failure). COMPLETED and FAILED are final.',
});

const AccountNumber = pattern('AccountNumber', /^\d{4,17}$/, 'must be 4 to 17 digits');

export const BankingAccountCreateRequest = struct(
  'BankingAccountCreateRequest',
  {
    account_id: annotate(Uuid, { description: 'your Switchyard account the banking account belongs to' }),
    currency: CurrencyCode,
    region: BankingRegion,
    provider: BankingProvider,
  },
  {
    name: boundedString(3, 255),
    account_number: annotate(AccountNumber, { description: 'number of the account at the provider; stored encrypted, answered as account_number_last_4' }),
  },
);

export const BankingAccount = t.type(
  {
    id: annotate(Uuid, { description: 'use as source_account_id / destination_account_id' }),
    account_id: Uuid,
    provider: t.string,
    provider_account_id: t.string,
    region: BankingRegion,
    currency: t.string,
    name: nullable(t.string),
    account_number_last_4: nullable(t.string),
    status: t.literal('ACTIVE'),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  'BankingAccount',
);

export const DestinationAccountInput = struct(
  'DestinationAccount',
  {},
  {
    account_number: annotate(AccountNumber, { description: 'US: 4-17 digits; UK: 8 digits; AU: 5-9 digits. Never returned: responses carry account_number_last_4' }),
    routing_number: annotate(pattern('RoutingNumber', /^\d{9}$/, 'must be 9 digits'), { description: 'US: ABA routing number' }),
    iban: annotate(pattern('Iban', /^[A-Za-z]{2}\d{2}[A-Za-z0-9 ]{11,40}$/, 'must be an IBAN'), { description: 'UK: instead of account_number + sort_code' }),
    bsb: annotate(pattern('Bsb', /^\d{3}-?\d{3}$/, 'must be 6 digits'), { description: 'AU: bank-state-branch number' }),
    swift: pattern('Swift', /^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/, 'must be an 8 or 11 character BIC'),
    sort_code: annotate(pattern('SortCode', /^\d{2}-?\d{2}-?\d{2}$/, 'must be 6 digits'), { description: 'UK: with account_number' }),
    account_name: boundedString(1, 140),
    bank_name: boundedString(1, 140),
  },
);

export const BankingTransferRequest = struct(
  'BankingTransferRequest',
  {
    account_id: annotate(Uuid, { description: 'your Switchyard account' }),
    source_account_id: annotate(boundedString(1, 64), { description: 'banking account the money leaves (id from POST /v1/banking/accounts)' }),
    direction: annotate(enumOf('BankingTransferDirection', ['OUTGOING']), { description: 'OUTGOING is the only value' }),
    amount: currencyAmount('BankingAmount', PositiveDecimalAmount, annotate(CurrencyCode, { description: 'must equal the source account currency' })),
    payment_rail: PaymentRail,
  },
  {
    destination_account: nullable(annotate(DestinationAccountInput, { description: 'external destination; exactly one of destination_account and destination_account_id' })),
    destination_account_id: nullable(annotate(boundedString(1, 64), { description: 'book transfer to another banking account of the same provider' })),
    description: boundedString(3, 255),
    merchant_transfer_id: annotate(boundedString(1, 255), { description: 'your reference for reconciliation' }),
  },
);

export const DestinationAccountView = t.type(
  {
    account_number_last_4: nullable(t.string),
    routing_number: nullable(t.string),
    iban: nullable(t.string),
    bsb: nullable(t.string),
    swift: nullable(t.string),
    sort_code: nullable(t.string),
    account_name: nullable(t.string),
    bank_name: nullable(t.string),
  },
  'DestinationAccountView',
);

export const BankingTransferEvent = t.type(
  {
    id: t.string,
    type: annotate(t.string, { description: 'banking_transfer.pending, .processing, .completed or .failed' }),
    status: BankingTransferStatus,
    created_at: Timestamp,
  },
  'BankingTransferEvent',
);

export const BankingTransfer = t.type(
  {
    id: Uuid,
    account_id: Uuid,
    source_account_id: t.string,
    destination_account_id: nullable(t.string),
    merchant_transfer_id: nullable(t.string),
    provider: t.type({ account_id: t.string, transfer_id: nullable(t.string) }),
    status: BankingTransferStatus,
    direction: t.literal('OUTGOING'),
    destination_account: nullable(DestinationAccountView),
    amount: t.type({ value: t.number, currency: t.string }),
    payment_rail: PaymentRail,
    description: nullable(t.string),
    failure: annotate(nullable(t.type({ code: t.string, message: t.string })), { description: 'set when status is FAILED' }),
    events: annotate(t.array(BankingTransferEvent), { description: 'progress events, oldest first' }),
    created_at: Timestamp,
    updated_at: Timestamp,
    completed_at: annotate(nullable(Timestamp), { description: 'when the transfer reached COMPLETED or FAILED' }),
  },
  'BankingTransfer',
);
