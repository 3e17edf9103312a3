/**
 * Runtime configuration, read once from the environment. Every variable is listed in the
 * README; defaults are the embedded stack's (`npm start`).
 */
import path from 'node:path';

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
  rateLimit: RateLimitConfig;
  /** Bearer token operators present to /codec/* (Temporal UI / CLI); empty = loopback UI only. */
  codecAuthToken: string;
  /** Origins allowed to call /codec/* from a browser (the Temporal Web UI). */
  codecCorsOrigins: string[];
  sandboxGatewayUrl: string;
  sandboxGatewayPort: number;
  /** Campaign trigger: pause between polls of domain_events when idle, in ms. */
  campaignEventPollMs: number;
  /** Campaign trigger: how far back the first poll looks for declined payments, in ms. */
  campaignEventLookbackMs: number;
  /** Campaign trigger: events stored this late (ms) after newer ones are still picked up. */
  campaignEventSkewMs: number;
}

function intFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = intFrom('PORT', 3000);
  const host = env.HOST || '127.0.0.1';
  const uiPort = intFrom('TEMPORAL_UI_PORT', 8233);
  const sandboxGatewayPort = intFrom('SANDBOX_GATEWAY_PORT', 3100);
  const publicBaseUrl = (env.PUBLIC_BASE_URL || `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`).replace(/\/$/, '');
  const temporalUiUrl = env.TEMPORAL_UI_URL || `http://127.0.0.1:${uiPort}`;
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
    campaignEventPollMs: Math.max(100, intFrom('CAMPAIGN_EVENT_POLL_MS', 1000)),
    campaignEventLookbackMs: intFrom('CAMPAIGN_EVENT_LOOKBACK_MS', 3_600_000),
    campaignEventSkewMs: intFrom('CAMPAIGN_EVENT_SKEW_MS', 300_000),
  };
}
