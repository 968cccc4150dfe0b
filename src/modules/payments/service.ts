/**
 * Payments inside an order's transaction: what the orders module asks of them when it renders,
 * pays by hand or cancels an order. No provider is called here: a refund or a void a cancel decides
 * is written as the payment's `dueAction` and made after the commit (settle.ts).
 */
import { mapped, together, type Executor, type Part } from '../../db/client.js';
import { AppError } from '../../lib/app-error.js';
import * as repo from './repository.js';
import { publicProviderView } from './views.js';

/** Rows by their order id, in the order given. */
function byOrderId<R extends { orderId: string }>(rows: R[]): Map<string, R[]> {
  const byOrder = new Map<string, R[]>();
  for (const row of rows) {
    const list = byOrder.get(row.orderId);
    if (list) list.push(row);
    else byOrder.set(row.orderId, [row]);
  }
  return byOrder;
}

/** The payments of some orders, by order id, oldest first. */
export function paymentsOfOrders(db: Executor, store: string, orderIds: string[]): Promise<Map<string, repo.PaymentRow[]>> {
  return together(db, paymentsOfOrdersPart(store, orderIds));
}

/** `paymentsOfOrders` as a statement to send with others (db/client.ts `together`). */
export function paymentsOfOrdersPart(store: string, orderIds: string[]): Part<Map<string, repo.PaymentRow[]>> {
  return mapped(repo.paymentsOfPart(store, orderIds), byOrderId);
}

/**
 * An admin's "PAID": a `manual` payment of the balance, succeeded (a pending manual payment of the
 * order becomes it). Answers the payment, or undefined when nothing is owed.
 */
export async function recordManualPayment(tx: Executor, store: string, orderId: string, balance: number, currency: string): Promise<repo.PaymentRow | undefined> {
  if (balance <= 0) return undefined;
  const pending = (await repo.paymentsOf(tx, store, [orderId])).find((p) => p.provider === 'manual' && p.status === 'pending');
  if (pending) return repo.updatePayment(tx, store, pending.id, { status: 'succeeded', amount: balance, capturedAmount: balance });
  return repo.insertPayment(tx, { store, orderId, provider: 'manual', status: 'succeeded', amount: balance, currency, capturedAmount: balance });
}

/**
 * A cancelled order's payments, in the cancel's transaction: manual money is marked refunded at
 * once (the shop gives it back), a pending manual payment is cancelled; Stripe money is owed back
 * (`dueAction` refund), Stripe authorizations and open intents are owed a void. Answers the
 * payments refunded here (their `payment.refunded` events are the caller's to record).
 */
export async function closeOrderPayments(tx: Executor, store: string, orderId: string): Promise<repo.PaymentRow[]> {
  const refunded: repo.PaymentRow[] = [];
  for (const p of await repo.paymentsOf(tx, store, [orderId])) {
    const kept = Number(p.capturedAmount) - Number(p.refundedAmount);
    if (p.provider === 'manual') {
      if (p.status === 'pending') await repo.updatePayment(tx, store, p.id, { status: 'cancelled' });
      else if (kept > 0) refunded.push((await repo.updatePayment(tx, store, p.id, { refundedAmount: p.capturedAmount }))!);
    } else if (kept > 0) await repo.updatePayment(tx, store, p.id, { dueAction: 'refund' });
    else if (p.status === 'pending' || p.status === 'authorized' || p.status === 'failed') await repo.updatePayment(tx, store, p.id, { dueAction: 'void' });
  }
  return refunded;
}

/** The store's enabled providers as the storefront needs them (GET /v1/store): never a secret. */
export async function publicPaymentProviders(db: Executor, store: string) {
  return (await repo.listProviders(db, store)).filter((p) => p.enabled).map(publicProviderView);
}

/** Enables the manual provider with these instructions (the demo seed; the admin API does the same). */
export async function enableManualProvider(db: Executor, store: string, instructions: string) {
  return repo.saveProvider(db, { store, name: 'manual', instructions, captureMethod: 'automatic' });
}

/** The refunds of some orders, by order id, oldest first. */
export function refundsOfOrders(db: Executor, store: string, orderIds: string[]): Promise<Map<string, repo.RefundRow[]>> {
  return together(db, refundsOfOrdersPart(store, orderIds));
}

/** `refundsOfOrders` as a statement to send with others (db/client.ts `together`). */
export function refundsOfOrdersPart(store: string, orderIds: string[]): Part<Map<string, repo.RefundRow[]>> {
  return mapped(repo.refundsOfPart(store, orderIds), byOrderId);
}

export interface RefundRequest {
  amount: number;
  reason: string | null;
  lines: Array<{ productId: string; quantity: number }>;
  restock: boolean;
}

/**
 * A refund, in the transaction that holds the order's lock: the amount is taken from the order's
 * captured payments, newest first, and counted in their `refundedAmount` at once, so concurrent
 * refunds (serialized by the order's lock) never give back more than was captured. Manual parts are
 * done (the shop gives the money back); Stripe parts are owed, made after the commit
 * (PaymentsRuntime.settleRefund). More than is left to refund is 422 REFUND_EXCEEDS_PAYMENT.
 * Answers the refund and the payments it changed.
 */
export async function takeRefund(tx: Executor, store: string, orderId: string, request: RefundRequest): Promise<{ refund: repo.RefundRow; payments: repo.PaymentRow[] }> {
  const captured = (await repo.paymentsOf(tx, store, [orderId])).filter((p) => Number(p.capturedAmount) > Number(p.refundedAmount)).reverse();
  const left = captured.reduce((sum, p) => sum + Number(p.capturedAmount) - Number(p.refundedAmount), 0);
  if (request.amount > left) throw new AppError('REFUND_EXCEEDS_PAYMENT', `the order has ${left} left to refund; ${request.amount} was asked`, { errors: [{ available: left, requested: request.amount }] });
  const parts: Array<{ paymentId: string; amount: number; settled: boolean }> = [];
  const changed: repo.PaymentRow[] = [];
  let owed = request.amount;
  for (const p of captured) {
    if (owed === 0) break;
    const part = Math.min(owed, Number(p.capturedAmount) - Number(p.refundedAmount));
    owed -= part;
    parts.push({ paymentId: p.id, amount: part, settled: p.provider === 'manual' });
    changed.push((await repo.updatePayment(tx, store, p.id, { refundedAmount: Number(p.refundedAmount) + part }))!);
  }
  const refund = await repo.insertRefund(tx, {
    store, orderId, amount: request.amount, reason: request.reason, lines: request.lines, restock: request.restock, parts,
    status: parts.every((p) => p.settled) ? 'succeeded' : 'pending',
  });
  return { refund, payments: changed };
}
