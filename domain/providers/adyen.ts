/**
 * Adyen knowledge as data: Checkout API result codes and refusal reasons in Switchyard's
 * terms (category, ISO 8583 field 39 code, response code), amounts in minor units, and what
 * of an Adyen answer may be stored. Pure, so the connector (activities/providers/adyen.ts),
 * the provider webhooks and unit tests share one table.
 *
 * Sources: Adyen's documentation of `resultCode` ("Result codes"), of `refusalReasonCode`
 * ("Refusal reasons", the numbered list that /payments returns with a Refused result) and of
 * the standard webhook's event codes.
 */
import { toCurrencyMinor } from '../money';
import type { TransactionCategory } from '../payments/states';

export interface AdyenOutcome {
  category: TransactionCategory;
  iso8583Code: string | null;
  /** Switchyard's response_code. */
  responseCode: string;
}

type Entry = [iso: string, category: TransactionCategory, responseCode: string];

const SOFT = 'SOFT_DECLINE';
const HARD = 'HARD_DECLINE';
const ERROR = 'PROVIDER_ERROR';

/**
 * Adyen's refusal reasons by `refusalReasonCode`. Hard means another acquirer or a retry
 * cannot help and retrying hurts the merchant with the networks (lost or blocked cards,
 * fraud, wrong card data, a failed shopper authentication); soft may pass elsewhere or later.
 */
const REFUSALS: Record<string, Entry> = {
  '2': ['05', SOFT, 'REFUSED'],
  '3': ['01', SOFT, 'REFERRAL'],
  '4': ['96', ERROR, 'ACQUIRER_ERROR'],
  '5': ['62', HARD, 'BLOCKED_CARD'],
  '6': ['54', HARD, 'EXPIRED_CARD'],
  '7': ['13', HARD, 'INVALID_AMOUNT'],
  '8': ['14', HARD, 'INVALID_CARD_NUMBER'],
  '9': ['91', ERROR, 'ISSUER_UNAVAILABLE'],
  '10': ['57', HARD, 'NOT_SUPPORTED'],
  '11': ['05', HARD, 'THREE_D_NOT_AUTHENTICATED'],
  '12': ['51', SOFT, 'NOT_ENOUGH_BALANCE'],
  '14': ['59', HARD, 'ACQUIRER_FRAUD'],
  '15': ['05', HARD, 'CANCELLED'],
  '16': ['05', HARD, 'SHOPPER_CANCELLED'],
  '17': ['55', HARD, 'INVALID_PIN'],
  '18': ['75', HARD, 'PIN_TRIES_EXCEEDED'],
  '19': ['05', SOFT, 'PIN_VALIDATION_NOT_POSSIBLE'],
  '20': ['59', HARD, 'FRAUD'],
  '21': ['96', ERROR, 'NOT_SUBMITTED'],
  '22': ['59', HARD, 'FRAUD_CANCELLED'],
  '23': ['57', HARD, 'TRANSACTION_NOT_PERMITTED'],
  '24': ['N7', HARD, 'CVC_DECLINED'],
  '25': ['62', HARD, 'RESTRICTED_CARD'],
  '26': ['57', HARD, 'REVOCATION_OF_AUTH'],
  '27': ['05', SOFT, 'DECLINED_NON_GENERIC'],
  '28': ['61', SOFT, 'WITHDRAWAL_AMOUNT_EXCEEDED'],
  '29': ['65', SOFT, 'WITHDRAWAL_COUNT_EXCEEDED'],
  '31': ['59', HARD, 'ISSUER_SUSPECTED_FRAUD'],
  '32': ['05', SOFT, 'AVS_DECLINED'],
  '33': ['05', SOFT, 'CARD_REQUIRES_ONLINE_PIN'],
  '34': ['57', HARD, 'NO_CHECKING_ACCOUNT'],
  '35': ['57', HARD, 'NO_SAVINGS_ACCOUNT'],
  '36': ['05', SOFT, 'MOBILE_PIN_REQUIRED'],
  '37': ['05', SOFT, 'CONTACTLESS_FALLBACK'],
  // Strong customer authentication asked for without a challenge to complete (like Stripe's
  // authentication_required): another route, or the shopper back with 3-D Secure, may pass.
  '38': ['1A', SOFT, 'AUTHENTICATION_REQUIRED'],
  '39': ['05', SOFT, 'RREQ_NOT_RECEIVED'],
  '40': ['05', SOFT, 'AID_IN_PENALTY_BOX'],
  '41': ['05', SOFT, 'CVM_REQUIRED_RESTART'],
  '42': ['96', ERROR, 'THREE_DS_AUTHENTICATION_ERROR'],
  '43': ['05', SOFT, 'ONLINE_PIN_REQUIRED'],
  '44': ['05', SOFT, 'TRY_ANOTHER_INTERFACE'],
  '45': ['05', SOFT, 'CHIP_DOWNGRADE_MODE'],
  // Adyen stops the retries itself to spare the merchant the networks' excessive-retry fees.
  '46': ['57', HARD, 'RETRIES_BLOCKED'],
};

/** A Refused payment in our terms; an unknown or missing code is a soft "refused". */
export function adyenRefusal(refusalReasonCode: string | null | undefined): AdyenOutcome {
  const [iso8583Code, category, responseCode] = REFUSALS[String(refusalReasonCode ?? '')] ?? ['05', SOFT, 'REFUSED'];
  return { category, iso8583Code, responseCode };
}

/**
 * Refusal reasons by their text, for the webhook's `reason` (an AUTHORISATION with
 * success=false carries the refusal reason's text, not its code).
 */
const REFUSAL_TEXTS: Record<string, string> = {
  refused: '2', referral: '3', 'acquirer error': '4', 'blocked card': '5', 'expired card': '6', 'invalid amount': '7',
  'invalid card number': '8', 'issuer unavailable': '9', 'not supported': '10', '3d not authenticated': '11',
  'not enough balance': '12', 'acquirer fraud': '14', cancelled: '15', 'shopper cancelled': '16', 'invalid pin': '17',
  'pin tries exceeded': '18', 'pin validation not possible': '19', fraud: '20', 'not submitted': '21', 'fraud-cancelled': '22',
  'transaction not permitted': '23', 'cvc declined': '24', 'restricted card': '25', 'revocation of auth': '26',
  'declined non generic': '27', 'withdrawal amount exceeded': '28', 'withdrawal count exceeded': '29',
  'issuer suspected fraud': '31', 'avs declined': '32', 'card requires online pin': '33', 'authentication required': '38',
};

export function adyenRefusalByText(reason: string | null | undefined): AdyenOutcome {
  const text = (reason ?? '').toLowerCase().split(':')[0].trim();
  return adyenRefusal(REFUSAL_TEXTS[text] ?? null);
}

/**
 * A /payments `resultCode` in our terms (Refused is refined by the refusal reason):
 * - Authorised: approved;
 * - RedirectShopper, IdentifyShopper, ChallengeShopper: 3-D Secure (the payment waits);
 * - Pending, Received, PresentToShopper: the outcome comes later by webhook, so the payment
 *   waits the same way (category THREE_D_SECURE, response code PENDING);
 * - Refused: a decline; Cancelled: a hard decline; Error: a provider error;
 * - anything else (PartiallyAuthorised, which Switchyard never asks for, and the
 *   authentication-only codes) is unexpected: a provider error.
 */
export function adyenResult(resultCode: string | null | undefined, refusalReasonCode?: string | null): AdyenOutcome {
  switch (resultCode) {
    case 'Authorised':
      return { category: 'APPROVED', iso8583Code: '00', responseCode: 'APPROVED' };
    case 'RedirectShopper':
    case 'IdentifyShopper':
    case 'ChallengeShopper':
      return { category: 'THREE_D_SECURE', iso8583Code: '1A', responseCode: 'THREE_D_SECURE_REQUIRED' };
    case 'Pending':
    case 'Received':
    case 'PresentToShopper':
      return { category: 'THREE_D_SECURE', iso8583Code: null, responseCode: 'PENDING' };
    case 'Refused':
      return adyenRefusal(refusalReasonCode);
    case 'Cancelled':
      return { category: 'HARD_DECLINE', iso8583Code: '05', responseCode: 'CANCELLED' };
    case 'Error':
      return { category: 'PROVIDER_ERROR', iso8583Code: '96', responseCode: 'PROVIDER_ERROR' };
    default:
      return { category: 'PROVIDER_ERROR', iso8583Code: null, responseCode: 'UNEXPECTED_RESULT' };
  }
}

/**
 * Amounts go to Adyen as integers in the currency's ISO 4217 minor unit (EUR 10.99 = 1099,
 * JPY 1234 = 1234, KWD 1.234 = 1234), converted with integer maths only; null when the
 * amount has more decimals than the currency or passes 2^53 (never rounded).
 */
export function adyenAmount(amount: number, currency: string): number | null {
  const minor = toCurrencyMinor(amount, currency.toUpperCase());
  if (minor === null || minor > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  return Number(minor);
}

/** Key names whose values are never stored from an Adyen answer (tokens, card and authentication data). */
const SENSITIVE_KEY = /(card.?number|^number$|cvc|cvv|security.?code|expiry|holder.?name|cardholder|paymentData|threeDSPaymentData|authorisationToken|^token$|^md$|pareq|pares|creq|cres|sdkData|recurringDetailReference|storedPaymentMethodId|networkTxReference|shopperEmail|shopperIP|ownerName|iban|bankAccountNumber|donationToken|hmacSignature|fundingSource.?token|^data$)/i;

/**
 * An Adyen answer as stored in provider_data.raw_response: plain JSON with the values of
 * card data, stored-payment tokens, 3-D Secure payloads (paymentData, MD, PaReq, tokens) and
 * shopper identifiers replaced by "[REDACTED]". The action's URL and type stay: they say
 * where the shopper was sent, not how to act on the payment.
 */
export function redactAdyen(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map(redactAdyen);
  if (typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    if (child === undefined) continue;
    out[key] = SENSITIVE_KEY.test(key) && child !== null ? '[REDACTED]' : redactAdyen(child);
  }
  return out;
}
