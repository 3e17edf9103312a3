/**
 * ISO 8583 field 39 response codes and what they mean for routing. A soft decline may
 * succeed elsewhere (failover); a hard decline must never be retried on another acquirer
 * (the card is stolen, closed or blocked), which also protects the merchant's standing
 * with the card networks.
 */
import type { TransactionCategory } from './states';

export const ISO8583_MESSAGES: Record<string, string> = {
  '00': 'Approved',
  '01': 'Refer to card issuer',
  '04': 'Pick up card',
  '05': 'Do not honor',
  '07': 'Pick up card, special condition',
  '12': 'Invalid transaction',
  '13': 'Invalid amount',
  '14': 'Invalid card number',
  '19': 'Re-enter transaction',
  '41': 'Lost card, pick up',
  '43': 'Stolen card, pick up',
  '51': 'Insufficient funds',
  '54': 'Expired card',
  '55': 'Incorrect PIN',
  '57': 'Transaction not permitted to cardholder',
  '58': 'Transaction not permitted to terminal',
  '59': 'Suspected fraud',
  '61': 'Exceeds withdrawal amount limit',
  '62': 'Restricted card',
  '63': 'Security violation',
  '65': 'Exceeds withdrawal frequency limit',
  '75': 'Allowable number of PIN tries exceeded',
  '91': 'Issuer or switch inoperative',
  '94': 'Duplicate transmission',
  '96': 'System malfunction',
  '1A': 'Additional customer authentication required',
  N7: 'Decline for CVV2 failure',
};

const HARD_DECLINES = new Set(['04', '07', '12', '13', '14', '41', '43', '54', '55', '57', '59', '62', '63', '75', '94', 'N7']);

/** Category of a provider answer given its ISO 8583 code. */
export function categoryOfIsoCode(code: string): TransactionCategory {
  if (code === '00') return 'APPROVED';
  if (code === '1A') return 'THREE_D_SECURE';
  if (code === '91' || code === '96') return 'PROVIDER_ERROR';
  return HARD_DECLINES.has(code) ? 'HARD_DECLINE' : 'SOFT_DECLINE';
}

/** Whether the next connection of the route may be tried after an attempt ended so. */
export function failoverAllowed(category: TransactionCategory): boolean {
  return category === 'SOFT_DECLINE' || category === 'TIMEOUT' || category === 'PROVIDER_ERROR';
}
