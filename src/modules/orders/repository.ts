/** Order SQL: orders and their lines (the products as ordered). Stock is the catalog's, carts the carts module's. */
import { sql } from 'drizzle-orm';
import { arrayOf, besideCounts, besideCtes, checkBeside, jsonb, nothing, part, prepared, queryRows, storeKeys, together, type BesideWrite, type Executor, type Part } from '../../db/client.js';
import type { DiscountSnapshot, ProductSnapshot, ShippingSnapshot, TaxLineSnapshot } from '../../db/schema.js';
import { AppError } from '../../lib/app-error.js';
import { toIso } from '../../lib/time.js';
import { orderNumbersCtes } from '../stores/index.js';
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
  number: number;
  email: string | null;
  currency: string;
  pricesIncludeTax: boolean;
  shipping: ShippingSnapshot | null;
  shippingTotal: number;
  taxLines: TaxLineSnapshot[];
  taxTotal: number;
  createdAt: Date;
  updatedAt: Date | null;
  deletedAt: Date | null;
}

/** What a round writes of each order. */
export type NewOrder = Pick<
  OrderRow,
  'id' | 'customerId' | 'addressId' | 'price' | 'originalPrice' | 'discountId' | 'discount' | 'discountTotal' | 'number' | 'email' | 'currency' | 'pricesIncludeTax' | 'shipping' | 'shippingTotal' | 'taxLines' | 'taxTotal' | 'createdAt'
> & { cartId: string | null; clientAddress: string | null };

export interface OrderLineRow {
  orderId: string;
  quantity: number;
  linePrice: number;
  product: ProductSnapshot;
}

const orderColumns = sql.raw(
  `id, store, customer_id as "customerId", address_id as "addressId", status, price, original_price as "originalPrice", ` +
    `discount_id as "discountId", discount, discount_total as "discountTotal", number, email, currency, prices_include_tax as "pricesIncludeTax", ` +
    `shipping, shipping_total as "shippingTotal", tax_lines as "taxLines", tax_total as "taxTotal", ` +
    `created_at as "createdAt", updated_at as "updatedAt", deleted_at as "deletedAt"`,
);

/** A line as a round writes it: the product as ordered. */
export type NewOrderLine = { orderId: string; quantity: number; unitPrice: number; linePrice: number; product: ProductSnapshot };

/**
 * The orders of a round of one store or several, with their lines (the products as ordered), in one
 * statement that also numbers them: each store's new numbers (stores module), increasing in the
 * orders' arrival order. Answers each order's number by id.
 */
export async function insertStoresOrders(
  tx: Executor,
  orders: Array<Omit<NewOrder, 'number'> & { store: string }>,
  lines: Array<NewOrderLine & { store: string }>,
  beside: BesideWrite[] = [],
): Promise<Map<string, number>> {
  if (orders.length === 0) return new Map();
  const arrival = new Map<string, number>();
  const ranked = orders.map((o) => {
    const rank = (arrival.get(o.store) ?? 0) + 1;
    arrival.set(o.store, rank);
    return { ...o, rank, createdAt: toIso(o.createdAt) };
  });
  // The round's other writes (`beside`: its stock, its carts, its codes' uses) go in the same
  // statement: one round trip for them all.
  const rows = await queryRows<{ id: string; number: number } & Record<string, unknown>>(
    tx,
    prepared(sql`with ${besideCtes(beside)}o as (
          select * from jsonb_to_recordset(${jsonb(ranked)})
            as o(store text, rank int, id uuid, "customerId" uuid, "addressId" uuid, "cartId" uuid, price bigint, "originalPrice" bigint,
                 "discountId" uuid, discount jsonb, "discountTotal" bigint, email text, "clientAddress" text, currency text, "pricesIncludeTax" boolean,
                 shipping jsonb, "shippingTotal" bigint, "taxLines" jsonb, "taxTotal" bigint, "createdAt" timestamptz)),
        counts as (select store, count(*)::int as c from o group by store),
        ${orderNumbersCtes(sql`counts`)},
        new_orders as (
          insert into orders (store, id, customer_id, address_id, cart_id, price, original_price, discount_id, discount, discount_total,
                              number, email, client_address, currency, prices_include_tax, shipping, shipping_total, tax_lines, tax_total, created_at)
          select o.store, o.id, o."customerId", o."addressId", o."cartId", o.price, o."originalPrice", o."discountId", o.discount, o."discountTotal",
                 x.n, o.email, o."clientAddress", o.currency, o."pricesIncludeTax", o.shipping, o."shippingTotal", o."taxLines", o."taxTotal", o."createdAt"
          from o join numbers x on x.store = o.store and x.rank = o.rank
          returning id, number),
        new_lines as (
          insert into order_lines (store, order_id, product_id, quantity, unit_price, line_price, product)
          select l.store, l."orderId", (l.product->>'id')::uuid, l.quantity, l."unitPrice", l."linePrice", l.product
          from jsonb_to_recordset(${jsonb(lines)}) as l(store text, "orderId" uuid, quantity int, "unitPrice" int, "linePrice" bigint, product jsonb))
        select id::text as id, number${besideCounts(beside)} from new_orders`),
  );
  // A store without its store_versions row would get no numbers, and its orders would not be written
  // while the round's other writes were: the whole round is refused instead (every store is made with the row).
  if (rows.length !== orders.length) throw new Error(`${orders.length - rows.length} of the round's ${orders.length} orders got no number: a store has no store_versions row`);
  checkBeside(beside, rows[0]!);
  return new Map(rows.map((r) => [r.id, Number(r.number)]));
}

/**
 * The unpaid (CREATED) orders each of some client addresses of some stores placed with public
 * credentials (UNPAID_ORDERS_PER_CLIENT), in one statement: by store, then by client. Counted by
 * status, so a payment or a cancellation frees the place by itself; read under the clients' advisory locks.
 */
export async function unpaidByStoresClients(db: Executor, stores: Array<{ store: string; clients: string[] }>): Promise<Map<string, Map<string, number>>> {
  const keys = stores.flatMap(({ store, clients }) => clients.map((id) => ({ store, id })));
  if (keys.length === 0) return new Map();
  const rows = await queryRows<{ store: string; client: string; n: number }>(
    db,
    sql`select o.store, o.client_address as client, count(*)::int as n from orders o
        where (o.store, o.client_address) in (${storeKeys(keys, 'text')}) and o.status = 'CREATED' and o.deleted_at is null group by o.store, o.client_address`,
  );
  const byStore = new Map<string, Map<string, number>>();
  for (const r of rows) byStore.set(r.store, (byStore.get(r.store) ?? new Map<string, number>()).set(r.client, r.n));
  return byStore;
}

export interface OrderFilter {
  store: string;
  customerId?: string;
  status?: OrderStatus;
  number?: number;
  email?: string;
  createdFrom?: string;
  createdTo?: string;
  /** The number (when it is one), the email or the recipient's name. */
  q?: string;
  fulfillmentStatus?: 'unfulfilled' | 'partially_fulfilled' | 'fulfilled';
  paymentStatus?: 'unpaid' | 'authorized' | 'paid' | 'partially_refunded' | 'refunded';
}

export interface FulfillmentRow {
  id: string;
  orderId: string;
  lines: Array<{ productId: string; quantity: number }>;
  trackingNumber: string | null;
  trackingUrl: string | null;
  carrier: string | null;
  createdAt: Date;
}

/**
 * An order's paymentStatus in SQL, for the search filter only: the same rules as pricing's
 * `paymentTotals` (the order's total is pricing's `grandTotal`); test/fulfilments.test.ts checks
 * that the filter and the orders' own paymentStatus agree.
 */
const paymentStatusSql = sql`(select case
    when sum(p.refunded_amount) > 0 and sum(p.refunded_amount) = sum(p.captured_amount) then 'refunded'
    when sum(p.refunded_amount) > 0 then 'partially_refunded'
    when coalesce(sum(p.captured_amount), 0) >= o.price - o.discount_total + o.shipping_total + case when o.prices_include_tax then 0 else o.tax_total end then 'paid'
    when coalesce(sum(p.amount) filter (where p.status = 'authorized'), 0) + coalesce(sum(p.captured_amount), 0)
         >= o.price - o.discount_total + o.shipping_total + case when o.prices_include_tax then 0 else o.tax_total end then 'authorized'
    else 'unpaid' end
  from payments p where p.store = o.store and p.order_id = o.id)`;

/** `%text%` for ilike, its wildcards taken literally. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function orderWhere(filter: OrderFilter) {
  const parts = [sql`o.store = ${filter.store}`, sql`o.deleted_at is null`];
  if (filter.customerId) parts.push(sql`o.customer_id = ${filter.customerId}`);
  if (filter.status) parts.push(sql`o.status = ${filter.status}`);
  if (filter.number !== undefined) parts.push(sql`o.number = ${filter.number}`);
  if (filter.email !== undefined) parts.push(sql`lower(o.email) = lower(${filter.email})`);
  if (filter.createdFrom) parts.push(sql`o.created_at >= ${filter.createdFrom}::timestamptz`);
  if (filter.createdTo) parts.push(sql`o.created_at < ${filter.createdTo}::timestamptz`);
  // FULFILLED exactly when every unit shipped, so the status and the existence of a fulfilment tell.
  if (filter.fulfillmentStatus === 'fulfilled') parts.push(sql`o.status = 'FULFILLED'`);
  else if (filter.fulfillmentStatus) {
    const shipped = sql`exists (select 1 from fulfillments f where f.store = o.store and f.order_id = o.id)`;
    parts.push(filter.fulfillmentStatus === 'partially_fulfilled' ? sql`o.status <> 'FULFILLED' and ${shipped}` : sql`o.status <> 'FULFILLED' and not ${shipped}`);
  }
  if (filter.paymentStatus) parts.push(sql`${paymentStatusSql} = ${filter.paymentStatus}`);
  if (filter.q !== undefined) {
    const q = filter.q.trim();
    const byNumber = /^#?\d{1,9}$/.test(q) ? sql`o.number = ${Number(q.replace('#', ''))} or ` : sql``;
    parts.push(sql`(${byNumber}o.email ilike ${containing(q)} or exists (
      select 1 from addresses a where a.store = o.store and a.id = o.address_id and a.name ilike ${containing(q)}))`);
  }
  return sql.join(parts, sql` and `);
}

/** Newest first. */
export async function listOrders(db: Executor, filter: OrderFilter, page: { limit: number; offset: number }): Promise<OrderRow[]> {
  return queryRows<OrderRow>(
    db,
    sql`select ${orderColumns} from orders o where ${orderWhere(filter)} order by o.created_at desc nulls last, o.id desc nulls last limit ${page.limit} offset ${page.offset}`,
  );
}

export async function countOrders(db: Executor, filter: OrderFilter): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from orders o where ${orderWhere(filter)}`);
  return row?.n ?? 0;
}

export async function findOrder(db: Executor, store: string, id: string, { lock = false } = {}): Promise<OrderRow | undefined> {
  const forUpdate = lock ? sql` for update` : sql``;
  const [row] = await queryRows<OrderRow>(db, sql`select ${orderColumns} from orders where store = ${store} and id = ${id} and deleted_at is null${forUpdate}`);
  return row;
}

/** Some orders, locked in id order (so that two rounds locking overlapping orders never deadlock). */
export async function lockOrders(db: Executor, store: string, ids: string[]): Promise<OrderRow[]> {
  if (ids.length === 0) return [];
  return queryRows<OrderRow>(db, prepared(sql`select ${orderColumns} from orders where store = ${store} and id = any(${arrayOf(ids, 'uuid')}) and deleted_at is null order by id for update`));
}

/** Lines of the given orders, each in product id order. */
export function orderLines(db: Executor, store: string, orderIds: string[]): Promise<OrderLineRow[]> {
  return together(db, orderLinesPart(store, orderIds));
}

/** `orderLines` as a statement to send with others (db/client.ts `together`). */
export function orderLinesPart(store: string, orderIds: string[]): Part<OrderLineRow[]> {
  if (orderIds.length === 0) return nothing([]);
  return part(
    prepared(sql`select order_id as "orderId", quantity, line_price as "linePrice", product from order_lines
        where store = ${store} and order_id = any(${arrayOf(orderIds, 'uuid')}) order by order_id, product_id`),
    (rows) => rows as unknown as OrderLineRow[],
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

/**
 * Moves some locked orders from one state to another at `at` (their transaction's time), inside
 * another statement (`BesideWrite`): the round fails unless each was still in `from`, which the
 * locks make certain. The guard is a filter on the rows the primary key finds (`is true` keeps it
 * out of the index conditions): as an index condition, statistics that lag behind a burst of new
 * orders (say none CREATED) make the planner walk every CREATED order of the store through the
 * status index.
 */
export function transitionLockedOrders(store: string, ids: string[], from: OrderStatus, to: OrderStatus, at: Date): BesideWrite {
  return {
    ctes: sql`moved_orders as (
          update orders set status = ${to}, updated_at = ${toIso(at)}::timestamptz
          where store = ${store} and id = any(${arrayOf(ids, 'uuid')}) and (status = ${from}) is true returning id)`,
    name: 'moved_orders',
    check: (changed) => {
      if (changed !== ids.length) throw new AppError('SERVICE_UNAVAILABLE', 'an order changed under its lock; retry');
    },
  };
}

/**
 * CREATED orders older than their store's unpaid-order timeout with no authorized or captured
 * payment (the timeout job re-checks each under its lock).
 */
export async function unpaidOrdersPastTimeout(db: Executor, limit: number): Promise<Array<{ store: string; id: string }>> {
  return queryRows<{ store: string; id: string }>(
    db,
    sql`select o.store, o.id from orders o join stores s on s.slug = o.store
        where o.status = 'CREATED' and o.deleted_at is null and s.unpaid_order_timeout_seconds is not null
          and o.created_at < now() - make_interval(secs => s.unpaid_order_timeout_seconds)
          and not exists (select 1 from payments p where p.store = o.store and p.order_id = o.id and p.status in ('authorized', 'succeeded'))
        order by o.created_at limit ${limit}`,
  );
}

export async function insertFulfillment(
  tx: Executor,
  store: string,
  row: { orderId: string; lines: Array<{ productId: string; quantity: number }>; trackingNumber: string | null; trackingUrl: string | null; carrier: string | null },
): Promise<FulfillmentRow> {
  const [saved] = await queryRows<FulfillmentRow>(
    tx,
    sql`insert into fulfillments (store, order_id, lines, tracking_number, tracking_url, carrier)
        values (${store}, ${row.orderId}, ${jsonb(row.lines)}, ${row.trackingNumber}, ${row.trackingUrl}, ${row.carrier})
        returning id, order_id as "orderId", lines, tracking_number as "trackingNumber", tracking_url as "trackingUrl", carrier, created_at as "createdAt"`,
  );
  return saved!;
}

/** The fulfilments of some orders, oldest first. */
export function fulfillmentsOf(db: Executor, store: string, orderIds: string[]): Promise<FulfillmentRow[]> {
  return together(db, fulfillmentsOfPart(store, orderIds));
}

/** `fulfillmentsOf` as a statement to send with others (db/client.ts `together`). */
export function fulfillmentsOfPart(store: string, orderIds: string[]): Part<FulfillmentRow[]> {
  if (orderIds.length === 0) return nothing([]);
  return part(
    prepared(sql`select id, order_id as "orderId", lines, tracking_number as "trackingNumber", tracking_url as "trackingUrl", carrier, created_at as "createdAt"
        from fulfillments where store = ${store} and order_id = any(${arrayOf(orderIds, 'uuid')}) order by created_at, id`),
    (rows) => rows.map((r) => ({ ...(r as unknown as FulfillmentRow), createdAt: new Date(r.createdAt as string) })),
  );
}
