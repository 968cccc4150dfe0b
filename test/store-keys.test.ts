// Every row names an existing store. Most tables check their `store` against `stores` directly;
// a few (orders, order lines, cart lines and holds: `storeOfParent` in src/db/schema.ts) leave it
// to a foreign key of their parent that carries the store and can never be skipped, since all of
// its columns are NOT NULL. This test walks the database's own foreign keys, on both databases, so
// a table that drops its check without such a parent fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { startTestApp } from './support/app.js';

const t = await startTestApp();

interface StoreKey {
  table: string;
  referenced: string;
  /** The key's columns carry the row's store to the referenced row's store (or slug). */
  carriesStore: boolean;
  /** Every column of the key is NOT NULL, so PostgreSQL checks it for every row. */
  alwaysChecked: boolean;
}

test("every table with a store reaches the store's row through foreign keys that are always checked", async () => {
  const tables = (await queryRows<{ table: string }>(t.database.db, sql`
    select c.relname as "table" from pg_class c
      join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
      join pg_attribute a on a.attrelid = c.oid and a.attname = 'store' and not a.attisdropped
    where c.relkind in ('r', 'p')`)).map((r) => r.table);
  const keys = await queryRows<StoreKey>(t.database.db, sql`
    select f.conrelid::regclass::text as "table", f.confrelid::regclass::text as referenced,
      bool_or(a.attname = 'store' and r.attname in ('store', 'slug')) as "carriesStore",
      bool_and(a.attnotnull) as "alwaysChecked"
    from pg_constraint f
      cross join lateral unnest(f.conkey, f.confkey) as k(col, refcol)
      join pg_attribute a on a.attrelid = f.conrelid and a.attnum = k.col
      join pg_attribute r on r.attrelid = f.confrelid and r.attnum = k.refcol
    where f.contype = 'f' and f.connamespace = (select oid from pg_namespace where nspname = current_schema())
    group by f.oid, f.conrelid, f.confrelid`);
  assert.ok(tables.includes('orders') && tables.includes('order_lines'), `tables found: ${tables.join(', ')}`);

  const reaches = new Map<string, boolean>([['stores', true]]);
  const reachesStores = (table: string, seen: Set<string>): boolean => {
    if (reaches.has(table)) return reaches.get(table)!;
    if (seen.has(table)) return false;
    seen.add(table);
    const found = keys.some((k) => k.table === table && k.carriesStore && k.alwaysChecked && reachesStores(k.referenced, seen));
    reaches.set(table, found);
    return found;
  };
  const unchecked = tables.filter((table) => table !== 'stores' && !reachesStores(table, new Set()));
  assert.deepEqual(unchecked, [], 'these tables can hold a row of a store that does not exist');

  // The four that leave the check to their parent do so through a parent that has it.
  for (const [table, parent] of [['orders', 'addresses'], ['order_lines', 'orders'], ['cart_lines', 'carts'], ['cart_holds', 'carts']] as const) {
    assert.ok(keys.some((k) => k.table === table && k.referenced === parent && k.carriesStore && k.alwaysChecked), `${table} through ${parent}`);
  }
});
