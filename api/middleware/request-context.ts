/**
 * First middleware of every request: request id (echoed in X-Request-Id), a child logger,
 * the access log line and the latency histogram.
 */
import { randomUUID } from 'node:crypto';
import type { Next } from 'koa';
import type { AppContext, AppDeps } from '../context';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestContext(deps: Pick<AppDeps, 'logger' | 'metrics'> & { config?: Pick<AppDeps['config'], 'publicBaseUrl'> }) {
  return async (ctx: AppContext, next: Next) => {
    const started = process.hrtime.bigint();
    const incoming = ctx.get('x-request-id');
    const requestId = CLIENT_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    if (deps.config) ctx.state.docsBaseUrl = deps.config.publicBaseUrl;
    ctx.state.log = deps.logger.child({ request_id: requestId });
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = ctx.state.routePath ?? 'unmatched';
      deps.metrics.httpDuration.observe({ method: ctx.method, route, status: String(ctx.status) }, seconds);
      ctx.state.log.info(
        { method: ctx.method, route, status: ctx.status, duration_ms: Math.round(seconds * 1e4) / 10, organization: ctx.state.principal?.organizationCode },
        'request',
      );
    }
  };
}
