/**
 * Runtime configuration, read once from the environment. Every variable is listed in the
 * README; defaults are the embedded stack's (`npm start`).
 */
import path from 'node:path';
import { isCatalogueProvider, PROVIDER_CODES } from '../../domain/providers/catalogue';

export interface RateLimitConfig {
  /** Requests allowed per credential in one window. */
  points: number;
  windowSeconds: number;
}

export interface Config {
  port: number;
  host: string;
  publicBaseUrl: string;
  dataDir: string;
  mongodbUri: string;
  mongodbDb: string;
  temporalAddress: string;
  temporalNamespace: string;
  taskQueue: string;
  temporalUiUrl: string;
  logLevel: string;
  /** Behind a load balancer: trust X-Forwarded-* for ctx.ip and ctx.protocol (never for /codec/*). */
  trustProxy: boolean;
  /**
   * How long an idle keep-alive socket stays open; above the 60 s idle timeout of common load
   * balancers, so that the balancer, not Node, closes reused sockets. headersTimeout is this + 1 s.
   */
  keepAliveTimeoutMs: number;
  /** Longest time to receive one whole request (0 = no limit); must exceed headersTimeout. */
  requestTimeoutMs: number;
  rateLimit: RateLimitConfig;
  /** Bearer token operators present to /codec/* (Temporal UI / CLI); empty = loopback UI only. */
  codecAuthToken: string;
  /** Origins allowed to call /codec/* from a browser (the Temporal Web UI). */
  codecCorsOrigins: string[];
  sandboxGatewayUrl: string;
  sandboxGatewayPort: number;
  /** Base URL of Stripe's API for STRIPE connections (stripe-mock in tests); null = Stripe's own. */
  stripeApiUrl: string | null;
  /**
   * Base URL replacing Adyen's Checkout API address for ADYEN connections (an HTTPS endpoint:
   * the Adyen library speaks HTTPS only); null = the address the connection's environment
   * gives (checkout-test.adyen.com, or the live prefix's checkout-live.adyenpayments.com).
   */
  adyenApiUrl: string | null;
  /** How long one provider call may take before it is reversed and the next connection tried. */
  providerTimeoutMs: number;
  /** How long POST /v1/payments waits for the first outcome before answering PENDING. */
  paymentSyncWaitMs: number;
  /** Outgoing webhooks: first retry delay (doubles each attempt), attempts, per-call timeout. */
  webhookRetryBaseMs: number;
  webhookMaxAttempts: number;
  webhookTimeoutMs: number;
  /** Unreferenced refunds with fraud_screening.stand_alone: largest amount and credits per destination per 24 h. */
  fraudMaxCreditAmount: number;
  fraudMaxCreditsPerDestinationPerDay: number;
  /** > 0: every subscription billing period (and retry interval unit) lasts this many seconds (sandbox/test clocks). */
  subscriptionPeriodSeconds: number;
  /** How long create calls of refunds, onboardings, transfers and subscriptions wait for their workflow's answer. */
  lifecycleSyncWaitMs: number;
  /** Lifetime of whitelabel embed tokens (POST /v1/organizations/authenticate). */
  whitelabelTokenTtlSeconds: number;
  /** Lifetime of signed report download links. */
  reportLinkTtlSeconds: number;
  /** A report with more rows than this fails (TOO_MANY_ROWS) instead of growing without bound. */
  reportMaxRows: number;
  /** Multiplies the simulated bank rails' settlement delays (1 = realistic; tests use a tiny factor). */
  bankingSettlementTimeScale: number;
  /** Campaign trigger: pause between polls of domain_events when idle, in ms. */
  campaignEventPollMs: number;
  /** Campaign trigger: how far back the first poll looks for declined payments, in ms. */
  campaignEventLookbackMs: number;
  /** Campaign trigger: events stored this late (ms) after newer ones are still picked up. */
  campaignEventSkewMs: number;
  dryRun: DryRunConfig;
}

export interface DryRunConfig {
  /** The provider_id values a registration may name: the whole catalogue unless DRY_RUN_PROVIDERS narrows it. */
  providers: string[];
  /** A leg waiting for its partner this long becomes UNMATCHED. */
  pairingTimeoutSeconds: number;
  /** After validation the pairing workflow keeps accepting late events this long. */
  settleSeconds: number;
  /** Registrations whose encoded events exceed this many characters are decoded off the event loop. */
  inlineIngestMaxChars: number;
  ingestThreads: number;
  /** Optional JSON file with extra mapping profiles (an array of profiles). */
  profilesFile: string;
  /** A pairing signal stored by an API process that has not delivered it this long is delivered by any API process. */
  signalLeaseMs: number;
  /** Signal-with-start calls one API process runs at once (the rest queue, stored). */
  signalConcurrency: number;
}

function intFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function ratioFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return value;
}

/**
 * DRY_RUN_PROVIDERS narrows dry-run to some catalogue codes; unset, every catalogue code is
 * accepted. A code outside the catalogue stops the start: a typo would otherwise refuse
 * every registration naming that provider.
 */
function dryRunProviders(raw: string | undefined): string[] {
  const codes = (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (codes.length === 0) return [...PROVIDER_CODES];
  const unknown = codes.filter((c) => !isCatalogueProvider(c));
  if (unknown.length) throw new Error(`DRY_RUN_PROVIDERS names codes outside the provider catalogue: ${unknown.join(', ')}`);
  return codes;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = intFrom('PORT', 3000);
  const host = env.HOST || '127.0.0.1';
  const uiPort = intFrom('TEMPORAL_UI_PORT', 8233);
  const sandboxGatewayPort = intFrom('SANDBOX_GATEWAY_PORT', 3100);
  const publicBaseUrl = (env.PUBLIC_BASE_URL || `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`).replace(/\/$/, '');
  const temporalUiUrl = env.TEMPORAL_UI_URL || `http://127.0.0.1:${uiPort}`;
  const keepAliveTimeoutMs = Math.max(1000, intFrom('KEEP_ALIVE_TIMEOUT_MS', 65_000));
  const requestTimeoutMs = intFrom('REQUEST_TIMEOUT_MS', 300_000);
  if (requestTimeoutMs !== 0 && requestTimeoutMs <= keepAliveTimeoutMs + 1000) {
    throw new Error(`REQUEST_TIMEOUT_MS (${requestTimeoutMs}) must be 0 or greater than KEEP_ALIVE_TIMEOUT_MS + 1000 (${keepAliveTimeoutMs + 1000})`);
  }
  return {
    port,
    host,
    publicBaseUrl,
    dataDir: path.resolve(env.DATA_DIR || '.data'),
    mongodbUri: env.MONGODB_URI || `mongodb://127.0.0.1:${intFrom('FERRETDB_PORT', 27017)}/`,
    mongodbDb: env.MONGODB_DB || 'switchyard',
    temporalAddress: env.TEMPORAL_ADDRESS || `127.0.0.1:${intFrom('TEMPORAL_PORT', 7233)}`,
    temporalNamespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: env.TEMPORAL_TASK_QUEUE || 'switchyard',
    temporalUiUrl,
    logLevel: env.LOG_LEVEL || 'info',
    trustProxy: env.TRUST_PROXY === 'true',
    keepAliveTimeoutMs,
    requestTimeoutMs,
    rateLimit: {
      points: intFrom('RATE_LIMIT_REQUESTS', 1000),
      windowSeconds: Math.max(1, intFrom('RATE_LIMIT_WINDOW_SECONDS', 60)),
    },
    codecAuthToken: env.CODEC_AUTH_TOKEN || '',
    codecCorsOrigins: (env.CODEC_CORS_ORIGINS || temporalUiUrl.replace('127.0.0.1', 'localhost') + ',' + temporalUiUrl)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    sandboxGatewayUrl: (env.SANDBOX_GATEWAY_URL || `http://127.0.0.1:${sandboxGatewayPort}`).replace(/\/$/, ''),
    sandboxGatewayPort,
    stripeApiUrl: env.STRIPE_API_URL ? env.STRIPE_API_URL.replace(/\/$/, '') : null,
    adyenApiUrl: env.ADYEN_API_URL ? env.ADYEN_API_URL.replace(/\/$/, '') : null,
    providerTimeoutMs: intFrom('PROVIDER_TIMEOUT_MS', 10_000),
    paymentSyncWaitMs: intFrom('PAYMENT_SYNC_WAIT_MS', 3_000),
    webhookRetryBaseMs: intFrom('WEBHOOK_RETRY_BASE_MS', 30_000),
    webhookMaxAttempts: Math.max(1, intFrom('WEBHOOK_MAX_ATTEMPTS', 8)),
    webhookTimeoutMs: intFrom('WEBHOOK_TIMEOUT_MS', 5_000),
    fraudMaxCreditAmount: intFrom('FRAUD_MAX_CREDIT_AMOUNT', 10_000),
    fraudMaxCreditsPerDestinationPerDay: intFrom('FRAUD_MAX_CREDITS_PER_DESTINATION_PER_DAY', 5),
    subscriptionPeriodSeconds: intFrom('SUBSCRIPTION_PERIOD_SECONDS', 0),
    lifecycleSyncWaitMs: intFrom('LIFECYCLE_SYNC_WAIT_MS', 10_000),
    whitelabelTokenTtlSeconds: Math.max(1, intFrom('WHITELABEL_TOKEN_TTL_SECONDS', 86_400)),
    reportLinkTtlSeconds: Math.max(1, intFrom('REPORT_LINK_TTL_SECONDS', 900)),
    reportMaxRows: Math.max(1, intFrom('REPORT_MAX_ROWS', 1_000_000)),
    bankingSettlementTimeScale: ratioFrom('BANKING_SETTLEMENT_TIME_SCALE', 1),
    dryRun: {
      providers: dryRunProviders(env.DRY_RUN_PROVIDERS),
      pairingTimeoutSeconds: Math.max(1, intFrom('DRY_RUN_PAIRING_TIMEOUT_SECONDS', 86_400)),
      settleSeconds: Math.max(1, intFrom('DRY_RUN_SETTLE_SECONDS', 86_400)),
      inlineIngestMaxChars: intFrom('DRY_RUN_INLINE_INGEST_CHARS', 256 * 1024),
      ingestThreads: Math.max(1, intFrom('DRY_RUN_INGEST_THREADS', 2)),
      profilesFile: env.DRY_RUN_PROFILES_FILE || '',
      signalLeaseMs: Math.max(1000, intFrom('DRY_RUN_SIGNAL_LEASE_MS', 30_000)),
      signalConcurrency: Math.max(1, intFrom('DRY_RUN_SIGNAL_CONCURRENCY', 4)),
    },
    campaignEventPollMs: Math.max(100, intFrom('CAMPAIGN_EVENT_POLL_MS', 1000)),
    campaignEventLookbackMs: intFrom('CAMPAIGN_EVENT_LOOKBACK_MS', 3_600_000),
    campaignEventSkewMs: intFrom('CAMPAIGN_EVENT_SKEW_MS', 300_000),
  };
}
