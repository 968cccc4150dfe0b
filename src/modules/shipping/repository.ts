/** Shipping option SQL. */
import { sql, type SQL } from 'drizzle-orm';
import { jsonb, queryRows, type Executor } from '../../db/client.js';

export interface ShippingOptionRow {
  id: string;
  name: string;
  price: number;
  countries: string[];
  freeAbove: number | null;
  minSubtotal: number;
  active: boolean;
  createdAt: Date;
  updatedAt: Date | null;
}

export type ShippingOptionFields = Pick<ShippingOptionRow, 'name' | 'price' | 'countries' | 'freeAbove' | 'minSubtotal' | 'active'>;

const columns = sql.raw(
  `id, name, price::int8 as price, countries, free_above::int8 as "freeAbove", min_subtotal::int8 as "minSubtotal", active, created_at as "createdAt", updated_at as "updatedAt"`,
);

// bigint columns may arrive as text.
const normalize = (r: ShippingOptionRow): ShippingOptionRow => ({ ...r, price: Number(r.price), freeAbove: r.freeAbove === null ? null : Number(r.freeAbove), minSubtotal: Number(r.minSubtotal) });
const rows = async (db: Executor, query: ReturnType<typeof sql>) => (await queryRows<ShippingOptionRow>(db, query)).map(normalize);

export async function insertShippingOption(tx: Executor, store: string, f: ShippingOptionFields): Promise<ShippingOptionRow> {
  const [row] = await rows(
    tx,
    sql`insert into shipping_options (store, name, price, countries, free_above, min_subtotal, active)
        values (${store}, ${f.name}, ${f.price}, ${jsonb(f.countries)}, ${f.freeAbove}, ${f.minSubtotal}, ${f.active}) returning ${columns}`,
  );
  return row!;
}

export async function updateShippingOption(tx: Executor, store: string, id: string, f: ShippingOptionFields): Promise<ShippingOptionRow | undefined> {
  const [row] = await rows(
    tx,
    sql`update shipping_options set name = ${f.name}, price = ${f.price}, countries = ${jsonb(f.countries)}, free_above = ${f.freeAbove},
          min_subtotal = ${f.minSubtotal}, active = ${f.active}, updated_at = now()
        where store = ${store} and id = ${id} and deleted_at is null returning ${columns}`,
  );
  return row;
}

export async function softDeleteShippingOption(tx: Executor, store: string, id: string): Promise<ShippingOptionRow | undefined> {
  const [row] = await rows(tx, sql`update shipping_options set deleted_at = now(), updated_at = now() where store = ${store} and id = ${id} and deleted_at is null returning ${columns}`);
  return row;
}

export async function findShippingOption(db: Executor, store: string, id: string): Promise<ShippingOptionRow | undefined> {
  const [row] = await rows(db, sql`select ${columns} from shipping_options where store = ${store} and id = ${id} and deleted_at is null`);
  return row;
}

/** Non-deleted options, newest first. */
export async function listShippingOptions(db: Executor, store: string, page: { limit: number; offset: number }): Promise<ShippingOptionRow[]> {
  return rows(db, sql`select ${columns} from shipping_options where store = ${store} and deleted_at is null order by created_at desc, id desc limit ${page.limit} offset ${page.offset}`);
}

export async function countShippingOptions(db: Executor, store: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from shipping_options where store = ${store} and deleted_at is null`);
  return row?.n ?? 0;
}

/** Every non-deleted option of the store, active or not (a store has a few). */
export async function allShippingOptions(db: Executor, store: string): Promise<ShippingOptionRow[]> {
  return rows(db, sql`select ${columns} from shipping_options where store = ${store} and deleted_at is null order by created_at, id`);
}

/**
 * Every non-deleted option of the store a column names, as a jsonb array of the fields a checkout
 * decides with (in `allShippingOptions` order): for a statement that reads them beside other things.
 */
export const shippingRulesJson = (store: SQL): SQL =>
  sql`(select coalesce(jsonb_agg(jsonb_build_object('id', o.id, 'name', o.name, 'price', o.price, 'countries', o.countries, 'freeAbove', o.free_above,
        'minSubtotal', o.min_subtotal, 'active', o.active) order by o.created_at, o.id), '[]'::jsonb)
      from shipping_options o where o.store = ${store} and o.deleted_at is null)`;
