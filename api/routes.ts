/**
 * Route registration. Every endpoint is declared once with its contract (codecs, headers,
 * responses, error area, auth, idempotency); the same declaration mounts the Koa handler
 * chain and feeds the OpenAPI document, so the two cannot drift apart.
 */
import Router from '@koa/router';
import type { Next } from 'koa';
import * as t from 'io-ts';
import { ApiError, decodeOrThrow } from '../domain/errors';
import { hasUnstorableText } from '../domain/nesting';
import type { AppContext } from './context';
import type { ErrorArea } from './errors';
import { AUTH_MODES, type AuthMode } from './middleware/auth';
import type { IdempotencyOptions } from './middleware/idempotency';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ParameterDoc {
  name: string;
  description: string;
  required?: boolean;
  schema?: Record<string, unknown>;
}

export interface ResponseDoc {
  description: string;
  body?: t.Any;
  /** Schema written by hand when there is no codec (e.g. text/html). */
  schema?: Record<string, unknown>;
  /** application/json unless given; several when the answer's type depends on the resource. */
  contentType?: string | string[];
}

export interface RouteSpec<B extends t.Any = t.Any> {
  method: HttpMethod;
  /** Koa path including the version prefix, e.g. /v1/payments/:payment_id */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  area: ErrorArea;
  /** Merchant credentials: both keys, either key, or none (system endpoints). */
  auth: AuthMode | 'none' | 'custom';
  idempotency?: IdempotencyOptions;
  /** Request body codec; decoded before the handler unless decodeBody is false. */
  body?: B;
  decodeBody?: boolean;
  query?: ParameterDoc[];
  headers?: ParameterDoc[];
  pathParams?: ParameterDoc[];
  responses: Record<number, ResponseDoc>;
  /** Do not rate limit (health, metrics, docs). */
  unlimited?: boolean;
  /** Marked deprecated in the OpenAPI document (a successor version exists). */
  deprecated?: boolean;
  /** Waits a bounded time on a workflow, so it may answer 503 (retry with the same key). */
  awaitsWorkflow?: boolean;
}

/** Every method with a body reads it as JSON, even where the operation takes none. */
export function readsJsonBody(spec: Pick<RouteSpec, 'method'>): boolean {
  return spec.method !== 'GET' && spec.method !== 'DELETE';
}

export type Handler<B extends t.Any> = (ctx: AppContext, body: t.TypeOf<B>) => Promise<void> | void;

export type Middleware = (ctx: AppContext, next: Next) => Promise<unknown>;

export interface RouteMiddlewares {
  auth(mode: AuthMode): Middleware;
  rateLimit: Middleware;
  jsonBody: Middleware;
  idempotency(options: IdempotencyOptions): Middleware;
}

/**
 * Tags whose read endpoints take the whitelabel embed token (`Authorization: Bearer`) as well
 * as the key pair: the areas README lists for it (users and account groups, sellers, banking
 * accounts and transfers, reports, dry-run reports). A portal embedding Switchyard reads
 * them on a user's behalf, so one of them refusing the token breaks the embed.
 */
export const EMBED_TOKEN_TAGS: ReadonlySet<string> = new Set(['Organization administration', 'Sellers', 'Banking connectivity', 'Reports', 'Dry-run']);

export class RouteTable {
  readonly specs: RouteSpec[] = [];
  readonly router = new Router();

  constructor(private readonly middlewares: RouteMiddlewares) {}

  add<B extends t.Any>(spec: RouteSpec<B>, handler: Handler<B>, extra: Middleware[] = []): void {
    if (spec.method === 'GET' && EMBED_TOKEN_TAGS.has(spec.tag) && spec.auth === 'pair') {
      throw new Error(`${spec.method} ${spec.path}: read endpoints tagged ${spec.tag} accept the whitelabel embed token; declare auth 'pair-or-bearer'`);
    }
    this.specs.push(spec as unknown as RouteSpec);
    const chain: Middleware[] = [
      async (ctx, next) => {
        ctx.state.errorArea = spec.area;
        ctx.state.routePath = spec.path;
        return next();
      },
    ];
    if (AUTH_MODES.includes(spec.auth)) chain.push(this.middlewares.auth(spec.auth as AuthMode));
    if (!spec.unlimited) chain.push(this.middlewares.rateLimit);
    chain.push(refuseUnstorableParameters(spec));
    chain.push(...extra);
    if (readsJsonBody(spec)) chain.push(this.middlewares.jsonBody);
    if (spec.idempotency) chain.push(this.middlewares.idempotency(spec.idempotency));
    chain.push(async (ctx) => {
      const body = spec.body && spec.decodeBody !== false ? decodeOrThrow(spec.body, ctx.request.body) : ctx.request.body;
      await handler(ctx, body as t.TypeOf<B>);
    });
    const method = spec.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    (this.router[method] as (path: string, ...mw: Middleware[]) => unknown)(spec.path, ...chain);
  }
}

/**
 * A path or query parameter holding U+0000 or a lone surrogate can name nothing and match
 * nothing (no store keeps such text; PostgreSQL-backed ones refuse it outright): a path
 * parameter answers like a missing resource where the route has one, a declared query
 * parameter 400, before any lookup.
 */
function refuseUnstorableParameters(spec: RouteSpec): Middleware {
  return async (ctx, next) => {
    for (const [name, value] of Object.entries<string>(ctx.params ?? {})) {
      if (typeof value === 'string' && hasUnstorableText(value)) {
        if (spec.responses[404]) throw new ApiError('not_found', `no resource has this ${name}`);
        throw new ApiError('validation', `${name} must not contain the NUL character or an unpaired UTF-16 surrogate`, { fieldErrors: [{ field: name, code: 'INVALID', message: `${name} is not a valid identifier` }] });
      }
    }
    // Only the declared ones: the others are never read.
    for (const { name } of spec.query ?? []) {
      const value = ctx.query[name];
      if (value !== undefined && [value].flat().some((v) => typeof v === 'string' && hasUnstorableText(v))) {
        const message = `query parameter ${name} must not contain the NUL character or an unpaired UTF-16 surrogate`;
        throw new ApiError('validation', message, { fieldErrors: [{ field: name, code: 'INVALID', message }] });
      }
    }
    return next();
  };
}
