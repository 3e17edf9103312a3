/**
 * Stripe knowledge as data: its decline codes in Switchyard's terms (category, ISO 8583
 * field 39 code, response code) and the amount unit Stripe expects per currency. Pure, so
 * the connector (activities/providers/stripe.ts) and unit tests share one table.
 */
import { currencyExponent, toCurrencyMinor } from '../money';
import { ISO8583_MESSAGES } from '../payments/provider-codes';
import type { TransactionCategory } from '../payments/states';

export interface StripeDecline {
  category: TransactionCategory;
  iso8583Code: string;
  /** Switchyard's response_code: the Stripe code in upper case. */
  responseCode: string;
}

type Entry = [iso: string, category: TransactionCategory];

const SOFT = 'SOFT_DECLINE';
const HARD = 'HARD_DECLINE';
const ERROR = 'PROVIDER_ERROR';

/**
 * Stripe decline codes (`decline_code`, or `code` of a card error without one). Hard means
 * retrying on another acquirer cannot help and would hurt the merchant with the networks
 * (lost, stolen, fraud, wrong card data, a duplicate); soft may pass elsewhere or later.
 */
const DECLINES: Record<string, Entry> = {
  insufficient_funds: ['51', SOFT],
  do_not_honor: ['05', SOFT],
  generic_decline: ['05', SOFT],
  no_action_taken: ['05', SOFT],
  incorrect_zip: ['05', SOFT],
  incorrect_address: ['05', SOFT],
  offline_pin_required: ['05', SOFT],
  online_or_offline_pin_required: ['05', SOFT],
  approve_with_id: ['01', SOFT],
  call_issuer: ['01', SOFT],
  card_velocity_exceeded: ['65', SOFT],
  withdrawal_count_limit_exceeded: ['65', SOFT],
  // The acquirer, not the card, refuses: another connection may take it.
  currency_not_supported: ['58', SOFT],
  try_again_later: ['19', SOFT],
  reenter_transaction: ['19', SOFT],
  // A decline asking for strong customer authentication carries no challenge to complete
  // (unlike a PaymentIntent in requires_action), so the payment cannot wait for one: it is a
  // soft decline that another route, or the shopper back on session with 3-D Secure, may pass.
  authentication_required: ['1A', SOFT],
  issuer_not_available: ['91', ERROR],
  processing_error: ['96', ERROR],
  stolen_card: ['43', HARD],
  lost_card: ['41', HARD],
  pickup_card: ['04', HARD],
  restricted_card: ['62', HARD],
  expired_card: ['54', HARD],
  invalid_expiry_month: ['54', HARD],
  invalid_expiry_year: ['54', HARD],
  incorrect_number: ['14', HARD],
  invalid_number: ['14', HARD],
  invalid_account: ['14', HARD],
  new_account_information_available: ['14', HARD],
  incorrect_cvc: ['N7', HARD],
  invalid_cvc: ['N7', HARD],
  incorrect_pin: ['55', HARD],
  invalid_pin: ['55', HARD],
  pin_try_exceeded: ['75', HARD],
  invalid_amount: ['13', HARD],
  fraudulent: ['59', HARD],
  merchant_blacklist: ['59', HARD],
  security_violation: ['63', HARD],
  card_not_supported: ['57', HARD],
  not_permitted: ['57', HARD],
  service_not_allowed: ['57', HARD],
  transaction_not_allowed: ['57', HARD],
  stop_payment_order: ['57', HARD],
  revocation_of_all_authorizations: ['57', HARD],
  revocation_of_authorization: ['57', HARD],
  testmode_decline: ['57', HARD],
  do_not_try_again: ['57', HARD],
  // Retrying elsewhere would charge the shopper twice.
  duplicate_transaction: ['94', HARD],
};

/** A Stripe card decline in our terms; an unknown code is a soft "do not honor". */
export function stripeDecline(code: string | null | undefined): StripeDecline {
  const key = (code ?? '').toLowerCase();
  const [iso8583Code, category] = DECLINES[key] ?? ['05', SOFT];
  return { category, iso8583Code, responseCode: key ? key.toUpperCase() : 'CARD_DECLINED' };
}

export function iso8583Message(code: string | null): string | null {
  return code ? (ISO8583_MESSAGES[code] ?? null) : null;
}

/**
 * Where Stripe's amount unit differs from the ISO 4217 minor unit: ISK stays two-decimal in
 * Stripe's API (100 = 1 króna, whole krónur only) and MGA is zero-decimal at Stripe though
 * ISO gives it two places.
 */
const STRIPE_EXPONENT: Record<string, number> = { ISK: 2, MGA: 0 };

/** Stripe requires the last digit of a three-decimal currency's amount to be 0. */
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

/**
 * The integer amount Stripe expects, converted from the decimal amount with integer maths
 * only; null when Stripe cannot express it exactly (fractional ariary, a three-decimal
 * amount not ending in 0, beyond 2^53): we never round a payment to make it fit.
 */
export function stripeAmount(amount: number, currency: string): number | null {
  const code = currency.toUpperCase();
  const iso = toCurrencyMinor(amount, code);
  if (iso === null) return null;
  const shift = (STRIPE_EXPONENT[code] ?? currencyExponent(code)) - currencyExponent(code);
  let units = iso;
  if (shift > 0) units = iso * 10n ** BigInt(shift);
  else if (shift < 0) {
    const divisor = 10n ** BigInt(-shift);
    if (iso % divisor !== 0n) return null;
    units = iso / divisor;
  }
  if (THREE_DECIMAL.has(code) && units % 10n !== 0n) return null;
  // ISK shifted by two places can pass 2^53; Stripe's own limit is far below anyway.
  if (units > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  return Number(units);
}

/** Stripe wants ISO codes in lower case. */
export function stripeCurrency(currency: string): string {
  return currency.toLowerCase();
}
