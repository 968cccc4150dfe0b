/** Order SQL: orders and their lines (the products as ordered). Stock is the catalog's, carts the carts module's. */
import { sql } from 'drizzle-orm';
import { jsonb, queryRows, valueList, type Executor } from '../../db/client.js';
import type { DiscountSnapshot, ProductSnapshot } from '../../db/schema.js';
import { toIso } from '../../lib/time.js';
import type { OrderStatus } from './schemas.js';

export interface OrderRow {
  id: string;
  store: string;
  customerId: string;
  addressId: string;
  status: OrderStatus;
  price: number;
  originalPrice: number | null;
  discountId: string | null;
  discount: DiscountSnapshot | null;
  discountTotal: number;
  email: string | null;
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
    `discount_id as "discountId", discount, discount_total as "discountTotal", email, ` +
    `created_at as "createdAt", updated_at as "updatedAt", deleted_at as "deletedAt"`,
);

/** The orders of a round, with their lines (the products as ordered), in one statement. */
export async function insertOrders(
  tx: Executor,
  store: string,
  orders: Array<{
    id: string; customerId: string; addressId: string; cartId: string | null; price: number; originalPrice: number | null;
    discountId: string | null; discount: DiscountSnapshot | null; discountTotal: number; email: string | null; clientAddress: string | null; createdAt: Date;
  }>,
  lines: Array<{ orderId: string; quantity: number; unitPrice: number; linePrice: number; product: ProductSnapshot }>,
): Promise<void> {
  await tx.execute(
    sql`with new_orders as (
          insert into orders (store, id, customer_id, address_id, cart_id, price, original_price, discount_id, discount, discount_total, email, client_address, created_at)
          select ${store}, o.* from jsonb_to_recordset(${jsonb(orders.map((o) => ({ ...o, createdAt: toIso(o.createdAt) })))})
            as o(id uuid, "customerId" uuid, "addressId" uuid, "cartId" uuid, price bigint, "originalPrice" bigint,
                 "discountId" uuid, discount jsonb, "discountTotal" bigint, email text, "clientAddress" text, "createdAt" timestamptz))
        insert into order_lines (store, order_id, product_id, quantity, unit_price, line_price, product)
        select ${store}, l."orderId", (l.product->>'id')::uuid, l.quantity, l."unitPrice", l."linePrice", l.product
        from jsonb_to_recordset(${jsonb(lines)}) as l("orderId" uuid, quantity int, "unitPrice" int, "linePrice" bigint, product jsonb)`,
  );
}

/**
 * The unpaid (CREATED) orders each of some client addresses placed with public credentials, and
 * when the oldest was placed (UNPAID_ORDERS_PER_CLIENT). Counted by status, so a payment or a
 * cancellation frees the place by itself; read under the clients' advisory locks.
 */
export async function unpaidByClients(db: Executor, store: string, clients: string[]): Promise<Map<string, number>> {
  if (clients.length === 0) return new Map();
  const rows = await queryRows<{ client: string; n: number }>(
    db,
    sql`select client_address as client, count(*)::int as n from orders
        where store = ${store} and client_address in (${valueList(clients)}) and status = 'CREATED' and deleted_at is null group by client_address`,
  );
  return new Map(rows.map((r) => [r.client, r.n]));
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
