/**
 * Provider events (incoming webhooks) in Switchyard's terms. A verified Stripe event or
 * Adyen notification item becomes a ProviderEvent: which payment it is about (our payment
 * id from the provider's metadata or merchant reference, and the provider's reference) and
 * what it means for the payment:
 * - `authorized` / `declined`: the asynchronous outcome of a payment that waits
 *   (3-D Secure completed or failed, a pending method settled);
 * - `chargeback`: a dispute opened (PENDING) or funds withdrawn (SUCCEEDED), recorded as a
 *   CHARGEBACK transaction;
 * - `other`: acknowledged and kept, changes nothing (e.g. the confirmation of a capture
 *   Switchyard asked for).
 * Pure: the API verifies signatures with the providers' SDKs, then maps here.
 */
import { fromCurrencyMinor } from '../money';
import type { TransactionCategory } from '../payments/states';
import { adyenRefusalByText, redactAdyen } from './adyen';
import { iso8583Message, stripeDecline } from './stripe';

export type ProviderEventKind = 'authorized' | 'declined' | 'chargeback' | 'other';

export interface ProviderEvent {
  /** The provider's own event id (Stripe evt_...; Adyen: event code + PSP references). */
  eventId: string;
  providerId: string;
  /** Provider event type (Stripe `type`, Adyen `eventCode`, with success=false for Adyen failures). */
  type: string;
  kind: ProviderEventKind;
  /** Our payment id, when the provider echoes it (metadata, merchant reference). */
  paymentId: string | null;
  /** The provider's references of the payment (PaymentIntent id, PSP reference), most specific first. */
  providerReferences: string[];
  /** The provider's id of what the event is about (a dispute, a modification), for the transaction. */
  providerTransactionId: string | null;
  /** Decimal amount in `currency` (null when the event carries none). */
  amount: number | null;
  currency: string | null;
  category: TransactionCategory;
  responseCode: string;
  responseMessage: string;
  iso8583Code: string | null;
  iso8583Message: string | null;
  /** For chargebacks: PENDING while disputed, SUCCEEDED once the funds are withdrawn. */
  chargebackStatus: 'PENDING' | 'SUCCEEDED' | null;
  reason: string | null;
  /** The event as kept in provider_data.raw_response (secrets and card data removed). */
  raw: unknown;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const uuidOrNull = (value: unknown): string | null => (typeof value === 'string' && UUID.test(value) ? value.toLowerCase() : null);
const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

function decimal(minor: unknown, currency: string | null): number | null {
  if (typeof minor !== 'number' || !Number.isSafeInteger(minor) || !currency) return null;
  try {
    return fromCurrencyMinor(minor, currency.toUpperCase());
  } catch {
    return null;
  }
}

function base(fields: Pick<ProviderEvent, 'eventId' | 'providerId' | 'type' | 'raw'> & Partial<ProviderEvent>): ProviderEvent {
  return {
    kind: 'other',
    paymentId: null,
    providerReferences: [],
    providerTransactionId: null,
    amount: null,
    currency: null,
    category: 'APPROVED',
    responseCode: 'EVENT',
    responseMessage: fields.type,
    iso8583Code: null,
    iso8583Message: null,
    chargebackStatus: null,
    reason: null,
    ...fields,
  };
}

/** A Stripe object without what lets a browser act on it. */
function stripeSafe(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value ?? null;
  const copy = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  delete copy.client_secret;
  return copy;
}

/** A verified Stripe event (as `webhooks.constructEvent` returns it). */
export function stripeProviderEvent(event: { id: string; type: string; data: { object: Record<string, any> } }): ProviderEvent {
  const object = event.data?.object ?? {};
  const raw = { id: event.id, type: event.type, data: { object: stripeSafe(object) } };
  const common = { eventId: event.id, providerId: 'STRIPE', type: event.type, raw };
  const currency = str(object.currency)?.toUpperCase() ?? null;
  if (event.type.startsWith('payment_intent.')) {
    const intent = { paymentId: uuidOrNull(object.metadata?.switchyard_reference), providerReferences: [str(object.id)].filter((x): x is string => !!x), providerTransactionId: str(object.id), currency, amount: decimal(object.amount, currency) };
    if (event.type === 'payment_intent.succeeded' || event.type === 'payment_intent.amount_capturable_updated') {
      return base({ ...common, ...intent, kind: 'authorized', responseCode: 'APPROVED', responseMessage: event.type === 'payment_intent.succeeded' ? 'Approved' : 'Authorized', iso8583Code: '00', iso8583Message: iso8583Message('00') });
    }
    if (event.type === 'payment_intent.payment_failed') {
      const error = object.last_payment_error ?? {};
      const decline = stripeDecline(error.decline_code || error.code);
      return base({ ...common, ...intent, kind: 'declined', category: decline.category, responseCode: decline.responseCode, responseMessage: str(error.message) ?? 'Declined', iso8583Code: decline.iso8583Code, iso8583Message: iso8583Message(decline.iso8583Code) });
    }
    return base({ ...common, ...intent });
  }
  if (event.type === 'charge.dispute.created' || event.type === 'charge.dispute.funds_withdrawn') {
    const opened = event.type === 'charge.dispute.created';
    return base({
      ...common,
      kind: 'chargeback',
      providerReferences: [str(object.payment_intent), str(object.charge)].filter((x): x is string => !!x),
      providerTransactionId: str(object.id),
      currency,
      amount: decimal(object.amount, currency),
      responseCode: opened ? 'DISPUTE_OPENED' : 'CHARGEBACK',
      responseMessage: opened ? 'The cardholder disputed the payment' : 'The disputed amount was withdrawn',
      chargebackStatus: opened ? 'PENDING' : 'SUCCEEDED',
      reason: str(object.reason),
    });
  }
  return base(common);
}

/** One Adyen NotificationRequestItem, its HMAC verified. */
export function adyenProviderEvent(item: Record<string, any>): ProviderEvent {
  const eventCode = String(item.eventCode ?? '');
  const success = String(item.success) === 'true';
  const psp = str(item.pspReference);
  const original = str(item.originalReference);
  const currency = str(item.amount?.currency)?.toUpperCase() ?? null;
  const common = {
    eventId: [eventCode, psp ?? '', original ?? ''].join(':'),
    providerId: 'ADYEN',
    type: success ? eventCode : `${eventCode} (success=false)`,
    raw: redactAdyen(item),
    paymentId: uuidOrNull(item.merchantReference),
    currency,
    amount: decimal(item.amount?.value, currency),
    reason: str(item.reason),
  };
  if (eventCode === 'AUTHORISATION') {
    const references = [psp].filter((x): x is string => !!x);
    if (success) return base({ ...common, kind: 'authorized', providerReferences: references, providerTransactionId: psp, responseCode: 'APPROVED', responseMessage: 'Authorised', iso8583Code: '00', iso8583Message: iso8583Message('00') });
    const refusal = adyenRefusalByText(item.reason);
    return base({ ...common, kind: 'declined', providerReferences: references, providerTransactionId: psp, category: refusal.category, responseCode: refusal.responseCode, responseMessage: str(item.reason) ?? 'Refused', iso8583Code: refusal.iso8583Code, iso8583Message: iso8583Message(refusal.iso8583Code) });
  }
  if ((eventCode === 'CHARGEBACK' || eventCode === 'NOTIFICATION_OF_CHARGEBACK') && success) {
    const opened = eventCode === 'NOTIFICATION_OF_CHARGEBACK';
    return base({
      ...common,
      kind: 'chargeback',
      providerReferences: [original, psp].filter((x): x is string => !!x),
      providerTransactionId: psp,
      responseCode: opened ? 'DISPUTE_OPENED' : 'CHARGEBACK',
      responseMessage: opened ? 'The cardholder disputed the payment' : 'The disputed amount was withdrawn',
      chargebackStatus: opened ? 'PENDING' : 'SUCCEEDED',
    });
  }
  return base({ ...common, providerReferences: [original, psp].filter((x): x is string => !!x), providerTransactionId: psp });
}
