/**
 * The `pg` pool of a PostgreSQL server (the primary, or a read replica): the service's timeouts,
 * and guards on every connection for what a failover or a transaction pooler brings.
 */
import pg from 'pg';
import { drizzle } from 'drizzle-orm/node-postgres';
import * as schema from './schema.js';
import { PREPARED_MARK, queryCounter, type Database, type DatabaseOptions } from './client.js';
import { postgresErrorCode, READ_ONLY_TRANSACTION } from './errors.js';

// COUNT(*) and other int8 values fit a JavaScript number in this service (no table nears 2^53).
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

export async function openPool(url: string, options: DatabaseOptions): Promise<Pool> {
  const pooled = options.preparedStatements === false;
  const pool = new pg.Pool({
    connectionString: url,
    application_name: options.applicationName ?? 'storefront',
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    // PgBouncer refuses a statement_timeout startup parameter: behind it, the server's own
    // setting applies (ALTER ROLE ... SET statement_timeout).
    statement_timeout: pooled ? undefined : (options.statementTimeoutMs ?? 15000),
    // The server cancels a slow statement; this bounds a wait on a server that vanished silently.
    query_timeout: (options.statementTimeoutMs ?? 15000) + 2000,
    keepAlive: true,
    idleTimeoutMillis: 30000,
  });
  // A connection that the server drops (a restart, an administrator's terminate) must not crash the
  // process: idle ones report to the pool, checked-out ones (between two statements of a transaction)
  // to their own client. The statement in flight fails with the error; the pool discards the client.
  pool.on('error', () => {});
  const readOnly = new WeakSet<object>();
  pool.on('connect', (client) => {
    client.on('error', () => {});
    guardConnection(client, { unnamed: pooled, onReadOnly: () => readOnly.add(client) });
  });
  // A server that turned into a replica under a kept connection (a failover behind a router that
  // kept it open) answers every write with 25006: that connection goes, the next one finds the primary.
  pool.on('release', (_error, client) => {
    if (readOnly.has(client)) client.end().catch(() => {});
  });
  return pool;
}

/** Drizzle over a pool, or over one checked-out connection. */
export function drizzleOver(client: Pool | PoolClient, onQuery?: () => void): Database {
  return drizzle(client, { schema, ...queryCounter(onQuery) }) as unknown as Database;
}

type QueryMethod = (...args: unknown[]) => unknown;

/**
 * The names of the statements marked as of fixed text (client.ts `prepared`), one per text for the
 * whole process: a connection parses a named statement the first time it runs it and then sends
 * only its values. Bounded: past the bound a marked statement runs unnamed, so a statement marked
 * by mistake (a text that changes) costs at most that many prepared statements per connection.
 */
const statementNames = new Map<string, string>();
const MAX_STATEMENT_NAMES = 500;

function nameOfStatement(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_STATEMENT_NAMES) {
    name = `storefront_${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * Wraps one connection's `query`: names a statement marked as of fixed text, or drops every name when
 * `unnamed` (Drizzle names the queries built with `.prepare(name)`), and reports a write refused by a
 * read-only server.
 */
function guardConnection(client: object, { unnamed, onReadOnly }: { unnamed: boolean; onReadOnly: () => void }) {
  const target = client as { query: QueryMethod };
  const query = target.query.bind(client) as QueryMethod;
  const watch = (error: unknown) => {
    if (postgresErrorCode(error) === READ_ONLY_TRANSACTION) onReadOnly();
  };
  target.query = (...args) => {
    const config = args[0];
    if (isPlainObject(config)) {
      if (unnamed) {
        if (config.name) args[0] = { ...config, name: undefined };
      } else if (!config.name && typeof config.text === 'string' && config.text.startsWith(PREPARED_MARK)) {
        const name = nameOfStatement(config.text);
        if (name) args[0] = { ...config, name };
      }
    }
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (error: unknown, result: unknown) => {
        watch(error);
        (callback as (error: unknown, result: unknown) => void)(error, result);
      };
      return query(...args);
    }
    const result = query(...args);
    if (result instanceof Promise) result.catch(watch);
    return result;
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}
