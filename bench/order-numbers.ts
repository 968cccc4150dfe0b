/**
 * How the bare-SQL ceilings number their orders: a sequence per store (`bench_order_number_<slug>`),
 * the cheapest way for transactions of one order each to number a store's orders without queuing
 * on a row. The service takes a whole round's numbers from the store's row at once
 * (src/modules/stores/order-numbers.ts); a lone order per transaction would wait on that row. The
 * sequences count from 1,000,000,000, far above any number the service gives in a run.
 */
import pg from 'pg';

/** The SQL expression of the next number of the store `store` (an SQL expression) names. */
export const benchOrderNumber = (store: string) => `nextval(quote_ident('bench_order_number_' || ${store})::regclass)`;

/** Makes the stores' sequences that do not exist yet. */
export async function createBenchOrderNumbers(databaseUrl: string, stores: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const made = [...new Set(stores)].map((s) => `create sequence if not exists "bench_order_number_${s.replaceAll('"', '""')}" start with 1000000000;`);
    await client.query(`set client_min_messages = warning; ${made.join('\n')}`);
  } finally {
    await client.end();
  }
}
