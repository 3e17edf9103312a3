/**
 * A loopback proxy in front of stripe-mock for the STRIPE connector's tests.
 *
 * Every request goes on to stripe-mock unchanged, which validates it against Stripe's
 * OpenAPI document (and its API version), and stripe-mock's answer is what comes back. But
 * stripe-mock is stateless and answers fixtures: a PaymentIntent is always
 * `requires_payment_method`, whatever was asked. So, only after stripe-mock accepted a
 * request, the proxy fills in the state real Stripe gives for that call (an authorization
 * `requires_capture`, a sale or capture `succeeded`, a cancel `canceled`), answers Stripe's
 * documented test cards with Stripe's decline shape, replays answers per idempotency key
 * like Stripe, and can simulate rate limits and a hang. Each exchange is recorded (card
 * number and CVC masked) with stripe-mock's own status, so tests can assert that stripe-mock
 * accepted every request the connector sent.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StripeExchange {
  method: string;
  path: string;
  idempotencyKey: string | null;
  stripeVersion: string | null;
  /** Form parameters as sent, with card[number] and card[cvc] masked. */
  params: Record<string, string>;
  /** stripe-mock's status for the request (2xx = accepted against the OpenAPI document). */
  mockStatus: number;
  /** The status and body the connector received. */
  status: number;
  body: any;
  replayed: boolean;
}

export type StripeFailure = 'rate_limit' | 'api_error' | 'hang_once';

export interface RunningStripeMockProxy {
  url: string;
  exchanges: StripeExchange[];
  /** Applied to PaymentIntent creations until set back to null. */
  failure: StripeFailure | null;
  close(): Promise<void>;
}

/** Stripe's test cards (docs.stripe.com/testing) whose outcome the proxy simulates. */
export const STRIPE_TEST_CARDS = {
  visa: '4242424242424242',
  genericDecline: '4000000000000002',
  insufficientFunds: '4000000000009995',
  lostCard: '4000000000009987',
  stolenCard: '4000000000009979',
  expiredCard: '4000000000000069',
  processingError: '4000000000000119',
  authenticationRequired: '4000002760003184',
} as const;

const DECLINES: Record<string, { code: string; decline_code?: string; message: string }> = {
  [STRIPE_TEST_CARDS.genericDecline]: { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' },
  [STRIPE_TEST_CARDS.insufficientFunds]: { code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  [STRIPE_TEST_CARDS.lostCard]: { code: 'card_declined', decline_code: 'lost_card', message: 'Your card was declined.' },
  [STRIPE_TEST_CARDS.stolenCard]: { code: 'card_declined', decline_code: 'stolen_card', message: 'Your card was declined.' },
  [STRIPE_TEST_CARDS.expiredCard]: { code: 'expired_card', message: 'Your card has expired.' },
  [STRIPE_TEST_CARDS.processingError]: { code: 'processing_error', message: 'An error occurred while processing your card. Try again in a little bit.' },
};

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function masked(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of params) out[key] = key === 'card[number]' ? `****${value.slice(-4)}` : key === 'card[cvc]' ? '***' : value;
  return out;
}

const randomId = (prefix: string) => `${prefix}_${Math.random().toString(36).slice(2, 16)}`;

export async function startStripeMockProxy(mockUrl: string): Promise<RunningStripeMockProxy> {
  const exchanges: StripeExchange[] = [];
  const cardOfPaymentMethod = new Map<string, string>();
  const intents = new Map<string, any>();
  const replies = new Map<string, { status: number; body: any }>();

  const state: RunningStripeMockProxy = { url: '', exchanges, failure: null, close: async () => undefined };

  /** What real Stripe answers after stripe-mock accepted the request. */
  function lifecycle(method: string, path: string, params: URLSearchParams, body: any): { status: number; body: any } {
    if (method === 'POST' && path === '/v1/payment_methods' && params.get('card[number]')) {
      cardOfPaymentMethod.set(body.id, params.get('card[number]')!);
      return { status: 200, body: { ...body, card: { ...body.card, last4: params.get('card[number]')!.slice(-4) } } };
    }
    if (method === 'POST' && path === '/v1/payment_intents') {
      if (state.failure === 'rate_limit') return { status: 429, body: { error: { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests hit the API too quickly.' } } };
      if (state.failure === 'api_error') return { status: 500, body: { error: { type: 'api_error', message: 'Something went wrong on Stripe\'s end.' } } };
      const card = cardOfPaymentMethod.get(params.get('payment_method') ?? '') ?? '';
      const manual = params.get('capture_method') === 'manual';
      const amount = Number(params.get('amount'));
      const intent = { ...body, amount, currency: params.get('currency'), capture_method: params.get('capture_method') ?? 'automatic_async', payment_method: params.get('payment_method'), last_payment_error: null, next_action: null, latest_charge: null, amount_capturable: 0, amount_received: 0 };
      const decline = DECLINES[card];
      if (decline) {
        const failed = { ...intent, status: 'requires_payment_method', last_payment_error: { type: 'card_error', ...decline } };
        intents.set(intent.id, failed);
        return { status: 402, body: { error: { type: 'card_error', ...decline, charge: randomId('ch'), payment_intent: failed, request_log_url: `https://dashboard.stripe.com/test/logs/${randomId('req')}` } } };
      }
      if (card === STRIPE_TEST_CARDS.authenticationRequired) {
        const pending = { ...intent, status: 'requires_action', next_action: { type: 'redirect_to_url', redirect_to_url: { url: `https://hooks.stripe.com/3d_secure_2/hosted/${intent.id}`, return_url: null } } };
        intents.set(intent.id, pending);
        return { status: 200, body: pending };
      }
      const done = { ...intent, status: manual ? 'requires_capture' : 'succeeded', amount_capturable: manual ? amount : 0, amount_received: manual ? 0 : amount, latest_charge: randomId('ch') };
      intents.set(intent.id, done);
      return { status: 200, body: done };
    }
    const action = /^\/v1\/payment_intents\/([^/]+)\/(capture|cancel)$/.exec(path);
    if (method === 'POST' && action) {
      const known = intents.get(action[1]);
      if (!known) return { status: 200, body };
      const next =
        action[2] === 'capture'
          ? { ...known, status: 'succeeded', amount_capturable: 0, amount_received: Number(params.get('amount_to_capture') ?? known.amount) }
          : { ...known, status: 'canceled', amount_capturable: 0, cancellation_reason: params.get('cancellation_reason') ?? null, canceled_at: Math.floor(Date.now() / 1000) };
      intents.set(known.id, next);
      return { status: 200, body: next };
    }
    return { status: 200, body };
  }

  const server = http.createServer(async (req, res) => {
    try {
      const raw = await readBody(req);
      const path = (req.url ?? '/').split('?')[0];
      const method = req.method ?? 'GET';
      const params = new URLSearchParams(raw);
      const idempotencyKey = (req.headers['idempotency-key'] as string | undefined) ?? null;
      const headers: Record<string, string> = {};
      for (const name of ['authorization', 'content-type', 'stripe-version', 'idempotency-key', 'user-agent', 'x-stripe-client-user-agent']) {
        const value = req.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      const forwarded = await fetch(`${mockUrl}${req.url}`, { method, headers, body: method === 'GET' ? undefined : raw });
      const mockStatus = forwarded.status;
      const mockBody = await forwarded.json().catch(() => null);

      const replayKey = method === 'POST' && idempotencyKey && mockStatus < 300 ? `${req.headers.authorization}:${idempotencyKey}` : null;
      const cached = replayKey ? replies.get(replayKey) : undefined;
      let reply: { status: number; body: any };
      if (cached) reply = cached;
      else if (mockStatus >= 300) reply = { status: mockStatus, body: mockBody };
      else {
        if (state.failure === 'hang_once' && method === 'POST' && path === '/v1/payment_intents') {
          // The request reached Stripe and was processed; only the answer is lost.
          state.failure = null;
          const outcome = lifecycle(method, path, params, mockBody);
          if (replayKey) replies.set(replayKey, outcome);
          exchanges.push({ method, path, idempotencyKey, stripeVersion: headers['stripe-version'] ?? null, params: masked(params), mockStatus, status: 0, body: null, replayed: false });
          req.socket.setTimeout(0);
          return; // never answered; the client gives up
        }
        reply = lifecycle(method, path, params, mockBody);
        // Like Stripe: rate-limited and failed (5xx) requests are not kept for replay.
        if (replayKey && reply.status !== 429 && reply.status < 500) replies.set(replayKey, reply);
      }
      exchanges.push({ method, path, idempotencyKey, stripeVersion: headers['stripe-version'] ?? null, params: masked(params), mockStatus, status: reply.status, body: reply.body, replayed: Boolean(cached) });
      res.writeHead(reply.status, { 'content-type': 'application/json', 'request-id': randomId('req'), ...(cached ? { 'idempotent-replayed': 'true' } : {}) });
      res.end(JSON.stringify(reply.body));
    } catch (error) {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'api_error', message: `proxy: ${(error as Error).message}` } }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
