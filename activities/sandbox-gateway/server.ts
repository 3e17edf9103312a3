/**
 * The sandbox gateway: a real HTTP server on loopback that behaves like a card acquirer,
 * so the whole payment path (routing, connector, timeouts, failover, idempotency) runs
 * for real in development and tests. Test cards (./test-cards) decide the outcome.
 *
 * Acquirer API (JSON, amounts in the currency's minor unit):
 *   POST /v1/authorizations                 Idempotency-Key, X-Merchant-Id; {amount, currency, capture, card, reference}
 *   POST /v1/authorizations/:id/captures    {amount}
 *   POST /v1/authorizations/:id/voids
 *   POST /v1/authorizations/:id/refunds     {amount}
 *   POST /v1/reversals                      {idempotency_key}: timeout reversal of an authorization
 *   POST /v1/credits, /v1/recipients, /v1/transfers: money out (see ./payouts.ts)
 * Every answer carries an ISO 8583 response code. A repeated Idempotency-Key returns the
 * first answer (waiting for it when still in flight) and never charges twice.
 *
 * Sandbox controls (not part of an acquirer; used by tests and the dashboard):
 *   GET /_sandbox/charges?last4=&reference=   every authorization received
 *   PUT /_sandbox/merchants/:merchant_id      {mode: NORMAL | OUTAGE}: simulate an acquirer outage (503)
 *   GET /_sandbox/health
 *
 * State is in memory: the sandbox is a test double of someone else's system, and a restart
 * is a fresh acquirer. Card numbers are kept only as a hash and the last four digits.
 */
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import http, { IncomingMessage, Server, ServerResponse } from 'node:http';
import { ISO8583_MESSAGES } from '../../domain/payments/provider-codes';
import { behaviourOf } from './test-cards';
import { createPayoutSimulator } from './payouts';

export interface SandboxGatewayOptions {
  port?: number;
  host?: string;
  /** Fixed latency added to every acquirer answer (ms), so benchmarks can subtract it. */
  latencyMs?: number;
  /** Delay of the "slow" test card (ms). */
  slowMs?: number;
  /** Delay of the "timeout" test card (ms). */
  hangMs?: number;
}

export interface SandboxCharge {
  id: string;
  idempotency_key: string;
  merchant_id: string;
  reference: string;
  card_last4: string;
  card_hash: string;
  amount: number;
  currency: string;
  capture: boolean;
  status: 'PROCESSING' | 'APPROVED' | 'DECLINED' | 'PENDING_AUTHENTICATION' | 'ERROR' | 'REVERSED' | 'VOIDED';
  iso8583_response_code: string | null;
  captured_amount: number;
  refunded_amount: number;
  created_at: string;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

export interface RunningSandboxGateway {
  url: string;
  server: Server;
  charges(): SandboxCharge[];
  close(): Promise<void>;
}

export async function startSandboxGateway(options: SandboxGatewayOptions = {}): Promise<RunningSandboxGateway> {
  const latencyMs = options.latencyMs ?? 0;
  const slowMs = options.slowMs ?? 4_000;
  const hangMs = options.hangMs ?? 30_000;
  const charges = new Map<string, SandboxCharge>();
  const answers = new Map<string, Promise<Answer>>();
  const reversedKeys = new Set<string>();
  const outages = new Set<string>();
  const payouts = createPayoutSimulator();

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const iso = (code: string) => ({ iso8583_response_code: code, iso8583_response_message: ISO8583_MESSAGES[code] ?? 'Unknown' });

  async function authorize(merchantId: string, key: string, body: Record<string, any>): Promise<Answer> {
    const card = (body.card ?? {}) as Record<string, any>;
    const pan = String(card.number ?? '');
    if (!/^\d{12,19}$/.test(pan) || !Number.isInteger(body.amount) || body.amount <= 0 || !/^[A-Z]{3}$/.test(String(body.currency))) {
      return { status: 400, body: { error: 'invalid_request', message: 'card.number, a positive integer amount and currency are required', ...iso('12') } };
    }
    const behaviour = behaviourOf(pan);
    const charge: SandboxCharge = {
      id: `auth_${randomUUID().replace(/-/g, '')}`,
      idempotency_key: key,
      merchant_id: merchantId,
      reference: String(body.reference ?? ''),
      card_last4: pan.slice(-4),
      card_hash: createHash('sha256').update(pan).digest('hex'),
      amount: body.amount,
      currency: body.currency,
      capture: body.capture !== false,
      status: 'PROCESSING',
      iso8583_response_code: null,
      captured_amount: 0,
      refunded_amount: 0,
      created_at: new Date().toISOString(),
    };
    charges.set(charge.id, charge);
    if (behaviour.kind === 'slow') await sleep(slowMs);
    if (behaviour.kind === 'hang') await sleep(hangMs);
    const view = () => ({
      id: charge.id,
      status: charge.status,
      amount: charge.amount,
      currency: charge.currency,
      captured_amount: charge.captured_amount,
      reference: charge.reference,
      card: { last4: charge.card_last4, bin: pan.slice(0, 6) },
      network_transaction_id: `ntid_${charge.id.slice(5, 20)}`,
      created_at: charge.created_at,
    });
    if (reversedKeys.has(`${merchantId}:${key}`)) {
      // The caller gave up waiting and reversed this attempt before it completed.
      charge.status = 'REVERSED';
      charge.iso8583_response_code = '00';
      return { status: 200, body: { ...view(), ...iso('00'), message: 'authorization reversed before completion' } };
    }
    switch (behaviour.kind) {
      case 'server_error':
        charge.status = 'ERROR';
        charge.iso8583_response_code = '96';
        return { status: 500, body: { error: 'processing_error', message: 'acquirer host malfunction', ...iso('96') } };
      case 'decline':
        charge.status = 'DECLINED';
        charge.iso8583_response_code = behaviour.iso;
        return { status: 402, body: { ...view(), decline_code: behaviour.iso === '43' ? 'stolen_card' : behaviour.iso === '51' ? 'insufficient_funds' : 'do_not_honor', ...iso(behaviour.iso) } };
      case 'three_ds':
        charge.status = 'PENDING_AUTHENTICATION';
        charge.iso8583_response_code = '1A';
        return { status: 200, body: { ...view(), three_d_secure: { redirect_url: `https://sandbox-acs.switchyard.invalid/challenge/${charge.id}` }, ...iso('1A') } };
      default:
        charge.status = 'APPROVED';
        charge.iso8583_response_code = '00';
        if (charge.capture) charge.captured_amount = charge.amount;
        return { status: 201, body: { ...view(), authorization_code: charge.id.slice(-6).toUpperCase(), ...iso('00') } };
    }
  }

  function operation(kind: 'captures' | 'voids' | 'refunds', charge: SandboxCharge, body: Record<string, any>): Answer {
    const amount = kind === 'voids' ? charge.amount : Number(body.amount);
    const refuse = (message: string): Answer => ({ status: 422, body: { error: 'invalid_state', message, ...iso('12') } });
    if (kind !== 'voids' && (!Number.isInteger(amount) || amount <= 0)) return { status: 400, body: { error: 'invalid_request', message: 'amount must be a positive integer', ...iso('12') } };
    if (kind === 'captures') {
      if (charge.status !== 'APPROVED' || charge.captured_amount > 0) return refuse('only an uncaptured approved authorization can be captured');
      if (amount > charge.amount) return refuse('capture exceeds the authorized amount');
      charge.captured_amount = amount;
    } else if (kind === 'voids') {
      if (charge.status !== 'APPROVED' || charge.captured_amount > 0) return refuse('only an uncaptured approved authorization can be voided');
      charge.status = 'VOIDED';
    } else {
      if (charge.status !== 'APPROVED' || charge.refunded_amount + amount > charge.captured_amount) return refuse('refund exceeds the captured amount');
      charge.refunded_amount += amount;
    }
    return {
      status: 201,
      body: { id: `${kind.slice(0, 3)}_${randomUUID().replace(/-/g, '')}`, authorization_id: charge.id, status: 'APPROVED', amount, currency: charge.currency, ...iso('00') },
    };
  }

  /** Runs `work` once per idempotency key; repeats share its answer. */
  function once_(key: string, work: () => Promise<Answer> | Answer): Promise<Answer> {
    let answer = answers.get(key);
    if (!answer) {
      answer = Promise.resolve().then(work);
      answers.set(key, answer);
    }
    return answer;
  }

  async function route(req: IncomingMessage, url: URL, body: Record<string, any>): Promise<Answer> {
    const parts = url.pathname.split('/').filter(Boolean);
    if (req.method === 'GET' && url.pathname === '/_sandbox/health') return { status: 200, body: { status: 'ok' } };
    if (req.method === 'GET' && url.pathname === '/_sandbox/charges') {
      const last4 = url.searchParams.get('last4');
      const reference = url.searchParams.get('reference');
      const list = [...charges.values()].filter((c) => (!last4 || c.card_last4 === last4) && (!reference || c.reference === reference));
      return { status: 200, body: { count: list.length, charges: list } };
    }
    if (req.method === 'PUT' && parts[0] === '_sandbox' && parts[1] === 'merchants' && parts[2]) {
      if (body.mode === 'OUTAGE') outages.add(parts[2]);
      else outages.delete(parts[2]);
      return { status: 200, body: { merchant_id: parts[2], mode: outages.has(parts[2]) ? 'OUTAGE' : 'NORMAL' } };
    }
    const payoutControl = payouts.control(req.method, url);
    if (payoutControl) return payoutControl;
    if (req.method !== 'POST' || parts[0] !== 'v1') return { status: 404, body: { error: 'not_found' } };

    const merchantId = String(req.headers['x-merchant-id'] ?? '');
    const key = String(req.headers['idempotency-key'] ?? '');
    if (!merchantId || !key) return { status: 401, body: { error: 'unauthorized', message: 'X-Merchant-Id and Idempotency-Key are required' } };
    if (outages.has(merchantId)) return { status: 503, body: { error: 'service_unavailable', message: 'acquirer unavailable', ...iso('91') } };
    const scoped = `${merchantId}:${key}`;

    const payout = payouts.operation(parts, merchantId, body);
    if (payout) return once_(scoped, payout);
    if (parts[1] === 'authorizations' && parts.length === 2) return once_(scoped, () => authorize(merchantId, key, body));
    if (parts[1] === 'reversals') {
      const target = `${merchantId}:${String(body.idempotency_key ?? '')}`;
      return once_(scoped, () => {
        reversedKeys.add(target);
        const charge = [...charges.values()].find((c) => `${c.merchant_id}:${c.idempotency_key}` === target);
        if (charge && (charge.status === 'APPROVED' || charge.status === 'PENDING_AUTHENTICATION')) charge.status = 'REVERSED';
        return { status: 201, body: { status: 'REVERSED', authorization_id: charge?.id ?? null, ...iso('00') } };
      });
    }
    if (parts[1] === 'authorizations' && parts.length === 4 && ['captures', 'voids', 'refunds'].includes(parts[3])) {
      const charge = charges.get(parts[2]);
      if (!charge || charge.merchant_id !== merchantId) return { status: 404, body: { error: 'not_found', message: 'no such authorization', ...iso('12') } };
      return once_(scoped, () => operation(parts[3] as 'captures' | 'voids' | 'refunds', charge, body));
    }
    return { status: 404, body: { error: 'not_found' } };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const started = Date.now();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: Record<string, any> = {};
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
    } catch {
      return send(res, { status: 400, body: { error: 'invalid_json' } }, 0);
    }
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const answer = await route(req, url, body);
    const isAcquirerCall = url.pathname.startsWith('/v1/');
    if (isAcquirerCall && latencyMs > 0) await sleep(Math.max(0, latencyMs - (Date.now() - started)));
    send(res, answer, Date.now() - started);
  }

  function send(res: ServerResponse, answer: Answer, elapsedMs: number) {
    const text = JSON.stringify(answer.body);
    res.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'x-sandbox-elapsed-ms': String(elapsedMs) });
    res.end(text);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) send(res, { status: 500, body: { error: 'sandbox_failure', message: String(error) } }, 0);
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    server,
    charges: () => [...charges.values()],
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  return raw ? Number(raw) : fallback;
}

if (require.main === module) {
  const port = intEnv('SANDBOX_GATEWAY_PORT', 3100);
  startSandboxGateway({
    port,
    latencyMs: intEnv('SANDBOX_GATEWAY_LATENCY_MS', 0),
    slowMs: intEnv('SANDBOX_SLOW_MS', 4_000),
    hangMs: intEnv('SANDBOX_HANG_MS', 30_000),
  })
    .then((gateway) => {
      process.stdout.write(`${JSON.stringify({ level: 30, msg: 'Switchyard sandbox gateway listening', url: gateway.url })}\n`);
      const stop = () => gateway.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    })
    .catch((error) => {
      console.error('sandbox gateway failed to start:', error);
      process.exit(1);
    });
}
