/** Cart SQL. Every change to an existing cart runs in a transaction that first locks the cart row. */
import { sql } from 'drizzle-orm';
import { jsonb, queryRows, valueList, type Executor } from '../../db/client.js';
import { productColumns, visibleProductText, type ProductRecord } from '../catalog/visibility.js';
import { asDate, toIso } from '../../lib/time.js';
import { completeKeysStep } from '../idempotency/repository.js';
import type { CartStatus } from './state.js';

export interface CartRow {
  id: string;
  store: string;
  /** The state at the database's clock: a PENDING cart past its expiry reads EXPIRED. */
  status: CartStatus;
  customerId: string | null;
  addressId: string | null;
  createdAt: Date;
  updatedAt: Date | null;
  deletedAt: Date | null;
  expiresAt: Date;
}

export interface CartLineRow extends ProductRecord {
  lineQuantity: number;
}

/** A product a line asks for: its fields as a cart shows them, and whether it can be sold now. */
export type Availability = ProductRecord & { visible: boolean; now: Date };

const cartColumns = sql.raw(
  `id, store, case when status = 'PENDING' and expires_at <= now() then 'EXPIRED' else status end as status, ` +
    `customer_id as "customerId", address_id as "addressId", created_at as "createdAt", updated_at as "updatedAt", ` +
    `deleted_at as "deletedAt", expires_at as "expiresAt"`,
);

/** New carts with their lines and idempotent answers, decided beforehand: written in one statement. */
export interface NewCarts {
  carts: Array<{ id: string; created_at: string; expires_at: string }>;
  /** (cart id, product id, quantity), in the order each cart shows its lines. */
  lines: Array<[string, string, number]>;
  keys: Array<{ caller: string; key: string; body: string }>;
}

export async function insertCarts(db: Executor, store: string, w: NewCarts): Promise<void> {
  await db.execute(
    sql`with new_carts as (
          insert into carts (store, id, created_at, expires_at)
          select ${store}, c.* from jsonb_to_recordset(${jsonb(w.carts)}) as c(id uuid, created_at timestamptz, expires_at timestamptz)),
        new_lines as (
          insert into cart_lines (store, cart_id, product_id, quantity)
          select ${store}, (e.line->>0)::uuid, (e.line->>1)::uuid, (e.line->>2)::int
          from jsonb_array_elements(${jsonb(w.lines)}) with ordinality as e(line, n) order by e.n),
        ${completeKeysStep(store, w.keys, 201)}
        select 1`,
  );
}

/** A non-deleted cart. */
export async function findCart(db: Executor, store: string, id: string): Promise<CartRow | undefined> {
  const [row] = await queryRows<CartRow>(db, sql`select ${cartColumns} from carts where store = ${store} and id = ${id} and deleted_at is null`);
  return row;
}

/**
 * Locks the non-deleted carts among `ids` in id order (so combined changes cannot deadlock), with
 * the transaction's time at the API's precision.
 */
export async function lockCarts(db: Executor, store: string, ids: string[]): Promise<Map<string, CartRow & { now: Date }>> {
  const rows = await queryRows<CartRow & { now: Date }>(
    db,
    sql`select ${cartColumns}, now()::timestamptz(3) as now from carts
        where store = ${store} and id in (${valueList(ids)}) and deleted_at is null order by id for update`,
  );
  return new Map(rows.map((r) => [r.id, { ...r, now: asDate(r.now) }]));
}

/** Locks a non-deleted cart for the rest of the transaction: changes to one cart are serialized. */
export async function lockCart(db: Executor, store: string, id: string): Promise<CartRow | undefined> {
  const [row] = await queryRows<CartRow>(
    db,
    sql`select ${cartColumns} from carts where store = ${store} and id = ${id} and deleted_at is null for update`,
  );
  return row;
}

/** The cart's lines with their products' current fields, in the order they were added. */
export async function cartLines(db: Executor, store: string, cartId: string): Promise<CartLineRow[]> {
  return (await linesOfCarts(db, store, [cartId])).get(cartId) ?? [];
}

/** The same for several carts, by cart id. */
export async function linesOfCarts(db: Executor, store: string, cartIds: string[]): Promise<Map<string, CartLineRow[]>> {
  if (cartIds.length === 0) return new Map();
  const rows = await queryRows<CartLineRow & { cartId: string }>(
    db,
    sql`select l.cart_id as "cartId", ${productColumns('p')}, l.quantity as "lineQuantity" from cart_lines l
        join products p on p.store = l.store and p.id = l.product_id
        where l.store = ${store} and l.cart_id in (${valueList(cartIds)}) order by l.cart_id, l.position`,
  );
  const byCart = new Map<string, CartLineRow[]>();
  for (const { cartId, ...line } of rows) {
    const lines = byCart.get(cartId) ?? [];
    if (lines.length === 0) byCart.set(cartId, lines);
    lines.push(line);
  }
  return byCart;
}

export async function lineQuantity(db: Executor, store: string, cartId: string, productId: string): Promise<number | undefined> {
  const [row] = await queryRows<{ quantity: number }>(
    db,
    sql`select quantity from cart_lines where store = ${store} and cart_id = ${cartId} and product_id = ${productId}`,
  );
  return row?.quantity;
}

/** The products among `productIds`, as of now, with whether they can be sold and the time at the API's precision. */
export async function availability(db: Executor, store: string, productIds: string[]): Promise<Map<string, Availability>> {
  if (productIds.length === 0) return new Map();
  const rows = await queryRows<Availability>(
    db,
    sql`select ${productColumns('p')}, ${sql.raw(visibleProductText('p'))} as visible, now()::timestamptz(3) as now from products p
        where p.store = ${store} and p.id in (${valueList(productIds)})`,
  );
  return new Map(rows.map((r) => [r.id, { ...r, now: asDate(r.now) }]));
}

/**
 * Sets lines of locked carts to the quantities decided for them (new ones are added in this
 * order) and records the change on each cart: `updatedAt` is `now`, the expiry `expiresAt`.
 */
export async function writeLines(db: Executor, store: string, lines: Array<[string, string, number]>, touched: { ids: string[]; now: Date; expiresAt: Date }): Promise<void> {
  await db.execute(
    sql`with changed as (
          insert into cart_lines (store, cart_id, product_id, quantity)
          select ${store}, (e.line->>0)::uuid, (e.line->>1)::uuid, (e.line->>2)::int
          from jsonb_array_elements(${jsonb(lines)}) with ordinality as e(line, n) order by e.n
          on conflict (store, cart_id, product_id) do update set quantity = excluded.quantity, updated_at = now())
        update carts set updated_at = ${toIso(touched.now)}, expires_at = ${toIso(touched.expiresAt)}
        where store = ${store} and id in (${valueList(touched.ids)})`,
  );
}

export async function setLineQuantity(db: Executor, store: string, cartId: string, productId: string, quantity: number): Promise<void> {
  await db.execute(
    sql`update cart_lines set quantity = ${quantity}, updated_at = now() where store = ${store} and cart_id = ${cartId} and product_id = ${productId}`,
  );
}

/** Removes a line; answers how many lines the cart has left. */
export async function deleteLine(db: Executor, store: string, cartId: string, productId: string): Promise<number> {
  await db.execute(sql`delete from cart_lines where store = ${store} and cart_id = ${cartId} and product_id = ${productId}`);
  const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from cart_lines where store = ${store} and cart_id = ${cartId}`);
  return row?.n ?? 0;
}

/** Records a change: `updatedAt` is now and the expiry slides to now + TTL. */
export async function touchCart(db: Executor, store: string, id: string, ttlSeconds: number): Promise<void> {
  await db.execute(
    sql`update carts set updated_at = now(), expires_at = now() + make_interval(secs => ${ttlSeconds}) where store = ${store} and id = ${id}`,
  );
}

/** An emptied cart is deleted (soft): answers it as it is now. */
export async function softDeleteCart(db: Executor, store: string, id: string): Promise<CartRow> {
  const [row] = await queryRows<CartRow>(
    db,
    sql`update carts set deleted_at = now(), updated_at = now() where store = ${store} and id = ${id} returning ${cartColumns}`,
  );
  return row!;
}
