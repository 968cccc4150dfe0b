/** Products as carts and orders need them: their fields, whether they can be sold, and their stock. */
import { sql } from 'drizzle-orm';
import { jsonb, prepared, queryRows, storeKeys, type BesideWrite, type Executor } from '../../db/client.js';
import { AppError } from '../../lib/app-error.js';
import { asDate } from '../../lib/time.js';
import { productColumns, visibleProductText, type ProductRecord } from './visibility.js';

/** A product a line asks for: its fields as carts and orders show them, and whether it can be sold now. */
export type SellableProduct = ProductRecord & { visible: boolean };

/** Products with the transaction's time at the API's precision (carts and orders are stamped with it). */
export interface SellableProducts {
  products: Map<string, SellableProduct>;
  now: Date;
}

/** The transaction's time at the API's precision, for a round that found no product. */
async function transactionTime(db: Executor): Promise<Date> {
  const [row] = await queryRows<{ now: Date }>(db, sql`select now()::timestamptz(3) as now`);
  return asDate(row!.now);
}

/** The products among `ids` as of now. */
export async function findSellableProducts(db: Executor, store: string, ids: string[]): Promise<SellableProducts> {
  const { products, now } = await findSellableProductsOfStores(db, [{ store, ids }]);
  return { products: products.get(store)!, now };
}

/**
 * The products among each store's `ids` as of now, for a round of several stores in one statement;
 * every store given has its map (empty when none of its ids is a product).
 */
export async function findSellableProductsOfStores(db: Executor, wanted: Array<{ store: string; ids: string[] }>): Promise<{ products: Map<string, Map<string, SellableProduct>>; now: Date }> {
  const products = new Map(wanted.map((w) => [w.store, new Map<string, SellableProduct>()]));
  const keys = wanted.flatMap((w) => w.ids.map((id) => ({ store: w.store, id })));
  if (keys.length === 0) return { products, now: await transactionTime(db) };
  const rows = await queryRows<SellableProduct & { now: Date }>(
    db,
    prepared(sql`select ${productColumns('p')}, ${sql.raw(visibleProductText('p'))} as visible, now()::timestamptz(3) as now from products p
        where (p.store, p.id) in (${storeKeys(keys)})`),
  );
  for (const { now: _, ...p } of rows) products.get(p.store)?.set(p.id, p);
  const now = rows[0] ? asDate(rows[0].now) : await transactionTime(db);
  return { products, now };
}

/** Products of several stores (a round of several), by store. */
export interface StoresSellableProducts {
  products: Map<string, Map<string, SellableProduct>>;
  now: Date;
}

/**
 * Products of several stores, locked for the rest of the transaction in (store, id) order, the one
 * order of every round whatever its stores, with one statement (`no key update`: foreign-key
 * checks are not blocked).
 */
export async function lockStoresSellableProducts(tx: Executor, stores: Array<{ store: string; ids: string[] }>): Promise<StoresSellableProducts> {
  const keys = stores.flatMap(({ store, ids }) => [...new Set(ids)].map((id) => ({ store, id })));
  if (keys.length === 0) return { products: new Map(), now: await transactionTime(tx) };
  const rows = await queryRows<SellableProduct & { now: Date }>(
    tx,
    prepared(sql`select ${productColumns('p')}, ${sql.raw(visibleProductText('p'))} as visible, now()::timestamptz(3) as now from products p
        where (p.store, p.id) in (${storeKeys(keys)}) order by p.store, p.id for no key update of p`),
  );
  const now = rows[0] ? asDate(rows[0].now) : await transactionTime(tx);
  const products = new Map<string, Map<string, SellableProduct>>();
  for (const { now: _, ...p } of rows) products.set(p.store, (products.get(p.store) ?? new Map<string, SellableProduct>()).set(p.id, p));
  return { products, now };
}

/**
 * Takes units of locked products of one store or several, one guarded update for them all (never
 * below zero), made inside the statement that writes the round's orders (`BesideWrite`): the round
 * fails if it changed fewer products than it takes from. It finds its rows pair by pair,
 * `(store, id) in (storeKeys)`: one index probe each, since the planner takes an `unnest` of array
 * parameters for a few rows. Joined with the JSON record set alone they are scanned (the planner
 * guesses 100 rows for the set, and hashes the whole table against them), and
 * `store = any(...) and id = any(...)` probes every store of the round with every id (all the rows
 * of 25 stores for 25 orders of 25 stores).
 */
export function takeStoresStock(takes: Array<{ store: string; id: string; taken: number }>): BesideWrite {
  return {
    ctes: sql`stock_takes as (select * from jsonb_to_recordset(${jsonb(takes)}) as s(store text, id uuid, taken int)),
        taken_stock as (
          update products p set quantity = p.quantity - s.taken from stock_takes s
          where (p.store, p.id) in (${storeKeys(takes)}) and p.store = s.store and p.id = s.id
            and p.quantity >= s.taken returning p.id)`,
    name: 'taken_stock',
    // Cannot happen while the rows are locked; the guard is what makes overselling impossible regardless.
    check: (changed) => {
      if (changed !== takes.length) throw new AppError('SERVICE_UNAVAILABLE', 'the stock changed under a lock; retry');
    },
  };
}

/** Puts a cancelled order's stock back; answers the product's stock after it. */
export async function returnStock(tx: Executor, store: string, id: string, quantity: number): Promise<number> {
  const [row] = await queryRows<{ quantity: number }>(
    tx,
    sql`update products set quantity = quantity + ${quantity} where store = ${store} and id = ${id} returning quantity`,
  );
  return row!.quantity;
}
