/**
 * The catalog version of a store: cached catalog answers are keyed by it (catalog/cache.ts). It is
 * a sequence per store, so bumping it takes no row lock: orders of different products never queue
 * on a per-store row. It is bumped after the change commits and before the change is answered
 * (commands declare `changesCatalog`; the write pipeline does it), so a read that starts after the
 * answer, in any process, reads the new version and never an answer computed before the change.
 *
 * Checkout holds change only the products they hold, and a storefront under attack may hold and
 * release many times a second, so they have a version of their own, `catalog_holds_<slug>`, bumped
 * the same way: a process that reads a newer one learns which products changed (catalog_hold_marks,
 * see modules/catalog/held-marks.ts) and refreshes only the cached answers that show them.
 */
import { sql, type SQLWrapper } from 'drizzle-orm';
import { jsonb, prepared, queryRows, type Executor } from '../../db/client.js';

/** The store's version sequence, as a regclass expression over a store slug. */
export const versionSequence = (store: SQLWrapper | string) => sql`quote_ident('catalog_version_' || ${store})::regclass`;

/** The store's current catalog version (0 before its first change). */
export const catalogVersionOf = (store: SQLWrapper | string) => sql<number>`coalesce(pg_sequence_last_value(${versionSequence(store)}), 0)`;

/** The store's holds version sequence, as a regclass expression over a store slug. */
export const holdsSequence = (store: SQLWrapper | string) => sql`quote_ident('catalog_holds_' || ${store})::regclass`;

/** The store's current holds version (0 before its first hold changed). */
export const holdsVersionOf = (store: SQLWrapper | string) => sql<number>`coalesce(pg_sequence_last_value(${holdsSequence(store)}), 0)`;

/** Makes a new store's version sequences; in the transaction that creates the store (its slug is checked). */
export async function createCatalogVersion(db: Executor, store: string): Promise<void> {
  const slug = store.replaceAll('"', '""');
  await db.execute(sql.raw(`create sequence "catalog_version_${slug}"`));
  await db.execute(sql.raw(`create sequence "catalog_holds_${slug}"`));
}

/**
 * Marks the store's catalog changed; call it after the change committed, before answering. With
 * `position`, answers the primary's WAL position after it (read replicas must reach it).
 */
export async function markCatalogChanged(db: Executor, store: string, { position = false } = {}): Promise<string | undefined> {
  if (!position) {
    await db.execute(sql`select nextval(${versionSequence(store)})`);
    return undefined;
  }
  const [row] = await queryRows<{ lsn: string }>(db, sql`select nextval(${versionSequence(store)}), pg_current_wal_insert_lsn()::text as lsn`);
  return row?.lsn;
}

/**
 * Bumps one kind of version (`versionSequence` or `holdsSequence`) of several stores with one
 * statement: the write pipeline bumps the stores of a round of requests together. The WAL
 * position, when asked, is read after every bump.
 */
function markManyChanged(sequenceOf: (store: SQLWrapper) => SQLWrapper) {
  return async (db: Executor, stores: string[], { position = false } = {}): Promise<string | undefined> => {
    const [row] = await queryRows<{ lsn: string | null }>(
      db,
      prepared(sql`select count(nextval(${sequenceOf(sql`s.store`)})) as bumped, ${position ? sql`pg_current_wal_insert_lsn()::text` : sql`null::text`} as lsn
          from jsonb_array_elements_text(${jsonb(stores)}) as s(store)`),
    );
    return row?.lsn ?? undefined;
  };
}

/** `markCatalogChanged` for several stores. */
export const markCatalogsChanged = markManyChanged(versionSequence);

/**
 * Marks that checkout holds of these stores changed (the products are in catalog_hold_marks,
 * written by the change's transaction); call it after the change committed, before answering.
 */
export const markHoldsChanged = markManyChanged(holdsSequence);
