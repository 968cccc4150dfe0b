/**
 * Rate limiting: how often. Fixed one-minute windows per key. Secret callers (admin, server and
 * root tokens) count per token; public callers (the storefront token, customer credentials, no or
 * a refused token) count per store and client address, so that one client cannot use up a shop's
 * budget. Order creation and guest sessions have tighter limits of their own, counted after
 * validation and authorization (so nobody can spend a victim's budget with bad requests).
 * Counters live in memory for one process, or in Redis (REDIS_URL) so that several processes
 * share them. A limit of 0 is off. If Redis does not answer, requests are let through (fail open)
 * and a warning is logged: the limiter must never take the store down.
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Redis } from 'ioredis';
import { AppError } from './errors.js';
import { TOKEN_KINDS } from '../modules/stores/index.js';

const WINDOW_MS = 60_000;

interface Hit {
  count: number;
  /** Milliseconds until the window ends. */
  resetMs: number;
}

interface CounterStore {
  hit(key: string, windowIndex: number): Promise<Hit>;
  close(): Promise<void>;
}

class MemoryStore implements CounterStore {
  private readonly counters = new Map<string, { window: number; count: number }>();
  private readonly sweeper = setInterval(() => this.sweep(), WINDOW_MS).unref();

  async hit(key: string, window: number): Promise<Hit> {
    const current = this.counters.get(key);
    const count = current && current.window === window ? current.count + 1 : 1;
    this.counters.set(key, { window, count });
    return { count, resetMs: (window + 1) * WINDOW_MS - Date.now() };
  }

  private sweep() {
    const window = Math.floor(Date.now() / WINDOW_MS);
    for (const [key, value] of this.counters) if (value.window < window) this.counters.delete(key);
  }

  async close() {
    clearInterval(this.sweeper);
  }
}

class RedisStore implements CounterStore {
  private readonly redis: Redis;

  constructor(url: string, private readonly prefix: string) {
    // Fail fast while disconnected instead of queueing commands: the limiter fails open.
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
    this.redis.on('error', () => {});
  }

  async hit(key: string, window: number): Promise<Hit> {
    const redisKey = `${this.prefix}${key}:${window}`;
    const [[, count]] = (await this.redis.multi().incr(redisKey).pexpire(redisKey, WINDOW_MS * 2).exec()) as [[Error | null, number]];
    return { count, resetMs: (window + 1) * WINDOW_MS - Date.now() };
  }

  async close() {
    this.redis.disconnect();
  }
}

export class RateLimiter {
  private readonly store: CounterStore;

  constructor(
    options: { redisUrl?: string; redisPrefix?: string },
    private readonly log: FastifyBaseLogger,
  ) {
    this.store = options.redisUrl ? new RedisStore(options.redisUrl, options.redisPrefix ?? 'storefront:rl:') : new MemoryStore();
  }

  /** Counts one request against `key`; sets the RateLimit-* headers, and answers 429 when over. */
  async consume(reply: FastifyReply, key: string, limit: number): Promise<void> {
    if (limit <= 0) return;
    let hit: Hit;
    try {
      hit = await this.store.hit(key, Math.floor(Date.now() / WINDOW_MS));
    } catch (error) {
      this.log.warn({ err: error }, 'rate limit store unavailable; letting the request through');
      return;
    }
    const resetSeconds = Math.max(1, Math.ceil(hit.resetMs / 1000));
    reply.header('ratelimit-limit', String(limit));
    reply.header('ratelimit-remaining', String(Math.max(0, limit - hit.count)));
    reply.header('ratelimit-reset', String(resetSeconds));
    if (hit.count > limit) {
      throw new AppError('RATE_LIMITED', `more than ${limit} requests per minute; retry in ${resetSeconds} s`, {
        headers: { 'retry-after': String(resetSeconds) },
      });
    }
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A tighter limit of its own, counted once the request passed validation and authorization. */
    extraLimit?: 'orders' | 'guest-sessions';
  }
}

export interface RateLimitOptions {
  limiter: RateLimiter;
  /** Requests per minute per secret token (admin, server, root). */
  perMinute: number;
  /** Requests per minute per store and client address for public callers. */
  clientPerMinute: number;
  /** Order creations per minute per store and customer. */
  ordersPerMinute: number;
  /** Guest sessions per minute per store and client address. */
  guestSessionsPerMinute: number;
}

/** The counter a request spends, and its limit. */
function budgetOf(request: FastifyRequest, options: RateLimitOptions): [key: string, limit: number] {
  const principal = request.principal;
  if (principal?.kind === 'root') return ['token:root', options.perMinute];
  if (principal && principal.kind !== 'customer' && TOKEN_KINDS[principal.kind].secret) return [`token:${principal.tokenId}`, options.perMinute];
  const store = principal && 'store' in principal ? principal.store : '-';
  return [`client:${store}:${request.ip}`, options.clientPerMinute];
}

/** Every request with a credential (or a refused one) counts against its caller's budget, first thing. */
export const callerLimits = fp(
  async (app: FastifyInstance, options: RateLimitOptions) => {
    app.addHook('onRequest', async (request, reply) => {
      const access = request.routeOptions.config.access;
      if (!access || access === 'public') return;
      const [key, limit] = budgetOf(request, options);
      await options.limiter.consume(reply, key, limit);
    });
  },
  { name: 'caller-limits', dependencies: ['authentication'] },
);

/** The tighter limits of order creation and guest sessions; register after authorization. */
export const routeLimits = fp(
  async (app: FastifyInstance, options: RateLimitOptions) => {
    app.addHook('preHandler', async (request, reply) => {
      const extra = request.routeOptions.config.extraLimit;
      if (!extra || !request.principal || request.principal.kind === 'root') return;
      const store = request.principal.store;
      if (extra === 'orders') {
        const customer = (request.params as { customer?: string }).customer?.toLowerCase() ?? '';
        await options.limiter.consume(reply, `order:${store}:${customer}`, options.ordersPerMinute);
      } else {
        await options.limiter.consume(reply, `guest:${store}:${request.ip}`, options.guestSessionsPerMinute);
      }
    });
  },
  { name: 'route-limits', dependencies: ['authorization'] },
);
