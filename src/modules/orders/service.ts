/** Reading orders: a customer's, one of them, and orders with their lines and addresses. Placing them is checkout.ts. */
import { mapped, nothing, parts, together, type Database, type Executor, type Part } from '../../db/client.js';
import { AppError } from '../../lib/app-error.js';
import { storesAddressesPart, type AddressRow } from '../addresses/index.js';
import { paymentsOfOrdersPart, refundsOfOrdersPart, type PaymentRow } from '../payments/index.js';
import * as repo from './repository.js';
import { orderView } from './views.js';
import type { OrderView } from './schemas.js';

/**
 * What a caller already holds of the orders it renders, under their locks: their payments (all of
 * each order's), and the orders that cannot have a fulfilment (CREATED when locked: only a PAID
 * order is fulfilled, and none goes back to CREATED). Those are not read again.
 */
export interface KnownOfOrders {
  payments: Map<string, PaymentRow[]>;
  neverFulfilled: ReadonlySet<string>;
}

/** Orders with their lines and addresses, in the order given. */
export async function renderOrders(db: Executor, store: string, orders: repo.OrderRow[], known?: KnownOfOrders) {
  return (await together(db, renderingOf(store, orders, known)))(orders);
}

/**
 * What rendering some orders reads, as statements to send with others (db/client.ts `together`):
 * answers the function that renders them from those rows. It renders the same orders as they are
 * when it is called (a round's orders after its own update of them): an order's lines, address,
 * fulfilments and refunds are the same before and after a change of its status or payments. A
 * caller's `known.payments` are read when it renders, so it may fill them in after the statement.
 */
export function renderingOf(store: string, orders: repo.OrderRow[], known?: KnownOfOrders): Part<(now: repo.OrderRow[]) => OrderView[]> {
  const ids = orders.map((o) => o.id);
  const toFulfil = known ? ids.filter((id) => !known.neverFulfilled.has(id)) : ids;
  const reads = parts([
    repo.orderLinesPart(store, ids),
    mapped(storesAddressesPart([{ store, ids: [...new Set(orders.map((o) => o.addressId))] }]), (byStore) => byStore.get(store) ?? new Map<string, AddressRow>()),
    known ? nothing(undefined) : paymentsOfOrdersPart(store, ids),
    repo.fulfillmentsOfPart(store, toFulfil),
    refundsOfOrdersPart(store, ids),
  ] as const);
  return mapped(reads, ([lines, addressRows, read, fulfillments, refunds]) => (now: repo.OrderRow[]) => {
    const payments = read ?? known!.payments;
    return now.map((o) =>
      orderView(o, lines.filter((l) => l.orderId === o.id), addressRows.get(o.addressId)!, payments.get(o.id) ?? [], fulfillments.filter((f) => f.orderId === o.id), refunds.get(o.id) ?? []),
    );
  });
}

/** The customer's orders, newest first; `total` counts them all. */
export async function listCustomerOrders(db: Database, store: string, customerId: string, query: { limit?: number; offset?: number }) {
  const filter = { store, customerId };
  const page = { limit: query.limit ?? 50, offset: query.offset ?? 0 };
  const [rows, total] = await Promise.all([repo.listOrders(db, filter, page), repo.countOrders(db, filter)]);
  return { orders: await renderOrders(db, store, rows), total };
}

/** One order of the customer; another customer's order is 404. */
export async function getCustomerOrder(db: Database, store: string, customerId: string, id: string) {
  const order = await repo.findOrder(db, store, id);
  if (!order || order.customerId !== customerId.toLowerCase()) throw new AppError('NOT_FOUND', `order ${id} not found`);
  const [view] = await renderOrders(db, store, [order]);
  return { order: view! };
}

/** One order as GET answers it (for events recorded in a transaction). */
export async function renderOrder(db: Executor, store: string, id: string) {
  const [view] = await renderOrders(db, store, [(await repo.findOrder(db, store, id))!]);
  return view!;
}
