/** The events an order writes, in the transaction that changes it. */
import type { Executor } from '../../db/client.js';
import { recordStockCrossing } from '../catalog/admin-service.js';
import { recordEvent, recordEvents } from '../events/repository.js';
import type { OrderView } from './schemas.js';

const STATUS_EVENTS = { PAID: 'order.paid', FULFILLED: 'order.fulfilled', CANCELLED: 'order.cancelled' } as const;

/**
 * `order.created` for each order of a transaction (one statement for them all), and
 * `product.out_of_stock` for every line that took the last of its stock (each line shows the stock
 * left right after its order). Stock taken by an order is not a `product.updated`.
 */
export async function recordOrdersPlaced(tx: Executor, store: string, orders: OrderView[]): Promise<void> {
  await recordEvents(tx, store, orders.map((order) => ({ type: 'order.created' as const, data: { order } })));
  for (const line of orders.flatMap((order) => order.products)) {
    if (line.quantity === 0) await recordStockCrossing(tx, store, line.id, line.order.quantity, 0);
  }
}

/** `order.paid`, `order.fulfilled` or `order.cancelled`; a cancel also tells which products are back in stock. */
export async function recordOrderStatusChanged(
  tx: Executor,
  store: string,
  order: OrderView,
  returnedStock: Array<{ productId: string; before: number; after: number }> = [],
): Promise<void> {
  if (order.status === 'CREATED') return;
  await recordEvent(tx, store, STATUS_EVENTS[order.status], { order });
  for (const r of returnedStock) await recordStockCrossing(tx, store, r.productId, r.before, r.after);
}
