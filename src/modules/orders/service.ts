/** Reading orders: a customer's, one of them, and orders with their lines and addresses. Placing them is checkout.ts. */
import type { Database, Executor } from '../../db/client.js';
import { AppError } from '../../lib/app-error.js';
import { findAddresses } from '../addresses/index.js';
import { paymentsOfOrders, refundsOfOrders, type PaymentRow } from '../payments/index.js';
import * as repo from './repository.js';
import { orderView } from './views.js';

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
  const ids = orders.map((o) => o.id);
  const toFulfil = known ? ids.filter((id) => !known.neverFulfilled.has(id)) : ids;
  const [lines, addressRows, payments, fulfillments, refunds] = await Promise.all([
    repo.orderLines(db, store, ids),
    findAddresses(db, store, [...new Set(orders.map((o) => o.addressId))]),
    known ? known.payments : paymentsOfOrders(db, store, ids),
    repo.fulfillmentsOf(db, store, toFulfil),
    refundsOfOrders(db, store, ids),
  ]);
  return orders.map((o) =>
    orderView(o, lines.filter((l) => l.orderId === o.id), addressRows.get(o.addressId)!, payments.get(o.id) ?? [], fulfillments.filter((f) => f.orderId === o.id), refunds.get(o.id) ?? []),
  );
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
