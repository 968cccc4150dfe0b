/** Order administration: listing and the status transitions of the table in state.ts. */
import type { Database, Executor } from '../../db/client.js';
import { AppError } from '../../lib/app-error.js';
import { recordStockCrossing, returnStock } from '../catalog/index.js';
import { returnUse } from '../discounts/index.js';
import type { Recorder } from '../events/index.js';
import { closeOrderPayments, orderPaymentView, paymentsOfOrders, recordManualPayment } from '../payments/index.js';
import { paymentTotals } from '../pricing/index.js';
import * as repo from './repository.js';
import type { PaymentRow } from '../payments/index.js';
import type { AdminOrderListQuery, OrderStatus } from './schemas.js';
import { renderOrder, renderOrders } from './service.js';
import { orderTotalOf, paymentAmounts } from './views.js';
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
 * Moves an order along the transition table. PAID records a `manual` payment of the balance;
 * cancelling returns its stock and code use and closes its payments (manual money refunded at
 * once, Stripe money owed back after the commit: see modules/payments). Records `order.paid`,
 * `order.fulfilled` or `order.cancelled`, the payment events, and a cancel's products back in stock.
 */
export async function changeOrderStatus(tx: Executor, record: Recorder, store: string, id: string, to: OrderStatus, reason?: string) {
  const order = await repo.findOrder(tx, store, id, { lock: true });
  if (!order) throw new AppError('NOT_FOUND', `order ${id} not found`);
  assertTransition(order.status, to);
  if (!(await repo.transitionOrder(tx, store, id, order.status, to))) {
    throw new AppError('INVALID_TRANSITION', `order ${id} changed meanwhile; it is no longer ${order.status}`);
  }
  const returned: Array<{ productId: string; before: number; after: number }> = [];
  const paymentEvents: Array<{ type: 'payment.succeeded' | 'payment.refunded'; payment: PaymentRow }> = [];
  if (to === 'PAID') {
    const payments = (await paymentsOfOrders(tx, store, [id])).get(id) ?? [];
    const { balance } = paymentTotals(orderTotalOf(order), payments.map(paymentAmounts));
    const paid = await recordManualPayment(tx, store, id, balance, await orderCurrency(tx, store, id));
    if (paid) paymentEvents.push({ type: 'payment.succeeded', payment: paid });
  }
  if (to === 'CANCELLED') {
    const lines = await repo.orderLines(tx, store, [id]);
    // Product id order, as when the stock was taken, so a cancel and an order cannot deadlock.
    for (const line of [...lines].sort((a, b) => a.product.id.localeCompare(b.product.id))) {
      const after = await returnStock(tx, store, line.product.id, line.quantity);
      returned.push({ productId: line.product.id, before: after - line.quantity, after });
    }
    // After the products, as orders lock them: the code's use comes back with the stock.
    if (order.discountId) await returnUse(tx, store, order.discountId);
    for (const payment of await closeOrderPayments(tx, store, id)) paymentEvents.push({ type: 'payment.refunded', payment });
  }
  const changed = { order: await renderOrder(tx, store, id) };
  if (changed.order.status !== 'CREATED') record(STATUS_EVENTS[changed.order.status], reason ? { ...changed, reason } : changed);
  for (const e of paymentEvents) record(e.type, { payment: orderPaymentView(e.payment), order: changed.order });
  for (const r of returned) await recordStockCrossing(tx, record, store, r.productId, r.before, r.after);
  return changed;
}

/** The currency an order's payments are in: the one it was placed in. */
export async function orderCurrency(db: Executor, store: string, orderId: string): Promise<string> {
  return (await repo.findOrder(db, store, orderId))!.currency;
}

/** The order, locked for a payment's decision (the order row first, as every change of it does). */
export const lockOrder = (tx: Executor, store: string, id: string) => repo.findOrder(tx, store, id, { lock: true });

/**
 * CREATED -> PAID when its payments came to cover it (guarded by the status it expects). False when
 * it was not CREATED. The caller records `order.paid` with the order as its transaction leaves it.
 */
export const markOrderPaid = (tx: Executor, store: string, id: string): Promise<boolean> => repo.transitionOrder(tx, store, id, 'CREATED', 'PAID');

/**
 * Cancels an order left unpaid past its store's timeout, when it still is: CREATED, with no
 * authorized or captured payment (checked under the order's lock). Answers whether it did.
 */
export async function cancelUnpaidOrder(tx: Executor, record: Recorder, store: string, id: string): Promise<boolean> {
  const order = await repo.findOrder(tx, store, id, { lock: true });
  if (!order || order.status !== 'CREATED') return false;
  const payments = (await paymentsOfOrders(tx, store, [id])).get(id) ?? [];
  if (payments.some((p) => p.status === 'authorized' || p.status === 'succeeded')) return false;
  await changeOrderStatus(tx, record, store, id, 'CANCELLED', 'payment_timeout');
  return true;
}
