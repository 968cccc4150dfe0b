/** Order SQL: stock taken and returned with guarded updates, orders and their product snapshots. */
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';
import type { ProductSnapshot } from '../../db/schema.js';
import { productColumns, visibleProductText, type ProductRecord } from '../catalog/visibility.js';
import type { OrderStatus } from './schemas.js';

export interface LockedProduct extends ProductRecord {
  visible: boolean;
}

export interface OrderRow {
  id: string;
  store: string;
  customerId: string;
  addressId: string;
  status: OrderStatus;
  price: number;
  originalPrice: number | null;
  createdAt: Date;
  updatedAt: Date | null;
  deletedAt: Date | null;
}

export interface OrderLineRow {
  orderId: string;
  quantity: number;
  linePrice: number;
  product: ProductSnapshot;
}

const orderColumns = sql.raw(
  `id, store, customer_id as "customerId", address_id as "addressId", status, price, original_price as "originalPrice", ` +
    `created_at as "createdAt", updated_at as "updatedAt", deleted_at as "deletedAt"`,
);

const idList = (ids: string[]) => sql.join(ids.map((id) => sql`${id}`), sql`, `);

/**
 * Locks the products in ascending id order (a fixed order, so concurrent orders cannot deadlock)
 * and answers them with their visibility. `no key update` leaves foreign-key checks unblocked.
 */
export async function lockProducts(db: Executor, store: string, ids: string[]): Promise<Map<string, LockedProduct>> {
  const rows = await queryRows<LockedProduct>(
    db,
    sql`select ${productColumns('p')}, ${sql.raw(visibleProductText('p'))} as visible from products p
        where p.store = ${store} and p.id in (${idList(ids)}) order by p.id for no key update of p`,
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/** Takes stock; never below zero: answers the product after the update, or undefined if short. */
export async function takeStock(db: Executor, store: string, id: string, quantity: number): Promise<ProductRecord | undefined> {
  const [row] = await queryRows<ProductRecord>(
    db,
    sql`update products p set quantity = p.quantity - ${quantity}
        where p.store = ${store} and p.id = ${id} and p.quantity >= ${quantity} returning ${productColumns('p')}`,
  );
  return row;
}

export async function returnStock(db: Executor, store: string, id: string, quantity: number): Promise<void> {
  await db.execute(sql`update products set quantity = quantity + ${quantity} where store = ${store} and id = ${id}`);
}

export async function insertOrder(
  db: Executor,
  order: { store: string; customerId: string; addressId: string; cartId: string | null; price: number; originalPrice: number | null },
): Promise<OrderRow> {
  const [row] = await queryRows<OrderRow>(
    db,
    sql`insert into orders (store, customer_id, address_id, cart_id, price, original_price)
        values (${order.store}, ${order.customerId}, ${order.addressId}, ${order.cartId}, ${order.price}, ${order.originalPrice})
        returning ${orderColumns}`,
  );
  return row!;
}

export async function insertOrderLine(db: Executor, store: string, orderId: string, line: Omit<OrderLineRow, 'orderId'>): Promise<void> {
  await db.execute(
    sql`insert into order_lines (store, order_id, product_id, quantity, unit_price, line_price, product)
        values (${store}, ${orderId}, ${line.product.id}, ${line.quantity}, ${line.product.price}, ${line.linePrice}, ${JSON.stringify(line.product)}::jsonb)`,
  );
}

/** Marks the cart ordered, guarded by the state it must be in. */
export async function completeCart(db: Executor, store: string, cartId: string, customerId: string, addressId: string): Promise<boolean> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`update carts set status = 'COMPLETED', customer_id = ${customerId}, address_id = ${addressId}, updated_at = now()
        where store = ${store} and id = ${cartId} and status = 'PENDING' and deleted_at is null returning id`,
  );
  return rows.length > 0;
}

export interface OrderFilter {
  store: string;
  customerId?: string;
  status?: OrderStatus;
}

function orderWhere(filter: OrderFilter) {
  const parts = [sql`store = ${filter.store}`, sql`deleted_at is null`];
  if (filter.customerId) parts.push(sql`customer_id = ${filter.customerId}`);
  if (filter.status) parts.push(sql`status = ${filter.status}`);
  return sql.join(parts, sql` and `);
}

/** Newest first. */
export async function listOrders(db: Executor, filter: OrderFilter, page: { limit: number; offset: number }): Promise<OrderRow[]> {
  return queryRows<OrderRow>(
    db,
    sql`select ${orderColumns} from orders where ${orderWhere(filter)} order by created_at desc, id desc limit ${page.limit} offset ${page.offset}`,
  );
}

export async function countOrders(db: Executor, filter: OrderFilter): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from orders where ${orderWhere(filter)}`);
  return row?.n ?? 0;
}

export async function findOrder(db: Executor, store: string, id: string, { lock = false } = {}): Promise<OrderRow | undefined> {
  const forUpdate = lock ? sql` for update` : sql``;
  const [row] = await queryRows<OrderRow>(db, sql`select ${orderColumns} from orders where store = ${store} and id = ${id} and deleted_at is null${forUpdate}`);
  return row;
}

/** Lines of the given orders, each in product id order. */
export async function orderLines(db: Executor, store: string, orderIds: string[]): Promise<OrderLineRow[]> {
  if (orderIds.length === 0) return [];
  return queryRows<OrderLineRow>(
    db,
    sql`select order_id as "orderId", quantity, line_price as "linePrice", product from order_lines
        where store = ${store} and order_id in (${idList(orderIds)}) order by order_id, product_id`,
  );
}

/** Moves the order from one state to another; false when it is no longer in `from`. */
export async function transitionOrder(db: Executor, store: string, id: string, from: OrderStatus, to: OrderStatus): Promise<boolean> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`update orders set status = ${to}, updated_at = now() where store = ${store} and id = ${id} and status = ${from} returning id`,
  );
  return rows.length > 0;
}
