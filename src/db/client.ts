/**
 * One database handle for both back ends: PGlite (embedded, in DATA_DIR) and a PostgreSQL server
 * through `pg`. Both speak the same dialect, run the same migrations and the same SQL.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { sql, type ExtractTablesWithRelations, type SQL } from 'drizzle-orm';
import * as schema from './schema.js';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.js';

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** What a repository runs its SQL on: the database itself or an open transaction. */
export type Executor = Database | Transaction;

export interface DatabaseHandle {
  db: Database;
  kind: 'pglite' | 'postgres';
  /** Resolves when the database answers a trivial query within `timeoutMs`. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
  /** Connections in use and waiting, for metrics (PGlite has one connection). */
  poolStats(): { total: number; idle: number; waiting: number };
}

export interface DatabaseOptions {
  /** postgres://... for a server; absent for the embedded database. */
  url?: string;
  /** Data directory of the embedded database; absent means in memory. */
  dataDir?: string;
  poolSize?: number;
  /** Longest a query may run on the server before it is cancelled. */
  statementTimeoutMs?: number;
  /** Longest to wait for a connection before failing fast with 503. */
  connectTimeoutMs?: number;
  /** Called for every statement sent through Drizzle (tests count database work with it). */
  onQuery?: () => void;
  /**
   * False behind a transaction pooler (PgBouncer's transaction mode): every statement is unnamed,
   * since the next statement may run on another server connection, and no startup parameter the
   * pooler would refuse is sent. True by default.
   */
  preparedStatements?: boolean;
  /** The name the server shows for these connections (pg_stat_activity.application_name). */
  applicationName?: string;
}

/** Drizzle's logger option for `onQuery`. */
export const queryCounter = (onQuery: (() => void) | undefined) => (onQuery ? { logger: { logQuery: () => onQuery() } } : {});

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  return options.url ? openPostgres(options.url, options) : openPglite(options.dataDir, options.onQuery);
}

// Each driver is loaded only when used: a server on PostgreSQL never loads PGlite, and back.
async function openPostgres(url: string, options: DatabaseOptions): Promise<DatabaseHandle> {
  const { openPool, drizzleOver } = await import('./postgres-pool.js');
  const pool = await openPool(url, options);
  const db = drizzleOver(pool, options.onQuery);
  return {
    db,
    kind: 'postgres',
    async ping(timeoutMs = 2000) {
      await withTimeout(pool.query('select 1'), timeoutMs);
    },
    async close() {
      await pool.end();
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}

async function openPglite(dataDir: string | undefined, onQuery?: () => void): Promise<DatabaseHandle> {
  let lock: DataDirLock | undefined;
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    lock = acquireDataDirLock(dataDir);
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle: drizzlePglite } = await import('drizzle-orm/pglite');
  // Search needs these contrib extensions; PGlite loads an extension only when it is named here.
  const [{ unaccent }, { pg_trgm }, { fuzzystrmatch }] = await Promise.all([
    import('@electric-sql/pglite/contrib/unaccent'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
    import('@electric-sql/pglite/contrib/fuzzystrmatch'),
  ]);
  let client: InstanceType<typeof PGlite>;
  try {
    // The database lives in a subdirectory, beside the lock file: initdb wants an empty directory.
    client = new PGlite({ dataDir: dataDir ? join(dataDir, 'pgdata') : undefined, extensions: { unaccent, pg_trgm, fuzzystrmatch } });
    await client.waitReady;
  } catch (error) {
    lock?.release();
    throw error;
  }
  const db = drizzlePglite(client, { schema, ...queryCounter(onQuery) }) as unknown as Database;
  return {
    db,
    kind: 'pglite',
    async ping(timeoutMs = 2000) {
      await withTimeout(client.query('select 1'), timeoutMs);
    },
    async close() {
      try {
        await client.close();
      } finally {
        lock?.release();
      }
    },
    poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
  };
}

/**
 * How a statement says its text never changes (every value a parameter, every list one array or
 * jsonb parameter): the pool then names it (postgres-pool.ts), and each connection parses it once and
 * keeps its plan, instead of parsing and planning it on every call. A statement built with a list
 * of parameters (`valueList`) has a text of its own for every length and stays unnamed.
 */
export const PREPARED_MARK = '/* prepared */ ';
const preparedQueries = new WeakSet<SQL>();

/** A statement of fixed text, to prepare once per connection (see PREPARED_MARK). */
export function prepared(query: SQL): SQL {
  const marked = sql`${sql.raw(PREPARED_MARK)}${query}`;
  preparedQueries.add(marked);
  return marked;
}

/**
 * How a statement says it is its transaction's last: the pool writes the transaction's COMMIT in
 * the same messages, after it (postgres-pool.ts), and answers Drizzle's `commit` at once, so that the
 * commit costs no round trip of its own. Only the code that ends a transaction marks a statement,
 * the one after which it returns (the events and kept answers of a command's transaction); the
 * statement's error is then the commit's too. The embedded database runs it as any other.
 */
export const LAST_MARK = '/* last */ ';

/** The statement, marked as its transaction's last when `last` (see LAST_MARK). */
export function lastInTransaction(last: boolean, query: SQL): SQL {
  if (!last) return query;
  const marked = sql`${sql.raw(LAST_MARK)}${query}`;
  if (preparedQueries.has(query)) preparedQueries.add(marked);
  return marked;
}

/** A value as one jsonb parameter (a record set for `jsonb_to_recordset`, a document). */
export function jsonb(value: unknown): SQL {
  return sql`${JSON.stringify(value)}::jsonb`;
}

/** Values as a parameter list, for `in (...)`. */
export function valueList(values: string[]): SQL {
  return sql.join(values.map((value) => sql`${value}`), sql`, `);
}

/**
 * Values as one array parameter of SQL type `type[]` (an array literal, each element quoted): one
 * parameter however many values, and the planner knows how many rows its `unnest` gives.
 */
export function arrayOf(values: string[], type: 'text' | 'uuid'): SQL {
  return sql`${`{${values.map((v) => `"${v.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`}::${sql.raw(type)}[]`;
}

/**
 * Rows of several stores by their key, as a set for `(store, id) in (...)`: how a statement of a
 * round of many stores finds its rows (by the primary key's index, one probe per pair).
 */
export function storeKeys(keys: Array<{ store: string; id: string }>, idType: 'uuid' | 'text' = 'uuid'): SQL {
  return sql`select * from unnest(${arrayOf(keys.map((k) => k.store), 'text')}, ${arrayOf(keys.map((k) => k.id), idType)})`;
}

/**
 * Statements a module builds over its own tables, for a caller to send in one round trip with
 * statements of other modules (`together`). Inside a transaction each round trip is a wait on the
 * database with its locks held, so a command whose next steps do not depend on each other sends
 * them as one. Each statement's rows come back as JSON (timestamps as strings, bigints as numbers),
 * which the module's `decode` turns into its rows.
 */
export interface Part<T> {
  queries: SQL[];
  decode: (results: Array<Array<Record<string, unknown>>>) => T;
}

/** One statement and how its rows are read; a statement of nothing (no ids) is `nothing`. */
export function part<T>(query: SQL, decode: (rows: Array<Record<string, unknown>>) => T): Part<T> {
  return { queries: [query], decode: ([rows]) => decode(rows!) };
}

/** No statement at all: answers `value` (the rows of an empty id list). */
export function nothing<T>(value: T): Part<T> {
  return { queries: [], decode: () => value };
}

/** A part whose value is `f` of the other's. */
export function mapped<T, U>(p: Part<T>, f: (value: T) => U): Part<U> {
  return { queries: p.queries, decode: (results) => f(p.decode(results)) };
}

/** Several parts as one, answering each part's value in turn. */
export function parts<T extends readonly unknown[]>(list: { [K in keyof T]: Part<T[K]> }): Part<T> {
  const all = list as readonly Part<unknown>[];
  return {
    queries: all.flatMap((p) => p.queries),
    decode: (results) => {
      let at = 0;
      return all.map((p) => p.decode(results.slice(at, (at += p.queries.length)))) as unknown as T;
    },
  };
}

/**
 * Sends a part's statements as one: each a materialized CTE, answered as a JSON array in its own
 * rows' order. They run on one snapshot and none sees another's changes, so only statements that do
 * not depend on each other go together (two updates of different tables, reads of rows the
 * transaction already holds locked).
 */
export async function together<T>(db: Executor, p: Part<T>): Promise<T> {
  if (p.queries.length === 0) return p.decode([]);
  const ctes = p.queries.map((query, i) => sql`${sql.raw(`s${i}`)} as materialized (${query})`);
  const answers = p.queries.map((_, i) => sql.raw(`(select coalesce(json_agg(s${i}), '[]'::json) from s${i}) as s${i}`));
  const statement = sql`with ${sql.join(ctes, sql`, `)} select ${sql.join(answers, sql`, `)}`;
  // Of fixed text when each of its statements is: the parts present make a few shapes only.
  const fixed = p.queries.every((query) => preparedQueries.has(query));
  const [row] = await queryRows<Record<string, unknown>>(db, fixed ? prepared(statement) : statement);
  return p.decode(p.queries.map((_, i) => {
    const value = row![`s${i}`];
    return (typeof value === 'string' ? JSON.parse(value) : value) as Array<Record<string, unknown>>;
  }));
}

/**
 * A module's write to make inside another module's statement, so that a round's writes that depend
 * on none of each other's answers go in one round trip: `ctes` (one or more, comma-separated, the
 * last named `name` and returning a row for each row it changed), spliced in by `besideCtes`; the
 * statement answers how many rows that was (`besideCounts`), and `check` fails the round when it is
 * not what the module expected (which the round's locks make impossible; the guards are what make it
 * so regardless). The rows such a statement changes are already locked, or locked last (see the
 * callers), so its sub-statements running in any order cannot deadlock.
 */
export interface BesideWrite {
  ctes: SQL;
  name: string;
  check: (changed: number) => void;
}

/** The writes' CTEs, to open a statement's `with` (each followed by a comma). */
export function besideCtes(writes: BesideWrite[]): SQL {
  return sql.join(writes.map((w) => sql`${w.ctes}, `), sql``);
}

/** Columns `w0`, `w1`... of how many rows each write changed, for the statement's select list (each preceded by a comma). */
export function besideCounts(writes: BesideWrite[]): SQL {
  return sql.join(writes.map((w, i) => sql.raw(`, (select count(*) from ${w.name})::int as w${i}`)), sql``);
}

/** Checks each write's count in a row the statement answered. */
export function checkBeside(writes: BesideWrite[], row: Record<string, unknown>): void {
  writes.forEach((w, i) => w.check(Number(row[`w${i}`])));
}

/** Runs raw SQL and returns its rows (the same on both back ends). */
export async function queryRows<T>(executor: Executor, query: SQL): Promise<T[]> {
  const result = await executor.execute(query);
  return (result as unknown as { rows: T[] }).rows;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`database did not answer within ${ms} ms`), { code: 'ETIMEDOUT' })), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Advisory-lock classes (the two-key form), so per-client counts never share a lock with anything else. */
export const CLIENT_LOCK_CLASS = { holds: 31_001, unpaidOrders: 31_002 } as const;

/**
 * Takes transaction-level advisory locks on some clients of one store or several, with one
 * statement: a per-client count read under it stays true until the transaction ends, in every
 * process. Every key in one order (the lock key's), whatever store it belongs to, so rounds of one
 * store and of several never wait in a cycle.
 */
export async function lockStoresClients(tx: Executor, lockClass: number, stores: Array<{ store: string; clients: string[] }>): Promise<void> {
  const keys = [...new Set(stores.flatMap(({ store, clients }) => clients.map((client) => `${store}\n${client}`)))];
  if (keys.length === 0) return;
  // One statement: the aggregate takes the locks in the sorted subquery's order (by the lock key).
  await tx.execute(
    sql`select count(pg_advisory_xact_lock(${lockClass}, k)) from (select distinct hashtext(x) as k from unnest(array[${valueList(keys)}]::text[]) as x order by 1) as keys`,
  );
}
