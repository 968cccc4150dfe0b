/** Payments SQL: providers, payments and the Stripe events already applied (this module's tables only). */
import { and, asc, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import { arrayOf, jsonb, nothing, part, prepared, queryRows, together, type BesideWrite, type Executor, type Part } from '../../db/client.js';
import { paymentProviders, payments, paymentWebhookEvents, refunds } from '../../db/schema.js';
import { AppError } from '../../lib/app-error.js';
import { toIso } from '../../lib/time.js';

export type ProviderRow = typeof paymentProviders.$inferSelect;
export type PaymentRow = typeof payments.$inferSelect;
export type ProviderName = ProviderRow['name'];
export type PaymentStatus = PaymentRow['status'];
export type RefundRow = typeof refunds.$inferSelect;

export async function saveProvider(db: Executor, row: typeof paymentProviders.$inferInsert): Promise<ProviderRow> {
  const { store, name, createdAt: _createdAt, ...changes } = row;
  const [saved] = await db
    .insert(paymentProviders)
    .values(row)
    .onConflictDoUpdate({ target: [paymentProviders.store, paymentProviders.name], set: { ...changes, enabled: true, updatedAt: sql`now()` } })
    .returning();
  return saved!;
}

export async function listProviders(db: Executor, store: string): Promise<ProviderRow[]> {
  return db.select().from(paymentProviders).where(eq(paymentProviders.store, store)).orderBy(asc(paymentProviders.name));
}

export async function findProvider(db: Executor, store: string, name: ProviderName): Promise<ProviderRow | undefined> {
  const [row] = await db.select().from(paymentProviders).where(and(eq(paymentProviders.store, store), eq(paymentProviders.name, name)));
  return row;
}

export async function disableProvider(db: Executor, store: string, name: ProviderName): Promise<ProviderRow | undefined> {
  const [row] = await db
    .update(paymentProviders)
    .set({ enabled: false, updatedAt: sql`now()` })
    .where(and(eq(paymentProviders.store, store), eq(paymentProviders.name, name)))
    .returning();
  return row;
}

export async function insertPayment(db: Executor, row: typeof payments.$inferInsert): Promise<PaymentRow> {
  const [saved] = await db.insert(payments).values(row).returning();
  return saved!;
}

export async function deletePayment(db: Executor, store: string, id: string): Promise<void> {
  await db.delete(payments).where(and(eq(payments.store, store), eq(payments.id, id), isNull(payments.intentId)));
}

export async function findPayment(db: Executor, store: string, id: string): Promise<PaymentRow | undefined> {
  const [row] = await db.select().from(payments).where(and(eq(payments.store, store), eq(payments.id, id)));
  return row;
}

export async function findPaymentByIntent(db: Executor, store: string, intentId: string): Promise<PaymentRow | undefined> {
  const [row] = await db.select().from(payments).where(and(eq(payments.store, store), eq(payments.intentId, intentId)));
  return row;
}

/** The payments of some orders, oldest first. */
export function paymentsOf(db: Executor, store: string, orderIds: string[]): Promise<PaymentRow[]> {
  return together(db, paymentsOfPart(store, orderIds));
}

/** The payments of some orders, oldest first: `paymentsOf` as a statement to send with others. */
export function paymentsOfPart(store: string, orderIds: string[]): Part<PaymentRow[]> {
  if (orderIds.length === 0) return nothing([]);
  return part(
    prepared(sql`select ${paymentColumns} from payments p where p.store = ${store} and p.order_id = any(${arrayOf(orderIds, 'uuid')}) order by p.created_at, p.id`),
    (rows) => (rows as RawPayment[]).map(paymentOfRaw),
  );
}

export async function updatePayment(db: Executor, store: string, id: string, changes: Partial<typeof payments.$inferInsert>): Promise<PaymentRow | undefined> {
  const [row] = await db.update(payments).set({ ...changes, updatedAt: sql`now()` }).where(and(eq(payments.store, store), eq(payments.id, id))).returning();
  return row;
}

/** Records the intent a payment's create call got; false when another call recorded it first. */
export async function setIntent(db: Executor, store: string, id: string, intentId: string, clientSecret: string | null): Promise<boolean> {
  const rows = await db
    .update(payments)
    .set({ intentId, clientSecret, updatedAt: sql`now()` })
    .where(and(eq(payments.store, store), eq(payments.id, id), isNull(payments.intentId)))
    .returning({ id: payments.id });
  return rows.length > 0;
}

/** Records a Stripe event id; false when it was already applied (or is being applied by another delivery). */
export async function recordWebhookEvent(db: Executor, store: string, eventId: string): Promise<boolean> {
  const rows = await db.insert(paymentWebhookEvents).values({ store, eventId }).onConflictDoNothing().returning({ eventId: paymentWebhookEvents.eventId });
  return rows.length > 0;
}

/** A payments row as raw SQL answers it (bigint and timestamp types differ between drivers). */
type RawPayment = { [K in keyof PaymentRow]: K extends 'amount' | 'capturedAmount' | 'refundedAmount' ? number | string : K extends 'createdAt' ? Date | string : K extends 'updatedAt' ? Date | string | null : PaymentRow[K] };

const paymentColumns = sql.raw(
  `p.store, p.id, p.order_id as "orderId", p.provider, p.status, p.amount, p.currency, p.captured_amount as "capturedAmount", ` +
    `p.refunded_amount as "refundedAmount", p.intent_id as "intentId", p.client_secret as "clientSecret", p.instructions, ` +
    `p.due_action as "dueAction", p.created_at as "createdAt", p.updated_at as "updatedAt"`,
);

const paymentOfRaw = (p: RawPayment): PaymentRow => ({
  ...p, amount: Number(p.amount), capturedAmount: Number(p.capturedAmount), refundedAmount: Number(p.refundedAmount), createdAt: new Date(p.createdAt), updatedAt: p.updatedAt === null ? null : new Date(p.updatedAt),
});

/**
 * A round's start, in one statement: records its Stripe event ids, in id order (two rounds
 * recording overlapping ids, in one process or two, then never wait for each other crosswise), and
 * finds the payments of its intents and of its payment ids (a payment whose intent was not recorded
 * yet), whichever events turn out new. `recorded` is the ids recorded now: the others were already
 * applied, or are being applied by another transaction (this one waited for it). The payments are read as the statement began, before any wait for an event id
 * another transaction holds: they only say which orders to lock, and are read again under the locks.
 * `at`: the transaction's time (`now()`), to the millisecond as the tables keep it, at which the
 * round's changes are made.
 */
export async function recordEventsAndFindPayments(
  db: Executor,
  store: string,
  eventIds: string[],
  intentIds: string[],
  ids: string[],
): Promise<{ recorded: Set<string>; found: PaymentRow[]; at: Date }> {
  const rows = await queryRows<RawPayment & { recorded: string[] | null; found: boolean; at: Date | string }>(
    db,
    // Each side of the `or` is an index condition of its own (an empty array finds nothing).
    prepared(sql`with recorded as (
          insert into payment_webhook_events (store, event_id)
          select ${store}, e from jsonb_array_elements_text(${jsonb([...new Set(eventIds)].sort())}) as e order by e
          on conflict do nothing returning event_id),
        ids as (select coalesce(array_agg(event_id), '{}') as recorded from recorded)
        select case when row_number() over () = 1 then ids.recorded end as recorded, p.id is not null as found, now()::timestamptz(3) as at, ${paymentColumns}
        from ids left join payments p on p.store = ${store} and (p.intent_id = any(${arrayOf(intentIds, 'text')}) or p.id = any(${arrayOf(ids, 'uuid')}))`),
  );
  return {
    recorded: new Set(rows.find((r) => r.recorded)?.recorded ?? []),
    found: rows.filter((r) => r.found).map(({ recorded: _r, found: _f, at: _a, ...p }) => paymentOfRaw(p)),
    at: new Date(rows[0]!.at),
  };
}

/** What a round changes of a payment (its state after the round's last decision about it). */
export interface PaymentChange {
  id: string;
  status: PaymentStatus;
  capturedAmount: number;
  dueAction: PaymentRow['dueAction'];
  /** Recorded only when the payment has none yet (a create call's answer that was lost). */
  intentId: string | null;
  clientSecret: string | null;
}

/**
 * A round's payment changes at `at` (its transaction's time), made inside another statement
 * (client.ts `BesideWrite`): the payments are its locked orders', and the round fails if one is gone
 * (a pending payment whose create call Stripe refused is deleted without its order's lock).
 */
export function changePaymentsOfRound(store: string, changes: PaymentChange[], at: Date): BesideWrite {
  return {
    ctes: sql`changed_payments as (
          update payments p set status = c.status, captured_amount = c.captured, due_action = c.due_action,
            intent_id = coalesce(p.intent_id, c.intent_id),
            client_secret = case when p.intent_id is null and c.intent_id is not null then c.client_secret else p.client_secret end,
            updated_at = ${toIso(at)}::timestamptz
          from jsonb_to_recordset(${jsonb(changes.map((c) => ({ id: c.id, status: c.status, captured: c.capturedAmount, due_action: c.dueAction, intent_id: c.intentId, client_secret: c.clientSecret })))})
            as c(id uuid, status text, captured bigint, due_action text, intent_id text, client_secret text)
          where p.store = ${store} and p.id = c.id
          returning p.id)`,
    name: 'changed_payments',
    check: (changed) => {
      if (changed !== changes.length) throw new AppError('SERVICE_UNAVAILABLE', 'a payment was removed during its round; retry');
    },
  };
}

/** Payments the service still owes a provider call for, and Stripe payments pending since before `before`. */
export async function openPayments(db: Executor, before: Date, limit: number): Promise<PaymentRow[]> {
  return db
    .select()
    .from(payments)
    .where(or(isNotNull(payments.dueAction), and(eq(payments.status, 'pending'), eq(payments.provider, 'stripe'), lt(payments.createdAt, before))))
    .orderBy(asc(payments.createdAt))
    .limit(limit);
}

export async function insertRefund(db: Executor, row: typeof refunds.$inferInsert): Promise<RefundRow> {
  const [saved] = await db.insert(refunds).values(row).returning();
  return saved!;
}

export async function findRefund(db: Executor, store: string, id: string): Promise<RefundRow | undefined> {
  const [row] = await db.select().from(refunds).where(and(eq(refunds.store, store), eq(refunds.id, id)));
  return row;
}

/** The refunds of some orders, oldest first, as a statement to send with others (db/client.ts `together`). */
export function refundsOfPart(store: string, orderIds: string[]): Part<RefundRow[]> {
  if (orderIds.length === 0) return nothing([]);
  return part(
    prepared(sql`select store, id, order_id as "orderId", amount, reason, lines, restock, parts, status, created_at as "createdAt"
        from refunds where store = ${store} and order_id = any(${arrayOf(orderIds, 'uuid')}) order by created_at, id`),
    (rows) => rows.map((r) => ({ ...(r as unknown as RefundRow), amount: Number(r.amount), createdAt: new Date(r.createdAt as string) })),
  );
}

export async function updateRefund(db: Executor, store: string, id: string, changes: Partial<typeof refunds.$inferInsert>): Promise<RefundRow | undefined> {
  const [row] = await db.update(refunds).set(changes).where(and(eq(refunds.store, store), eq(refunds.id, id))).returning();
  return row;
}

/** Refunds with a Stripe part not yet made (the maintenance job makes them). */
export async function pendingRefunds(db: Executor, limit: number): Promise<RefundRow[]> {
  return db.select().from(refunds).where(eq(refunds.status, 'pending')).orderBy(asc(refunds.createdAt)).limit(limit);
}
