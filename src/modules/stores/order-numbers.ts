/**
 * Order numbers: what a shopper quotes ("order 1042"), unique within a store, from 1001. Each store
 * has a sequence of its own, `order_number_<slug>` (made with the store, like its catalog version),
 * and a round of orders takes its numbers with one statement: no row lock, so orders of different
 * products, in one process or several, never queue on a per-store row. A rolled-back round leaves a
 * gap (numbers may skip; they never repeat).
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';

const numberSequence = (store: string) => sql`quote_ident('order_number_' || ${store})::regclass`;

/** Makes a new store's order number sequence; in the transaction that creates the store (its slug is checked). */
export async function createOrderNumbers(db: Executor, store: string): Promise<void> {
  await db.execute(sql.raw(`create sequence "order_number_${store.replaceAll('"', '""')}" start with 1001`));
}

/** `count` new order numbers of the store, increasing. */
export async function takeOrderNumbers(db: Executor, store: string, count: number): Promise<number[]> {
  if (count === 0) return [];
  const rows = await queryRows<{ n: number }>(db, sql`select nextval(${numberSequence(store)})::int as n from generate_series(1, ${count}::int)`);
  return rows.map((r) => Number(r.n)).sort((a, b) => a - b);
}
