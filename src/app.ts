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
import errors, { frameworkErrors } from './plugins/errors.js';
import validation from './plugins/validation.js';
import auth from './plugins/auth.js';
import openapi from './plugins/openapi.js';
import operationsRoutes from './modules/operations/routes.js';
import storesAdminRoutes from './modules/stores/admin-routes.js';
import catalogRoutes from './modules/catalog/routes.js';
import catalogAdminRoutes from './modules/catalog/admin-routes.js';
import cartRoutes from './modules/carts/routes.js';
import addressRoutes from './modules/addresses/routes.js';
import orderRoutes from './modules/orders/routes.js';
import orderAdminRoutes from './modules/orders/admin-routes.js';
import { expireCarts } from './modules/carts/expiry-job.js';
import idempotency from './modules/idempotency/plugin.js';
import { purgeExpiredKeys } from './modules/idempotency/repository.js';
import jobs from './plugins/jobs.js';
import httpHygiene from './plugins/http-hygiene.js';
import metrics from './plugins/metrics.js';
import { RateLimiter } from './plugins/rate-limit.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    database: DatabaseHandle;
    db: Database;
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

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    requestTimeout: options.config.requestTimeoutMs,
    connectionTimeout: options.config.requestTimeoutMs * 2,
    genReqId: requestIdOf,
    bodyLimit: 1024 * 1024,
    frameworkErrors,
    ajv: { customOptions: { removeAdditional: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('config', options.config);
  app.decorate('database', options.database);
  app.decorate('db', options.database.db);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  await app.register(errors);
  await app.register(httpHygiene, { corsOrigins: options.config.corsOrigins });
  await app.register(metrics, { token: options.config.metricsToken });
  await app.register(validation);
  const limiter = new RateLimiter({ redisUrl: options.config.redisUrl, redisPrefix: options.rateLimitPrefix }, app.log);
  app.addHook('onClose', () => limiter.close());
  await app.register(auth, {
    rootToken: options.config.rootToken,
    limiter,
    perMinute: options.config.rateLimitPerMinute,
    ordersPerMinute: options.config.orderRateLimitPerMinute,
  });
  await app.register(openapi);
  await app.register(idempotency);
  await app.register(jobs, {
    jobs: [
      { name: 'cart-expiry', intervalSeconds: options.config.maintenanceIntervalSeconds, run: () => expireCarts(options.database.db) },
      { name: 'idempotency-purge', intervalSeconds: options.config.maintenanceIntervalSeconds, run: () => purgeExpiredKeys(options.database.db) },
    ],
  });

  await app.register(operationsRoutes, { prefix: '/api' });
  await app.register(storesAdminRoutes, { prefix: '/api' });
  await app.register(catalogRoutes, { prefix: '/api' });
  await app.register(catalogAdminRoutes, { prefix: '/api' });
  await app.register(cartRoutes, { prefix: '/api' });
  await app.register(addressRoutes, { prefix: '/api' });
  await app.register(orderRoutes, { prefix: '/api' });
  await app.register(orderAdminRoutes, { prefix: '/api' });
  return app;
}
