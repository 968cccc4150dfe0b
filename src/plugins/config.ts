/**
 * Configuration, read from the environment and validated once at start. A bad value stops the
 * start with a message that names the variable, the value and what is expected.
 */
import { isIP } from 'node:net';
import { resolve } from 'node:path';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** A replica, or a router to replicas, for storefront catalog reads; absent: every read on DATABASE_URL. */
  databaseReadUrl: string | undefined;
  /** A replica further behind the primary than this (or not answering) is skipped for the primary. */
  databaseReadMaxLagMs: number;
  /** False behind a transaction pooler (PgBouncer's transaction mode): no named prepared statements. */
  dbPreparedStatements: boolean;
  rootToken: string | undefined;
  seedDemo: boolean;
  cartTtlSeconds: number;
  /** How long a checkout hold lasts (POST /v1/carts/:id/hold). */
  cartHoldSeconds: number;
  /** Longest a hold may be renewed for, from when it was first taken; then a renewal is 409 HOLD_LIMIT_REACHED. */
  cartHoldMaxSeconds: number;
  /** Held carts one client address may keep per store at once (public callers; 0 = no limit). */
  holdsPerClient: number;
  /** Unpaid (CREATED) orders one client address may have per store, placed with public credentials (0 = no limit). */
  unpaidOrdersPerClient: number;
  /** Discount codes that do not apply one client address may try per minute and store (0 = no limit). */
  discountAttemptsPerMinute: number;
  /** How often expired carts are marked, old ones purged and expired idempotency keys deleted; 0 = never. */
  maintenanceIntervalSeconds: number;
  logLevel: LogLevel;
  dbPoolSize: number;
  dbStatementTimeoutMs: number;
  dbConnectTimeoutMs: number;
  /** Requests per minute per secret token (admin, server). */
  rateLimitPerMinute: number;
  /** Requests per minute per store and client address for public callers. */
  clientRateLimitPerMinute: number;
  orderRateLimitPerMinute: number;
  guestSessionTtlSeconds: number;
  guestSessionsPerMinute: number;
  /** Least time between two fetches of a store's JWK Set for an unknown `kid`. */
  jwksRefetchCooldownSeconds: number;
  redisUrl: string | undefined;
  metricsToken: string | undefined;
  corsOrigins: string[];
  requestTimeoutMs: number;
  workers: number;
  /** Catalog answers kept in memory per process; 0 turns the cache off (every read asks the database). */
  catalogCacheEntries: number;
  /** Days the events feed keeps an event (the maintenance job purges older ones). */
  eventRetentionDays: number;
  /** Delays before each webhook retry; after the last one the delivery is `failed`. */
  webhookRetryScheduleSeconds: number[];
  /** An endpoint whose deliveries have all failed for this long is disabled. */
  webhookDisableAfterHours: number;
  /** Allows http and private, loopback and link-local targets for webhooks and JWK Sets (development, tests). */
  allowPrivateNetworks: boolean;
  /** Issuers several stores may register, each with its own audience (e.g. https://accounts.google.com). */
  sharedJwtIssuers: string[];
  /** How often each process looks for due deliveries; 0 = this process sends none. */
  webhookPollIntervalMs: number;
  /** Deliveries a process sends at once. */
  webhookConcurrency: number;
  /** Requests per second a process receives from which its deliveries yield to them (one claim per poll); 0 = never. */
  webhookYieldRequestsPerSecond: number;
  /** Requests a second, other than Stripe's webhooks, at which a store's payment rounds give way to them (0: never). */
  paymentYieldRequestsPerSecond: number;
  /** Longest wait for a receiver's answer (the contract's 10 s; tests shorten it). */
  webhookTimeoutMs: number;
  /** Fastify's `trustProxy`: whose X-Forwarded-For names the client (false: nobody's; never every hop). */
  trustProxy: false | number | string[];
  /** Longest the start waits for an unreachable DATABASE_URL before it gives up. */
  dbStartTimeoutSeconds: number;
  /** 32 bytes, base64: encrypts payment providers' secrets at rest (AES-256-GCM). */
  secretsKey: string | undefined;
  /** Where the Stripe client sends its calls (tests and operators point it elsewhere). */
  stripeApiUrl: URL;
  /** Longest wait for one answer of a payment provider (the SDK retries once, with the same idempotency key). */
  paymentProviderTimeoutMs: number;
  /** A pending Stripe payment older than this is asked of Stripe by the service (a lost webhook). */
  paymentSyncAfterSeconds: number;
  /** How often pending payments, owed refunds and unpaid orders are looked at; 0 = never. */
  paymentJobIntervalSeconds: number;
}

/** Root tokens shown in the README or in common examples: a start with one of them is refused. */
const EXAMPLE_ROOT_TOKENS = ['change-me-to-a-long-secret', 'change-me-to-a-long-secret-of-32-chars'];

/** The rule for STOREFRONT_ROOT_TOKEN (docs/configuration.md); answers what is wrong, or undefined. */
export function rootTokenProblem(token: string): string | undefined {
  if (token.length < 32) return 'must be at least 32 characters (generate one with: openssl rand -base64 32)';
  if (/\s/.test(token)) return 'must not contain spaces';
  if (new Set(token).size === 1) return 'must not be a single repeated character';
  if (EXAMPLE_ROOT_TOKENS.includes(token) || /change-?me/i.test(token)) return 'must not be an example value; generate one with: openssl rand -base64 32';
  return undefined;
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
  const databaseUrl = read.optional('DATABASE_URL', (v) => /^postgres(ql)?:\/\/.+/.test(v), 'a postgres:// or postgresql:// URL');
  const config: Config = {
    port: read.integer('PORT', 3000, 0, 65535),
    host: read.string('HOST', '127.0.0.1'),
    dataDir: resolve(read.string('DATA_DIR', './data')),
    databaseUrl,
    databaseReadUrl: read.optional('DATABASE_READ_URL', (v) => /^postgres(ql)?:\/\/.+/.test(v), 'a postgres:// or postgresql:// URL of a replica (or of a router to replicas)'),
    databaseReadMaxLagMs: read.integer('DATABASE_READ_MAX_LAG_MS', 1000, 0, 3_600_000),
    dbPreparedStatements: read.boolean('DB_PREPARED_STATEMENTS', true),
    rootToken: read.checked('STOREFRONT_ROOT_TOKEN', rootTokenProblem),
    // A production database (DATABASE_URL) never gets a demo store, and its tokens in the logs, by accident.
    seedDemo: read.boolean('SEED_DEMO', databaseUrl === undefined && !env.DATABASE_URL),
    cartTtlSeconds: read.integer('CART_TTL_SECONDS', 604800, 1, 10 * 365 * 86400),
    cartHoldSeconds: read.integer('CART_HOLD_SECONDS', 900, 1, 86400),
    cartHoldMaxSeconds: read.integer('CART_HOLD_MAX_SECONDS', 3600, 1, 10 * 86400),
    holdsPerClient: read.integer('HOLDS_PER_CLIENT', 3, 0, 1_000_000),
    unpaidOrdersPerClient: read.integer('UNPAID_ORDERS_PER_CLIENT', 3, 0, 1_000_000),
    discountAttemptsPerMinute: read.integer('DISCOUNT_ATTEMPTS_PER_MINUTE', 10, 0, 10_000_000),
    maintenanceIntervalSeconds: read.integer('MAINTENANCE_INTERVAL_SECONDS', 60, 0, 86400),
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    dbPoolSize: read.integer('DB_POOL_SIZE', 10, 1, 1000),
    dbStatementTimeoutMs: read.integer('DB_STATEMENT_TIMEOUT_MS', 15000, 100, 600000),
    dbConnectTimeoutMs: read.integer('DB_CONNECT_TIMEOUT_MS', 3000, 100, 600000),
    rateLimitPerMinute: read.integer('RATE_LIMIT_PER_MINUTE', 3000, 0, 10_000_000),
    clientRateLimitPerMinute: read.integer('CLIENT_RATE_LIMIT_PER_MINUTE', 600, 0, 10_000_000),
    orderRateLimitPerMinute: read.integer('ORDER_RATE_LIMIT_PER_MINUTE', 60, 0, 10_000_000),
    guestSessionTtlSeconds: read.integer('GUEST_SESSION_TTL_SECONDS', 86400, 60, 2592000),
    guestSessionsPerMinute: read.integer('GUEST_SESSIONS_PER_MINUTE', 20, 0, 10_000_000),
    jwksRefetchCooldownSeconds: read.integer('JWKS_REFETCH_COOLDOWN_SECONDS', 30, 0, 86400),
    redisUrl: read.optional('REDIS_URL', (v) => /^rediss?:\/\/.+/.test(v), 'a redis:// or rediss:// URL'),
    metricsToken: read.optional('METRICS_TOKEN', (v) => v.length >= 16 && !/\s/.test(v), 'at least 16 characters, no spaces'),
    corsOrigins: (read.optional('CORS_ORIGINS', (v) => v.split(',').every((o) => /^https?:\/\/[^\s,/]+$/.test(o.trim())), 'a comma-separated list of origins like https://shop.example') ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    requestTimeoutMs: read.integer('REQUEST_TIMEOUT_MS', 30000, 1000, 600000),
    workers: read.integer('WORKERS', 1, 1, 64),
    catalogCacheEntries: read.integer('CATALOG_CACHE_ENTRIES', 5000, 0, 1_000_000),
    eventRetentionDays: read.integer('EVENT_RETENTION_DAYS', 30, 1, 3650),
    webhookRetryScheduleSeconds: read.integerList('WEBHOOK_RETRY_SCHEDULE_SECONDS', [5, 30, 120, 600, 1800, 3600, 10800, 21600, 43200, 86400], 0, 30 * 86400),
    webhookDisableAfterHours: read.integer('WEBHOOK_DISABLE_AFTER_HOURS', 120, 1, 10 * 365 * 24),
    allowPrivateNetworks: read.allowPrivateNetworks(),
    sharedJwtIssuers: (env.SHARED_JWT_ISSUERS ?? '').split(',').map((issuer) => issuer.trim()).filter(Boolean),
    webhookPollIntervalMs: read.integer('WEBHOOK_POLL_INTERVAL_MS', 1000, 0, 600000),
    webhookConcurrency: read.integer('WEBHOOK_CONCURRENCY', 32, 1, 1000),
    webhookYieldRequestsPerSecond: read.integer('WEBHOOK_YIELD_REQUESTS_PER_SECOND', 500, 0, 1000000),
    paymentYieldRequestsPerSecond: read.integer('PAYMENT_YIELD_REQUESTS_PER_SECOND', 100, 0, 1000000),
    webhookTimeoutMs: read.integer('WEBHOOK_TIMEOUT_MS', 10000, 100, 60000),
    trustProxy: read.trustProxy('TRUST_PROXY'),
    dbStartTimeoutSeconds: read.integer('DB_START_TIMEOUT_SECONDS', 30, 0, 3600),
    secretsKey: read.optional('SECRETS_KEY', (v) => Buffer.from(v, 'base64').length === 32, '32 bytes in base64 (generate one with: openssl rand -base64 32)'),
    stripeApiUrl: new URL(read.optional('STRIPE_API_URL', (v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), 'an http:// or https:// URL') ?? 'https://api.stripe.com'),
    paymentProviderTimeoutMs: read.integer('PAYMENT_PROVIDER_TIMEOUT_MS', 10000, 100, 120000),
    paymentSyncAfterSeconds: read.integer('PAYMENT_SYNC_AFTER_SECONDS', 600, 0, 86400),
    paymentJobIntervalSeconds: read.integer('PAYMENT_JOB_INTERVAL_SECONDS', 60, 0, 86400),
  };
  if (config.databaseReadUrl && !env.DATABASE_URL) {
    problems.push('DATABASE_READ_URL needs DATABASE_URL: read replicas follow a PostgreSQL server, and the embedded database has none');
  }
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

  /** An optional value checked by `problemOf`, which answers what is wrong with it. */
  checked(name: string, problemOf: (value: string) => string | undefined): string | undefined {
    const value = this.raw(name);
    const problem = value === undefined ? undefined : problemOf(value);
    if (problem) {
      this.problems.push(`${name} ${problem}`);
      return undefined;
    }
    return value;
  }

  /**
   * `false`, a hop count, or a comma-separated list of proxy addresses or CIDRs. `true` (trust every
   * hop) is refused: any client could then name its own address and step around every per-client limit.
   */
  trustProxy(name: string): false | number | string[] {
    const value = this.raw(name)?.trim();
    if (value === undefined) return false;
    if (/^true$/i.test(value)) {
      this.problems.push(`${name}=true trusts every hop, so any client can name its own address in X-Forwarded-For and escape every per-client limit: set the hop count of your proxies (e.g. 1) or their addresses or CIDRs (e.g. 10.0.0.0/8)`);
      return false;
    }
    if (/^false$/i.test(value)) return false;
    if (/^\d+$/.test(value)) return Number(value);
    const entries = value.split(',').map((e) => e.trim()).filter(Boolean);
    const valid = (entry: string) => {
      const [address, bits, extra] = entry.split('/');
      const family = isIP(address ?? '');
      if (!family || extra !== undefined) return false;
      return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
    };
    if (entries.length === 0 || !entries.every(valid)) {
      this.problems.push(`${name}=${JSON.stringify(value)} must be false, a hop count, or a comma-separated list of proxy addresses or CIDRs (e.g. 10.0.0.0/8,::1)`);
      return false;
    }
    return entries;
  }

  /** ALLOW_PRIVATE_NETWORKS, or its older name WEBHOOK_ALLOW_PRIVATE_NETWORKS; two values that disagree are refused. */
  allowPrivateNetworks(): boolean {
    const current = this.boolean('ALLOW_PRIVATE_NETWORKS', false);
    const older = this.boolean('WEBHOOK_ALLOW_PRIVATE_NETWORKS', false);
    if (this.raw('ALLOW_PRIVATE_NETWORKS') === undefined) return older;
    if (this.raw('WEBHOOK_ALLOW_PRIVATE_NETWORKS') !== undefined && current !== older) {
      this.problems.push('ALLOW_PRIVATE_NETWORKS and its older name WEBHOOK_ALLOW_PRIVATE_NETWORKS disagree: set only ALLOW_PRIVATE_NETWORKS');
    }
    return current;
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

  /** A comma-separated list of integers, each within min..max, at least one. */
  integerList(name: string, fallback: number[], min: number, max: number): number[] {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const parts = value.split(',').map((p) => p.trim());
    if (parts.length > 100 || !parts.every((p) => /^\d+$/.test(p) && Number(p) >= min && Number(p) <= max)) {
      this.problems.push(`${name}=${JSON.stringify(value)} must be a comma-separated list of integers from ${min} to ${max}`);
      return fallback;
    }
    return parts.map(Number);
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
