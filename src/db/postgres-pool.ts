/**
 * The `pg` pool of a PostgreSQL server (the primary, or a read replica): the service's timeouts,
 * and guards on every connection for what a failover or a transaction pooler brings.
 */
import pg from 'pg';
import { drizzle } from 'drizzle-orm/node-postgres';
import * as schema from './schema.js';
import { LAST_MARK, PREPARED_MARK, queryCounter, type Database, type DatabaseOptions } from './client.js';
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

/** What Drizzle's `begin` and `commit` are answered with before the server has answered them: neither has rows. */
const BEGUN = Object.freeze({ command: 'BEGIN', rowCount: null, oid: 0, rows: [], fields: [] });
const COMMITTED = Object.freeze({ command: 'COMMIT', rowCount: null, oid: 0, rows: [], fields: [] });

/** The parts of node-postgres' connection that a query writes its messages with. */
interface Wire {
  parse(message: { text: string; name?: string }): void;
  bind(message: { portal?: string; statement?: string; values?: unknown[] }): void;
  execute(message: { portal?: string; rows?: number }): void;
  sync(): void;
}

const QUERY = pg.Query.prototype as unknown as { prepare(connection: Wire): void; _getRows(connection: Wire, rows?: number): void };

/** One statement of no values, unnamed, written into another's messages. */
function writeAlone(connection: Wire, text: string): void {
  connection.parse({ text, name: '' });
  connection.bind({ portal: '', statement: '', values: [] });
  connection.execute({ portal: '' });
}

/**
 * A statement with its transaction's BEGIN written ahead of it (`begin`), its COMMIT after it
 * (`commit`), or both, in the same messages: the server runs them in turn and answers all at the
 * one Sync, in one flush. Should BEGIN fail, the server skips the rest up to the Sync, so the
 * statement never runs outside the transaction; should the statement fail, it skips the COMMIT and
 * the transaction is rolled back as any failed one. A COMMIT that fails fails the statement.
 * Answers the statement's result alone.
 */
class WrappedQuery extends pg.Query {
  begin = false;
  commit = false;

  prepare(connection: Wire): void {
    if (this.begin) writeAlone(connection, 'begin');
    QUERY.prepare.call(this, connection);
  }

  _getRows(connection: Wire, rows?: number): void {
    if (!this.commit || rows) return QUERY._getRows.call(this, connection, rows);
    connection.execute({ portal: (this as unknown as { portal?: string }).portal ?? '' });
    writeAlone(connection, 'commit');
    connection.sync();
  }
}

/** A statement sent by the extended protocol (named, or with values), which BEGIN and COMMIT can go around: never a text of several statements. */
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
 * transaction's first statement, in that statement's messages, and a statement marked as the
 * transaction's last (client.ts `lastInTransaction`) has the COMMIT written after it, Drizzle's
 * `commit` then answered at once (`WrappedQuery`): each round of the write pipeline is a transaction
 * of a few statements, and each takes a round trip off it. A first statement that does not go by
 * the extended protocol (no values: it may hold several statements) gets its BEGIN sent alone first,
 * as always; so does a last one its COMMIT, and so does one inside a savepoint (the transaction goes
 * on after it). Behind a transaction pooler (`unnamed`) BEGIN and COMMIT always go alone.
 */
function guardConnection(client: object, { unnamed, onReadOnly }: { unnamed: boolean; onReadOnly: () => void }) {
  const target = client as { query: QueryMethod };
  const query = target.query.bind(client) as QueryMethod;
  const watch = (error: unknown) => {
    if (postgresErrorCode(error) === READ_ONLY_TRANSACTION) onReadOnly();
  };
  // A BEGIN answered and not yet sent: it goes with the next statement.
  let begun = false;
  // Inside a transaction this wrapper saw begin, and how many savepoints deep.
  let inTransaction = false;
  let savepoints = 0;
  // A COMMIT already run after the transaction's last statement: Drizzle's `commit` is answered at once.
  let committed = false;
  target.query = (...args) => {
    const config = args[0];
    const last = args.length - 1;
    const promised = typeof args[last] !== 'function';
    const text = isPlainObject(config) && typeof config.text === 'string' && !config.name ? config.text : undefined;
    if (committed) {
      committed = false;
      if (promised && text === 'commit') return Promise.resolve(COMMITTED);
    }
    // Where the connection is, from the statements that move it (Drizzle's, or a plain text's).
    const control = (typeof config === 'string' ? config : text)?.trim().toLowerCase();
    if (control === 'begin' || control === 'commit' || control === 'rollback') {
      inTransaction = control === 'begin';
      savepoints = 0;
    } else if (control?.startsWith('savepoint ')) savepoints++;
    else if (control?.startsWith('release savepoint ') || control?.startsWith('rollback to savepoint ')) savepoints = Math.max(0, savepoints - 1);
    if (!unnamed && promised && text === 'begin') {
      begun = true;
      return Promise.resolve(BEGUN);
    }
    let lastOfTransaction = false;
    if (isPlainObject(config) && typeof config.text === 'string' && config.text.startsWith(LAST_MARK)) {
      args[0] = { ...config, text: config.text.slice(LAST_MARK.length) };
      lastOfTransaction = !unnamed && promised && inTransaction && savepoints === 0 && isExtended(config, args[1]);
    }
    if (begun) {
      begun = false;
      if (!(promised && isPlainObject(args[0]) && isExtended(args[0] as Record<string, unknown>, args[1]))) {
        const sent = query({ text: 'begin' }) as Promise<unknown>;
        if (promised) return sent.then(() => target.query(...args));
        sent.then(() => target.query(...args), (error: unknown) => (args[last] as (error: unknown) => void)(error));
        return undefined;
      }
      return wrapped(args, true, lastOfTransaction);
    }
    if (lastOfTransaction) return wrapped(args, false, true);
    if (isPlainObject(args[0])) args[0] = namedConfig(args[0] as Record<string, unknown>, unnamed);
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

  /** A promised statement sent with its transaction's BEGIN ahead of it, or its COMMIT after it, or both. */
  function wrapped(args: unknown[], begin: boolean, commit: boolean): Promise<unknown> {
    const statement = new WrappedQuery(namedConfig(args[0] as Record<string, unknown>, unnamed) as unknown as pg.QueryConfig, args[1] as unknown[]) as WrappedQuery & {
      callback: (error: Error | null, results: unknown) => void;
    };
    statement.begin = begin;
    statement.commit = commit;
    return new Promise((resolve, reject) => {
      statement.callback = (error, results) => {
        if (error) {
          watch(error);
          reject(error);
          return;
        }
        if (commit) {
          committed = true;
          inTransaction = false;
        }
        resolve(Array.isArray(results) ? results[begin ? 1 : 0] : results);
      };
      query(statement);
    });
  }
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
