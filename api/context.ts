/**
 * What every router and middleware receives: the process-wide dependencies and the
 * per-request state.
 */
import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { ParameterizedContext } from 'koa';
import type { Config } from '../activities/runtime/config';
import type { Logger } from '../activities/runtime/logger';
import type { Principal } from '../activities/repositories/merchants';
import type { Keyring } from '../domain/crypto';
import type { ErrorArea } from './errors';
import type { Metrics } from './metrics';

export interface AppDeps {
  config: Config;
  db: Db;
  temporal: Client;
  keyring: Keyring;
  logger: Logger;
  metrics: Metrics;
}

export interface AppState {
  requestId: string;
  log: Logger;
  errorArea?: ErrorArea;
  principal?: Principal;
  /** Route template (e.g. /v1/payments/:payment_id), for metrics and logs. */
  routePath?: string;
  /** The API's public base URL (PUBLIC_BASE_URL), for links in answers such as an error's doc_url. */
  docsBaseUrl?: string;
}

export type AppContext = ParameterizedContext<AppState> & { request: { body?: unknown; rawBody?: string } };
