/**
 * Configuration, read from the environment and validated once at start. A bad value stops the
 * start with a message that names the variable, the value and what is expected.
 */
import { resolve } from 'node:path';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  rootToken: string | undefined;
  seedDemo: boolean;
  cartTtlSeconds: number;
  /** How often expired carts are marked, old ones purged and expired idempotency keys deleted; 0 = never. */
  maintenanceIntervalSeconds: number;
  logLevel: LogLevel;
  dbPoolSize: number;
  dbStatementTimeoutMs: number;
  dbConnectTimeoutMs: number;
  rateLimitPerMinute: number;
  orderRateLimitPerMinute: number;
  redisUrl: string | undefined;
  metricsToken: string | undefined;
  corsOrigins: string[];
  requestTimeoutMs: number;
  workers: number;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const read = new EnvReader(env, problems);
  const config: Config = {
    port: read.integer('PORT', 3000, 0, 65535),
    host: read.string('HOST', '127.0.0.1'),
    dataDir: resolve(read.string('DATA_DIR', './data')),
    databaseUrl: read.optional('DATABASE_URL', (v) => /^postgres(ql)?:\/\/.+/.test(v), 'a postgres:// or postgresql:// URL'),
    rootToken: read.optional('STOREFRONT_ROOT_TOKEN', (v) => v.length >= 16 && !/\s/.test(v), 'at least 16 characters, no spaces'),
    seedDemo: read.boolean('SEED_DEMO', true),
    cartTtlSeconds: read.integer('CART_TTL_SECONDS', 604800, 1, 10 * 365 * 86400),
    maintenanceIntervalSeconds: read.integer('MAINTENANCE_INTERVAL_SECONDS', 60, 0, 86400),
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    dbPoolSize: read.integer('DB_POOL_SIZE', 10, 1, 1000),
    dbStatementTimeoutMs: read.integer('DB_STATEMENT_TIMEOUT_MS', 15000, 100, 600000),
    dbConnectTimeoutMs: read.integer('DB_CONNECT_TIMEOUT_MS', 3000, 100, 600000),
    rateLimitPerMinute: read.integer('RATE_LIMIT_PER_MINUTE', 3000, 0, 10_000_000),
    orderRateLimitPerMinute: read.integer('ORDER_RATE_LIMIT_PER_MINUTE', 60, 0, 10_000_000),
    redisUrl: read.optional('REDIS_URL', (v) => /^rediss?:\/\/.+/.test(v), 'a redis:// or rediss:// URL'),
    metricsToken: read.optional('METRICS_TOKEN', (v) => v.length >= 16 && !/\s/.test(v), 'at least 16 characters, no spaces'),
    corsOrigins: (read.optional('CORS_ORIGINS', (v) => v.split(',').every((o) => /^https?:\/\/[^\s,/]+$/.test(o.trim())), 'a comma-separated list of origins like https://shop.example') ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    requestTimeoutMs: read.integer('REQUEST_TIMEOUT_MS', 30000, 1000, 600000),
    workers: read.integer('WORKERS', 1, 1, 64),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** Reads one variable at a time and collects every problem, so one start reports them all. */
export class EnvReader {
  constructor(
    private readonly env: Env,
    private readonly problems: string[],
  ) {}

  private raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value === '' ? undefined : value;
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  optional(name: string, valid: (value: string) => boolean, expected: string): string | undefined {
    const value = this.raw(name);
    if (value !== undefined && !valid(value)) {
      this.problems.push(`${name} must be ${expected}`);
      return undefined;
    }
    return value;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || n < min || n > max) {
      this.problems.push(`${name}=${JSON.stringify(value)} must be an integer from ${min} to ${max}`);
      return fallback;
    }
    return n;
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(value)) return true;
    if (['false', '0', 'no', 'off'].includes(value)) return false;
    this.problems.push(`${name}=${JSON.stringify(value)} must be true or false`);
    return fallback;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name}=${JSON.stringify(value)} must be one of ${allowed.join(', ')}`);
      return fallback;
    }
    return value as T;
  }
}
