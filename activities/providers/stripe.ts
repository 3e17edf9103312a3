/**
 * Connector for Stripe, through the official `stripe` SDK: a card payment is a PaymentIntent
 * confirmed at creation (capture_method manual for an authorization, automatic for a sale),
 * captured (amount_to_capture), canceled (void) or refunded (Refunds API) later.
 *
 * Card data (PCI DSS): the vault hands this connector the PAN, which it sends to Stripe as a
 * PaymentMethod with raw card details. Stripe accepts raw card numbers only from accounts that
 * have raw card data APIs enabled, which Stripe grants to merchants that attest PCI DSS
 * SAQ D compliance; Switchyard is in that scope anyway because its vault keeps PANs. Stripe
 * test tokens (pm_card_visa) would keep the PAN away from Stripe, but then the vaulted card is
 * not what gets charged, so they are no way to pay with it.
 *
 * Answers: approvals, 3-D Secure (requires_action), card declines and provider errors are
 * results mapped to our categories and ISO 8583 codes (domain/providers/stripe.ts); a
 * timeout throws ProviderTimeout (the attempt is then reversed), an unreachable API throws.
 * The raw response kept in provider_data is the Stripe object without its client_secret
 * (which would let a browser confirm the PaymentIntent); it holds no card number.
 */
import Stripe from 'stripe';
import { stripeAmount, stripeCurrency, stripeDecline } from '../../domain/providers/stripe';
import { AuthorizeRequest, FollowUpKind, ProviderCall, ProviderConnector, notSentResult, providerResult, ProviderResult, ProviderTimeout, withIso } from './connector';

type Operation = 'authorize' | FollowUpKind;

/** One SDK client per call: the key is the connection's, opened for this call only. */
function client(call: ProviderCall): Stripe {
  if (!call.credentials?.secretKey) throw new Error('the STRIPE connection has no credentials');
  const base = call.baseUrl ? new URL(call.baseUrl) : null;
  return new Stripe(call.credentials.secretKey, {
    // Retries are ours (same idempotency key, Temporal's activity retries): one attempt each.
    maxNetworkRetries: 0,
    timeout: call.timeoutMs,
    telemetry: false,
    appInfo: { name: 'Switchyard' },
    ...(base
      ? {
          host: base.hostname,
          port: Number(base.port || (base.protocol === 'http:' ? 80 : 443)),
          protocol: base.protocol === 'http:' ? ('http' as const) : ('https' as const),
        }
      : {}),
  });
}




/** A Stripe object as stored: plain JSON, without the client_secret. */
export function sanitize(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value ?? null;
  const copy = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  delete copy.client_secret;
  return copy;
}

function statusOf(value: object): number {
  return (value as { lastResponse?: { statusCode?: number } }).lastResponse?.statusCode ?? 200;
}

/** A PaymentIntent after an authorization, capture or cancel, in our terms. */
export function intentResult(operation: Operation, intent: Stripe.PaymentIntent, httpStatus = 200): ProviderResult {
  const base = { providerTransactionId: intent.id, httpStatus, rawResponse: sanitize(intent) };
  const approved = (message: string) => providerResult('APPROVED', { ...base, ...withIso('00'), responseCode: 'APPROVED', responseMessage: message });
  const unexpected = () => providerResult('PROVIDER_ERROR', { ...base, responseCode: 'UNEXPECTED_STATUS', responseMessage: `PaymentIntent is ${intent.status} after ${operation}` });

  if (operation === 'capture') return intent.status === 'succeeded' ? approved('Captured') : unexpected();
  if (operation === 'void') return intent.status === 'canceled' ? approved('Canceled') : unexpected();
  switch (intent.status) {
    case 'requires_capture':
      return approved('Authorized');
    case 'succeeded':
      return approved('Approved');
    case 'requires_action': {
      const url = intent.next_action?.redirect_to_url?.url ?? null;
      return providerResult('THREE_D_SECURE', { ...base, ...withIso('1A'), responseCode: 'THREE_D_SECURE_REQUIRED', responseMessage: 'The card issuer asks for customer authentication (3-D Secure)', threeDsRedirectUrl: url });
    }
    case 'requires_payment_method': {
      // A confirmed PaymentIntent falls back here when its payment failed.
      const error = intent.last_payment_error;
      if (error?.type !== 'card_error') {
        return providerResult('PROVIDER_ERROR', { ...base, responseCode: error?.code ? error.code.toUpperCase() : 'UNEXPECTED_STATUS', responseMessage: error?.message ?? 'PaymentIntent needs a payment method after confirmation' });
      }
      const decline = stripeDecline(error.decline_code || error.code);
      return providerResult(decline.category, { ...base, ...withIso(decline.iso8583Code), responseCode: decline.responseCode, responseMessage: error.message ?? 'Declined' });
    }
    case 'canceled':
      return providerResult('HARD_DECLINE', { ...base, ...withIso('05'), responseCode: 'CANCELED', responseMessage: `PaymentIntent canceled${intent.cancellation_reason ? ` (${intent.cancellation_reason})` : ''}` });
    default:
      return unexpected();
  }
}

/** A Refund in our terms: pending and succeeded are accepted (pending settles later). */
export function refundResult(refund: Stripe.Refund, httpStatus = 200): ProviderResult {
  const base = { providerTransactionId: refund.id, httpStatus, rawResponse: sanitize(refund) };
  if (refund.status === 'succeeded' || refund.status === 'pending') {
    return providerResult('APPROVED', { ...base, ...withIso('00'), responseCode: 'APPROVED', responseMessage: refund.status === 'pending' ? 'Refund pending' : 'Refunded' });
  }
  return providerResult('PROVIDER_ERROR', { ...base, responseCode: refund.failure_reason ? refund.failure_reason.toUpperCase() : 'REFUND_FAILED', responseMessage: `Refund is ${refund.status}` });
}

/** What a failed SDK call's raw error keeps: Stripe's error fields, never headers or the client_secret. */
function rawError(error: Stripe.errors.StripeError): Record<string, unknown> {
  const intent = error.payment_intent as { id?: string; status?: string } | undefined;
  return {
    error: {
      type: error.rawType ?? null,
      code: error.code ?? null,
      decline_code: error.decline_code || null,
      message: error.message,
      param: error.param ?? null,
      doc_url: error.doc_url ?? null,
      request_log_url: error.request_log_url ?? null,
    },
    payment_intent: intent?.id ? { id: intent.id, status: intent.status ?? null } : null,
    request_id: error.requestId ?? null,
  };
}

function isTimeout(error: Stripe.errors.StripeError): boolean {
  const detail = error.detail as { code?: string } | undefined;
  return detail?.code === 'ETIMEDOUT' || /timeout/i.test(error.message);
}

/**
 * A failed SDK call in our terms. Card errors are declines; rate limits and Stripe's own
 * errors are provider errors the route may fail over from; a timeout throws ProviderTimeout
 * and a connection failure throws, like every connector.
 */
export function errorResult(error: unknown, timeoutMs: number): ProviderResult {
  if (!(error instanceof Stripe.errors.StripeError)) throw error;
  if (error instanceof Stripe.errors.StripeConnectionError) {
    if (isTimeout(error)) throw new ProviderTimeout(timeoutMs);
    throw new Error(`Stripe unreachable: ${error.message}`);
  }
  const httpStatus = error.statusCode ?? null;
  const raw = rawError(error);
  const intent = error.payment_intent as { id?: string } | undefined;
  const providerTransactionId = intent?.id ?? null;
  const fields = { httpStatus, rawResponse: raw, providerTransactionId };
  if (error instanceof Stripe.errors.StripeCardError) {
    // The SDK gives '' for a card error without a decline code: fall back to the code.
    const decline = stripeDecline(error.decline_code || error.code);
    return providerResult(decline.category, { ...fields, ...withIso(decline.iso8583Code), responseCode: decline.responseCode, responseMessage: error.message || 'Declined' });
  }
  if (error instanceof Stripe.errors.StripeRateLimitError) {
    return providerResult('PROVIDER_ERROR', { ...fields, ...withIso('91'), responseCode: 'RATE_LIMITED', responseMessage: error.message || 'Too many requests to Stripe' });
  }
  if (error instanceof Stripe.errors.StripeAuthenticationError) {
    return providerResult('PROVIDER_ERROR', { ...fields, responseCode: 'PROVIDER_AUTHENTICATION_FAILED', responseMessage: 'Stripe refused the connection\'s API key' });
  }
  if (error instanceof Stripe.errors.StripePermissionError) {
    return providerResult('PROVIDER_ERROR', { ...fields, responseCode: 'PROVIDER_PERMISSION_DENIED', responseMessage: error.message || 'The API key may not do this' });
  }
  if (error instanceof Stripe.errors.StripeIdempotencyError) {
    return providerResult('PROVIDER_ERROR', { ...fields, responseCode: 'IDEMPOTENCY_CONFLICT', responseMessage: error.message });
  }
  if (error instanceof Stripe.errors.StripeInvalidRequestError) {
    return providerResult('PROVIDER_ERROR', { ...fields, responseCode: error.code ? error.code.toUpperCase() : 'INVALID_REQUEST', responseMessage: error.message });
  }
  return providerResult('PROVIDER_ERROR', { ...fields, ...withIso('96'), responseCode: 'PROVIDER_ERROR', responseMessage: error.message || 'Stripe API error' });
}

/**
 * Stripe's statement descriptor suffix: at most 22 characters together with the account's
 * prefix (up to 10) and a separator, without < > \ ' " *.
 */
export function descriptorSuffix(softDescriptor: string | null): string | null {
  const cleaned = (softDescriptor ?? '').replace(/[<>\\'"*]/g, '').trim().slice(0, 10).trim();
  return cleaned || null;
}

function paymentMethodParams(request: AuthorizeRequest): Stripe.PaymentMethodCreateParams {
  return {
    type: 'card',
    card: {
      number: request.card.number,
      exp_month: request.card.expirationMonth,
      exp_year: request.card.expirationYear,
      ...(request.card.securityCode ? { cvc: request.card.securityCode } : {}),
    },
    ...(request.card.holderName ? { billing_details: { name: request.card.holderName } } : {}),
  };
}

function intentParams(call: ProviderCall, request: AuthorizeRequest, amount: number, paymentMethod: string): Stripe.PaymentIntentCreateParams {
  const suffix = descriptorSuffix(request.softDescriptor);
  return {
    amount,
    currency: stripeCurrency(request.currency),
    payment_method: paymentMethod,
    // Cards only: no redirect-based methods, so no return_url is needed.
    payment_method_types: ['card'],
    confirm: true,
    capture_method: request.capture ? 'automatic' : 'manual',
    metadata: { switchyard_reference: request.reference, switchyard_connection_id: call.target.connectionId },
    ...(suffix ? { statement_descriptor_suffix: suffix } : {}),
  };
}

// Keys derived from the attempt's, so a retried activity replays instead of charging again.
const paymentMethodKey = (key: string) => `${key}:payment-method`;

/** Creates (or, with the same keys, replays) the PaymentMethod and the confirmed PaymentIntent. */
async function createIntent(stripe: Stripe, call: ProviderCall, request: AuthorizeRequest, amount: number): Promise<Stripe.PaymentIntent> {
  const method = await stripe.paymentMethods.create(paymentMethodParams(request), { idempotencyKey: paymentMethodKey(request.idempotencyKey) });
  return stripe.paymentIntents.create(intentParams(call, request, amount, method.id), { idempotencyKey: request.idempotencyKey });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const stripeConnector: ProviderConnector = {
  providerId: 'STRIPE',
  // Cards only for now: Stripe's wallets, debits and vouchers need flows of their own.
  flows: ['card'],

  async authorize(call, request) {
    const amount = stripeAmount(request.amount, request.currency);
    if (amount === null) return notSentResult('INVALID_AMOUNT', `${request.amount} ${request.currency} has no exact amount in Stripe's unit for ${request.currency}`);
    // Stripe card installments are Mexican plans the shopper picks at confirmation, not a count we can pass.
    if (request.installments !== null && request.installments > 1) return notSentResult('INSTALLMENTS_NOT_SUPPORTED', 'Stripe takes no installment count on a card payment');
    if (!call.credentials?.secretKey) return notSentResult('MISSING_CREDENTIALS', 'the connection has no Stripe API key');
    const stripe = client(call);
    try {
      let intent = await createIntent(stripe, call, request, amount);
      // Card payments leave `processing` within moments; still there at the deadline counts as no answer.
      const deadline = Date.now() + call.timeoutMs;
      while (intent.status === 'processing' && Date.now() < deadline) {
        await sleep(250);
        intent = await stripe.paymentIntents.retrieve(intent.id);
      }
      if (intent.status === 'processing') throw new ProviderTimeout(call.timeoutMs);
      return intentResult('authorize', intent, statusOf(intent));
    } catch (error) {
      if (error instanceof ProviderTimeout) throw error;
      return errorResult(error, call.timeoutMs);
    }
  },

  async followUp(call, kind, request) {
    if (!call.credentials?.secretKey) return notSentResult('MISSING_CREDENTIALS', 'the connection has no Stripe API key');
    const amount = stripeAmount(request.amount, request.currency);
    if (amount === null) return notSentResult('INVALID_AMOUNT', `${request.amount} ${request.currency} has no exact amount in Stripe's unit for ${request.currency}`);
    const stripe = client(call);
    const options = { idempotencyKey: request.idempotencyKey };
    try {
      if (kind === 'refund') {
        const refund = await stripe.refunds.create({ payment_intent: request.providerTransactionId, amount }, options);
        return refundResult(refund, statusOf(refund));
      }
      const intent =
        kind === 'capture'
          ? await stripe.paymentIntents.capture(request.providerTransactionId, { amount_to_capture: amount }, options)
          : await stripe.paymentIntents.cancel(request.providerTransactionId, {}, options);
      return intentResult(kind, intent, statusOf(intent));
    } catch (error) {
      return errorResult(error, call.timeoutMs);
    }
  },

  /**
   * Replays the timed-out creation with the same idempotency keys: Stripe answers what the
   * lost request did, or does it now if it never arrived. Whatever holds funds is then
   * released: an authorization canceled, a charge refunded.
   */
  async reverse(call, request) {
    const amount = stripeAmount(request.amount, request.currency);
    if (amount === null || !call.credentials?.secretKey) return { reversal: 'nothing was sent' };
    const stripe = client(call);
    const key = `${request.idempotencyKey}:reversal`;
    try {
      const intent = await createIntent(stripe, call, request, amount);
      if (intent.status === 'requires_capture' || intent.status === 'requires_action') {
        const canceled = await stripe.paymentIntents.cancel(intent.id, {}, { idempotencyKey: key });
        return { payment_intent: { id: intent.id, status: intent.status }, reversal: { action: 'cancel', status: canceled.status } };
      }
      if (intent.status === 'succeeded') {
        const refund = await stripe.refunds.create({ payment_intent: intent.id }, { idempotencyKey: key });
        return { payment_intent: { id: intent.id, status: intent.status }, reversal: { action: 'refund', id: refund.id, status: refund.status } };
      }
      return { payment_intent: { id: intent.id, status: intent.status }, reversal: null };
    } catch (error) {
      return error instanceof Stripe.errors.StripeError ? rawError(error) : { error: String(error) };
    }
  },
};
