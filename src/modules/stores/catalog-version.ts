/**
 * The catalog version of a store: cached catalog answers are keyed by it (catalog/cache.ts). It is
 * a column of the store's row in store_versions, read with every token through the row's key. It
 * is bumped after the change commits and before the change is answered (commands declare
 * `changesCatalog`; the write pipeline does it), so a read that starts after the answer, in any
 * process, reads the new version and never an answer computed before the change. The bump is a
 * statement of its own: the row is locked only while it runs, never across a change's
 * transaction. Orders are the exception: their round locks these rows to its commit for their
 * numbers anyway, and bumps the version in that same update (order-numbers.ts), so the new version
 * becomes visible with the stock it took.
 *
 * Checkout holds change only the products they hold, and a storefront under attack may hold and
 * release many times a second, so they have a version of their own, `holds`, bumped the same way:
 * a process that reads a newer one learns which products changed (catalog_hold_marks, see
 * modules/catalog/held-marks.ts) and refreshes only the cached answers that show them.
 */
import { sql, type SQLWrapper } from 'drizzle-orm';
import { jsonb, prepared, queryRows, type Executor } from '../../db/client.js';

type Version = 'catalog' | 'holds';

const versionOf = (version: Version) => (store: SQLWrapper | string) =>
  sql<number>`coalesce((select known.${sql.raw(version)} from store_versions known where known.store = ${store}), 0)`;

/** The store's current catalog version (0 before its first change). */
export const catalogVersionOf = versionOf('catalog');

/** The store's current holds version (0 before its first hold changed). */
export const holdsVersionOf = versionOf('holds');

/** Makes a new store's versions row; in the transaction that creates the store. */
export async function createCatalogVersion(db: Executor, store: string): Promise<void> {
  await db.execute(sql`insert into store_versions (store) values (${store})`);
}

/**
 * Bumps one kind of version of several stores with one statement: the write pipeline bumps the
 * stores of a round of requests together. Their rows are locked in store order, so two processes
 * bumping overlapping stores wait for each other instead of deadlocking. The WAL position, when
 * asked, is read after every bump.
 */
function markManyChanged(version: Version) {
  const column = sql.raw(version);
  return async (db: Executor, stores: string[], { position = false } = {}): Promise<string | undefined> => {
    const [row] = await queryRows<{ lsn: string | null }>(
      db,
      // `= any(array(...))` finds the rows through the key: an `in (subquery)` or a join here
      // made PostgreSQL read the whole table, twice, on every bump.
      prepared(sql`with locked as (
            select v.store from store_versions v where v.store = any(array(select jsonb_array_elements_text(${jsonb(stores)}))) order by v.store for no key update),
          bumped as (update store_versions v set ${column} = v.${column} + 1 where v.store = any(array(select store from locked)) returning 1)
        select count(*) as bumped, ${position ? sql`pg_current_wal_insert_lsn()::text` : sql`null::text`} as lsn from bumped`),
    );
    return row?.lsn ?? undefined;
  };
}

/** Marks the stores' catalogs changed; call it after the change committed, before answering. */
export const markCatalogsChanged = markManyChanged('catalog');

/**
 * Marks one store's catalog changed; call it after the change committed, before answering. With
 * `position`, answers the primary's WAL position after it (read replicas must reach it).
 */
export function markCatalogChanged(db: Executor, store: string, options: { position?: boolean } = {}): Promise<string | undefined> {
  return markCatalogsChanged(db, [store], options);
}

/**
 * Marks that checkout holds of these stores changed (the products are in catalog_hold_marks,
 * written by the change's transaction); call it after the change committed, before answering.
 */
export const markHoldsChanged = markManyChanged('holds');
