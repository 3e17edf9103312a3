/**
 * Helpers for the money-movement tests: a webhook receiver on loopback, polling, ids and
 * a scan of MongoDB and workflow history for a plaintext string.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { once } from 'node:events';
import type { IssuedCredentials } from '../../domain/credentials';
import { call, getStack } from './stack';

export interface ReceivedEvent {
  id: string;
  type: string;
  data: any;
  signature: string | undefined;
  raw: string;
}

export interface WebhookReceiver {
  url: string;
  events: ReceivedEvent[];
  waitFor(predicate: (e: ReceivedEvent) => boolean, timeoutMs?: number): Promise<ReceivedEvent>;
  close(): Promise<void>;
}

export async function webhookReceiver(): Promise<WebhookReceiver> {
  const events: ReceivedEvent[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = JSON.parse(raw);
      events.push({ id: body.id, type: body.type, data: body.data, signature: req.headers['switchyard-signature'] as string | undefined, raw });
      res.writeHead(200).end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    events,
    async waitFor(predicate, timeoutMs = 20_000) {
      const started = Date.now();
      for (;;) {
        const found = events.find(predicate);
        if (found) return found;
        if (Date.now() - started > timeoutMs) throw new Error(`no matching webhook; got ${events.map((e) => e.type).join(', ')}`);
        await sleep(100);
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const key = () => randomUUID();

/** Polls a GET until `done` holds; returns the last body. */
export async function waitForResource(merchant: IssuedCredentials, path: string, done: (b: any) => boolean, timeoutMs = 30_000): Promise<any> {
  const started = Date.now();
  for (;;) {
    const { body } = await call(path, { credentials: merchant });
    if (done(body)) return body;
    if (Date.now() - started > timeoutMs) throw new Error(`${path} did not reach the expected state; last: ${JSON.stringify(body).slice(0, 600)}`);
    await sleep(200);
  }
}

/** Collections whose documents contain `needle` verbatim. */
export async function collectionsContaining(needle: string): Promise<string[]> {
  const { db } = await getStack();
  const hits: string[] = [];
  for (const { name } of await db.listCollections().toArray()) {
    for await (const doc of db.collection(name).find({})) {
      if (JSON.stringify(doc).includes(needle)) {
        hits.push(name);
        break;
      }
    }
  }
  return hits;
}

/** True when the raw (encoded) history of the workflow contains `needle`. */
export async function historyContains(workflowId: string, needle: string): Promise<boolean> {
  const { temporal } = await getStack();
  const history = await temporal.workflow.getHandle(workflowId).fetchHistory();
  return JSON.stringify(history, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v)).includes(needle);
}
