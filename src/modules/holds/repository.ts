/**
 * Hold SQL: the units carts hold of products (cart_holds). A hold counts while its `until` is after
 * the statement's transaction time (`now()`), so an expired hold stops counting by itself; a
 * transaction that waited for a lock judges expiry at its start, which can only count a hold longer,
 * never shorter, so what is held plus what is ordered never exceeds the stock.
 */
import { sql, type SQL } from 'drizzle-orm';
import { besideCounts, besideCtes, checkBeside, jsonb, nothing, part, prepared, queryRows, storeKeys, together, type BesideWrite, type Executor, type Part } from '../../db/client.js';
import { asDate, toIso } from '../../lib/time.js';

/** Units of a product one cart holds; `cartId` null: the sum of what other carts hold of it. */
export interface Held {
  cartId: string | null;
  productId: string;
  quantity: number;
}

/**
 * The unexpired holds of some products: each of `cartIds`' holds on its own, the other carts' as one
 * sum per product (a product under a thousand holds is one row, not a thousand).
 */
export async function holdsOf(db: Executor, store: string, productIds: string[], cartIds: string[] = []): Promise<Held[]> {
  return (await holdsOfStores(db, [{ store, productIds, cartIds }])).get(store)!;
}

/**
 * `holdsOf` for a round of several stores, in one statement: each store's answer as `holdsOf` gives
 * it (every store given has its list).
 */
export async function holdsOfStores(db: Executor, wanted: Array<{ store: string; productIds: string[]; cartIds?: string[] }>): Promise<Map<string, Held[]>> {
  return together(db, holdsOfStoresPart(wanted));
}

/**
 * `holdsOfStores` as a part, to send with other reads of the round (`together`): it must run after
 * the statement that locked the products, as its own snapshot then sees every hold made before.
 */
export function holdsOfStoresPart(wanted: Array<{ store: string; productIds: string[]; cartIds?: string[] }>): Part<Map<string, Held[]>> {
  const byStore = new Map(wanted.map((w) => [w.store, [] as Held[]]));
  const products = wanted.flatMap((w) => w.productIds.map((id) => ({ store: w.store, id })));
  if (products.length === 0) return nothing(byStore);
  const carts = wanted.flatMap((w) => (w.cartIds ?? []).map((id) => ({ store: w.store, id })));
  const held = sql`from cart_holds where (store, product_id) in (${storeKeys(products)}) and until > now()`;
  const query =
    carts.length === 0
      ? prepared(sql`select store, null as "cartId", product_id as "productId", sum(quantity)::int as quantity ${held} group by store, product_id`)
      : prepared(sql`with mine as (${storeKeys(carts)})
            select store, cart_id::text as "cartId", product_id as "productId", quantity ${held} and (store, cart_id) in (select * from mine)
            union all
            select store, null, product_id, sum(quantity)::int ${held} and (store, cart_id) not in (select * from mine) group by store, product_id`);
  return part(query, (rows) => {
    for (const { store, ...h } of rows as unknown as Array<Held & { store: string }>) byStore.get(store)?.push(h);
    return byStore;
  });
}

/** Units held of each of some products (absent: none). */
export async function heldTotals(db: Executor, store: string, productIds: string[]): Promise<Map<string, number>> {
  return new Map((await holdsOf(db, store, productIds)).map((h) => [h.productId, h.quantity]));
}

/** Products with `quantity` as the storefront shows it: the stock less what is held (never below 0). */
export async function lessHeld<T extends { id: string; quantity: number }>(db: Executor, store: string, products: T[]): Promise<T[]> {
  const totals = await heldTotals(db, store, products.map((p) => p.id));
  return totals.size === 0 ? products : products.map((p) => ({ ...p, quantity: Math.max(0, p.quantity - (totals.get(p.id) ?? 0)) }));
}

/** When the store's next unexpired hold ends, or null when it has none (one read of the (store, until) index). */
export async function nextHoldExpiry(db: Executor, store: string): Promise<Date | null> {
  const [row] = await queryRows<{ until: Date | string | null }>(db, sql`select min(until) as until from cart_holds where store = ${store} and until > now()`);
  return row?.until ? asDate(row.until) : null;
}

/** The units of the products row `alias` that no unexpired hold takes, as an SQL expression. */
export function availableQuantity(alias = 'p'): SQL {
  const p = sql.raw(alias);
  return sql`(${p}.quantity - coalesce((select sum(h.quantity) from cart_holds h where h.store = ${p}.store and h.product_id = ${p}.id and h.until > now()), 0))`;
}

/**
 * Notes, in the changing transaction, the products whose held units a statement changed (its CTE
 * `changed`, columns `store` and `product_id`): catalog answers that show them are refreshed once the
 * store's holds version is bumped (modules/stores/catalog-version.ts). Rows are taken in (store,
 * product) order, so
 * two transactions noting the same products never wait for each other in a cycle; every caller
 * notes as the last write of its transaction's hold work.
 */
const noteChanged = sql`insert into catalog_hold_marks (store, product_id)
      select store, product_id from (select distinct store, product_id from changed) c order by store, product_id
      on conflict (store, product_id) do update set xid = excluded.xid`;

/**
 * Replaces the holds of some carts of one store or several (a round's; every cart given has at least
 * one line), each line with its own end, in one statement, noting the products whose held units
 * changed (a renewal of the same units changes none) in (store, product) order, as
 * `endHoldsOfStores` notes them. The round's other writes (`beside`: its carts' hold records) go in
 * the same statement.
 */
export async function replaceHoldsOfStores(
  tx: Executor,
  lines: Array<{ store: string; cartId: string; productId: string; quantity: number; until: Date }>,
  beside: BesideWrite[] = [],
): Promise<void> {
  if (lines.length === 0 && beside.length === 0) return;
  // The delete touches only rows the insert does not: a statement may not change a row twice. Every
  // part reads the rows as they were before the statement. Rows are found pair by pair,
  // `(store, cart_id) in (storeKeys)` (the index), as takeStoresStock explains.
  const [row] = await queryRows<Record<string, unknown>>(
    tx,
    prepared(sql`with ${besideCtes(beside)}new as (select * from jsonb_to_recordset(${jsonb(lines.map((l) => ({ ...l, until: toIso(l.until) })))})
                       as x(store text, "cartId" uuid, "productId" uuid, quantity int, until timestamptz)),
        gone as (
          delete from cart_holds h where (h.store, h.cart_id) in (${storeKeys(lines.map((l) => ({ store: l.store, id: l.cartId })))})
            and not exists (select 1 from new n where n.store = h.store and n."cartId" = h.cart_id and n."productId" = h.product_id)
          returning h.store, h.product_id, h.until),
        held as (
          insert into cart_holds (store, cart_id, product_id, quantity, until)
          select n.store, n."cartId", n."productId", n.quantity, n.until from new n
          on conflict (store, cart_id, product_id) do update set quantity = excluded.quantity, until = excluded.until),
        changed as (
          select store, product_id from gone where until > now()
          union
          select n.store, n."productId" from new n where not exists (
            select 1 from cart_holds h where h.store = n.store and h.cart_id = n."cartId" and h.product_id = n."productId"
              and h.quantity = n.quantity and h.until > now())),
        noted as (${noteChanged} returning 1)
        select count(*)::int as noted${besideCounts(beside)} from noted`),
  );
  checkBeside(beside, row!);
}

/** Ends the holds of some carts, noting the products of those that had not run out. */
export async function endHolds(tx: Executor, store: string, cartIds: string[]): Promise<void> {
  await endHoldsOfStores(tx, cartIds.map((id) => ({ store, id })));
}

/** `endHolds` for the carts of several stores, in one statement; the products noted in (store, product) order. */
export async function endHoldsOfStores(tx: Executor, carts: Array<{ store: string; id: string }>): Promise<void> {
  if (carts.length === 0) return;
  await tx.execute(
    prepared(sql`with gone as (delete from cart_holds where (store, cart_id) in (${storeKeys(carts)}) returning store, product_id, until),
        changed as (select store, product_id from gone where until > now())
        ${noteChanged}`),
  );
}

/**
 * One catch-up of a process with the store's hold changes: the products noted by transactions that
 * had not finished at its previous catch-up's snapshot (`xid` at or above that snapshot's xmin; null
 * for the first, which only takes its snapshot), and this snapshot's xmin for the next. A
 * transaction that commits after a snapshot always has an xid at or above its xmin, so no change is
 * ever missed; one seen twice only refreshes an answer once more.
 */
export async function holdChangesSince(db: Executor, store: string, xmin: string | null): Promise<{ xmin: string; productIds: string[] }> {
  const changed = xmin === null
    ? sql`'{}'::text[]`
    : sql`array(select product_id::text from catalog_hold_marks where store = ${store} and xid >= ${xmin}::xid8)`;
  const [row] = await queryRows<{ xmin: string; productIds: string[] }>(db, sql`select pg_snapshot_xmin(pg_current_snapshot())::text as xmin, ${changed} as "productIds"`);
  return row!;
}
