/**
 * Reports: the TRANSACTIONS CSV layout and the signed, time-limited download links.
 *
 * Report lifecycle (workflows/report.ts):
 *
 * | state   | trigger                                   | next state |
 * |---------|-------------------------------------------|------------|
 * | (none)  | POST /v1/reports accepted (202)           | PENDING    |
 * | PENDING | the CSV is built and stored               | AVAILABLE  |
 * | PENDING | building fails (e.g. more rows than allowed, or storage errors after retries) | FAILED |
 */
import { timingSafeEqual } from 'node:crypto';
import { keyedHash, type Keyring } from './crypto';

export const REPORT_TYPES = ['TRANSACTIONS'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];
export const REPORT_STATUSES = ['PENDING', 'AVAILABLE', 'FAILED'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

/** Longest period one report may cover. */
export const MAX_REPORT_RANGE_DAYS = 366;

export const TRANSACTIONS_CSV_COLUMNS = [
  'payment_id',
  'account_id',
  'merchant_order_id',
  'status',
  'sub_status',
  'amount',
  'currency',
  'captured',
  'refunded',
  'country',
  'payment_method_type',
  'created_at',
  'updated_at',
] as const;

/**
 * One CSV field (RFC 4180). Text that a spreadsheet would run as a formula (= + - @, tab,
 * CR) gets a leading apostrophe; numbers are written as they are.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = value instanceof Date ? value.toISOString() : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(values: unknown[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

/** A stored payment document as the payments feature writes it (fields read defensively). */
export interface PaymentLike {
  _id?: unknown;
  id?: unknown;
  account_id?: unknown;
  merchant_order_id?: unknown;
  status?: unknown;
  sub_status?: unknown;
  amount?: { value?: unknown; currency?: unknown; captured?: unknown; refunded?: unknown } | null;
  country?: unknown;
  payment_method?: { type?: unknown } | null;
  created_at?: unknown;
  updated_at?: unknown;
}

const timestamp = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

export function transactionsCsvRow(payment: PaymentLike): string {
  return csvLine([
    payment.id ?? payment._id,
    payment.account_id,
    payment.merchant_order_id,
    payment.status,
    payment.sub_status,
    payment.amount?.value,
    payment.amount?.currency,
    payment.amount?.captured,
    payment.amount?.refunded,
    payment.country,
    payment.payment_method?.type,
    timestamp(payment.created_at),
    timestamp(payment.updated_at),
  ]);
}

export const TRANSACTIONS_CSV_HEADER = csvLine([...TRANSACTIONS_CSV_COLUMNS]);

function linkSignature(keyring: Keyring, reportId: string, expires: number): string {
  return keyedHash(keyring, 'report-link', `${reportId}.${expires}`, 'report-download');
}

/** Query string of a download link valid until `expires` (seconds since the epoch). */
export function signedDownloadQuery(keyring: Keyring, reportId: string, expires: number): string {
  return `expires=${expires}&signature=${linkSignature(keyring, reportId, expires)}`;
}

export type LinkCheck = 'valid' | 'expired' | 'invalid';

export function checkDownloadLink(keyring: Keyring, reportId: string, expires: string | undefined, signature: string | undefined, nowSeconds: number): LinkCheck {
  if (!expires || !signature || !/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) return 'invalid';
  const expected = Buffer.from(linkSignature(keyring, reportId, Number(expires)), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return 'invalid';
  return Number(expires) < nowSeconds ? 'expired' : 'valid';
}
