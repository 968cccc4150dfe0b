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

/** A product a line asks for: its fields as a cart shows them, and whether it can be sold now. */
export type Availability = ProductRecord & { visible: boolean };

const cartColumns = sql.raw(
  `id, store, case when status = 'PENDING' and expires_at <= now() then 'EXPIRED' else status end as status, ` +
    `customer_id as "customerId", address_id as "addressId", created_at as "createdAt", updated_at as "updatedAt", ` +
    `deleted_at as "deletedAt", expires_at as "expiresAt"`,
);

/** Creates a cart holding these lines (product id, quantity), in this order: one statement. */
export async function insertCart(db: Executor, store: string, ttlSeconds: number, lines: Array<[string, number]>): Promise<CartRow> {
  const [row] = await queryRows<CartRow>(
    db,
    sql`with cart as (
          insert into carts (store, expires_at) values (${store}, now() + make_interval(secs => ${ttlSeconds})) returning *),
        lines as (
          insert into cart_lines (store, cart_id, product_id, quantity)
          select ${store}, cart.id, (e.line->>0)::uuid, (e.line->>1)::int
          from cart, jsonb_array_elements(${JSON.stringify(lines)}::jsonb) with ordinality as e(line, n) order by e.n)
        select ${cartColumns} from cart`,
  );
  return row!;
}

/** A non-deleted cart. */
export async function findCart(db: Executor, store: string, id: string): Promise<CartRow | undefined> {
  const [row] = await queryRows<CartRow>(db, sql`select ${cartColumns} from carts where store = ${store} and id = ${id} and deleted_at is null`);
  return row;
}

/**
 * Locks a non-deleted cart for the rest of the transaction (changes to one cart are serialized),
 * with the quantity of its line of `productId` (0 without one).
 */
export async function lockCartLine(db: Executor, store: string, id: string, productId: string): Promise<(CartRow & { lineQuantity: number }) | undefined> {
  const [row] = await queryRows<CartRow & { lineQuantity: number }>(
    db,
    sql`select ${cartColumns}, coalesce((select l.quantity from cart_lines l where l.store = carts.store and l.cart_id = carts.id and l.product_id = ${productId}), 0) as "lineQuantity"
        from carts where store = ${store} and id = ${id} and deleted_at is null for update`,
  );
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
    sql`select ${productColumns('p')}, ${sql.raw(visibleProductText('p'))} as visible from products p
        where p.store = ${store} and p.id in (${sql.join(productIds.map((id) => sql`${id}`), sql`, `)})`,
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * Adds `quantity` to the line, creating it if needed, and records the change (see touchCart) in
 * one statement; answers the cart as it is then.
 */
export async function addToLine(db: Executor, store: string, cartId: string, productId: string, quantity: number, ttlSeconds: number): Promise<CartRow> {
  const [row] = await queryRows<CartRow>(
    db,
    sql`with line as (
          insert into cart_lines (store, cart_id, product_id, quantity) values (${store}, ${cartId}, ${productId}, ${quantity})
          on conflict (store, cart_id, product_id) do update set quantity = cart_lines.quantity + excluded.quantity, updated_at = now())
        update carts set updated_at = now(), expires_at = now() + make_interval(secs => ${ttlSeconds}) where store = ${store} and id = ${cartId}
        returning ${cartColumns}`,
  );
  return row!;
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
