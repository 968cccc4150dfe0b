/** Order administration: listing and the status transitions of the table in state.ts. */
import type { BesideWrite, Database, Executor } from '../../db/client.js';
import { AppError } from '../../lib/app-error.js';
import { recordStockCrossing, returnStock } from '../catalog/index.js';
import { returnUse } from '../discounts/index.js';
import type { Recorder } from '../events/index.js';
import { closeOrderPayments, orderPaymentView, paymentsOfOrders, recordManualPayment, refundsOfOrders, refundView, takeRefund } from '../payments/index.js';
import { paymentTotals } from '../pricing/index.js';
import * as repo from './repository.js';
import type { PaymentRow } from '../payments/index.js';
import type { AdminOrderListQuery, CreateFulfillmentBody, CreateRefundBody, OrderStatus } from './schemas.js';
import { renderOrder, renderOrders } from './service.js';
import { fulfillmentView, orderTotalOf, paymentAmounts, unfulfilledUnits } from './views.js';
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
  if (to === 'CANCELLED' && (await repo.fulfillmentsOf(tx, store, [id])).length > 0) {
    throw new AppError('INVALID_TRANSITION', `order ${id} has shipped units: refund them instead of cancelling`);
  }
  const returned: Array<{ productId: string; before: number; after: number }> = [];
  const paymentEvents: Array<{ type: 'payment.succeeded' | 'payment.refunded'; payment: PaymentRow }> = [];
  let fulfillmentEvent: repo.FulfillmentRow | undefined;
  if (to === 'PAID') {
    const payments = (await paymentsOfOrders(tx, store, [id])).get(id) ?? [];
    const { balance } = paymentTotals(orderTotalOf(order), payments.map(paymentAmounts));
    const paid = await recordManualPayment(tx, store, id, balance, order.currency);
    if (paid) paymentEvents.push({ type: 'payment.succeeded', payment: paid });
  }
  if (to === 'FULFILLED') {
    // Every remaining unit, as one fulfilment without tracking.
    const left = [...unfulfilledUnits(await repo.orderLines(tx, store, [id]), await repo.fulfillmentsOf(tx, store, [id]))].filter(([, n]) => n > 0);
    if (left.length > 0) {
      const fulfillment = await repo.insertFulfillment(tx, store, { orderId: id, lines: left.map(([productId, quantity]) => ({ productId, quantity })), trackingNumber: null, trackingUrl: null, carrier: null });
      fulfillmentEvent = fulfillment;
    }
  }
  if (to === 'CANCELLED') {
    const lines = await repo.orderLines(tx, store, [id]);
    // Units a refund already put back are not returned twice.
    const restocked = new Map<string, number>();
    for (const r of (await refundsOfOrders(tx, store, [id])).get(id) ?? []) if (r.restock) for (const l of r.lines) restocked.set(l.productId, (restocked.get(l.productId) ?? 0) + l.quantity);
    // Product id order, as when the stock was taken, so a cancel and an order cannot deadlock.
    for (const line of [...lines].sort((a, b) => a.product.id.localeCompare(b.product.id))) {
      const quantity = line.quantity - (restocked.get(line.product.id) ?? 0);
      if (quantity <= 0) continue;
      const after = await returnStock(tx, store, line.product.id, quantity);
      returned.push({ productId: line.product.id, before: after - quantity, after });
    }
    // After the products, as orders lock them: the code's use comes back with the stock.
    if (order.discountId) await returnUse(tx, store, order.discountId);
    for (const payment of await closeOrderPayments(tx, store, id)) paymentEvents.push({ type: 'payment.refunded', payment });
  }
  const changed = { order: await renderOrder(tx, store, id) };
  if (fulfillmentEvent) record('fulfillment.created', { fulfillment: fulfillmentView(fulfillmentEvent), order: changed.order });
  if (changed.order.status !== 'CREATED') record(STATUS_EVENTS[changed.order.status], reason ? { ...changed, reason } : changed);
  for (const e of paymentEvents) record(e.type, { payment: orderPaymentView(e.payment), order: changed.order });
  for (const r of returned) await recordStockCrossing(tx, record, store, r.productId, r.before, r.after);
  return changed;
}


/** The order, locked for a payment's decision (the order row first, as every change of it does). */
export const lockOrder = (tx: Executor, store: string, id: string) => repo.findOrder(tx, store, id, { lock: true });

/**
 * CREATED -> PAID when its payments came to cover it (guarded by the status it expects). False when
 * it was not CREATED. The caller records `order.paid` with the order as its transaction leaves it.
 */
export const markOrderPaid = (tx: Executor, store: string, id: string): Promise<boolean> => repo.transitionOrder(tx, store, id, 'CREATED', 'PAID');

/** Orders locked for a round of payment decisions, in id order (as every round locks them). */
export const lockOrders = (tx: Executor, store: string, ids: string[]) => repo.lockOrders(tx, store, [...new Set(ids)].sort());

/**
 * CREATED -> PAID for a round's orders that its payments came to cover (locked, and CREATED under
 * the locks), at `at`, the round's transaction time: the write, to make in the round's last
 * statement (events module `Alongside`), and the orders as it leaves them.
 */
export function markOrdersPaid(store: string, orders: repo.OrderRow[], at: Date): { write: BesideWrite | null; moved: repo.OrderRow[] } {
  if (orders.length === 0) return { write: null, moved: [] };
  return {
    write: repo.transitionLockedOrders(store, orders.map((o) => o.id), 'CREATED', 'PAID', at),
    moved: orders.map((o) => ({ ...o, status: 'PAID', updatedAt: at })),
  };
}

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

/**
 * Checks a fulfilment against the order (read, or under the order's lock): PAID, and no more units
 * than are left to ship (422 FULFILLMENT_EXCEEDS_ORDER). Answers the lines to ship: all that is
 * left when none are given.
 */
async function fulfillmentLines(db: Executor, store: string, order: repo.OrderRow | undefined, id: string, lines: CreateFulfillmentBody['lines']) {
  if (!order) throw new AppError('NOT_FOUND', `order ${id} not found`);
  if (order.status !== 'PAID') throw new AppError('INVALID_TRANSITION', `order ${id} is ${order.status}; only a PAID order is fulfilled`);
  const left = unfulfilledUnits(await repo.orderLines(db, store, [id]), await repo.fulfillmentsOf(db, store, [id]));
  if (!lines) return [...left].filter(([, n]) => n > 0).map(([productId, quantity]) => ({ productId, quantity }));
  const asked = new Map<string, number>();
  for (const l of lines) asked.set(l.productId.toLowerCase(), (asked.get(l.productId.toLowerCase()) ?? 0) + l.quantity);
  for (const [productId, quantity] of asked) {
    const available = left.get(productId) ?? 0;
    if (quantity > available) throw new AppError('FULFILLMENT_EXCEEDS_ORDER', `${quantity} of product ${productId} asked; ${available} left to fulfil`, { errors: [{ productId, requested: quantity, available }] });
  }
  return [...asked].map(([productId, quantity]) => ({ productId, quantity }));
}

/** Checks a fulfilment before any provider is called (the capture): nothing is written. */
export async function checkFulfillment(db: Executor, store: string, id: string, body: CreateFulfillmentBody): Promise<void> {
  await fulfillmentLines(db, store, await repo.findOrder(db, store, id), id, body.lines);
}

/**
 * A fulfilment of some (or all remaining) units with its tracking, under the order's lock; the
 * order becomes FULFILLED when every unit has shipped. Records `fulfillment.created` and then
 * `order.fulfilled`.
 */
export async function fulfilOrder(tx: Executor, record: Recorder, store: string, id: string, body: CreateFulfillmentBody) {
  const order = await repo.findOrder(tx, store, id, { lock: true });
  const lines = await fulfillmentLines(tx, store, order, id, body.lines);
  if (lines.length === 0) throw new AppError('FULFILLMENT_EXCEEDS_ORDER', `order ${id} has nothing left to fulfil`);
  const fulfillment = await repo.insertFulfillment(tx, store, { orderId: id, lines, trackingNumber: body.trackingNumber ?? null, trackingUrl: body.trackingUrl ?? null, carrier: body.carrier ?? null });
  const done = [...unfulfilledUnits(await repo.orderLines(tx, store, [id]), await repo.fulfillmentsOf(tx, store, [id])).values()].every((n) => n <= 0);
  if (done) await repo.transitionOrder(tx, store, id, 'PAID', 'FULFILLED');
  const view = { fulfillment: fulfillmentView(fulfillment), order: await renderOrder(tx, store, id) };
  record('fulfillment.created', view);
  if (done) record('order.fulfilled', { order: view.order });
  return view;
}

/**
 * A refund (and, with `restock`, a return) under the order's lock: the money through the order's
 * captured payments (payments' takeRefund: newest first, never more than is left), the listed units
 * back in stock when restocked (no more than were ordered less those already returned: 422
 * RETURN_EXCEEDS_ORDER). Records `order.refunded`, `payment.refunded` for manual money given back,
 * and the products back in stock. Stripe parts are made after the commit.
 */
export async function refundOrder(tx: Executor, record: Recorder, store: string, id: string, body: CreateRefundBody) {
  const order = await repo.findOrder(tx, store, id, { lock: true });
  if (!order) throw new AppError('NOT_FOUND', `order ${id} not found`);
  const asked = new Map<string, number>();
  for (const l of body.lines ?? []) asked.set(l.productId.toLowerCase(), (asked.get(l.productId.toLowerCase()) ?? 0) + l.quantity);
  const lines = await repo.orderLines(tx, store, [id]);
  const returnedBefore = new Map<string, number>();
  for (const r of (await refundsOfOrders(tx, store, [id])).get(id) ?? []) for (const l of r.lines) returnedBefore.set(l.productId, (returnedBefore.get(l.productId) ?? 0) + l.quantity);
  for (const [productId, quantity] of asked) {
    const ordered = lines.find((l) => l.product.id === productId)?.quantity ?? 0;
    const available = ordered - (returnedBefore.get(productId) ?? 0);
    if (quantity > available) throw new AppError('RETURN_EXCEEDS_ORDER', `${quantity} of product ${productId} asked; ${available} of the order left to return`, { errors: [{ productId, requested: quantity, available }] });
  }
  const restock = body.restock === true;
  const units = [...asked].map(([productId, quantity]) => ({ productId, quantity }));
  const { refund, payments } = await takeRefund(tx, store, id, { amount: body.amount, reason: body.reason ?? null, lines: units, restock });
  // A cancelled order's stock is already back; only a live order's return restocks.
  const returned: Array<{ productId: string; before: number; after: number }> = [];
  if (restock && order.status !== 'CANCELLED') {
    for (const unit of [...units].sort((a, b) => a.productId.localeCompare(b.productId))) {
      const after = await returnStock(tx, store, unit.productId, unit.quantity);
      returned.push({ productId: unit.productId, before: after - unit.quantity, after });
    }
  }
  const view = { refund: refundView(refund), order: await renderOrder(tx, store, id) };
  record('order.refunded', view);
  for (const p of payments) if (p.provider === 'manual') record('payment.refunded', { payment: orderPaymentView(p), order: view.order });
  for (const r of returned) await recordStockCrossing(tx, record, store, r.productId, r.before, r.after);
  return view;
}
