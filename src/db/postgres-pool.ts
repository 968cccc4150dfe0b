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

/** What Drizzle's `begin` is answered with before the server has answered it: BEGIN has no rows. */
const BEGUN = Object.freeze({ command: 'BEGIN', rowCount: null, oid: 0, rows: [], fields: [] });

/** The parts of node-postgres' connection that a query writes its messages with. */
interface Wire {
  parse(message: { text: string; name?: string }): void;
  bind(message: { portal?: string; statement?: string; values?: unknown[] }): void;
  execute(message: { portal?: string }): void;
}

/**
 * A statement with its transaction's BEGIN written ahead of it in the same messages: the server
 * runs BEGIN, then the statement, and answers both at the one Sync, in one flush. Should BEGIN fail,
 * the server skips the statement (everything up to the Sync), so it never runs outside the
 * transaction. Answers the statement's result alone.
 */
class BegunQuery extends pg.Query {
  prepare(connection: Wire): void {
    connection.parse({ text: 'begin', name: '' });
    connection.bind({ portal: '', statement: '', values: [] });
    connection.execute({ portal: '' });
    (pg.Query.prototype as unknown as { prepare(connection: Wire): void }).prepare.call(this, connection);
  }
}

/** A statement sent by the extended protocol (named, or with values), which BEGIN can go ahead of: never a text of several statements. */
function isExtended(config: Record<string, unknown>, values: unknown): boolean {
  const list = config.values ?? values;
  return typeof config.text === 'string' && (Boolean(config.name) || (Array.isArray(list) && list.length > 0));
}

/**
 * Wraps one connection's `query`: names a statement marked as of fixed text, or drops every name when
 * `unnamed` (Drizzle names the queries built with `.prepare(name)`), and reports a write refused by a
 * read-only server.
 *
 * A transaction's BEGIN (Drizzle's `begin`) is answered at once and written ahead of the
 * transaction's first statement, in that statement's messages (`BegunQuery`): each round of the
 * write pipeline is a transaction of a few statements, and this takes one round trip off each. A
 * first statement that does not go by the extended protocol (no values: it may hold several
 * statements) gets its BEGIN sent alone first, as always. Behind a transaction pooler (`unnamed`)
 * BEGIN always goes alone.
 */
function guardConnection(client: object, { unnamed, onReadOnly }: { unnamed: boolean; onReadOnly: () => void }) {
  const target = client as { query: QueryMethod };
  const query = target.query.bind(client) as QueryMethod;
  const watch = (error: unknown) => {
    if (postgresErrorCode(error) === READ_ONLY_TRANSACTION) onReadOnly();
  };
  // A BEGIN answered and not yet sent: it goes with the next statement.
  let begun = false;
  target.query = (...args) => {
    const config = args[0];
    const last = args.length - 1;
    const promised = typeof args[last] !== 'function';
    if (!unnamed && promised && isPlainObject(config) && config.text === 'begin' && !config.name) {
      begun = true;
      return Promise.resolve(BEGUN);
    }
    if (begun) {
      begun = false;
      if (!(promised && isPlainObject(config) && isExtended(config, args[1]))) {
        const sent = query({ text: 'begin' }) as Promise<unknown>;
        if (promised) return sent.then(() => target.query(...args));
        sent.then(() => target.query(...args), (error: unknown) => (args[last] as (error: unknown) => void)(error));
        return undefined;
      }
      const statement = new BegunQuery(namedConfig(config, unnamed) as unknown as pg.QueryConfig, args[1]) as BegunQuery & { callback: (error: Error | null, results: unknown) => void };
      return new Promise((resolve, reject) => {
        statement.callback = (error, results) => {
          if (error) {
            watch(error);
            reject(error);
          } else resolve(Array.isArray(results) ? results[results.length - 1] : results);
        };
        query(statement);
      });
    }
    if (isPlainObject(config)) args[0] = namedConfig(config, unnamed);
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

/** A query's config as this connection sends it: a statement marked as of fixed text named, or no name at all when `unnamed`. */
function namedConfig(config: Record<string, unknown>, unnamed: boolean): Record<string, unknown> {
  if (unnamed) return config.name ? { ...config, name: undefined } : config;
  if (!config.name && typeof config.text === 'string' && config.text.startsWith(PREPARED_MARK)) {
    const name = nameOfStatement(config.text);
    if (name) return { ...config, name };
  }
  return config;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}
