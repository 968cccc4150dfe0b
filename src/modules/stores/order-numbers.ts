/**
 * Order numbers: what a shopper quotes ("order 1042"), unique within a store, from 1001. Each store
 * has a sequence of its own, `order_number_<slug>` (made with the store, like its catalog version),
 * and a round of orders takes its numbers with one statement: no row lock, so orders of different
 * products, in one process or several, never queue on a per-store row. A rolled-back round leaves a
 * gap (numbers may skip; they never repeat).
 */
import { sql, type SQL } from 'drizzle-orm';
import { jsonb, queryRows, type Executor } from '../../db/client.js';

// The store's slug, or a column naming it.
const numberSequence = (store: string | SQL) => sql`quote_ident('order_number_' || ${store})::regclass`;

/** Makes a new store's order number sequence; in the transaction that creates the store (its slug is checked). */
export async function createOrderNumbers(db: Executor, store: string): Promise<void> {
  await db.execute(sql.raw(`create sequence "order_number_${store.replaceAll('"', '""')}" start with 1001`));
}

/** `count` new order numbers of the store, increasing. */
export async function takeOrderNumbers(db: Executor, store: string, count: number): Promise<number[]> {
  return (await takeStoresOrderNumbers(db, [{ store, count }])).get(store) ?? [];
}

/** New order numbers of several stores (`count` each, increasing), with one statement: by store. */
export async function takeStoresOrderNumbers(db: Executor, wanted: Array<{ store: string; count: number }>): Promise<Map<string, number[]>> {
  const taken = wanted.filter((w) => w.count > 0);
  if (taken.length === 0) return new Map();
  const rows = await queryRows<{ store: string; n: number }>(
    db,
    sql`select w.store, nextval(${numberSequence(sql.raw('w.store'))})::int as n
        from jsonb_to_recordset(${jsonb(taken)}) as w(store text, count int), generate_series(1, w.count)`,
  );
  const numbers = new Map<string, number[]>();
  for (const r of rows) numbers.set(r.store, [...(numbers.get(r.store) ?? []), Number(r.n)]);
  for (const list of numbers.values()) list.sort((a, b) => a - b);
  return numbers;
}
