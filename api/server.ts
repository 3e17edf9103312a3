/**
 * API process entry point: `node dist/api/server.js`.
 */
// Tracing patches http, koa and mongodb as they load, so it starts before every other import;
// only in the API process itself, never when tests import startApi.
import { startTracing } from '../activities/runtime/tracing';
const tracing = require.main === module ? startTracing('api') : undefined;

import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import { loadConfig } from '../activities/runtime/config';
import { backfillDerivedDocuments } from '../activities/repositories/startup';
import { loadKeyring } from '../activities/runtime/keys';
import { createLogger } from '../activities/runtime/logger';
import { connectMongo, ensureIndexes } from '../activities/runtime/mongo';
import { connectTemporalClient, workflowStartInterceptors } from '../activities/runtime/temporal';
import { createApp } from './app';
import type { AppDeps } from './context';
import { createMetrics } from './metrics';

export interface RunningApi {
  server: Server;
  deps: AppDeps;
  url: string;
  /** This process's name in the idempotency locks it holds. */
  processId: string;
  close(): Promise<void>;
}

export async function startApi(overrides: Partial<AppDeps> = {}): Promise<RunningApi> {
  const config = overrides.config ?? loadConfig();
  const logger = overrides.logger ?? createLogger(config.logLevel, 'switchyard-api');
  const keyring = overrides.keyring ?? loadKeyring(config.dataDir);
  const mongo = overrides.db ? undefined : await connectMongo(config.mongodbUri, config.mongodbDb);
  const db = overrides.db ?? mongo!.db;
  await ensureIndexes(db);
  await backfillDerivedDocuments(db, logger);
  const metrics = overrides.metrics ?? createMetrics();
  const temporal =
    overrides.temporal ??
    (await connectTemporalClient(config, keyring, workflowStartInterceptors((type) => metrics.workflowStarts.inc({ workflow_type: type }))));
  const deps: AppDeps = { config, logger, keyring, db, temporal, metrics };
  const { koa, idempotency, pairingSignals } = createApp(deps);
  await idempotency.start();
  pairingSignals.start();
  const server = createServer(koa.callback());
  // Node closes idle keep-alive sockets after 5 s by default; a load balancer that reuses one
  // at that moment gets a reset (a 502 for its client). Outlive the balancer's idle timeout,
  // and give headers (then the whole request) longer still, as Node requires.
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  server.headersTimeout = config.keepAliveTimeoutMs + 1000;
  server.requestTimeout = config.requestTimeoutMs;
  server.listen(config.port, config.host);
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
  return {
    server,
    deps,
    url,
    processId: idempotency.holder,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await idempotency.stop();
      await pairingSignals.stop();
      if (!overrides.temporal) await temporal.connection.close();
      if (mongo) await mongo.client.close();
    },
  };
}

if (require.main === module) {
  startApi()
    .then((api) => {
      api.deps.logger.info({ url: api.url, tracing: tracing ? tracing.serviceName : 'off' }, 'Switchyard API listening');
      const stop = () => {
        api.deps.logger.info('shutting down API');
        // Spans still buffered are flushed before the process ends.
        api.close()
          .then(() => tracing?.shutdown())
          .then(() => process.exit(0), () => process.exit(1));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    })
    .catch((error) => {
      console.error('Switchyard API failed to start:', error);
      process.exit(1);
    });
}
