/**
 * A local stand-in for Adyen's Checkout API (v72) for tests: there is no Adyen mock server,
 * so this HTTPS server answers with the response shapes Adyen documents, and checks every
 * request it receives with the library's own models: the body must deserialize with the
 * library's ObjectSerializer, serialize back to the same JSON (no field the model does not
 * know), and carry the model's required fields, an X-API-Key and an Idempotency-Key.
 *
 * Behaviour follows Adyen's documented test-environment rules:
 * - the card holder name set to a refusal reason's text (e.g. "NOT ENOUGH BALANCE",
 *   "CVC DECLINED") gives a Refused result with that refusal reason;
 * - the 3-D Secure test card 4212 3456 7891 0006 gives RedirectShopper with a redirect action;
 * - the same Idempotency-Key is answered with the first answer.
 *
 * HTTPS because the library's HTTP client speaks nothing else: a throw-away self-signed
 * certificate for 127.0.0.1 is made with openssl, and the Adyen connector's HTTP client
 * (the library's HttpURLConnectionClient) is told to trust it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { HttpURLConnectionClient, Types } from '@adyen/api-library';
import { useAdyenHttpClient } from '../../activities/providers/adyen';

const { ObjectSerializer } = Types.checkout;

/** Required fields of the request models (non-optional in the library's typings). */
export const REQUIRED_FIELDS: Record<string, string[]> = {
  PaymentRequest: ['amount', 'merchantAccount', 'paymentMethod', 'reference', 'returnUrl'],
  PaymentCaptureRequest: ['amount', 'merchantAccount'],
  PaymentCancelRequest: ['merchantAccount'],
  PaymentRefundRequest: ['amount', 'merchantAccount'],
  PaymentReversalRequest: ['merchantAccount'],
};

export const ADYEN_TEST_CARDS = {
  visa: '4111111111111111',
  mastercard: '5555444433331111',
  threeDs: '4212345678910006',
};

/** Refusal reasons by the holder name that triggers them (Adyen's test environment). */
const REFUSAL_HOLDER_NAMES: Record<string, [code: string, reason: string]> = {
  REFUSED: ['2', 'Refused'],
  'NOT ENOUGH BALANCE': ['12', 'Not enough balance'],
  'CVC DECLINED': ['24', 'CVC Declined'],
  'BLOCKED CARD': ['5', 'Blocked Card'],
  FRAUD: ['20', 'FRAUD'],
  'ISSUER UNAVAILABLE': ['9', 'Issuer Unavailable'],
};

export interface AdyenExchange {
  method: string;
  path: string;
  model: string;
  idempotencyKey: string | null;
  apiKey: string | null;
  body: any;
  status: number;
  response: any;
  replayed: boolean;
  /** Problems found when checking the request with the library's models (empty: valid). */
  problems: string[];
}

export interface RunningAdyenTestServer {
  url: string;
  exchanges: AdyenExchange[];
  /** 'hang_once': the next /payments request is processed but its answer never sent. */
  failure: 'hang_once' | 'server_error' | null;
  close(): Promise<void>;
}

/** Certificates of the stand-ins running in this process (the stack's and a unit test's may overlap). */
const trusted = new Set<Buffer>();

let counter = 0;
/** A 16-character PSP reference like Adyen's. */
function pspReference(): string {
  counter += 1;
  return `SW${String(Date.now()).slice(-8)}${String(counter).padStart(6, '0')}`;
}

function modelOf(path: string): string | null {
  if (/^\/v72\/payments$/.test(path)) return 'PaymentRequest';
  const m = /^\/v72\/payments\/[^/]+\/(captures|cancels|refunds|reversals)$/.exec(path);
  if (!m) return null;
  return { captures: 'PaymentCaptureRequest', cancels: 'PaymentCancelRequest', refunds: 'PaymentRefundRequest', reversals: 'PaymentReversalRequest' }[m[1]]!;
}

/** What the library's models say about a request body. */
export function checkWithModels(model: string, body: any): string[] {
  const problems: string[] = [];
  const typed = ObjectSerializer.deserialize(body, model);
  const again = JSON.parse(JSON.stringify(ObjectSerializer.serialize(typed, model)));
  if (JSON.stringify(sortKeys(again)) !== JSON.stringify(sortKeys(body))) problems.push(`${model} does not survive the library's serializer round trip`);
  for (const field of REQUIRED_FIELDS[model] ?? []) if (body?.[field] === undefined || body?.[field] === null) problems.push(`${model}.${field} is required`);
  if (model === 'PaymentRequest' && body?.amount && !Number.isInteger(body.amount.value)) problems.push('amount.value must be an integer in minor units');
  return problems;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value as object).sort().map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]));
}

function paymentAnswer(body: any): any {
  const psp = pspReference();
  const holder = String(body.paymentMethod?.holderName ?? '').toUpperCase();
  const refusal = REFUSAL_HOLDER_NAMES[holder];
  if (refusal) {
    return { additionalData: { refusalReasonRaw: `${refusal[1]}`, cardSummary: String(body.paymentMethod.number).slice(-4) }, pspReference: psp, refusalReason: refusal[1], refusalReasonCode: refusal[0], resultCode: 'Refused', amount: body.amount, merchantReference: body.reference };
  }
  if (body.paymentMethod?.number === ADYEN_TEST_CARDS.threeDs) {
    return {
      resultCode: 'RedirectShopper',
      action: { paymentMethodType: 'scheme', url: `https://checkoutshopper-test.adyen.com/checkoutshopper/threeDS/redirect?MD=${psp}`, method: 'GET', type: 'redirect', paymentData: 'Ab02b4c0!BQABAgCW5sxB4e...' },
      pspReference: psp,
      merchantReference: body.reference,
    };
  }
  return {
    additionalData: { cardSummary: String(body.paymentMethod.number).slice(-4), authCode: '064618', cardHolderName: body.paymentMethod.holderName ?? '', expiryDate: `${Number(body.paymentMethod.expiryMonth)}/${body.paymentMethod.expiryYear}`, paymentMethod: 'visa' },
    pspReference: psp,
    resultCode: 'Authorised',
    amount: body.amount,
    merchantReference: body.reference,
  };
}

function modificationAnswer(path: string, body: any): any {
  const [, , , paymentPspReference, kind] = path.split('/');
  return {
    merchantAccount: body.merchantAccount,
    paymentPspReference,
    pspReference: pspReference(),
    ...(body.reference ? { reference: body.reference } : {}),
    status: 'received',
    ...(kind === 'captures' || kind === 'refunds' ? { amount: body.amount } : {}),
  };
}

export async function startAdyenTestServer(): Promise<RunningAdyenTestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-adyen-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const key = readFileSync(keyFile);
  const cert = readFileSync(certFile);
  rmSync(dir, { recursive: true, force: true });

  const byKey = new Map<string, { status: number; response: any }>();
  const state: RunningAdyenTestServer = { url: '', exchanges: [], failure: null, close: async () => undefined };
  const server: Server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      const text = Buffer.concat(chunks).toString('utf8');
      let body: any = null;
      try {
        body = text ? JSON.parse(text) : {};
      } catch {
        body = null;
      }
      const idempotencyKey = (req.headers['idempotency-key'] as string | undefined) ?? null;
      const apiKey = (req.headers['x-api-key'] as string | undefined) ?? null;
      const model = modelOf(path);
      const exchange: AdyenExchange = { method: req.method ?? '', path, model: model ?? '', idempotencyKey, apiKey, body, status: 0, response: null, replayed: false, problems: [] };
      state.exchanges.push(exchange);
      const answer = (status: number, response: any) => {
        exchange.status = status;
        exchange.response = response;
        res.writeHead(status, { 'content-type': 'application/json', 'pspreference': response?.pspReference ?? '' });
        res.end(JSON.stringify(response));
      };
      if (!apiKey) return answer(401, { status: 401, errorCode: '000', message: 'HTTP Status Response - Unauthorized', errorType: 'security' });
      if (req.method !== 'POST' || !model) return answer(404, { status: 404, errorCode: '000', message: 'Not found', errorType: 'validation' });
      if (body === null) return answer(400, { status: 400, errorCode: '702', message: 'Structure of the request is not valid', errorType: 'validation' });
      exchange.problems = checkWithModels(model, body);
      if (exchange.problems.length) return answer(422, { status: 422, errorCode: '702', message: exchange.problems.join('; '), errorType: 'validation' });
      if (idempotencyKey && byKey.has(idempotencyKey)) {
        exchange.replayed = true;
        const first = byKey.get(idempotencyKey)!;
        return answer(first.status, first.response);
      }
      if (state.failure === 'server_error') return answer(500, { status: 500, errorCode: '905', message: 'Payment details are not supported', errorType: 'configuration' });
      const [status, response] = model === 'PaymentRequest' ? [200, paymentAnswer(body)] : [201, modificationAnswer(path, body)];
      if (idempotencyKey) byKey.set(idempotencyKey, { status, response });
      if (state.failure === 'hang_once' && model === 'PaymentRequest') {
        state.failure = null;
        exchange.status = -1;
        return; // processed, answer lost
      }
      answer(status, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.url = `https://127.0.0.1:${port}`;
  // The library's own HTTP client, trusting the certificates of the running stand-ins
  // (agentOptions is where the library keeps the TLS options of the agents it makes).
  trusted.add(cert);
  useAdyenHttpClient(() => Object.assign(new HttpURLConnectionClient(), { agentOptions: { ca: [...trusted] } }));
  state.close = async () => {
    trusted.delete(cert);
    if (trusted.size === 0) useAdyenHttpClient(null);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}
