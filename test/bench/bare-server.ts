/**
 * The bare baseline of the read benchmarks, in its own process: a Koa route doing the same
 * MongoDB read as GET /v1/payments/{id} (one findOne by _id and organization), nothing else.
 * Env: MONGODB_URI, MONGODB_DB, PORT (0: a free port), BARE_ORGANIZATION_CODE.
 */
import { once } from 'node:events';
import Koa from 'koa';
import { MongoClient } from 'mongodb';

async function main() {
  const client = await MongoClient.connect(process.env.MONGODB_URI!);
  const payments = client.db(process.env.MONGODB_DB).collection('payments');
  const organizationCode = process.env.BARE_ORGANIZATION_CODE;
  const app = new Koa();
  app.use(async (ctx) => {
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
