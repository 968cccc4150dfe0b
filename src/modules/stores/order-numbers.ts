/**
 * Order numbers: what a shopper quotes ("order 1042"), unique within a store, from 1001. Each store
 * has a sequence of its own, `order_number_<slug>` (made with the store, like its catalog version),
 * and a round of orders takes its numbers in the statement that writes them: no row lock, so orders of different
 * products, in one process or several, never queue on a per-store row. A rolled-back round leaves a
 * gap (numbers may skip; they never repeat).
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';

const numberSequence = (store: SQL): SQL => sql`quote_ident('order_number_' || ${store})::regclass`;

/** Makes a new store's order number sequence; in the transaction that creates the store (its slug is checked). */
export async function createOrderNumbers(db: Executor, store: string): Promise<void> {
  await db.execute(sql.raw(`create sequence "order_number_${store.replaceAll('"', '""')}" start with 1001`));
}

/**
 * The next number of the store a column names, as an SQL expression: for the statement that writes
 * a round's orders, so numbering them costs no round trip of its own.
 */
export const nextOrderNumber = (store: SQL): SQL => sql`nextval(${numberSequence(store)})::int`;
