/**
 * Rate limits: fixed one-minute windows per key (a token, a client address, a token and customer
 * for order creation). Counters live in memory for one process, or in Redis (REDIS_URL) so that
 * several processes share them. A limit of 0 is off. If Redis does not answer, requests are let
 * through (fail open) and a warning is logged: the limiter must never take the store down.
 */
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { Redis } from 'ioredis';
import { AppError } from './errors.js';

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
