/**
 * Operational endpoints: liveness, readiness, metrics, the OpenAPI document and the docs page.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AppDeps } from '../context';
import { buildOpenApi } from '../openapi';
import type { RouteTable } from '../routes';
import { renderDocsPage } from '../docs-page';

const PROBE_TIMEOUT_MS = 2_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error) => (clearTimeout(timer), reject(error)),
    );
  });
}

/** The docs page's assets and the media type each is served (and documented) as. */
const SWAGGER_ASSETS = new Map([
  ['swagger-ui.css', 'text/css'],
  ['swagger-ui-bundle.js', 'text/javascript'],
  ['swagger-ui-standalone-preset.js', 'text/javascript'],
  ['favicon-32x32.png', 'image/png'],
]);

export function registerSystemRoutes(routes: RouteTable, deps: AppDeps): void {
  routes.add(
    {
      method: 'GET', path: '/healthz', operationId: 'health', summary: 'Liveness: the process is up',
      tag: 'Operations', area: 'default', auth: 'none', unlimited: true,
      responses: { 200: { description: 'Process is up', schema: { type: 'object', properties: { status: { const: 'ok' } } } } },
    },
    (ctx) => {
      ctx.body = { status: 'ok' };
    },
  );

  routes.add(
    {
      method: 'GET', path: '/readyz', operationId: 'readiness', summary: 'Readiness: MongoDB and Temporal are reachable',
      tag: 'Operations', area: 'default', auth: 'none', unlimited: true,
      responses: {
        200: { description: 'Ready', schema: { type: 'object', properties: { status: { const: 'ready' }, checks: { type: 'object' } } } },
        503: { description: 'A dependency is unreachable', schema: { type: 'object', properties: { status: { const: 'unavailable' }, checks: { type: 'object' } } } },
      },
    },
    async (ctx) => {
      const [mongodb, temporal] = await Promise.all([
        withTimeout(deps.db.command({ ping: 1 }), PROBE_TIMEOUT_MS).then(() => 'ok', (e: Error) => `unreachable: ${e.message}`),
        withTimeout(deps.temporal.workflowService.getSystemInfo({}), PROBE_TIMEOUT_MS).then(() => 'ok', (e: Error) => `unreachable: ${e.message}`),
      ]);
      const ready = mongodb === 'ok' && temporal === 'ok';
      ctx.status = ready ? 200 : 503;
      ctx.body = { status: ready ? 'ready' : 'unavailable', checks: { mongodb, temporal } };
    },
  );

  routes.add(
    {
      method: 'GET', path: '/metrics', operationId: 'metrics', summary: 'Prometheus metrics',
      tag: 'Operations', area: 'default', auth: 'none', unlimited: true,
      responses: { 200: { description: 'Prometheus text format', contentType: 'text/plain', schema: { type: 'string' } } },
    },
    async (ctx) => {
      ctx.type = deps.metrics.registry.contentType;
      ctx.body = await deps.metrics.registry.metrics();
    },
  );

  let cachedDocument: Record<string, unknown> | undefined;
  routes.add(
    {
      method: 'GET', path: '/v1/openapi.json', operationId: 'openapi', summary: 'This OpenAPI 3.1 document',
      tag: 'Operations', area: 'default', auth: 'none', unlimited: true,
      responses: { 200: { description: 'OpenAPI document', schema: { type: 'object' } } },
    },
    (ctx) => {
      cachedDocument ??= buildOpenApi(routes.specs, `${deps.config.publicBaseUrl}`);
      ctx.body = cachedDocument;
    },
  );

  routes.add(
    {
      method: 'GET', path: '/docs', operationId: 'docs', summary: 'Human-readable API documentation',
      tag: 'Operations', area: 'default', auth: 'none', unlimited: true,
      responses: { 200: { description: 'HTML page', contentType: 'text/html', schema: { type: 'string' } } },
    },
    (ctx) => {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = renderDocsPage();
    },
  );

  const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  routes.add(
    {
      method: 'GET', path: '/docs/assets/:file', operationId: 'docsAsset', summary: 'Static assets of the docs page',
      tag: 'Operations', area: 'default', auth: 'none', unlimited: true,
      pathParams: [{ name: 'file', description: 'asset file name', schema: { type: 'string', enum: [...SWAGGER_ASSETS.keys()] } }],
      responses: {
        200: { description: 'Asset', contentType: [...new Set(SWAGGER_ASSETS.values())], schema: { type: 'string' } },
        404: { description: 'ROUTE_NOT_FOUND: no such asset' },
      },
    },
    (ctx) => {
      const file = ctx.params.file;
      const type = SWAGGER_ASSETS.get(file);
      if (!type) return;
      ctx.type = type;
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = fs.createReadStream(path.join(swaggerDir, file));
    },
  );
}
