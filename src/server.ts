/**
 * Starts the service: configuration, database and migrations, demo seed, then listen. With
 * WORKERS=N (PostgreSQL only) a primary process prepares the database once and forks N workers
 * that share the port; it restarts a worker that dies and stops them all on SIGTERM or SIGINT.
 */
import cluster from 'node:cluster';
import { buildApp } from './app.js';
import { openConfiguredDatabase } from './bootstrap.js';
import { ConfigError, loadConfig, type Config } from './plugins/config.js';
import { seedDemoStore, type SeededStore } from './seed/demo.js';
import { exportLine, readDemoTokens, shownPath, writeDemoTokens } from './seed/demo-tokens.js';
import { hasStores } from './modules/stores/index.js';
import type { Database } from './db/client.js';
import { databaseAddress, describeStartFailure } from './start-failure.js';

function readConfig(): Config {
  try {
    const config = loadConfig();
    if (config.workers > 1 && !config.databaseUrl) {
      throw new ConfigError([`WORKERS=${config.workers} needs DATABASE_URL: the embedded database serves one process`]);
    }
    return config;
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

function apiBase(config: Config, port: number): string {
  return `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}/api`;
}

function banner(config: Config, port: number, seeded: SeededStore | undefined): string {
  const base = apiBase(config, port);
  const where = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PostgreSQL in ${config.dataDir}`;
  const workers = config.workers > 1 ? ` with ${config.workers} workers` : '';
  const lines = [`Storefront API on ${base}/v1 using ${where}${workers}`, `Docs: ${base}/docs   OpenAPI: ${base}/openapi.json`];
  if (seeded) {
    // One line a newcomer may paste into another terminal; the file below holds the same.
    lines.push(
      `Demo store "${seeded.store.slug}" created with an admin token (ADMIN) and a storefront token (SF):`,
      `  ${exportLine(base, seeded.tokens)}`,
      `Dashboard: ${base.slice(0, -'/api'.length)}/admin   store: ${seeded.store.slug}   email: ${seeded.owner.email}   password: ${seeded.owner.password}`,
    );
  }
  // On the embedded database the demo store's tokens are kept in a file of DATA_DIR, so that a
  // restart (the walkthrough's own, with another setting) leaves the newcomer able to go on.
  const kept = config.databaseUrl ? undefined : (seeded?.tokens ?? readDemoTokens(config.dataDir));
  if (kept) {
    const file = shownPath(writeDemoTokens(config.dataDir, base, kept));
    lines.push(`The demo store's tokens are kept in ${file} (owner-only); load them in another terminal (the README's walkthrough does) with:`, `  . ${file}`);
  }
  return lines.join('\n');
}

/** Told once while the start waits for a PostgreSQL server that does not answer yet. */
function waitingForDatabase(config: Config) {
  return () => {
    const where = config.databaseUrl ? `PostgreSQL at ${databaseAddress(config.databaseUrl)}` : 'the embedded database';
    console.error(`waiting up to ${config.dbStartTimeoutSeconds} s for ${where} to answer (DB_START_TIMEOUT_SECONDS)...`);
  };
}

/** Several processes that each count rate limits alone let through several times the limit. */
function warnAboutSeparateCounters(config: Config): void {
  if (config.workers > 1 && !config.redisUrl) {
    console.error(
      `warning: WORKERS=${config.workers} without REDIS_URL: several processes count alone, so each allows the whole rate limit (up to ${config.workers} times it in all); set REDIS_URL to share the counters`,
    );
  }
}

/**
 * Without STOREFRONT_ROOT_TOKEN only the CLI can create a store; a newcomer on an empty database
 * (a fresh PostgreSQL, or SEED_DEMO=false) would otherwise get 401 from every call with no hint.
 */
async function warnWhenNoStoreCanBeCreated(config: Config, db: Database): Promise<void> {
  if (config.rootToken || (await hasStores(db))) return;
  console.error(
    'warning: the database holds no store and STOREFRONT_ROOT_TOKEN is not set, so no store can be created over HTTP: ' +
      'set STOREFRONT_ROOT_TOKEN (make one with `openssl rand -base64 32`) and start again, ' +
      'or create one with `npm run cli -- store create <slug> --name "Name"`',
  );
}

/** Migrates and seeds; answers the demo store's tokens when it was just created. */
async function prepareDatabase(config: Config): Promise<SeededStore | undefined> {
  const database = await openConfiguredDatabase(config, { onWait: waitingForDatabase(config) });
  try {
    const seeded = config.seedDemo ? await seedDemoStore(database.db) : undefined;
    await warnWhenNoStoreCanBeCreated(config, database.db);
    return seeded;
  } finally {
    await database.close();
  }
}

/** One serving process; resolves once it listens. */
async function serve(config: Config, { seed }: { seed: boolean }): Promise<void> {
  const database = await openConfiguredDatabase(config, { onWait: waitingForDatabase(config) });
  const seeded = seed && config.seedDemo ? await seedDemoStore(database.db) : undefined;
  // Kept before listening: a start that then fails (its port in use) must not lose the only copy.
  if (seeded && !config.databaseUrl) writeDemoTokens(config.dataDir, apiBase(config, config.port), seeded.tokens);
  if (seed) await warnWhenNoStoreCanBeCreated(config, database.db);
  const app = await buildApp({ config, database, logger: { level: config.logLevel } });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'closing: finishing in-flight requests');
    try {
      await app.close();
      await database.close();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'unclean shutdown');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close().catch(() => {});
    await database.close().catch(() => {});
    throw error;
  }
  const address = app.server.address();
  if (cluster.isPrimary) console.log(banner(config, typeof address === 'object' && address ? address.port : config.port, seeded));
}

async function runPrimary(config: Config): Promise<void> {
  warnAboutSeparateCounters(config);
  const seeded = await prepareDatabase(config);
  let stopping = false;
  const fork = () => cluster.fork({ SEED_DEMO: 'false' });
  for (let i = 0; i < config.workers; i++) fork();
  let listening = 0;
  cluster.on('listening', (_worker, address) => {
    if (++listening === config.workers) console.log(banner(config, address.port, seeded));
  });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    console.error(`worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
    fork();
  });
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {});
    if (workers.length === 0) process.exit(0);
    for (const worker of workers) worker?.process.kill('SIGTERM');
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

const config = readConfig();
const started = config.workers > 1 && cluster.isPrimary ? runPrimary(config) : serve(config, { seed: !cluster.isWorker });
started.catch((error: unknown) => {
  // One line naming the setting and the cause; the stack only with LOG_LEVEL=debug or trace.
  console.error(describeStartFailure(error, config));
  if (config.logLevel === 'debug' || config.logLevel === 'trace') console.error(error);
  process.exit(1);
});
