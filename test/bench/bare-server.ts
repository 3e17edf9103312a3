/**
 * The bare baselines of the benchmarks, each in its own process, doing the subject's MongoDB
 * work and nothing else:
 *  - BARE_MODE=read (default): GET /<anything>/<id> does one findOne by _id and organization on
 *    `payments`, like GET /v1/payments/{id};
 *  - BARE_MODE=insert: POST parses the JSON body and inserts it into `bench_bare_inserts`, like
 *    a dry-run registration's one insert.
 * Env: MONGODB_URI, MONGODB_DB, PORT (0: a free port), BARE_ORGANIZATION_CODE, BARE_MODE.
 */
import { once } from 'node:events';
import Koa from 'koa';
import { MongoClient } from 'mongodb';

async function body(req: NodeJS.ReadableStream): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function main() {
  const client = await MongoClient.connect(process.env.MONGODB_URI!);
  const db = client.db(process.env.MONGODB_DB);
  const payments = db.collection('payments');
  const inserts = db.collection('bench_bare_inserts');
  const organizationCode = process.env.BARE_ORGANIZATION_CODE;
  const insertMode = process.env.BARE_MODE === 'insert';
  const app = new Koa();
  app.use(async (ctx) => {
    if (insertMode) {
      const doc = (await body(ctx.req)) as Record<string, unknown>;
      await inserts.insertOne({ ...doc, organization_code: organizationCode, created_at: new Date() });
      ctx.status = 201;
      ctx.body = { ok: true };
      return;
    }
    const doc = await payments.findOne({ _id: ctx.path.split('/').pop() as never, organization_code: organizationCode });
    ctx.status = doc ? 200 : 404;
    ctx.body = doc ?? {};
  });
  const server = app.listen(Number(process.env.PORT || 0), '127.0.0.1');
  await once(server, 'listening');
  process.stdout.write(`${JSON.stringify({ msg: 'bare baseline listening', url: `http://127.0.0.1:${(server.address() as { port: number }).port}` })}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
