/** Order administration: listing and the status transitions of the table in state.ts. */
import type { Database } from '../../db/client.js';
import { AppError } from '../../plugins/errors.js';
import { recordOrderStatusChanged } from './events.js';
import * as repo from './repository.js';
import type { OrderStatus } from './schemas.js';
import { renderOrders } from './service.js';
import { assertTransition } from './state.js';

export async function listAdminOrders(db: Database, store: string, query: { limit?: number; offset?: number; status?: OrderStatus }) {
  const filter = { store, status: query.status };
  const page = { limit: query.limit ?? 50, offset: query.offset ?? 0 };
  const [rows, total] = await Promise.all([repo.listOrders(db, filter, page), repo.countOrders(db, filter)]);
  return { orders: await renderOrders(db, store, rows), total };
}

export async function getAdminOrder(db: Database, store: string, id: string) {
  const order = await repo.findOrder(db, store, id);
  if (!order) throw new AppError('NOT_FOUND', `order ${id} not found`);
  return { order: (await renderOrders(db, store, [order]))[0]! };
}

/** Moves an order along the transition table; cancelling returns its stock in the same transaction. */
export async function changeOrderStatus(db: Database, store: string, id: string, to: OrderStatus) {
  return db.transaction(async (tx) => {
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
        const after = await repo.returnStock(tx, store, line.product.id, line.quantity);
        returned.push({ productId: line.product.id, before: after - line.quantity, after });
      }
    }
    const changed = { order: (await renderOrders(tx, store, [(await repo.findOrder(tx, store, id))!]))[0]! };
    await recordOrderStatusChanged(tx, store, changed.order, returned);
    return changed;
  });
}
