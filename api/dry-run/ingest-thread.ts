/**
 * Worker thread that decodes and redacts large dry-run registrations, so megabytes of
 * base64, decompression and scanning never block the API's event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { parseKeyring } from '../../domain/crypto';
import { ingestEvents } from '../../domain/dry-run/decode';
import { organizationRedactor } from '../../domain/dry-run/redact';
import type { IngestJob } from './ingest-pool';

const keyring = parseKeyring((workerData as { keyring: string }).keyring);

parentPort!.on('message', (job: IngestJob) => {
  try {
    parentPort!.postMessage({ id: job.id, result: ingestEvents(job.events, organizationRedactor(keyring, job.organizationCode), job.prefix) });
  } catch (error) {
    parentPort!.postMessage({ id: job.id, error: error instanceof Error ? error.message : String(error) });
  }
});
