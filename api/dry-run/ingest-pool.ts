/**
 * Decoding + redaction of registered events: inline for small registrations (a thread hop
 * costs more than the work), on a small worker-thread pool past DRY_RUN_INLINE_INGEST_CHARS.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { formatKeyring, Keyring } from '../../domain/crypto';
import type { DryRunEvent } from '../../domain/dry-run/codecs';
import { ingestEvents, IngestResult } from '../../domain/dry-run/decode';
import { organizationRedactor } from '../../domain/dry-run/redact';

export interface IngestJob {
  id: number;
  events: DryRunEvent[];
  organizationCode: string;
  prefix: string;
}

interface Slot {
  worker: Worker;
  busy: number;
}

export class IngestPool {
  private readonly slots: Slot[] = [];
  private readonly waiting = new Map<number, { resolve: (r: IngestResult) => void; reject: (e: Error) => void; slot: Slot }>();
  private nextId = 1;

  constructor(private readonly keyring: Keyring, private readonly threads: number, private readonly inlineMaxChars: number) {}

  async ingest(events: DryRunEvent[], organizationCode: string, prefix = 'events'): Promise<IngestResult> {
    const size = events.reduce((n, e) => n + e.headers.length + (e.body?.length ?? 0), 0);
    if (size <= this.inlineMaxChars) return ingestEvents(events, organizationRedactor(this.keyring, organizationCode), prefix);
    const slot = this.pick();
    const id = this.nextId++;
    slot.busy++;
    return new Promise<IngestResult>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, slot });
      slot.worker.postMessage({ id, events, organizationCode, prefix } satisfies IngestJob);
    });
  }

  private pick(): Slot {
    if (this.slots.length < this.threads && this.slots.every((s) => s.busy > 0)) this.slots.push(this.spawn());
    return this.slots.reduce((a, b) => (b.busy < a.busy ? b : a));
  }

  private spawn(): Slot {
    const worker = new Worker(path.join(__dirname, 'ingest-thread.js'), { workerData: { keyring: formatKeyring(this.keyring) } });
    const slot: Slot = { worker, busy: 0 };
    worker.unref();
    worker.on('message', (message: { id: number; result?: IngestResult; error?: string }) => {
      const entry = this.waiting.get(message.id);
      if (!entry) return;
      this.waiting.delete(message.id);
      entry.slot.busy--;
      if (message.result) entry.resolve(message.result);
      else entry.reject(new Error(message.error ?? 'ingest failed'));
    });
    worker.on('error', (error) => this.fail(slot, error));
    worker.on('exit', (code) => this.fail(slot, new Error(`ingest thread exited with code ${code}`)));
    return slot;
  }

  private fail(slot: Slot, error: Error): void {
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    for (const [id, entry] of this.waiting) {
      if (entry.slot !== slot) continue;
      this.waiting.delete(id);
      entry.reject(error);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }
}
