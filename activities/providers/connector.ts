/**
 * The provider connector interface. A connector turns Switchyard operations into one
 * provider's API calls and maps the answers back; the payment activities do the rest
 * (timeouts, reversal, failover, storage) the same way for every provider.
 *
 * Two kinds implement it: connectors spoken over plain JSON HTTP describe each request
 * (`HttpConnector`: build, then map the answer) and `overHttp` sends them; connectors built
 * on a provider's official SDK (Stripe) implement the operations themselves.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { Context } from '@temporalio/activity';
import type { PaymentFlow } from '../../domain/payments/methods';
import type { TransactionCategory } from '../../domain/payments/states';
import type { ProviderResult } from '../../domain/payments/attempts';
import { iso8583Message } from '../../domain/providers/stripe';

/** One configured connection (account + provider + the provider's merchant id). */
export interface ConnectionTarget {
  connectionId: string;
  providerId: string;
  merchantId: string;
}

export interface CardForProvider {
  number: string;
  holderName: string | null;
  expirationMonth: number;
  /** four digits */
  expirationYear: number;
  securityCode: string | null;
}

export interface AuthorizeRequest {
  /** Deterministic per attempt, so a retried activity is answered, not charged again. */
  idempotencyKey: string;
  reference: string;
  amount: number;
  currency: string;
  capture: boolean;
  card: CardForProvider;
  installments: number | null;
  softDescriptor: string | null;
}

export interface FollowUpRequest {
  idempotencyKey: string;
  providerTransactionId: string;
  amount: number;
  currency: string;
}

/** A provider call prepared but not sent: what `buildX` returns and `send` posts. */
export interface ProviderHttpRequest {
  method: 'POST';
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** Defined beside the record it changes (domain/payments/attempts.ts); connectors produce it. */
export type { ProviderResult };

/**
 * A connection's provider credentials, opened for one call (or one webhook signature check)
 * only: never in workflow history or logs. Which fields are set depends on the provider.
 */
export interface ConnectionCredentials {
  /** STRIPE: secret or restricted API key. */
  secretKey?: string;
  /** STRIPE: signing secret of the webhook endpoint (whsec_...). */
  webhookSecret?: string;
  /** ADYEN: API key (X-API-Key). */
  apiKey?: string;
  /** ADYEN: TEST or LIVE. */
  environment?: 'TEST' | 'LIVE';
  /** ADYEN, LIVE: the company account's live endpoint prefix. */
  liveEndpointUrlPrefix?: string;
  /** ADYEN: HMAC key of the standard webhook (hexadecimal). */
  hmacKey?: string;
}

/** Everything one provider call needs besides the request itself. */
export interface ProviderCall {
  target: ConnectionTarget;
  /** Null for providers that need none (the sandbox). */
  credentials: ConnectionCredentials | null;
  /** Where the provider's API is; null means the provider's own production address. */
  baseUrl: string | null;
  timeoutMs: number;
  /** Where a shopper redirected by the provider (3-D Secure) returns: Switchyard's public base URL. */
  returnUrl?: string | null;
}

export type FollowUpKind = 'capture' | 'void' | 'refund';

export interface ProviderConnector {
  readonly providerId: string;
  /** Payment flows this connector implements; routing never sends a payment of another flow here. */
  readonly flows: readonly PaymentFlow[];
  /**
   * One authorization (or sale). Declines and provider errors are results; throws
   * ProviderTimeout when no answer came in time, any other error when unreachable.
   */
  authorize(call: ProviderCall, request: AuthorizeRequest): Promise<ProviderResult>;
  followUp(call: ProviderCall, kind: FollowUpKind, request: FollowUpRequest): Promise<ProviderResult>;
  /** Undoes whatever the timed-out authorization `request` did; answers the raw responses. */
  reverse(call: ProviderCall, request: AuthorizeRequest): Promise<unknown>;
}

/** A connector spoken over plain JSON HTTP: requests are described, sent by `send`, then mapped. */
export interface HttpConnector {
  readonly providerId: string;
  readonly flows: readonly PaymentFlow[];
  buildAuthorization(target: ConnectionTarget, request: AuthorizeRequest): ProviderHttpRequest;
  buildFollowUp(target: ConnectionTarget, kind: FollowUpKind, request: FollowUpRequest): ProviderHttpRequest;
  /** Timeout reversal of the authorization sent with `idempotencyKey`. */
  buildReversal(target: ConnectionTarget, idempotencyKey: string): ProviderHttpRequest;
  /** Maps an HTTP answer (status + parsed body) to a result. */
  mapResponse(httpStatus: number, body: unknown): ProviderResult;
}

function baseUrlOf(call: ProviderCall): string {
  if (!call.baseUrl) throw new Error(`no base URL configured for provider ${call.target.providerId}`);
  return call.baseUrl;
}

/** The operations of an HTTP connector: build, send, map. */
export function overHttp<C extends HttpConnector>(http: C): C & ProviderConnector {
  return {
    ...http,
    async authorize(call, request) {
      const response = await send(baseUrlOf(call), http.buildAuthorization(call.target, request), call.timeoutMs);
      return http.mapResponse(response.status, response.body);
    },
    async followUp(call, kind, request) {
      const response = await send(baseUrlOf(call), http.buildFollowUp(call.target, kind, request), call.timeoutMs);
      return http.mapResponse(response.status, response.body);
    },
    async reverse(call, request) {
      return (await send(baseUrlOf(call), http.buildReversal(call.target, request.idempotencyKey), call.timeoutMs)).body;
    },
  };
}

export class ProviderTimeout extends Error {
  constructor(readonly afterMs: number) {
    super(`provider did not answer within ${afterMs} ms`);
    this.name = 'ProviderTimeout';
  }
}

/** Posts a prepared request; aborts after timeoutMs with ProviderTimeout. */
export async function send(baseUrl: string, request: ProviderHttpRequest, timeoutMs: number): Promise<{ status: number; body: unknown }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetch(`${baseUrl}${request.path}`, {
      method: request.method,
      headers: { 'content-type': 'application/json', ...request.headers },
      body: JSON.stringify(request.body),
      signal: controller.signal,
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON: keep the text as the raw response */
    }
    return { status: response.status, body };
  } catch (error) {
    if (controller.signal.aborted) throw new ProviderTimeout(timeoutMs);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** What a provider call does, as named on its span. */
export type ProviderOperation = 'authorize' | 'capture' | 'void' | 'refund' | 'reversal' | 'credit' | 'recipient_onboarding' | 'transfer';

// A no-op tracer unless the process started tracing (activities/runtime/tracing.ts).
const tracer = trace.getTracer('switchyard-providers');

/**
 * Runs one provider operation inside its span. The span carries the provider id, the
 * operation and the outcome only: requests hold card numbers and merchant credentials and
 * answers may echo them, so neither is ever recorded.
 */
export function traced<T>(providerId: string, operation: ProviderOperation, timeoutMs: number, work: () => Promise<T>): Promise<T> {
  const attributes = { 'switchyard.provider.id': providerId, 'switchyard.provider.operation': operation };
  return tracer.startActiveSpan(`provider ${operation}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      const answer = await work();
      // A reversal answers the provider's raw responses, not a result: no outcome to name.
      const result = answer && typeof answer === 'object' && 'category' in answer ? (answer as unknown as ProviderResult) : null;
      if (result) {
        span.setAttribute('switchyard.provider.outcome', result.category);
        span.setAttribute('switchyard.provider.response_code', result.responseCode);
        if (result.httpStatus !== null) span.setAttribute('http.response.status_code', result.httpStatus);
        if (result.category === 'PROVIDER_ERROR') span.setStatus({ code: SpanStatusCode.ERROR, message: result.responseCode });
      }
      return answer;
    } catch (error) {
      // Fixed messages: an error's own text could quote the request.
      const timedOut = error instanceof ProviderTimeout;
      span.setAttribute('switchyard.provider.outcome', timedOut ? 'TIMEOUT' : 'PROVIDER_ERROR');
      span.setStatus({ code: SpanStatusCode.ERROR, message: timedOut ? `no answer within ${timeoutMs} ms` : 'provider unreachable' });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Sends a prepared request of an HTTP connector and maps the answer, inside one span. */
export function callProvider(connector: HttpConnector, operation: ProviderOperation, baseUrl: string, request: ProviderHttpRequest, timeoutMs: number): Promise<ProviderResult> {
  return traced(connector.providerId, operation, timeoutMs, async () => {
    const response = await send(baseUrl, request, timeoutMs);
    return connector.mapResponse(response.status, response.body);
  });
}

/** Where a routed connection sends a request. */
export function targetOf(connection: { connectionId: string; providerId: string; merchantId: string }): ConnectionTarget {
  return { connectionId: connection.connectionId, providerId: connection.providerId, merchantId: connection.merchantId };
}

/** Heartbeats while `work` runs, so a dead worker's provider call is retried within seconds. */
export async function withHeartbeat<T>(work: () => Promise<T>): Promise<T> {
  if (Context.current().info.isLocal) return work(); // local activities do not heartbeat; the workflow task does
  const timer = setInterval(() => Context.current().heartbeat(), 1_000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** A connector's result: `fields` over the defaults (no ids, codes, raw response or redirect). */
export function providerResult(category: TransactionCategory, fields: Partial<ProviderResult> & Pick<ProviderResult, 'responseCode' | 'responseMessage'>): ProviderResult {
  const providerStatus = category === 'APPROVED' ? 'APPROVED' : category === 'THREE_D_SECURE' ? 'PENDING' : category.endsWith('DECLINE') ? 'DECLINED' : 'ERROR';
  return {
    category,
    providerStatus,
    providerTransactionId: null,
    iso8583Code: null,
    iso8583Message: null,
    httpStatus: null,
    rawResponse: null,
    threeDsRedirectUrl: null,
    ...fields,
  };
}

/** Refused before anything was sent (the provider could not take it as asked): the route moves on. */
export function notSentResult(responseCode: string, responseMessage: string): ProviderResult {
  return providerResult('PROVIDER_ERROR', { responseCode, responseMessage, rawResponse: { not_sent: responseMessage } });
}

/** The ISO 8583-like code of a result and its message. */
export const withIso = (code: string | null) => ({ iso8583Code: code, iso8583Message: iso8583Message(code) });
