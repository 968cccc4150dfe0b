/** Order administration: listing and the status transitions of the table in state.ts. */
import type { Database, Executor } from '../../db/client.js';
import { AppError } from '../../lib/app-error.js';
import { recordStockCrossing, returnStock } from '../catalog/index.js';
import { returnUse } from '../discounts/index.js';
import type { Recorder } from '../events/index.js';
import * as repo from './repository.js';
import type { AdminOrderListQuery, OrderStatus } from './schemas.js';
import { renderOrders } from './service.js';
import { assertTransition } from './state.js';

const STATUS_EVENTS = { PAID: 'order.paid', FULFILLED: 'order.fulfilled', CANCELLED: 'order.cancelled' } as const;

/** The store's orders, newest first, filtered by any of the search fields. */
export async function listAdminOrders(db: Database, store: string, query: AdminOrderListQuery) {
  const { limit, offset, customerId, ...search } = query;
  const filter = { store, ...search, customerId: customerId?.toLowerCase() };
  const page = { limit: limit ?? 50, offset: offset ?? 0 };
  const [rows, total] = await Promise.all([repo.listOrders(db, filter, page), repo.countOrders(db, filter)]);
  return { orders: await renderOrders(db, store, rows), total };
}

export async function getAdminOrder(db: Database, store: string, id: string) {
  const order = await repo.findOrder(db, store, id);
  if (!order) throw new AppError('NOT_FOUND', `order ${id} not found`);
  return { order: (await renderOrders(db, store, [order]))[0]! };
}

/**
 * Moves an order along the transition table; cancelling returns its stock in the same transaction.
 * Records `order.paid`, `order.fulfilled` or `order.cancelled`, and a cancel the products back in stock.
 */
export async function changeOrderStatus(tx: Executor, record: Recorder, store: string, id: string, to: OrderStatus) {
  const order = await repo.findOrder(tx, store, id, { lock: true });
  if (!order) throw new AppError('NOT_FOUND', `order ${id} not found`);
  assertTransition(order.status, to);
  if (!(await repo.transitionOrder(tx, store, id, order.status, to))) {
    throw new AppError('INVALID_TRANSITION', `order ${id} changed meanwhile; it is no longer ${order.status}`);
  }
  const returned: Array<{ productId: string; before: number; after: number }> = [];
  if (to === 'CANCELLED') {
    const lines = await repo.orderLines(tx, store, [id]);
    // Product id order, as when the stock was taken, so a cancel and an order cannot deadlock.
    for (const line of [...lines].sort((a, b) => a.product.id.localeCompare(b.product.id))) {
      const after = await returnStock(tx, store, line.product.id, line.quantity);
      returned.push({ productId: line.product.id, before: after - line.quantity, after });
    }
    // After the products, as orders lock them: the code's use comes back with the stock.
    if (order.discountId) await returnUse(tx, store, order.discountId);
  }
  const changed = { order: (await renderOrders(tx, store, [(await repo.findOrder(tx, store, id))!]))[0]! };
  if (changed.order.status !== 'CREATED') record(STATUS_EVENTS[changed.order.status], changed);
  for (const r of returned) await recordStockCrossing(tx, record, store, r.productId, r.before, r.after);
  return changed;
}
