/**
 * Unknown methods on known paths: 405 with an Allow header, in the error shape of the area
 * that owns the path (replaces @koa/router's allowedMethods, which answers text/plain, and
 * 501 for methods no route uses). OPTIONS answers 204 with Allow. Unknown paths fall
 * through to the 404 of the error middleware.
 */
import type { Next } from 'koa';
import { ApiError } from '../../domain/errors';
import type { AppContext } from '../context';
import type { RouteTable } from '../routes';

interface MatchedLayer {
  path: string;
  methods: string[];
}

export function methodNotAllowed(routes: RouteTable) {
  return async (ctx: AppContext, next: Next) => {
    await next();
    const matched = (ctx as unknown as { matched?: MatchedLayer[] }).matched ?? [];
    if (ctx.status !== 404 || ctx.body !== undefined || matched.length === 0) return;
    const layers = matched.filter((layer) => layer.methods.length > 0);
    const allowed = [...new Set(layers.flatMap((layer) => layer.methods))];
    if (allowed.length === 0 || allowed.includes(ctx.method)) return;
    const allow = allowed.join(', ');
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      ctx.set('Allow', allow);
      return;
    }
    const owner = routes.specs.find((spec) => layers.some((layer) => layer.path === spec.path));
    if (owner) ctx.state.errorArea = owner.area;
    throw new ApiError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow}`, { headers: { Allow: allow } });
  };
}
