/**
 * Connector for Adyen, through the official `@adyen/api-library` Checkout API (the library's
 * Checkout services speak API version v72; the request and response models are the
 * library's own types and go through its ObjectSerializer):
 * - authorization or sale: PaymentsApi `payments` with the card's raw details; an
 *   authorization asks for manual capture (`additionalData.manualCapture`), a sale for
 *   immediate capture (`captureDelayHours: 0`), whatever the merchant account's default;
 * - capture (partial or full), cancel and refund: ModificationsApi `captures`, `cancels`
 *   and `refunds` on the authorization's pspReference.
 * Every call carries an Idempotency-Key derived from the payment and the attempt or operation,
 * so a retried activity is answered by Adyen instead of charging again.
 *
 * Answers: resultCode and refusalReasonCode map to our categories (domain/providers/adyen.ts);
 * modifications answer `received` (the outcome of a capture, cancel or refund is final only
 * once Adyen's webhook says so; a failed one is recorded by POST /v1/provider-webhooks).
 * A timeout throws ProviderTimeout (the attempt is then reversed: replayed with the same key,
 * then refunded or canceled); an unreachable API throws. The raw response kept in
 * provider_data is Adyen's answer with card data, tokens and 3-D Secure payloads redacted.
 *
 * Card data (PCI DSS): the vaulted PAN goes to Adyen as raw card details (`scheme`), which
 * Adyen accepts from merchants it has enabled for raw card data (PCI DSS SAQ D).
 */
import { CheckoutAPI, Client, EnvironmentEnum, HttpClientException, HttpURLConnectionClient, Types } from '@adyen/api-library';
import type ClientInterface from '@adyen/api-library/lib/src/httpClient/clientInterface';
import { adyenAmount, adyenResult, redactAdyen } from '../../domain/providers/adyen';
import { AuthorizeRequest, ConnectionTarget, FollowUpKind, FollowUpRequest, ProviderCall, ProviderConnector, notSentResult, providerResult, ProviderResult, ProviderTimeout, withIso } from './connector';

export type AdyenPaymentRequest = Types.checkout.PaymentRequest;
export type AdyenPaymentResponse = Types.checkout.PaymentResponse;

/** Metadata key carrying the payment id (Adyen keys are at most 20 characters). */
export const ADYEN_PAYMENT_METADATA_KEY = 'switchyardPayment';

/** Makes the library's HTTP client; replaced only by tests (to trust a local test CA). */
let makeHttpClient: () => ClientInterface = () => new HttpURLConnectionClient();

export function useAdyenHttpClient(factory: (() => ClientInterface) | null): void {
  makeHttpClient = factory ?? (() => new HttpURLConnectionClient());
}

/**
 * The library's own HTTP client, sending to another base URL (ADYEN_API_URL): the library
 * computes Adyen's address from the environment and offers no base URL of its own, so the
 * origin of each endpoint is swapped and the path (/v72/payments...) kept.
 */
export class RebasedHttpClient implements ClientInterface {
  constructor(
    private readonly inner: ClientInterface,
    private readonly baseUrl: string,
  ) {}

  request(endpoint: string, json: string | Buffer, config: Parameters<ClientInterface['request']>[2], isApiKeyRequired: boolean, options?: Parameters<ClientInterface['request']>[4]): Promise<string> {
    const url = new URL(endpoint);
    return this.inner.request(`${this.baseUrl}${url.pathname}${url.search}`, json, config, isApiKeyRequired, options);
  }
}

/** One library client per call: the key is the connection's, opened for this call only. */
function checkout(call: ProviderCall) {
  const credentials = call.credentials;
  if (!credentials?.apiKey) throw new Error('the ADYEN connection has no API key');
  const client = new Client({
    apiKey: credentials.apiKey,
    environment: credentials.environment === 'LIVE' ? EnvironmentEnum.LIVE : EnvironmentEnum.TEST,
    ...(credentials.liveEndpointUrlPrefix ? { liveEndpointUrlPrefix: credentials.liveEndpointUrlPrefix } : {}),
    connectionTimeoutMillis: call.timeoutMs,
    applicationName: 'Switchyard',
  });
  const http = makeHttpClient();
  client.httpClient = call.baseUrl ? new RebasedHttpClient(http, call.baseUrl) : http;
  const api = new CheckoutAPI(client);
  return { payments: api.PaymentsApi, modifications: api.ModificationsApi };
}

/** Settles `work` or throws ProviderTimeout after timeoutMs (the library's socket timeout only covers idle sockets). */
async function withinTimeout<T>(timeoutMs: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProviderTimeout(timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}




/** Adyen's shopperStatement: at most 22 characters of a-z A-Z 0-9 space . , ' _ - ? + * / (the networks' limit). */
export function shopperStatement(softDescriptor: string | null): string | null {
  const cleaned = (softDescriptor ?? '').replace(/[^a-zA-Z0-9 .,'_\-?+*/]/g, '').trim().slice(0, 22).trim();
  return cleaned || null;
}

/**
 * The /payments request of an authorization (capture=false: manual capture) or a sale
 * (capture=true: captured at once), as the library's model.
 */
export function paymentRequest(target: ConnectionTarget, request: AuthorizeRequest, value: number, returnUrl: string): AdyenPaymentRequest {
  const statement = shopperStatement(request.softDescriptor);
  const card: Types.checkout.CardDetails = {
    type: 'scheme' as Types.checkout.CardDetails.TypeEnum,
    number: request.card.number,
    expiryMonth: String(request.card.expirationMonth).padStart(2, '0'),
    expiryYear: String(request.card.expirationYear),
    ...(request.card.securityCode ? { cvc: request.card.securityCode } : {}),
    ...(request.card.holderName ? { holderName: request.card.holderName } : {}),
  };
  return {
    merchantAccount: target.merchantId,
    reference: request.reference,
    amount: { currency: request.currency.toUpperCase(), value },
    paymentMethod: card,
    shopperInteraction: 'Ecommerce' as Types.checkout.PaymentRequest.ShopperInteractionEnum,
    returnUrl,
    ...(request.capture ? { captureDelayHours: 0 } : { additionalData: { manualCapture: 'true' } }),
    ...(request.installments !== null && request.installments > 1 ? { installments: { value: request.installments } } : {}),
    ...(statement ? { shopperStatement: statement } : {}),
    metadata: { [ADYEN_PAYMENT_METADATA_KEY]: request.reference },
  };
}

/**
 * The payment a follow-up belongs to: the workflow's idempotency keys start with the payment
 * id (`<payment id>:<kind>:<operation id>`). It is the modification's reference, so Adyen's
 * webhooks about it name the payment.
 */
export function paymentIdOfKey(idempotencyKey: string): string {
  return idempotencyKey.split(':')[0].slice(0, 80);
}

export function captureRequest(target: ConnectionTarget, request: FollowUpRequest, value: number): Types.checkout.PaymentCaptureRequest {
  return { merchantAccount: target.merchantId, amount: { currency: request.currency.toUpperCase(), value }, reference: paymentIdOfKey(request.idempotencyKey) };
}

export function cancelRequest(target: ConnectionTarget, request: Pick<FollowUpRequest, 'idempotencyKey'>): Types.checkout.PaymentCancelRequest {
  return { merchantAccount: target.merchantId, reference: paymentIdOfKey(request.idempotencyKey) };
}

export function refundRequest(target: ConnectionTarget, request: FollowUpRequest, value: number): Types.checkout.PaymentRefundRequest {
  return { merchantAccount: target.merchantId, amount: { currency: request.currency.toUpperCase(), value }, reference: paymentIdOfKey(request.idempotencyKey) };
}

function redirectUrlOf(action: AdyenPaymentResponse['action']): string | null {
  const url = (action as { url?: unknown } | null | undefined)?.url;
  return typeof url === 'string' ? url : null;
}

/** A /payments answer in our terms. */
export function paymentResult(response: AdyenPaymentResponse, httpStatus = 200): ProviderResult {
  const outcome = adyenResult(response.resultCode, response.refusalReasonCode);
  const message =
    response.resultCode === 'Authorised' ? 'Authorised'
    : outcome.category === 'THREE_D_SECURE' && outcome.responseCode === 'PENDING' ? `Adyen answered ${response.resultCode}: the outcome follows by webhook`
    : outcome.category === 'THREE_D_SECURE' ? 'The card issuer asks for customer authentication (3-D Secure)'
    : response.refusalReason || response.resultCode || 'No result code';
  return providerResult(outcome.category, {
    ...withIso(outcome.iso8583Code),
    providerTransactionId: response.pspReference ?? null,
    responseCode: outcome.responseCode,
    responseMessage: message,
    httpStatus,
    rawResponse: redactAdyen(response),
    threeDsRedirectUrl: outcome.category === 'THREE_D_SECURE' ? redirectUrlOf(response.action) : null,
  });
}

/** A capture, cancel or refund answer: `received` is accepted (the webhook confirms it later). */
export function modificationResult(kind: FollowUpKind, response: { pspReference?: string; status?: string }, httpStatus = 201): ProviderResult {
  const base = { providerTransactionId: response.pspReference ?? null, httpStatus, rawResponse: redactAdyen(response) };
  if (response.status === 'received') {
    const what = { capture: 'Capture', void: 'Cancellation', refund: 'Refund' }[kind];
    return providerResult('APPROVED', { ...base, ...withIso('00'), responseCode: 'RECEIVED', responseMessage: `${what} received by Adyen` });
  }
  return providerResult('PROVIDER_ERROR', { ...base, responseCode: 'UNEXPECTED_STATUS', responseMessage: `Adyen answered status ${response.status ?? 'none'}` });
}

function isApiException(error: unknown): error is { name: 'ApiException'; message: string; statusCode: number } {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'ApiException';
}

/**
 * A failed library call in our terms: Adyen's error answers (ServiceError: status,
 * errorCode, errorType, message, pspReference) are provider errors the route may fail over
 * from; a timeout throws ProviderTimeout; a connection failure throws.
 */
export function errorResult(error: unknown): ProviderResult {
  if (error instanceof ProviderTimeout) throw error;
  if (error instanceof HttpClientException) {
    const api = error.apiError ?? {};
    const httpStatus = error.statusCode ?? null;
    const raw = redactAdyen({ status: api.status ?? httpStatus, errorCode: api.errorCode ?? error.errorCode ?? null, errorType: api.errorType ?? null, message: api.message ?? null, pspReference: api.pspReference ?? null });
    const fields = { httpStatus, rawResponse: raw, providerTransactionId: api.pspReference ?? null };
    const detail = api.message ? `${api.errorCode ? `${api.errorCode} ` : ''}${api.message}` : `HTTP ${httpStatus}`;
    if (httpStatus === 401) return providerResult('PROVIDER_ERROR', { ...fields, responseCode: 'PROVIDER_AUTHENTICATION_FAILED', responseMessage: 'Adyen refused the connection\'s API key' });
    if (httpStatus === 403) return providerResult('PROVIDER_ERROR', { ...fields, responseCode: 'PROVIDER_PERMISSION_DENIED', responseMessage: `The API key may not do this: ${detail}` });
    if (httpStatus === 429) return providerResult('PROVIDER_ERROR', { ...fields, ...withIso('91'), responseCode: 'RATE_LIMITED', responseMessage: 'Too many requests to Adyen' });
    // 704: a request with this Idempotency-Key is still being processed (or had another body).
    if (api.errorCode === '704') return providerResult('PROVIDER_ERROR', { ...fields, responseCode: 'IDEMPOTENCY_CONFLICT', responseMessage: detail });
    if (httpStatus !== null && httpStatus >= 400 && httpStatus < 500) return providerResult('PROVIDER_ERROR', { ...fields, responseCode: 'INVALID_REQUEST', responseMessage: detail });
    return providerResult('PROVIDER_ERROR', { ...fields, ...withIso('96'), responseCode: 'PROVIDER_ERROR', responseMessage: detail });
  }
  if (isApiException(error)) throw new Error(`Adyen unreachable: ${error.message}`);
  // The library answers a 4xx with a body of `errors` as a plain Error carrying that body.
  const message = (error as Error)?.message ?? String(error);
  if (message.startsWith('{')) return providerResult('PROVIDER_ERROR', { responseCode: 'INVALID_REQUEST', responseMessage: 'Adyen refused the request', rawResponse: { errors: 'see provider logs' } });
  throw new Error(`Adyen unreachable: ${message}`);
}

/** Where a shopper sent to a 3-D Secure page comes back (Adyen requires one on every /payments call). */
function returnUrlOf(call: ProviderCall): string {
  return call.returnUrl ?? 'https://localhost/';
}

export const adyenConnector: ProviderConnector = {
  providerId: 'ADYEN',
  // Cards only for now: Adyen's wallets, redirects and vouchers need flows of their own.
  flows: ['card'],

  async authorize(call, request) {
    const value = adyenAmount(request.amount, request.currency);
    if (value === null) return notSentResult('INVALID_AMOUNT', `${request.amount} ${request.currency} has no exact amount in ${request.currency}'s minor unit`);
    if (!call.credentials?.apiKey) return notSentResult('MISSING_CREDENTIALS', 'the connection has no Adyen API key');
    const { payments } = checkout(call);
    try {
      const response = await withinTimeout(call.timeoutMs, payments.payments(paymentRequest(call.target, request, value, returnUrlOf(call)), { idempotencyKey: request.idempotencyKey }));
      return paymentResult(response);
    } catch (error) {
      return errorResult(error);
    }
  },

  async followUp(call, kind, request) {
    if (!call.credentials?.apiKey) return notSentResult('MISSING_CREDENTIALS', 'the connection has no Adyen API key');
    const value = adyenAmount(request.amount, request.currency);
    if (value === null) return notSentResult('INVALID_AMOUNT', `${request.amount} ${request.currency} has no exact amount in ${request.currency}'s minor unit`);
    const { modifications } = checkout(call);
    const options = { idempotencyKey: request.idempotencyKey };
    const psp = request.providerTransactionId;
    try {
      if (kind === 'capture') return modificationResult(kind, await withinTimeout(call.timeoutMs, modifications.captureAuthorisedPayment(psp, captureRequest(call.target, request, value), options)));
      if (kind === 'void') return modificationResult(kind, await withinTimeout(call.timeoutMs, modifications.cancelAuthorisedPaymentByPspReference(psp, cancelRequest(call.target, request), options)));
      return modificationResult(kind, await withinTimeout(call.timeoutMs, modifications.refundCapturedPayment(psp, refundRequest(call.target, request, value), options)));
    } catch (error) {
      return errorResult(error);
    }
  },

  /**
   * Replays the timed-out /payments call with the same Idempotency-Key: Adyen answers what
   * the lost request did (or does it now if it never arrived). Whatever holds funds is then
   * released with a reversal (Adyen cancels an authorization, refunds a captured payment).
   */
  async reverse(call, request) {
    const value = adyenAmount(request.amount, request.currency);
    if (value === null || !call.credentials?.apiKey) return { reversal: 'nothing was sent' };
    const { payments, modifications } = checkout(call);
    try {
      const replay = await withinTimeout(call.timeoutMs, payments.payments(paymentRequest(call.target, request, value, returnUrlOf(call)), { idempotencyKey: request.idempotencyKey }));
      const found = { pspReference: replay.pspReference ?? null, resultCode: replay.resultCode ?? null };
      const holdsFunds = ['Authorised', 'Pending', 'Received', 'RedirectShopper', 'IdentifyShopper', 'ChallengeShopper'].includes(String(replay.resultCode));
      if (!replay.pspReference || !holdsFunds) return { payment: found, reversal: null };
      const reversal = await withinTimeout(
        call.timeoutMs,
        modifications.refundOrCancelPayment(replay.pspReference, { merchantAccount: call.target.merchantId, reference: request.reference }, { idempotencyKey: `${request.idempotencyKey}:reversal` }),
      );
      return { payment: found, reversal: { action: 'reversal', pspReference: reversal.pspReference ?? null, status: reversal.status ?? null } };
    } catch (error) {
      if (error instanceof HttpClientException) return { error: { status: error.statusCode, errorCode: error.apiError?.errorCode ?? null, message: error.apiError?.message ?? null } };
      return { error: error instanceof ProviderTimeout ? 'timeout' : String((error as Error)?.message ?? error) };
    }
  },
};
