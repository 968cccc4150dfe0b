/**
 * A round of intents applied at once: the webhook deliveries and syncs of one store that arrive
 * while its rounds run are decided together in one transaction, as orders are combined
 * (round-queue.ts). The round costs the same four statements whatever its size, each a wait with
 * the round's locks held: the event ids recorded and the payments found, their orders locked (in id
 * order), then what is read under those locks (their payments, and what rendering them needs: their
 * lines, addresses and refunds; an order CREATED when locked has no fulfilment to read), and last
 * the events recorded in the statement that also changes the payments and moves the orders to PAID,
 * with the COMMIT. Each intent is still decided on its own, in arrival order, against what the
 * intents before it in the round decided: two successes of one order in one round pay it once.
 */
import { parts, together, type Executor } from '../../db/client.js';
import type { Outcome } from '../../lib/keyed-batcher.js';
import type { Alongside, Recorder } from '../events/index.js';
import { lockOrders, markOrdersPaid, orderTotalOf, paymentAmounts, renderingOf, type OrderRow } from '../orders/index.js';
import { coversOrder, paymentTotals } from '../pricing/index.js';
import * as repo from './repository.js';
import type { Intent } from './stripe-client.js';
import { orderPaymentView } from './views.js';

/** One intent to apply: a webhook's (with Stripe's event id, applied once) or a sync's (no event id). */
export interface IntentJob {
  store: string;
  intent: Intent;
  eventId: string | null;
  failedEvent: boolean;
}

/** Where a payment may go from each state: a succeeded payment never goes back. */
const PAYMENT_MOVES: Record<repo.PaymentStatus, readonly repo.PaymentStatus[]> = {
  pending: ['authorized', 'succeeded', 'failed', 'cancelled'],
  // A declined card may be retried on the same intent, and then succeed.
  failed: ['authorized', 'succeeded', 'cancelled'],
  authorized: ['succeeded', 'cancelled'],
  succeeded: [],
  cancelled: [],
};

/** The payment state an intent shows, or null while the shopper is still paying. */
function stateOfIntent(intent: Intent, failedEvent: boolean): { status: repo.PaymentStatus; captured: number } | null {
  switch (intent.status) {
    case 'succeeded':
      return { status: 'succeeded', captured: intent.amount_received };
    case 'requires_capture':
      return { status: 'authorized', captured: 0 };
    case 'canceled':
      return { status: 'cancelled', captured: 0 };
    case 'requires_payment_method':
      return failedEvent || intent.last_payment_error ? { status: 'failed', captured: 0 } : null;
    default:
      return null;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The payment id an intent's metadata names for this store (its create call's answer may have been lost). */
const paymentIdOf = (job: IntentJob) => {
  const metadata = job.intent.metadata ?? {};
  return metadata.store === job.store && metadata.paymentId && UUID.test(metadata.paymentId) ? metadata.paymentId.toLowerCase() : undefined;
};

/** The events of one intent, recorded once the round has rendered its orders. */
interface Announcement {
  orderId: string;
  payment: repo.PaymentRow;
  paid: boolean;
  status: repo.PaymentStatus;
}

/**
 * Decides and writes one round of a store's intents (in one transaction, `tx`): one outcome each,
 * in arrival order, whose value is the payment owed a refund or a void after the commit (or null).
 * An event id already applied, an intent of no payment of this store's, or a move the state table
 * does not allow changes nothing for that intent alone.
 */
export async function applyIntentRound(tx: Executor, store: string, jobs: IntentJob[], record: Recorder, alongside: Alongside): Promise<Array<Outcome<string | null>>> {
  const outcomes: Array<Outcome<string | null>> = jobs.map(() => ({ ok: true, value: null }));
  // An event id once in the round: its copies (a duplicate storm) are answered as already applied.
  const firstOfEvent = new Map<string, number>();
  const live = jobs.map((job, i) => {
    if (job.eventId === null) return true;
    if (firstOfEvent.has(job.eventId)) return false;
    firstOfEvent.set(job.eventId, i);
    return true;
  });
  // The payments are looked for with the event ids recorded (one statement), before it is known
  // which events are new: a delivery already applied is the exception.
  const candidates = jobs.filter((_, i) => live[i]);
  const { recorded, found, at } = await repo.recordEventsAndFindPayments(
    tx, store, [...firstOfEvent.keys()], [...new Set(candidates.map((j) => j.intent.id))], [...new Set(candidates.flatMap((j) => paymentIdOf(j) ?? []))],
  );
  const applies = jobs.map((job, i) => live[i]! && (job.eventId === null || recorded.has(job.eventId)));
  const byIntent = new Map(found.filter((p) => p.intentId !== null).map((p) => [p.intentId!, p]));
  const byId = new Map(found.map((p) => [p.id, p]));
  const knownOf = jobs.map((job, i) => {
    if (!applies[i]) return undefined;
    const known = byIntent.get(job.intent.id) ?? byId.get(paymentIdOf(job) ?? '');
    // Another provider's payment, or one that already has another intent: not this intent's.
    return known && known.provider === 'stripe' && (known.intentId === null || known.intentId === job.intent.id) ? known : undefined;
  });
  const orderIds = [...new Set(knownOf.flatMap((p) => (p ? [p.orderId] : [])))];
  if (orderIds.length === 0) return outcomes;
  // Every change of a payment takes its order's lock first; read again under the locks, in one
  // statement: the payments as they are now (and the orders' other payments), and what rendering
  // the orders reads (the same before and after the round). Their payments are the round's own,
  // filled in below.
  const orders = new Map((await lockOrders(tx, store, orderIds)).map((o) => [o.id, o]));
  const locked = [...orders.values()];
  const paymentsOfOrder = new Map<string, repo.PaymentRow[]>();
  const neverFulfilled = new Set(locked.filter((o) => o.status === 'CREATED').map((o) => o.id));
  const [read, render] = await together(tx, parts([
    repo.paymentsOfPart(store, [...orders.keys()]),
    renderingOf(store, locked, { payments: paymentsOfOrder, neverFulfilled }),
  ] as const));
  const current = new Map(read.map((p) => [p.id, p]));
  const statusOf = new Map(locked.map((o) => [o.id, o.status]));
  const changed = new Map<string, repo.PaymentChange>();
  const paidOrders = new Set<string>();
  const announcements: Announcement[] = [];

  jobs.forEach((job, i) => {
    const known = knownOf[i];
    const payment = known && current.get(known.id);
    const order = payment && orders.get(payment.orderId);
    // A payment whose create call Stripe refused was dropped without the order's lock; an order
    // deleted; an intent recorded meanwhile that is not this one (the payment was found unlocked).
    if (!payment || !order || (payment.intentId !== null && payment.intentId !== job.intent.id)) return;
    const decided = decide(job, payment, order, statusOf.get(order.id)!, [...current.values()].filter((p) => p.orderId === order.id && p.id !== payment.id));
    outcomes[i] = { ok: true, value: decided.owed };
    if (!decided.payment) return;
    current.set(payment.id, decided.payment);
    changed.set(payment.id, {
      id: payment.id, status: decided.payment.status, capturedAmount: decided.payment.capturedAmount, dueAction: decided.payment.dueAction,
      intentId: decided.payment.intentId, clientSecret: decided.payment.clientSecret,
    });
    if (decided.paid) {
      statusOf.set(order.id, 'PAID');
      paidOrders.add(order.id);
    }
    if (decided.announce) announcements.push({ orderId: order.id, payment: decided.payment, paid: decided.paid, status: decided.payment.status });
  });

  // The writes go in the round's last statement, with its events and its COMMIT.
  if (changed.size > 0) alongside(repo.changePaymentsOfRound(store, [...changed.values()], at));
  const paid = markOrdersPaid(store, [...paidOrders].map((id) => orders.get(id)!), at);
  if (paid.write) alongside(paid.write);
  if (announcements.length === 0) return outcomes;
  for (const p of current.values()) {
    const shown = changed.has(p.id) ? { ...p, updatedAt: at } : p;
    paymentsOfOrder.set(p.orderId, [...(paymentsOfOrder.get(p.orderId) ?? []), shown]);
  }
  // Each order rendered once, as the round leaves it, for every event the round records of it.
  const movedById = new Map(paid.moved.map((o) => [o.id, o]));
  const announced = locked.filter((o) => announcements.some((a) => a.orderId === o.id));
  const views = new Map(render(announced.map((o) => movedById.get(o.id) ?? o)).map((v) => [v.id, v]));
  for (const a of announcements) {
    const view = { payment: orderPaymentView({ ...a.payment, updatedAt: at }), order: views.get(a.orderId)! };
    if (a.paid) record('order.paid', { order: view.order });
    if (a.status === 'succeeded') record('payment.succeeded', view);
    if (a.status === 'failed') record('payment.failed', view);
  }
  return outcomes;
}

/**
 * One intent against its payment and order as the round has them so far: the payment after it
 * (undefined when nothing changes), whether it makes the order PAID, and the payment owed a refund
 * or a void. Money for an order that no longer wants it is owed back at once (never kept for an
 * unpaid order).
 */
function decide(job: IntentJob, payment: repo.PaymentRow, order: OrderRow, orderStatus: OrderRow['status'], others: repo.PaymentRow[]) {
  const withIntent = payment.intentId === null ? { ...payment, intentId: job.intent.id, clientSecret: job.intent.client_secret } : payment;
  const next = stateOfIntent(job.intent, job.failedEvent);
  if (!next || !PAYMENT_MOVES[payment.status].includes(next.status)) {
    return { payment: withIntent === payment ? undefined : withIntent, paid: false, announce: false, owed: payment.dueAction ? payment.id : null };
  }
  const total = orderTotalOf(order);
  const coveredWithout = coversOrder(paymentTotals(total, others.map(paymentAmounts)).paymentStatus);
  const counted = payment.status === 'authorized';
  const takesMoney = next.status === 'succeeded' || next.status === 'authorized';
  const unwanted = takesMoney && (orderStatus === 'CANCELLED' || (!counted && (orderStatus !== 'CREATED' || coveredWithout)));
  const dueAction = unwanted ? (next.status === 'succeeded' ? 'refund' : 'void') : payment.dueAction === 'void' && next.status === 'cancelled' ? null : payment.dueAction;
  const updated: repo.PaymentRow = { ...withIntent, status: next.status, capturedAmount: Math.min(next.captured, Number(payment.amount)), dueAction };
  const paid = orderStatus === 'CREATED' && takesMoney && !unwanted && coversOrder(paymentTotals(total, [...others, updated].map(paymentAmounts)).paymentStatus);
  return { payment: updated, paid, announce: true, owed: dueAction ? payment.id : null };
}
