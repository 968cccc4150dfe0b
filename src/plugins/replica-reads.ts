/**
 * Storefront catalog reads on a read replica (DATABASE_READ_URL). A route opts in with
 * `config: { readsFromReplica: true }` and reads through `readCatalog`; everything else (writes,
 * carts, orders, tokens, every read inside a write) stays on the primary.
 *
 * A replica answers a read only when (db/replica.ts) it lags at most DATABASE_READ_MAX_LAG_MS and
 * answers at all, and when it has replayed this process's last catalog change of the store (the
 * primary's position right after it): a shopper who just ordered never sees stock older than the
 * order. Its answer is cached (catalog/cache.ts) under the request's catalog version only when it
 * has also replayed the primary's position sampled after that version was first seen here, so an
 * answer older than a version is never filed under it.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { queryRows } from '../db/client.js';
import { parseLsn, ReplicaRouter, type Lsn } from '../db/replica.js';
import { storePrincipalOf } from './authentication.js';
import { BoundedMap } from '../lib/bounded-map.js';

/** How many stores' catalog versions one process remembers (docs/performance.md, Memory). */
export const STORES_REMEMBERED = 10_000;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A storefront catalog read that a read replica may answer (DATABASE_READ_URL). */
    readsFromReplica?: boolean;
  }
  interface FastifyInstance {
    /** The read replica's rules, when DATABASE_READ_URL is set. */
    replicaReads: ReplicaReads | null;
  }
}

interface VersionSeen {
  version: number;
  seenAt: number;
  /** The primary's position sampled after `seenAt`: a replica there holds all of `version`. */
  floor?: Lsn;
}

export class ReplicaReads {
  /** Per store, the primary's position after this process's last change of its catalog. */
  private readonly changes = new Map<string, { lsn: Lsn; at: number }>();
  // Bounded: a store forgotten here only has its next replica answer not cached (no floor known yet).
  private readonly versions = new BoundedMap<string, VersionSeen>(STORES_REMEMBERED);
  private sweptAt = 0;

  constructor(readonly router: ReplicaRouter) {}

  /** Remembers where the primary was once a catalog change of the store committed. */
  noteCatalogChange(store: string, position: string) {
    const lsn = parseLsn(position);
    const known = this.changes.get(store);
    if (!known || known.lsn < lsn) this.changes.set(store, { lsn, at: Date.now() });
  }

  /**
   * The read on a replica when one may answer it, else undefined; `fileable`: it may be cached under
   * `version`, and, with `since` (ms), the replica has replayed what the primary held at that time.
   */
  async read<T>(store: string, version: number, work: (db: Database) => Promise<T>, since?: number): Promise<{ value: T; fileable: boolean } | undefined> {
    this.forgetSettled();
    const floor = this.floorOf(store, version);
    const held = since === undefined ? 0n : this.router.positionAfter(since);
    const read = await this.router.read(work, this.changes.get(store)?.lsn ?? 0n);
    if ('skipped' in read) return undefined;
    return { value: read.value, fileable: floor !== undefined && held !== undefined && read.replayed >= floor && read.replayed >= held };
  }

  private floorOf(store: string, version: number): Lsn | undefined {
    const seen = this.versions.get(store);
    if (!seen || seen.version < version) {
      this.versions.set(store, { version, seenAt: Date.now() });
      return undefined;
    }
    if (seen.version > version) return undefined;
    seen.floor ??= this.router.positionAfter(seen.seenAt);
    return seen.floor;
  }

  /**
   * A change older than the allowed lag needs no remembering: a replica that has not replayed it
   * lags more than that, and is skipped anyway.
   */
  private forgetSettled() {
    const now = Date.now();
    if (now - this.sweptAt < this.router.sampleMs) return;
    this.sweptAt = now;
    const before = now - this.router.maxLagMs - 4 * this.router.sampleMs;
    for (const [store, change] of this.changes) if (change.at < before) this.changes.delete(store);
  }
}

/**
 * Runs a catalog read of the request: on a replica when its route opted in and a replica may answer
 * it, otherwise on the primary. `fileable` tells whether the answer may be cached under the
 * request's catalog version (and, with `since`, as holding the checkout-hold changes the process
 * learned of by that time, see modules/catalog/held-marks.ts).
 */
export async function readCatalog<T>(request: FastifyRequest, work: (db: Database) => Promise<T>, since?: number): Promise<{ value: T; fileable: boolean }> {
  const app = request.server;
  if (app.replicaReads && request.routeOptions.config.readsFromReplica) {
    const { store, catalogVersion } = storePrincipalOf(request);
    const read = await app.replicaReads.read(store, catalogVersion, work, since);
    if (read) return read;
  }
  return { value: await work(app.db), fileable: true };
}

export default fp(
  async (app: FastifyInstance) => {
    const { config } = app;
    // An allowance of 0 ms: no replica is ever fresh enough, so none is asked.
    if (!config.databaseReadUrl || config.databaseReadMaxLagMs === 0) {
      app.decorate('replicaReads', null);
      return;
    }
    if (app.database.kind !== 'postgres') throw new Error('DATABASE_READ_URL needs DATABASE_URL: the embedded database has no replicas');
    const router = await ReplicaRouter.open({
      url: config.databaseReadUrl,
      maxLagMs: config.databaseReadMaxLagMs,
      poolSize: config.dbPoolSize,
      statementTimeoutMs: config.dbStatementTimeoutMs,
      connectTimeoutMs: config.dbConnectTimeoutMs,
      preparedStatements: config.dbPreparedStatements,
      applicationName: 'storefront-read',
      primaryPosition: async () => (await queryRows<{ lsn: string }>(app.db, sql`select pg_current_wal_insert_lsn()::text as lsn`))[0]!.lsn,
    });
    app.decorate('replicaReads', new ReplicaReads(router));
    app.addHook('onClose', () => router.close());
  },
  { name: 'replica-reads' },
);
