/**
 * Prometheus metrics at /api/metrics (a registry per app, not the global one): requests and
 * latency by route pattern and status, database pool use, orders created, stock refusals,
 * idempotent replays and how catalog reads were answered (cached or computed). With METRICS_TOKEN
 * set, the route needs `Authorization: Bearer <it>`; without it, the route exists only on a
 * server that listens on a loopback address and has no proxy in front (it shows every store's
 * order volume): with TRUST_PROXY set, a reverse proxy on the same host makes a loopback HOST
 * reachable from anywhere, so the route is 404 and the start says why. The start is not refused: a deployment that reads no metrics needs no token.
 * Business counters are read off the answers and the commands' declarations (`counts`), so no
 * module needs to know about metrics.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { secretsEqual } from '../modules/stores/index.js';
import { AppError } from './errors.js';
import { bearerTokenOf } from '../lib/bearer.js';
import { hook } from '../lib/hooks.js';

/** True for an address only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare) || /^::ffff:127\./.test(bare);
}

export default fp(
  async (app: FastifyInstance, options: { token: string | undefined; host: string; behindProxy: boolean }) => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const labelNames = ['method', 'route', 'status'] as const;
    const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered', labelNames, registers: [registry] });
    const latency = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to answer, by route pattern and status',
      labelNames,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
    const orders = new Counter({ name: 'storefront_orders_created_total', help: 'Orders created', registers: [registry] });
    const refusals = new Counter({ name: 'storefront_stock_refusals_total', help: 'Answers refused for stock or availability', labelNames: ['code'], registers: [registry] });
    const replays = new Counter({ name: 'storefront_idempotent_replays_total', help: 'Answers replayed for a repeated Idempotency-Key', registers: [registry] });
    const cached = new Counter({
      name: 'storefront_catalog_cache_total',
      help: 'Storefront catalog reads by how they were answered: hit (a cached answer) or computed (read from the database, then cached)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    new Counter({
      name: 'storefront_catalog_reads_total',
      help: 'Catalog reads with a read replica configured, by outcome: replica, or the primary because the replica was lagging, behind this process\'s last catalog change, unavailable, busy (every replica connection in use past the connect timeout), not a replica, or warming up',
      labelNames: ['outcome'],
      registers: [registry],
      collect() {
        const outcomes = app.replicaReads?.router.outcomes;
        if (!outcomes) return;
        this.reset();
        for (const [outcome, count] of outcomes) this.inc({ outcome }, count);
      },
    });
    new Gauge({
      name: 'db_pool_connections',
      help: 'Database connections by state',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const stats = app.database.poolStats();
        this.set({ state: 'total' }, stats.total);
        this.set({ state: 'idle' }, stats.idle);
        this.set({ state: 'waiting' }, stats.waiting);
      },
    });

    // prom-client hashes a label set on every call; the series of each (method, route, status) are
    // looked up once and kept (a route pattern, not a URL, so there are as many as routes and statuses).
    const series = new Map<string, { requests: ReturnType<typeof requests.labels>; latency: ReturnType<typeof latency.labels> }>();
    const seriesOf = (method: string, route: string, status: number) => {
      const key = `${method} ${route} ${status}`;
      let found = series.get(key);
      if (!found) {
        const labels = { method, route, status: String(status) };
        series.set(key, (found = { requests: requests.labels(labels), latency: latency.labels(labels) }));
      }
      return found;
    };
    const cacheOutcomes = { hit: cached.labels({ outcome: 'hit' }), computed: cached.labels({ outcome: 'computed' }) };
    app.addHook('onResponse', hook((request, reply) => {
      const answered = seriesOf(request.method, request.routeOptions.url ?? 'unknown', reply.statusCode);
      answered.requests.inc();
      answered.latency.observe(reply.elapsedTime / 1000);
      if (request.catalogCache) cacheOutcomes[request.catalogCache].inc();
      const replayed = reply.getHeader('idempotent-replayed') === 'true';
      if (replayed) replays.inc();
      else if (request.routeOptions.config.command?.counts === 'orders' && reply.statusCode < 300) orders.inc();
      const code = reply.problemCode;
      if (!replayed && (code === 'INSUFFICIENT_STOCK' || code === 'PRODUCT_UNAVAILABLE')) refusals.inc({ code });
    }));

    const exposed = options.token !== undefined || (isLoopbackHost(options.host) && !options.behindProxy);
    if (!options.token && options.behindProxy && isLoopbackHost(options.host)) {
      app.log.warn({ event: 'metrics_off' }, 'GET /api/metrics is 404: TRUST_PROXY is set, so requests come through a proxy and a loopback HOST does not keep the metrics private; set METRICS_TOKEN to serve them');
    }
    app.get('/api/metrics', { schema: { hide: true } }, async (request, reply) => {
      if (!exposed) throw new AppError('NOT_FOUND', `no route GET /api/metrics`);
      if (options.token) {
        const given = bearerTokenOf(request.headers.authorization);
        if (!given || !secretsEqual(given, options.token)) {
          throw new AppError('UNAUTHORIZED', 'the metrics need Authorization: Bearer <METRICS_TOKEN>', {
            headers: { 'www-authenticate': 'Bearer realm="metrics"' },
          });
        }
      }
      return reply.type(registry.contentType).send(await registry.metrics());
    });
  },
  { name: 'metrics', dependencies: ['errors'] },
);
