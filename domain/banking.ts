/**
 * Banking connectivity: regions, payment rails, the validation rules of a transfer, its
 * states, and the sandbox bank's settlement behaviour. Pure: no I/O.
 *
 * Transfer lifecycle (one Temporal workflow per transfer, workflows/banking-transfer.ts):
 *
 * | state      | trigger                                       | next state          |
 * |------------|-----------------------------------------------|---------------------|
 * | (none)     | POST /v1/banking/transfers accepted (202)     | PENDING             |
 * | PENDING    | submitted to the bank rail                    | PROCESSING          |
 * | PROCESSING | rail settles after the rail's settlement time | COMPLETED           |
 * | PROCESSING | rail rejects at settlement                    | FAILED (failure set)|
 *
 * COMPLETED and FAILED are final. Every transition is recorded as an event
 * (banking_transfer.pending / .processing / .completed / .failed).
 */
import type { FieldError } from './errors';
import { isIsoCountry } from './iso-codes';
import { currencyExponent, toCurrencyMinor, toMinor } from './money';

export const BANKING_REGIONS = ['US', 'UK', 'AU'] as const;
export type BankingRegion = (typeof BANKING_REGIONS)[number];

export const PAYMENT_RAILS = ['ACH_STANDARD', 'ACH_SAME_DAY', 'WIRE', 'RTP', 'FPS', 'CHAPS', 'BACS', 'NPP', 'PAYTO', 'BPAY'] as const;
export type PaymentRail = (typeof PAYMENT_RAILS)[number];

/** Which rails a provider offers in each region. */
export const RAILS_BY_REGION: Record<BankingRegion, readonly PaymentRail[]> = {
  US: ['ACH_STANDARD', 'ACH_SAME_DAY', 'WIRE', 'RTP'],
  UK: ['FPS', 'CHAPS', 'BACS'],
  AU: ['NPP', 'PAYTO', 'BPAY'],
};

export const BANKING_TRANSFER_STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'] as const;
export type BankingTransferStatus = (typeof BANKING_TRANSFER_STATUSES)[number];

/** Whether a transfer now in `current` has passed through `status` (PENDING → PROCESSING → COMPLETED | FAILED). */
export function bankingStatusReached(current: BankingTransferStatus, status: BankingTransferStatus): boolean {
  const step = (s: BankingTransferStatus) => (s === 'PENDING' ? 0 : s === 'PROCESSING' ? 1 : 2);
  return step(status) < step(current) || status === current;
}

/** Typical time from submission to settlement on each rail, in milliseconds. */
export const SETTLEMENT_MS: Record<PaymentRail, number> = {
  RTP: 5_000,
  FPS: 10_000,
  NPP: 10_000,
  PAYTO: 30_000,
  WIRE: 2 * 3_600_000,
  CHAPS: 2 * 3_600_000,
  ACH_SAME_DAY: 6 * 3_600_000,
  ACH_STANDARD: 24 * 3_600_000,
  BPAY: 24 * 3_600_000,
  BACS: 3 * 24 * 3_600_000,
};
/** Book transfers move money inside one provider's ledger. */
export const BOOK_TRANSFER_SETTLEMENT_MS = 2_000;

export function settlementDelayMs(rail: PaymentRail, bookTransfer: boolean, timeScale: number): number {
  return Math.max(1, Math.round((bookTransfer ? BOOK_TRANSFER_SETTLEMENT_MS : SETTLEMENT_MS[rail]) * timeScale));
}

export interface DestinationAccountInput {
  account_number?: string;
  routing_number?: string;
  iban?: string;
  bsb?: string;
  swift?: string;
  sort_code?: string;
  account_name?: string;
  bank_name?: string;
}

export interface TransferAccountFacts {
  id: string;
  region: BankingRegion;
  currency: string;
  provider: string;
}

export interface TransferCheckInput {
  payment_rail: PaymentRail;
  amount: number;
  currency: string;
  destination_account?: DestinationAccountInput | null;
  source: TransferAccountFacts;
  /** The book-transfer target, when destination_account_id was given and found. */
  destination?: TransferAccountFacts;
}

const field = (name: string, message: string, code = 'INVALID'): FieldError => ({ field: name, code, message: `${name} ${message}` });
const required = (name: string, why: string): FieldError => ({ field: name, code: 'REQUIRED', message: `${name} is required ${why}` });

/** ABA routing numbers carry a weighted mod-10 check digit. */
export function isAbaRoutingNumber(value: string): boolean {
  if (!/^\d{9}$/.test(value)) return false;
  const d = [...value].map(Number);
  return (3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5] + d[8])) % 10 === 0;
}

/** ISO 13616 IBAN: country, check digits, BBAN; mod-97 of the rearranged number is 1. */
export function isIban(value: string): boolean {
  const iban = value.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban) || !isIsoCountry(iban.slice(0, 2))) return false;
  const digits = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let remainder = 0;
  for (const char of digits) remainder = (remainder * 10 + Number(char)) % 97;
  return remainder === 1;
}

/** Region-specific fields of an external destination (spec, banking connectivity rules). */
export function destinationErrors(region: BankingRegion, destination: DestinationAccountInput): FieldError[] {
  const errors: FieldError[] = [];
  const { account_number: number, routing_number: routing, iban, bsb, sort_code: sortCode } = destination;
  if (region === 'US') {
    if (!number) errors.push(required('destination_account.account_number', 'for US transfers'));
    else if (!/^\d{4,17}$/.test(number)) errors.push(field('destination_account.account_number', 'must be 4 to 17 digits for US accounts'));
    if (!routing) errors.push(required('destination_account.routing_number', 'for US transfers'));
    else if (!isAbaRoutingNumber(routing)) errors.push(field('destination_account.routing_number', 'must be a valid 9-digit ABA routing number'));
  } else if (region === 'UK') {
    if (iban) {
      if (!isIban(iban) || !iban.replace(/\s+/g, '').toUpperCase().startsWith('GB')) errors.push(field('destination_account.iban', 'must be a valid GB IBAN'));
    } else if (!number || !sortCode) {
      errors.push(required(!number ? 'destination_account.account_number' : 'destination_account.sort_code', 'for UK transfers (or send iban)'));
    } else {
      if (!/^\d{8}$/.test(number)) errors.push(field('destination_account.account_number', 'must be 8 digits for UK accounts'));
      if (!/^\d{2}-?\d{2}-?\d{2}$/.test(sortCode)) errors.push(field('destination_account.sort_code', 'must be 6 digits (e.g. 12-34-56)'));
    }
  } else {
    if (!number) errors.push(required('destination_account.account_number', 'for AU transfers'));
    else if (!/^\d{5,9}$/.test(number)) errors.push(field('destination_account.account_number', 'must be 5 to 9 digits for AU accounts'));
    if (!bsb) errors.push(required('destination_account.bsb', 'for AU transfers'));
    else if (!/^\d{3}-?\d{3}$/.test(bsb)) errors.push(field('destination_account.bsb', 'must be 6 digits (e.g. 062-000)'));
  }
  return errors;
}

/** Every rule that needs the source (and book-transfer target) account; empty when valid. */
export function transferErrors(input: TransferCheckInput): FieldError[] {
  const errors: FieldError[] = [];
  const { source, destination } = input;
  const rails = RAILS_BY_REGION[source.region];
  if (!rails.includes(input.payment_rail)) {
    errors.push(field('payment_rail', `${input.payment_rail} is not available in region ${source.region}; use one of ${rails.join(', ')}`));
  }
  if (input.currency !== source.currency) {
    errors.push(field('amount.currency', `must equal the source account currency ${source.currency}`));
  }
  if (toCurrencyMinor(input.amount, input.currency) === null) {
    errors.push(field('amount.value', `must have at most ${currencyExponent(input.currency)} decimal places for ${input.currency}`));
  }
  if (input.destination_account) errors.push(...destinationErrors(source.region, input.destination_account));
  if (destination) {
    if (destination.id === source.id) errors.push(field('destination_account_id', 'must differ from source_account_id'));
    if (destination.provider !== source.provider) errors.push(field('destination_account_id', 'must be an account of the same provider as the source account (book transfer)'));
    if (destination.currency !== source.currency) errors.push(field('destination_account_id', `must hold the same currency as the source account (${source.currency})`));
  }
  return errors;
}

export interface SettlementOutcome {
  status: 'COMPLETED' | 'FAILED';
  failure: { code: string; message: string } | null;
}

/**
 * The sandbox bank settles everything except two documented test cases: a destination
 * account number (or IBAN) ending in 9999 is closed, and an amount with .13 in its
 * fractional part finds insufficient funds.
 */
export function sandboxSettlement(amountValue: number, destinationLast4: string | null): SettlementOutcome {
  if (destinationLast4 === '9999') return { status: 'FAILED', failure: { code: 'ACCOUNT_CLOSED', message: 'the destination account is closed' } };
  if (toMinor(amountValue) % 10_000n === 1_300n) {
    return { status: 'FAILED', failure: { code: 'INSUFFICIENT_FUNDS', message: 'the source account has insufficient funds' } };
  }
  return { status: 'COMPLETED', failure: null };
}

export function last4(value: string): string {
  return value.replace(/\s+/g, '').slice(-4);
}
