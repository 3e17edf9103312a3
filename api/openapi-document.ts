/**
 * The OpenAPI document without a running server: the same route table the API mounts,
 * registered over inert dependencies (nothing is connected or called; handlers never run),
 * then the same builder GET /v1/openapi.json uses. For generating the typed client.
 */
import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { loadConfig } from '../activities/runtime/config';
import { createLogger } from '../activities/runtime/logger';
import { generateKeyring } from '../domain/crypto';
import { createApp } from './app';
import { createMetrics } from './metrics';
import { buildOpenApi } from './openapi';

/** Stands in for MongoDB: collections may be named at registration, never used. */
const inertDb = new Proxy({}, {
  get: (_target, name) => (name === 'collection' ? () => new Proxy({}, { get: () => () => { throw new Error('no database behind the offline OpenAPI document'); } }) : undefined),
}) as Db;

export function buildOpenApiOffline(serverUrl = 'http://127.0.0.1:3000'): Record<string, unknown> {
  // Defaults only: the document must not depend on this machine's environment (e.g. DRY_RUN_PROVIDERS).
  const config = loadConfig({});
  const app = createApp({ config, db: inertDb, temporal: {} as Client, keyring: generateKeyring('offline'), logger: createLogger('silent'), metrics: createMetrics() });
  return buildOpenApi(app.routes.specs, serverUrl);
}
