/**
 * The real stack for integration tests: the API (real HTTP on a free port) and a worker run
 * in this process against the Temporal dev server and FerretDB that scripts/test.js started.
 * Started once, on first use, and stopped by the root hook.
 */
import { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { startApi, RunningApi } from '../../api/server';
import { createMerchant } from '../../activities/repositories/merchants';
import { Config, loadConfig } from '../../activities/runtime/config';
import { loadKeyring } from '../../activities/runtime/keys';
import { createLogger } from '../../activities/runtime/logger';
import { connectMongo, Mongo } from '../../activities/runtime/mongo';
import { startWorker, RunningWorker } from '../../activities/worker';
import type { Keyring } from '../../domain/crypto';
import type { IssuedCredentials } from '../../domain/credentials';
import { RunningSandboxGateway, startSandboxGateway } from '../../activities/sandbox-gateway/server';
import { assertDocumented } from './openapi-contract';
import { RunningStripeMockProxy, startStripeMockProxy } from './stripe-mock-proxy';
import { RunningAdyenTestServer, startAdyenTestServer } from './adyen-test-server';

export interface TestStack {
  url: string;
  config: Config;
  db: Db;
  mongo: Mongo;
  temporal: Client;
  keyring: Keyring;
  api: RunningApi;
  worker: RunningWorker;
  gateway: RunningSandboxGateway;
  /** STRIPE connections' API: stripe-mock (STRIPE_MOCK_URL, started by npm test) behind the test proxy; null without it. */
  stripe: RunningStripeMockProxy | null;
  /** ADYEN connections' API: the local Checkout API stand-in (test/support/adyen-test-server.ts). */
  adyen: RunningAdyenTestServer;
}

let stack: Promise<TestStack> | undefined;

export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig(), port: 0, host: '127.0.0.1', ...overrides };
}

export function getStack(): Promise<TestStack> {
  stack ??= (async () => {
    // The sandbox acquirer runs in this process on a free port; its slow cards are tuned so
    // that the API answers PENDING (slow) and the connector times out (timeout card).
    const gateway = await startSandboxGateway({ slowMs: 3_000, hangMs: 8_000 });
    const stripe = process.env.STRIPE_MOCK_URL ? await startStripeMockProxy(process.env.STRIPE_MOCK_URL) : null;
    const adyen = await startAdyenTestServer();
    const config = testConfig({ sandboxGatewayUrl: gateway.url, stripeApiUrl: stripe?.url ?? null, adyenApiUrl: adyen.url, providerTimeoutMs: 5_000, paymentSyncWaitMs: 1_500, webhookRetryBaseMs: 300, webhookMaxAttempts: 4, webhookTimeoutMs: 2_000, subscriptionPeriodSeconds: 1 });
    const logger = createLogger(process.env.LOG_LEVEL || 'silent');
    const keyring = loadKeyring(config.dataDir);
    const mongo = await connectMongo(config.mongodbUri, config.mongodbDb, { monitorCommands: true });
    const worker = await startWorker({ config, keyring, logger, mongo });
    const api = await startApi({ config, keyring, logger, db: mongo.db });
    return { url: api.url, config: api.deps.config, db: mongo.db, mongo, temporal: api.deps.temporal, keyring, api, worker, gateway, stripe, adyen };
  })();
  return stack;
}

export async function stopStack(): Promise<void> {
  if (!stack) return;
  const s = await stack;
  stack = undefined;
  await s.api.close();
  await s.worker.shutdown();
  await s.mongo.client.close();
  await s.gateway.close();
  await s.stripe?.close();
  await s.adyen.close();
}

export async function newMerchant(name = 'Test merchant'): Promise<IssuedCredentials> {
  const s = await getStack();
  return createMerchant(s.db, name);
}

export interface CallOptions {
  method?: string;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  credentials?: Pick<IssuedCredentials, 'public_api_key' | 'private_secret_key'> | null;
}

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * One HTTP call against the running API, credentials sent as the spec's lower-case headers.
 * The answer must be one the OpenAPI document describes, or the calling test fails.
 */
export async function call<T = any>(path: string, options: CallOptions = {}, baseUrl?: string): Promise<CallResult<T>> {
  const url = baseUrl ?? (await getStack()).url;
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.credentials) {
    headers['public-api-key'] = options.credentials.public_api_key;
    headers['private-secret-key'] = options.credentials.private_secret_key;
  }
  let body: string | Buffer | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const method = options.method ?? (body !== undefined ? 'POST' : 'GET');
  const response = await fetch(`${url}${path}`, { method, headers, body });
  const text = await response.text();
  await assertDocumented(url, { method, path, status: response.status, headers: response.headers, text });
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/**
 * An error body without its doc_url, after checking that doc_url links to the docs page
 * section of the body's code (or its area): for comparing the rest of the body exactly.
 */
export function errorBody<T extends Record<string, unknown>>(body: T): Omit<T, 'doc_url'> {
  const { doc_url: docUrl, ...rest } = body;
  if (typeof docUrl !== 'string' || !/\/docs#errors-[a-z0-9-]+$/.test(docUrl)) throw new Error(`error body without a docs link: ${JSON.stringify(body)}`);
  return rest;
}
