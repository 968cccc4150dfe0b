/** Order SQL: stock taken and returned with guarded updates, orders and their product snapshots. */
import { sql } from 'drizzle-orm';
import { jsonb, queryRows, valueList, type Executor } from '../../db/client.js';
import type { ProductSnapshot } from '../../db/schema.js';
import { productColumns, visibleProductText, type ProductRecord } from '../catalog/visibility.js';
import { completeKeysStep } from '../idempotency/repository.js';
import type { OrderStatus } from './schemas.js';

export interface LockedProduct extends ProductRecord {
  visible: boolean;
  /** The transaction's time: the orders it stores are created at it. */
  now: Date;
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

/**
 * Locks the products in ascending id order (a fixed order, so concurrent orders cannot deadlock)
 * and answers them with their visibility. `no key update` leaves foreign-key checks unblocked.
 */
export async function lockProducts(db: Executor, store: string, ids: string[]): Promise<Map<string, LockedProduct>> {
  const rows = await queryRows<LockedProduct>(
    db,
    sql`select ${productColumns('p')}, ${sql.raw(visibleProductText('p'))} as visible, now()::timestamptz(3) as now from products p
        where p.store = ${store} and p.id in (${valueList(ids)}) order by p.id for no key update of p`,
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/** Everything one transaction of orders writes, decided beforehand while the products are locked. */
export interface OrderWrites {
  /** Units taken per product, summed over the orders. */
  stock: Array<{ id: string; taken: number }>;
  orders: Array<{ id: string; customer_id: string; address_id: string; cart_id: string | null; price: number; original_price: number | null; created_at: string }>;
  lines: Array<{ order_id: string; product_id: string; quantity: number; unit_price: number; line_price: number; product: ProductSnapshot }>;
  /** The orders' idempotency keys and their answers, kept in the same transaction. */
  keys: Array<{ caller: string; key: string; body: string }>;
  carts: Array<{ id: string; customer_id: string; address_id: string }>;
}

/**
 * One statement writes every order of the transaction: the guarded stock updates (never below
 * zero), the orders, their lines, the carts they complete and their idempotent answers. Answers
 * how many products and carts it changed, for the caller to check against what it expected.
 * Each update finds its rows by `= any(array(...))`: a join with a JSON record set alone is
 * planned as a scan of the store's whole table (the planner guesses 100 rows for the set).
 */
export async function writeOrders(db: Executor, store: string, w: OrderWrites): Promise<{ products: number; carts: number }> {
  const [row] = await queryRows<{ products: number; carts: number }>(
    db,
    sql`with stock as (select * from jsonb_to_recordset(${jsonb(w.stock)}) as s(id uuid, taken int)),
        taken as (
          update products p set quantity = p.quantity - s.taken from stock s
          where p.store = ${store} and p.id = any(array(select id from stock)) and p.id = s.id and p.quantity >= s.taken returning p.id),
        new_orders as (
          insert into orders (store, id, customer_id, address_id, cart_id, price, original_price, created_at)
          select ${store}, o.* from jsonb_to_recordset(${jsonb(w.orders)})
            as o(id uuid, customer_id uuid, address_id uuid, cart_id uuid, price bigint, original_price bigint, created_at timestamptz)
          returning id),
        new_lines as (
          insert into order_lines (store, order_id, product_id, quantity, unit_price, line_price, product)
          select ${store}, l.* from jsonb_to_recordset(${jsonb(w.lines)})
            as l(order_id uuid, product_id uuid, quantity int, unit_price int, line_price bigint, product jsonb)
          returning order_id),
        ${completeKeysStep(store, w.keys, 201)},
        done_carts as (select * from jsonb_to_recordset(${jsonb(w.carts)}) as x(id uuid, customer_id uuid, address_id uuid)),
        completed as (
          update carts c set status = 'COMPLETED', customer_id = x.customer_id, address_id = x.address_id, updated_at = now() from done_carts x
          where c.store = ${store} and c.id = any(array(select id from done_carts)) and c.id = x.id
            and c.status = 'PENDING' and c.deleted_at is null returning c.id)
        select (select count(*) from taken)::int as products, (select count(*) from completed)::int as carts`,
  );
  return row!;
}

/** Puts a cancelled order's stock back; answers the product's stock after it. */
export async function returnStock(db: Executor, store: string, id: string, quantity: number): Promise<number> {
  const [row] = await queryRows<{ quantity: number }>(
    db,
    sql`update products set quantity = quantity + ${quantity} where store = ${store} and id = ${id} returning quantity`,
  );
  return row!.quantity;
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
    sql`select ${orderColumns} from orders where ${orderWhere(filter)} order by created_at desc nulls last, id desc nulls last limit ${page.limit} offset ${page.offset}`,
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
        where store = ${store} and order_id in (${valueList(orderIds)}) order by order_id, product_id`,
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
