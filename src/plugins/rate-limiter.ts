/**
 * The rate limiter's counters: fixed one-minute windows per key, in this process's memory, or in
 * Redis (REDIS_URL) so that several processes share them. Every request is also counted in memory,
 * so that when Redis stops answering the limits go on from this process's own counts (never off),
 * and `degradations()` says so until Redis answers again. An outage is logged once when it starts
 * and once when it ends, never per request.
 */
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { Redis } from 'ioredis';
import { AppError } from './errors.js';

const WINDOW_MS = 60_000;
/** Longest a request waits for Redis before it is counted in memory instead. */
const REDIS_COMMAND_TIMEOUT_MS = 500;
/** How often a Redis that stopped answering (but kept its connection) is asked again. */
const REDIS_PROBE_INTERVAL_MS = 1000;

interface Hit {
  count: number;
  /** Milliseconds until the window ends. */
  resetMs: number;
}

const windowOf = (now: number) => Math.floor(now / WINDOW_MS);
const resetOf = (window: number) => (window + 1) * WINDOW_MS - Date.now();

class MemoryCounters {
  private readonly counters = new Map<string, { window: number; count: number }>();
  private readonly sweeper = setInterval(() => this.sweep(), WINDOW_MS).unref();

  hit(key: string, window: number): Hit {
    const current = this.counters.get(key);
    const count = current && current.window === window ? current.count + 1 : 1;
    this.counters.set(key, { window, count });
    return { count, resetMs: resetOf(window) };
  }

  /** Takes back one hit of this window (a counted attempt that turned out not to count). */
  unhit(key: string, window: number): void {
    const current = this.counters.get(key);
    if (current && current.window === window && current.count > 0) current.count -= 1;
  }

  private sweep() {
    const window = windowOf(Date.now());
    for (const [key, value] of this.counters) if (value.window < window) this.counters.delete(key);
    this.onSweep?.();
  }

  onSweep: (() => void) | undefined;

  close() {
    clearInterval(this.sweeper);
  }
}

/** `host:port` of a Redis URL, never its password. */
function redisAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '6379'}`;
  } catch {
    return 'REDIS_URL';
  }
}

function refuseWhenOver(reply: FastifyReply, limit: number, hit: Hit): void {
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

export interface Degradation {
  component: string;
  detail: string;
}

export class RateLimiter {
  private readonly memory = new MemoryCounters();
  private readonly redis: Redis | undefined;
  private readonly address: string;
  /** `connecting` until Redis first answers or fails; `down` counts in memory. */
  private redisState: 'connecting' | 'up' | 'down' = 'connecting';
  private settled: Promise<void> = Promise.resolve();
  private probe: NodeJS.Timeout | undefined;
  private closing = false;
  private readonly prefix: string;
  /** Budgets this process saw go over their limit, until their window ends: refused again at no cost. */
  private readonly spent = new Map<string, { until: number; limit: number }>();

  constructor(
    options: { redisUrl?: string; redisPrefix?: string },
    private readonly log: FastifyBaseLogger,
  ) {
    this.address = options.redisUrl ? redisAddress(options.redisUrl) : '';
    this.prefix = options.redisPrefix ?? 'storefront:rl:';
    this.memory.onSweep = () => {
      const now = Date.now();
      for (const [key, spent] of this.spent) if (spent.until <= now) this.spent.delete(key);
    };
    if (!options.redisUrl) return;
    // Fail fast while disconnected instead of queueing commands: the request is counted in memory.
    const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 0, enableOfflineQueue: false, commandTimeout: REDIS_COMMAND_TIMEOUT_MS, connectTimeout: 2000 });
    this.redis = redis;
    this.settled = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 3000).unref();
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      redis.once('ready', done);
      redis.once('error', done);
    });
    redis.on('ready', () => this.up());
    redis.on('error', (error: Error & { code?: string }) => this.down(error.code ?? error.message));
    redis.on('close', () => this.down('the connection closed'));
  }

  /** Resolves once Redis answered or failed for the first time (at most 3 s), so the start can say which. */
  started(): Promise<void> {
    return this.settled;
  }

  /** What is not as configured: Redis set but not answering. */
  degradations(): Degradation[] {
    if (!this.redis || this.redisState === 'up') return [];
    const detail = this.redisState === 'connecting'
      ? `connecting to Redis at ${this.address} (REDIS_URL); until then rate limits count in this process alone`
      : `Redis at ${this.address} (REDIS_URL) does not answer: rate limits count in this process alone until it does`;
    return [{ component: 'rate-limits', detail }];
  }

  private up() {
    if (this.closing || this.redisState === 'up') return;
    const was = this.redisState;
    this.redisState = 'up';
    clearInterval(this.probe);
    this.probe = undefined;
    if (was === 'connecting') this.log.info({ event: 'rate_limits_shared', redis: this.address }, `rate limits are shared through Redis at ${this.address}`);
    else this.log.info({ event: 'rate_limits_restored', redis: this.address }, `Redis at ${this.address} answers again: rate limits are shared again`);
  }

  private down(reason: string) {
    if (this.closing || this.redisState === 'down') return;
    this.redisState = 'down';
    this.log.warn(
      { event: 'rate_limits_degraded', redis: this.address, reason },
      `Redis at ${this.address} (REDIS_URL) does not answer (${reason}): rate limits count in this process alone until it does`,
    );
    // A connection that stays open but stops answering sends no event when it comes back.
    this.probe ??= setInterval(() => {
      if (this.redis?.status === 'ready') this.redis.ping().then(() => this.up(), () => {});
    }, REDIS_PROBE_INTERVAL_MS).unref();
  }

  private async count(key: string): Promise<Hit> {
    const window = windowOf(Date.now());
    const local = this.memory.hit(key, window);
    if (!this.redis || this.redisState !== 'up') return local;
    const redisKey = `${this.prefix}${key}:${window}`;
    try {
      const [[, count]] = (await this.redis.multi().incr(redisKey).pexpire(redisKey, WINDOW_MS * 2).exec()) as [[Error | null, number]];
      return { count, resetMs: resetOf(window) };
    } catch (error) {
      this.down(error instanceof Error ? error.message : String(error));
      return local;
    }
  }

  /** Counts one request against `key`; sets the RateLimit-* headers, and answers 429 when over. */
  async consume(reply: FastifyReply, key: string, limit: number): Promise<void> {
    if (limit <= 0) return;
    const hit = await this.count(key);
    if (hit.count > limit) this.spent.set(key, { until: Date.now() + hit.resetMs, limit });
    refuseWhenOver(reply, limit, hit);
  }

  /**
   * Counts one attempt against `key` (no RateLimit-* headers: they stay the caller's budget) and
   * answers 429 with Retry-After when over; answers the window the attempt was counted in, for `giveBack`.
   */
  async attempt(key: string, limit: number, what: string): Promise<number> {
    const window = windowOf(Date.now());
    const hit = await this.count(key);
    if (hit.count > limit) {
      const resetSeconds = Math.max(1, Math.ceil(hit.resetMs / 1000));
      throw new AppError('RATE_LIMITED', `more than ${limit} ${what} per minute; retry in ${resetSeconds} s`, { headers: { 'retry-after': String(resetSeconds) } });
    }
    return window;
  }

  /** Takes back an attempt counted in `window` that turned out not to count (a code that applied). */
  async giveBack(key: string, window: number): Promise<void> {
    this.memory.unhit(key, window);
    if (!this.redis || this.redisState !== 'up') return;
    try {
      await this.redis.decr(`${this.prefix}${key}:${window}`);
    } catch (error) {
      this.down(error instanceof Error ? error.message : String(error));
    }
  }

  /** Answers 429 at once, without counting or asking anyone, when this process saw `key` go over its limit in this window. */
  refuseIfSpent(reply: FastifyReply, key: string): void {
    const spent = this.spent.get(key);
    if (!spent) return;
    const resetMs = spent.until - Date.now();
    if (resetMs <= 0) this.spent.delete(key);
    else refuseWhenOver(reply, spent.limit, { count: spent.limit + 1, resetMs });
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.probe);
    this.memory.close();
    this.redis?.disconnect();
  }
}
