/**
 * Builds the application: infrastructure plugins, then each module's routes, registered
 * explicitly. `server.ts` only opens the database and listens.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Database, DatabaseHandle } from './db/client.js';
import type { Config } from './plugins/config.js';
import errors, { frameworkErrors, clientErrors } from './plugins/errors.js';
import { logSerializers } from './plugins/log-serializers.js';
import { hook } from './lib/hooks.js';
import validation from './plugins/validation.js';
import authentication from './plugins/authentication.js';
import authorization from './plugins/authorization.js';
import openapi, { DOCS_PATH } from './plugins/openapi.js';
import operationsRoutes from './modules/operations/routes.js';
import storesAdminRoutes from './modules/stores/admin-routes.js';
import storeSettingsRoutes from './modules/stores/settings-routes.js';
import catalogRoutes from './modules/catalog/routes.js';
import catalogAdminRoutes from './modules/catalog/admin-routes.js';
import discountAdminRoutes from './modules/discounts/routes.js';
import taxRateAdminRoutes from './modules/taxes/routes.js';
import shippingAdminRoutes from './modules/shipping/routes.js';
import cartRoutes from './modules/carts/routes.js';
import addressRoutes from './modules/addresses/routes.js';
import orderRoutes from './modules/orders/routes.js';
import orderAdminRoutes from './modules/orders/admin-routes.js';
import eventRoutes from './modules/events/routes.js';
import { purgeOldEvents } from './modules/events/index.js';
import webhookRoutes from './modules/webhooks/routes.js';
import { DeliveryWorker } from './modules/webhooks/worker.js';
import { expireCarts } from './modules/carts/index.js';
import { purgeExpiredKeys } from './modules/idempotency/index.js';
import commands from './plugins/commands.js';
import jobs from './plugins/jobs.js';
import httpHygiene from './plugins/http-hygiene.js';
import metrics from './plugins/metrics.js';
import { callerLimits, RateLimiter, routeLimits, spentBudgets, type RateLimitOptions } from './plugins/rate-limit.js';
import { IdentityProviders } from './modules/customers/identity-provider.js';
import customerRoutes from './modules/customers/routes.js';
import customerAuthAdminRoutes from './modules/customers/admin-routes.js';
import { JWKS_FETCH_TIMEOUT_MS } from './modules/customers/service.js';
import replicaReads from './plugins/replica-reads.js';
import imageRoutes, { IMAGES_PATH } from './modules/images/routes.js';
import staffRoutes from './modules/staff/routes.js';
import dashboardRoutes, { DASHBOARD_PATH } from './modules/dashboard/routes.js';
import { purgeStaffLeftovers, SIGN_IN_WINDOW_SECONDS } from './modules/staff/index.js';
import { purgeDeadCustomerTokens } from './modules/stores/index.js';
import { PaymentsRuntime } from './modules/payments/index.js';
import paymentRoutes from './modules/payments/routes.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    database: DatabaseHandle;
    db: Database;
    /** This process's webhook sender; it polls only when WEBHOOK_POLL_INTERVAL_MS > 0. */
    deliveryWorker: DeliveryWorker;
  }
}

export interface AppOptions {
  config: Config;
  database: DatabaseHandle;
  logger?: FastifyServerOptions['logger'];
  /** Redis key prefix of the rate-limit counters (tests keep theirs apart). */
  rateLimitPrefix?: string;
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The client's own X-Request-Id when it is sane, otherwise a new one. */
function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * Fastify's `trustProxy`. A hop count trusts that many proxies in front of the server whatever
 * their address (this Fastify version would otherwise trust none for a number).
 */
function trustProxyOption(setting: Config['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof setting === 'number' ? (_address, hop) => hop < setting : setting;
}

/** Largest body of a storefront route, and of an admin route (docs/api.md, "Limits"). */
export const STOREFRONT_BODY_LIMIT = 64 * 1024;
export const ADMIN_BODY_LIMIT = 1024 * 1024;

/** Where Stripe's webhooks arrive (payments/routes.ts, under the /api prefix). */
const PAYMENT_WEBHOOKS_PATH = '/api/v1/payment-webhooks/';

/** Arrivals a second of a count that only grows, over the last second or more. */
function rateOf(count: () => number): () => number {
  let recent = { at: Date.now(), seen: count(), rate: 0 };
  return () => {
    const now = Date.now();
    if (now - recent.at >= 1000) recent = { at: now, seen: count(), rate: ((count() - recent.seen) * 1000) / (now - recent.at) };
    return recent.rate;
  };
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const timeoutMs = options.config.requestTimeoutMs;
  const app = Fastify({
    // Log lines never carry a query's parameters, a failing row or a query string.
    logger: options.logger ? { ...(options.logger === true ? {} : options.logger), serializers: logSerializers } : false,
    // Node reads these when the HTTP server is made (Fastify sets them only afterwards), and checks
    // them every `connectionsCheckingInterval`: so a body that trickles in is cut in time.
    http: {
      requestTimeout: timeoutMs,
      headersTimeout: Math.min(timeoutMs, 60_000),
      connectionsCheckingInterval: Math.min(1000, Math.max(100, Math.floor(timeoutMs / 4))),
    },
    requestTimeout: timeoutMs,
    connectionTimeout: timeoutMs * 2,
    clientErrorHandler: clientErrors,
    trustProxy: trustProxyOption(options.config.trustProxy),
    genReqId: requestIdOf,
    bodyLimit: STOREFRONT_BODY_LIMIT,
    frameworkErrors,
    // Fastify's default joins every ajv error into one message: thousands of them for a hostile body.
    // The problem lists the first MAX_LISTED_ERRORS (errors.ts); the message needs only the first.
    schemaErrorFormatter: (issues, context) => new Error(`${context}${issues[0]?.instancePath ?? ''} ${issues[0]?.message ?? 'is not valid'}`),
    ajv: { customOptions: { removeAdditional: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  // Body limits by audience, in one place: admin routes take catalog payloads, storefront routes small ones.
  app.addHook('onRoute', (route) => {
    if (route.bodyLimit === undefined && route.url.startsWith('/api/v1/admin/')) route.bodyLimit = ADMIN_BODY_LIMIT;
  });

  app.decorate('config', options.config);
  app.decorate('database', options.database);
  app.decorate('db', options.database.db);
  app.addHook('onRequest', hook((request, reply) => {
    reply.header('x-request-id', request.id);
  }));

  await app.register(errors);
  await app.register(httpHygiene, { corsOrigins: options.config.corsOrigins, pagePrefixes: [DASHBOARD_PATH, DOCS_PATH, `/api${IMAGES_PATH}/`] });
  const behindProxy = options.config.trustProxy !== false && options.config.trustProxy !== 0;
  await app.register(metrics, { token: options.config.metricsToken, host: options.config.host, behindProxy });
  await app.register(validation);
  const limiter = new RateLimiter({ redisUrl: options.config.redisUrl, redisPrefix: options.rateLimitPrefix }, app.log);
  app.addHook('onClose', () => limiter.close());
  const limits: RateLimitOptions = {
    limiter,
    perMinute: options.config.rateLimitPerMinute,
    clientPerMinute: options.config.clientRateLimitPerMinute,
    ordersPerMinute: options.config.orderRateLimitPerMinute,
    guestSessionsPerMinute: options.config.guestSessionsPerMinute,
    discountAttemptsPerMinute: options.config.discountAttemptsPerMinute,
  };
  const identityProviders = new IdentityProviders({
    timeoutMs: JWKS_FETCH_TIMEOUT_MS,
    refetchCooldownMs: options.config.jwksRefetchCooldownSeconds * 1000,
    allowPrivateNetworks: options.config.allowPrivateNetworks,
    sharedIssuers: options.config.sharedJwtIssuers,
  }, app.log);
  app.addHook('onReady', () => limiter.started());
  // Who is calling, how often, whether they may: three steps, in this order, after a refusal that
  // costs nothing for a caller whose budget is already spent.
  await app.register(spentBudgets, limits);
  await app.register(authentication, { rootToken: options.config.rootToken, identityProviders });
  await app.register(callerLimits, limits);
  await app.register(authorization);
  await app.register(routeLimits, limits);
  await app.register(replicaReads);
  await app.register(openapi);
  await app.register(commands);
  const { config } = options;
  // Requests per second this process received over the last second or more: webhook deliveries
  // yield to them under load (WEBHOOK_YIELD_REQUESTS_PER_SECOND), and rounds of payment webhooks
  // and syncs give way to the requests other than those payment webhooks from a lower rate on
  // (PAYMENT_YIELD_REQUESTS_PER_SECOND; a stream of them alone runs at full speed). The lower rate
  // is what keeps checkout's share on a slower machine: there, orders beside a full stream of
  // deliveries fell under 500 a second, so the rounds never gave way and took their CPU. A count of
  // arrivals cannot drift the way a count of requests in flight can when a response's end goes unseen.
  let requestsReceived = 0;
  let othersReceived = 0;
  const requestRate = rateOf(() => requestsReceived);
  const otherRequestRate = rateOf(() => othersReceived);
  if (config.webhookYieldRequestsPerSecond > 0 || config.paymentYieldRequestsPerSecond > 0) {
    app.addHook('onRequest', (request, _reply, done) => {
      requestsReceived++;
      if (!request.url.startsWith(PAYMENT_WEBHOOKS_PATH)) othersReceived++;
      done();
    });
  }
  const yieldsTo = (threshold: number, rate: number) => threshold > 0 && rate >= threshold;
  const payments = new PaymentsRuntime(options.database.db, config, app.log, () => yieldsTo(config.paymentYieldRequestsPerSecond, otherRequestRate()));
  app.decorate('payments', payments);
  await app.register(jobs, {
    jobs: [
      { name: 'cart-expiry', intervalSeconds: options.config.maintenanceIntervalSeconds, run: () => expireCarts(options.database.db) },
      { name: 'idempotency-purge', intervalSeconds: options.config.maintenanceIntervalSeconds, run: () => purgeExpiredKeys(options.database.db) },
      { name: 'customer-token-purge', intervalSeconds: options.config.maintenanceIntervalSeconds, run: () => purgeDeadCustomerTokens(options.database.db) },
      { name: 'staff-purge', intervalSeconds: options.config.maintenanceIntervalSeconds, run: () => purgeStaffLeftovers(options.database.db, SIGN_IN_WINDOW_SECONDS) },
      { name: 'event-purge', intervalSeconds: options.config.maintenanceIntervalSeconds, run: () => purgeOldEvents(options.database.db, options.config.eventRetentionDays) },
      { name: 'payments', intervalSeconds: options.config.paymentJobIntervalSeconds, run: () => payments.runMaintenance() },
    ],
  });

  const worker = new DeliveryWorker(options.database.db, {
    retryScheduleSeconds: config.webhookRetryScheduleSeconds,
    disableAfterHours: config.webhookDisableAfterHours,
    allowPrivateNetworks: config.allowPrivateNetworks,
    timeoutMs: config.webhookTimeoutMs,
    concurrency: config.webhookConcurrency,
    pollIntervalMs: config.webhookPollIntervalMs,
    busy: () => yieldsTo(config.webhookYieldRequestsPerSecond, requestRate()),
  }, app.log);
  app.decorate('deliveryWorker', worker);
  if (config.webhookPollIntervalMs > 0) app.addHook('onReady', async () => worker.start());
  app.addHook('onClose', () => worker.stop());

  await app.register(operationsRoutes, { prefix: '/api', degradations: () => limiter.degradations() });
  await app.register(imageRoutes, { prefix: '/api' });
  await app.register(storesAdminRoutes, { prefix: '/api' });
  await app.register(storeSettingsRoutes, { prefix: '/api' });
  await app.register(catalogRoutes, { prefix: '/api' });
  await app.register(catalogAdminRoutes, { prefix: '/api' });
  await app.register(cartRoutes, { prefix: '/api' });
  await app.register(addressRoutes, { prefix: '/api' });
  await app.register(orderRoutes, { prefix: '/api' });
  await app.register(orderAdminRoutes, { prefix: '/api' });
  await app.register(discountAdminRoutes, { prefix: '/api' });
  await app.register(taxRateAdminRoutes, { prefix: '/api' });
  await app.register(shippingAdminRoutes, { prefix: '/api' });
  await app.register(customerRoutes, { prefix: '/api' });
  await app.register(customerAuthAdminRoutes, { prefix: '/api' });
  await app.register(eventRoutes, { prefix: '/api' });
  await app.register(webhookRoutes, { prefix: '/api' });
  await app.register(paymentRoutes, { prefix: '/api' });
  await app.register(staffRoutes, { prefix: '/api' });
  await app.register(dashboardRoutes);
  return app;
}
