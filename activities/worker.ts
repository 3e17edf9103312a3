/**
 * Worker process entry point: `node dist/activities/worker.js`. Runs every workflow and
 * activity on the task queue; several workers may run against one cluster.
 */
// Tracing patches http and mongodb as they load, so it starts before every other import;
// only in the worker process itself, never when tests import startWorker.
import { activeTracing, startTracing, tracingWorkerOptions } from './runtime/tracing';
const tracing = require.main === module ? startTracing('worker') : undefined;

import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { Client, WorkflowIdConflictPolicy } from '@temporalio/client';
import { createActivities } from './index';
import { loadConfig, Config } from './runtime/config';
import { loadKeyring } from './runtime/keys';
import { createLogger, Logger } from './runtime/logger';
import { backfillDerivedDocuments } from './repositories/startup';
import { connectMongo, ensureIndexes, Mongo } from './runtime/mongo';
import { dataConverterFor, temporalConnectOptions } from './runtime/temporal';
import type { Keyring } from '../domain/crypto';

export interface RunningWorker {
  worker: Worker;
  done: Promise<void>;
  shutdown(): Promise<void>;
}

export interface WorkerOverrides {
  config?: Config;
  keyring?: Keyring;
  logger?: Logger;
  mongo?: Mongo;
}

/**
 * Pure domain modules the workflows import (with io-ts, fp-ts and the country and currency
 * tables behind them), loaded once per worker. Otherwise the reusable V8 context gives each
 * workflow run fresh instances of every module, and building those codecs and tables was most of
 * the CPU a new run costs (a payment starts two runs: itself and its webhook's). Shared modules
 * are frozen and seen by every run: list only modules without state of their own.
 */
const SHARED_WORKFLOW_MODULES = [
  'payments/record', 'payments/states', 'payments/provider-codes', 'search-attributes', 'webhook-retry', 'money',
  'money-movement/common', 'recipients/codecs', 'campaigns/codecs', 'campaigns/lifecycle', 'campaigns/validation',
  'subscriptions/subscription', 'transfers/split', 'refunds/unreferenced',
].map((module) => require.resolve(`../domain/${module}`));

let runtimeInstalled = false;

export async function startWorker(overrides: WorkerOverrides = {}): Promise<RunningWorker> {
  const config = overrides.config ?? loadConfig();
  const logger = overrides.logger ?? createLogger(config.logLevel, 'switchyard-worker');
  const keyring = overrides.keyring ?? loadKeyring(config.dataDir);
  const mongo = overrides.mongo ?? (await connectMongo(config.mongodbUri, config.mongodbDb));
  await ensureIndexes(mongo.db);
  await backfillDerivedDocuments(mongo.db, logger);
  if (!runtimeInstalled) {
    runtimeInstalled = true;
    Runtime.install({ logger: new TemporalLogger(logger), telemetryOptions: { logging: { filter: 'WARN', forward: {} } } } as never);
  }
  const { namespace, connectionOptions } = temporalConnectOptions(config);
  const connection = await NativeConnection.connect(connectionOptions);
  const dataConverter = dataConverterFor(keyring);
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue: config.taskQueue,
    workflowsPath: require.resolve('../workflows'),
    bundlerOptions: { preloadModules: SHARED_WORKFLOW_MODULES },
    activities: createActivities({ config, db: mongo.db, keyring, logger }),
    dataConverter,
    // Workflow, activity and sink options when this process traces; nothing otherwise.
    ...tracingWorkerOptions(),
  });
  const done = worker.run();
  await ensureHousekeeping(connection, namespace, config, dataConverter);
  logger.info({ taskQueue: config.taskQueue, namespace, tracing: activeTracing()?.serviceName ?? 'off' }, 'Switchyard worker running');
  return {
    worker,
    done,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done.catch(() => undefined);
      await connection.close();
      if (!overrides.mongo) await mongo.client.close();
    },
  };
}

async function ensureHousekeeping(connection: NativeConnection, namespace: string, config: Config, dataConverter: ReturnType<typeof dataConverterFor>) {
  const client = new Client({ connection: connection as never, namespace, dataConverter });
  const { HOUSEKEEPING_WORKFLOW_ID } = await import('../workflows/housekeeping');
  await client.workflow.start('housekeepingWorkflow', {
    taskQueue: config.taskQueue,
    workflowId: HOUSEKEEPING_WORKFLOW_ID,
    args: [10],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
  });
  const { CAMPAIGN_TRIGGER_WORKFLOW_ID } = await import('../workflows/campaign-trigger');
  await client.workflow.start('campaignTriggerWorkflow', {
    taskQueue: config.taskQueue,
    workflowId: CAMPAIGN_TRIGGER_WORKFLOW_ID,
    args: [{ pollMs: config.campaignEventPollMs, since: null }],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
  });
}

/** Routes the Temporal SDK's logs into our JSON logger. */
class TemporalLogger {
  constructor(private readonly logger: Logger) {}
  log(level: string, message: string, meta?: Record<string, unknown>) {
    const levels: Record<string, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' };
    const method = levels[level] ?? 'info';
    this.logger[method]({ ...meta, component: 'temporal-sdk' }, message);
  }
  trace(message: string, meta?: Record<string, unknown>) { this.log('TRACE', message, meta); }
  debug(message: string, meta?: Record<string, unknown>) { this.log('DEBUG', message, meta); }
  info(message: string, meta?: Record<string, unknown>) { this.log('INFO', message, meta); }
  warn(message: string, meta?: Record<string, unknown>) { this.log('WARN', message, meta); }
  error(message: string, meta?: Record<string, unknown>) { this.log('ERROR', message, meta); }
}

if (require.main === module) {
  startWorker()
    .then((running) => {
      // Spans still buffered are flushed before the process ends.
      const stop = () =>
        running.shutdown()
          .then(() => tracing?.shutdown())
          .then(() => process.exit(0), () => process.exit(1));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      running.done.catch((error) => {
        console.error('worker stopped with an error:', error);
        process.exit(1);
      });
    })
    .catch((error) => {
      console.error('Switchyard worker failed to start:', error);
      process.exit(1);
    });
}
