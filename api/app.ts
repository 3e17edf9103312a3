/**
 * Composes the Koa application: cross-cutting middleware, then one router per area.
 */
import cors from '@koa/cors';
import Koa from 'koa';
import type { AppDeps, AppState } from './context';
import { errorMiddleware } from './errors';
import { authenticate, BearerVerifier, CredentialCache } from './middleware/auth';
import { jsonBody } from './middleware/body';
import { idempotency, IdempotencyStore } from './middleware/idempotency';
import { methodNotAllowed } from './middleware/methods';
import { rateLimit, RateLimiter } from './middleware/rate-limit';
import { requestContext } from './middleware/request-context';
import { registerAccountRoutes } from './routers/accounts';
import { registerBankingRoutes } from './routers/banking';
import { registerCampaignRoutes } from './routers/campaigns';
import { registerCodecRoutes } from './routers/codec';
import { registerOrganizationRoutes } from './routers/organizations';
import { registerPingRoutes } from './routers/pings';
import { registerPaymentRoutes } from './routers/payments';
import { registerCustomerRoutes } from './routers/customers';
import { registerRoutingRoutes } from './routers/routing';
import { registerWebhookRoutes } from './routers/webhooks';
import { registerProviderWebhookRoutes } from './routers/provider-webhooks';
import { registerReportRoutes } from './routers/reports';
import { registerSellerRoutes } from './routers/sellers';
import { registerDryRunRoutes } from './routers/dry-run';
import { PairingSignalPump } from './dry-run/pairing-signals';
import { registerSystemRoutes } from './routers/system';
import { registerRefundRoutes } from './routers/refunds';
import { registerRecipientRoutes } from './routers/recipients';
import { registerTransferRoutes } from './routers/transfers';
import { registerSubscriptionRoutes } from './routers/subscriptions';
import { registerStaticRoutes } from './routers/static';
import { RouteTable } from './routes';

export interface App {
  koa: Koa<AppState>;
  routes: RouteTable;
  /** Marks the process alive for the idempotency locks it holds; `stop` frees them. */
  idempotency: IdempotencyStore;
  /** Delivers the dry-run legs' stored pairing signals; `start` sweeps for lapsed ones, `stop` drains. */
  pairingSignals: PairingSignalPump;
}

export function createApp(deps: AppDeps): App {
  const credentials = new CredentialCache(deps.db);
  const bearer = new BearerVerifier(deps.db, deps.keyring);
  const limiter = new RateLimiter(deps.db, deps.config.rateLimit);
  const idempotencyStore = new IdempotencyStore(deps.db);
  const routes = new RouteTable({
    auth: (mode) => authenticate(credentials, mode, bearer),
    rateLimit: rateLimit(limiter, deps.config.rateLimit),
    jsonBody: jsonBody(),
    idempotency: (options) => idempotency(idempotencyStore, options),
  });

  registerSystemRoutes(routes, deps);
  registerCodecRoutes(routes, deps);
  registerStaticRoutes(routes, deps);
  registerPingRoutes(routes, deps);
  registerAccountRoutes(routes, deps);
  registerPaymentRoutes(routes, deps);
  registerCustomerRoutes(routes, deps);
  registerRoutingRoutes(routes, deps);
  registerWebhookRoutes(routes, deps);
  registerProviderWebhookRoutes(routes, deps);
  registerRefundRoutes(routes, deps);
  registerRecipientRoutes(routes, deps);
  registerTransferRoutes(routes, deps);
  registerSubscriptionRoutes(routes, deps);
  registerOrganizationRoutes(routes, deps);
  registerSellerRoutes(routes, deps);
  registerBankingRoutes(routes, deps);
  registerReportRoutes(routes, deps);
  const pairingSignals = new PairingSignalPump(deps);
  registerDryRunRoutes(routes, deps, pairingSignals);
  registerCampaignRoutes(routes, deps);

  const koa = new Koa<AppState>({ proxy: deps.config.trustProxy });
  koa.use(requestContext(deps));
  koa.use(errorMiddleware);
  // The Temporal UI calls the codec endpoints from the browser.
  const corsForCodec = cors({
    origin: (ctx) => (deps.config.codecCorsOrigins.includes(ctx.get('origin')) ? ctx.get('origin') : ''),
    allowHeaders: ['content-type', 'x-namespace', 'authorization'],
    allowMethods: ['POST', 'OPTIONS'],
    credentials: true,
  });
  koa.use(async (ctx, next) => (ctx.path.startsWith('/codec/') ? corsForCodec(ctx, next) : next()));
  koa.use(methodNotAllowed(routes));
  koa.use(routes.router.routes());
  return { koa, routes, idempotency: idempotencyStore, pairingSignals };
}
