/**
 * The plans of collapsed listings on a seeded benchmark catalog: the first page and a page 60
 * entries before the end for three sorts, the collapsed count, a collapsed search and a group view,
 * each as EXPLAIN (ANALYZE, BUFFERS). A deep page should cost what the first does.
 *   BENCH_DATABASE_URL=postgres://.../bench_x npx tsx bench/explain-collapsed.ts 100000 [--seed]
 * --seed empties that database and seeds it as `npm run bench` does (its own database only).
 */
import { sql, type SQL } from 'drizzle-orm';
import { openDatabase, type Executor } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { countProducts, listProducts } from '../src/modules/catalog/repository.js';
import { listGroupProducts } from '../src/modules/catalog/groups-repository.js';
import { searchTermsOf } from '../src/modules/catalog/search.js';
import { seedBench } from './seed.js';

const url = process.env.BENCH_DATABASE_URL;
if (!url) throw new Error('set BENCH_DATABASE_URL to a benchmark database of your own');
const products = Number(process.argv[2] ?? 100000);
const database = await openDatabase({ url, poolSize: 2, statementTimeoutMs: 600_000 });
const db = database.db;
const store = `bench-${products}`;
if (process.argv.includes('--seed')) {
  await db.execute(sql`drop schema if exists public cascade`);
  await db.execute(sql`create schema public`);
  await migrate(db);
  await seedBench(db, products, 100);
}
/** Runs each query under EXPLAIN and prints the plan instead of answering rows. */
const explaining = {
  execute: async (query: SQL) => {
    const result = (await db.execute(sql`explain (analyze, buffers, costs off) ${query}`)) as unknown as { rows: Array<Record<string, string>> };
    console.log(result.rows.map((row) => Object.values(row)[0]).join('\n'));
    return { rows: [] };
  },
} as unknown as Executor;

const filter = { store, visibleOnly: true, collapseGroups: true };
for (const sort of ['-createdAt', 'price', 'name'] as const) {
  console.log(`\n=== collapsed, sort ${sort}, first page`);
  await listProducts(explaining, filter, { limit: 51, offset: 0, sort });
  const total = await countProducts(db, filter);
  const [deep] = await listProducts(db, filter, { limit: 1, offset: total - 60, sort });
  console.log(`\n=== collapsed, sort ${sort}, the page after entry ${total - 60} of ${total}`);
  await listProducts(explaining, filter, { limit: 51, offset: 0, sort, after: { keys: deep!.sortKeys, id: deep!.id } });
}
console.log('\n=== collapsed count');
await countProducts(explaining, filter);
console.log('\n=== collapsed, q=linen shi');
await listProducts(explaining, { ...filter, search: (await searchTermsOf(db, store, 'linen shi'))! }, { limit: 51, offset: 0, sort: 'relevance' });
console.log('\n=== group view of group-3000');
await listGroupProducts(explaining, store, 'group-3000');
await database.close();
