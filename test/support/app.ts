/**
 * Boots the whole app on a test database and talks to it over HTTP semantics (`app.inject`):
 * requests in, status, headers and JSON out. One app per test file; tests isolate by store.
 */
import { after } from 'node:test';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
import { loadConfig, type Config } from '../../src/plugins/config.js';
import { copyTemplate, TEST_DATABASE_URL, TEST_PREPARED_STATEMENTS } from './database.js';

export const ROOT_TOKEN = 'test-root-token-0123456789-abcdefghij';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  // Tests read answers field by field; the shapes are what the contract says.
  json: any;
  text: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as is, for malformed bodies. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface TestApp {
  app: FastifyInstance;
  database: DatabaseHandle;
  config: Config;
  request(method: string, url: string, options?: RequestOptions): Promise<Reply>;
}

/** Environment of every test app; a test may override any of it. */
export function testEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return { STOREFRONT_ROOT_TOKEN: ROOT_TOKEN, SEED_DEMO: 'false', LOG_LEVEL: 'silent', MAINTENANCE_INTERVAL_SECONDS: '0', RATE_LIMIT_PER_MINUTE: '0', CLIENT_RATE_LIMIT_PER_MINUTE: '0', ORDER_RATE_LIMIT_PER_MINUTE: '0', GUEST_SESSIONS_PER_MINUTE: '0', HOLDS_PER_CLIENT: '0', UNPAID_ORDERS_PER_CLIENT: '0', DISCOUNT_ATTEMPTS_PER_MINUTE: '0', WEBHOOK_POLL_INTERVAL_MS: '0', ...overrides };
}

/** Starts the app for this test file and closes it (and its database) when the file ends. */
export async function startTestApp(env: Record<string, string> = {}, extra: { onQuery?: () => void } = {}): Promise<TestApp> {
  let removeDataDir = () => {};
  let database: DatabaseHandle;
  if (TEST_DATABASE_URL) {
    database = await openDatabase({ url: TEST_DATABASE_URL, poolSize: 10, preparedStatements: TEST_PREPARED_STATEMENTS, onQuery: extra.onQuery });
  } else {
    const copy = copyTemplate();
    removeDataDir = copy.remove;
    database = await openDatabase({ dataDir: copy.dataDir, onQuery: extra.onQuery });
  }
  const config = loadConfig(testEnv(env));
  // TEST_LOG_LEVEL=error shows what a failing test's app logged (5xx causes, with stacks).
  const app = await buildApp({ config, database, logger: process.env.TEST_LOG_LEVEL ? { level: process.env.TEST_LOG_LEVEL } : false });
  await app.ready();
  after(async () => {
    await app.close();
    await database.close();
    removeDataDir();
  });
  return { app, database, config, request: (method, url, options) => inject(app, method, url, options) };
}

/** Another app on an already open database (other settings, same data); closed when the file ends. */
export async function startAppOn(
  database: DatabaseHandle,
  env: Record<string, string> = {},
  extra: { logger?: AppOptions['logger']; rateLimitPrefix?: string } = {},
): Promise<TestApp> {
  const config = loadConfig(testEnv(env));
  const app = await buildApp({ config, database, ...extra });
  await app.ready();
  after(() => app.close());
  return { app, database, config, request: (method, url, options) => inject(app, method, url, options) };
}

export async function inject(app: FastifyInstance, method: string, url: string, options: RequestOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let payload: string | Buffer | undefined;
  if (options.rawBody !== undefined) payload = options.rawBody;
  else if (options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await app.inject({ method: method as 'GET', url, headers, payload });
  let json: unknown;
  try {
    json = response.json();
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, headers: response.headers, json, text: response.body };
}

export const uniqueSlug = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
