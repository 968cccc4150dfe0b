/** Cart SQL. Every change runs in a transaction that first locks the cart row. */
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';
import { productColumns, visibleProductText, type ProductRecord } from '../catalog/visibility.js';
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

/** Stock and visibility of a product, for the availability check. */
export interface Availability {
  id: string;
  quantity: number;
  visible: boolean;
}

const cartColumns = sql.raw(
  `id, store, case when status = 'PENDING' and expires_at <= now() then 'EXPIRED' else status end as status, ` +
    `customer_id as "customerId", address_id as "addressId", created_at as "createdAt", updated_at as "updatedAt", ` +
    `deleted_at as "deletedAt", expires_at as "expiresAt"`,
);

export async function insertCart(db: Executor, store: string, ttlSeconds: number): Promise<CartRow> {
  const [row] = await queryRows<CartRow>(
    db,
    sql`insert into carts (store, expires_at) values (${store}, now() + make_interval(secs => ${ttlSeconds})) returning ${cartColumns}`,
  );
  return row!;
}

/** A non-deleted cart. */
export async function findCart(db: Executor, store: string, id: string): Promise<CartRow | undefined> {
  const [row] = await queryRows<CartRow>(db, sql`select ${cartColumns} from carts where store = ${store} and id = ${id} and deleted_at is null`);
  return row;
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
  return queryRows<CartLineRow>(
    db,
    sql`select ${productColumns('p')}, l.quantity as "lineQuantity" from cart_lines l
        join products p on p.store = l.store and p.id = l.product_id
        where l.store = ${store} and l.cart_id = ${cartId} order by l.position`,
  );
}

export async function lineQuantity(db: Executor, store: string, cartId: string, productId: string): Promise<number | undefined> {
  const [row] = await queryRows<{ quantity: number }>(
    db,
    sql`select quantity from cart_lines where store = ${store} and cart_id = ${cartId} and product_id = ${productId}`,
  );
  return row?.quantity;
}

export async function availability(db: Executor, store: string, productIds: string[]): Promise<Map<string, Availability>> {
  if (productIds.length === 0) return new Map();
  const rows = await queryRows<Availability>(
    db,
    sql`select p.id::text as id, p.quantity, ${sql.raw(visibleProductText('p'))} as visible from products p
        where p.store = ${store} and p.id in (${sql.join(productIds.map((id) => sql`${id}`), sql`, `)})`,
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/** Adds `quantity` to the line, creating it if needed; answers the line's new quantity. */
export async function addToLine(db: Executor, store: string, cartId: string, productId: string, quantity: number): Promise<number> {
  const [row] = await queryRows<{ quantity: number }>(
    db,
    sql`insert into cart_lines (store, cart_id, product_id, quantity) values (${store}, ${cartId}, ${productId}, ${quantity})
        on conflict (store, cart_id, product_id) do update set quantity = cart_lines.quantity + excluded.quantity, updated_at = now()
        returning quantity`,
  );
  return row!.quantity;
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
