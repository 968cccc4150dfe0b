/**
 * The service's PostgreSQL connections: with DB_PREPARED_STATEMENTS=false no named prepared
 * statement is left on the server (PgBouncer's transaction mode cannot keep them), and a connection
 * whose server turned read-only, as a primary demoted in a failover does, answers 503 rather than
 * 500 and is dropped, so that the next request finds the primary. A transaction's BEGIN is written
 * without waiting for its answer, and a transaction's last statement carries its COMMIT; the
 * transaction is still one, whole or not at all.
 */
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { lastInTransaction, openDatabase, queryRows } from '../src/db/client.js';
import { postgresErrorCode } from '../src/db/errors.js';
import { drizzleOver, openPool, type PoolClient } from '../src/db/postgres-pool.js';
import { startAppOn } from './support/app.js';
import { TEST_DATABASE_URL, TEST_PREPARED_STATEMENTS } from './support/database.js';
import { assertProblem, createProduct, createStore, type TestStore } from './support/factories.js';
import { createAddress, createCart, placeOrder } from './support/shop.js';

const skip = TEST_DATABASE_URL ? false : 'needs TEST_DATABASE_URL (a PostgreSQL server)';
const poolerSkip = skip || (!TEST_PREPARED_STATEMENTS && 'a transaction pooler keeps no session of its own');

/** A database handle with one connection, so that what the test sets on it is what requests meet. */
async function oneConnection(preparedStatements: boolean) {
  const database = await openDatabase({ url: TEST_DATABASE_URL!, poolSize: 1, preparedStatements });
  after(() => database.close());
  return { database, t: await startAppOn(database) };
}

const preparedNames = (t: { database: { db: Parameters<typeof queryRows>[0] } }) =>
  queryRows<{ name: string }>(t.database.db, sql`select name from pg_prepared_statements order by name`);

/** Places an order of one unit of each product, with a new customer's address. */
async function orderOf(t: Awaited<ReturnType<typeof oneConnection>>['t'], store: TestStore, products: Array<{ id: string }>) {
  const { customer, address } = await createAddress(t, store);
  const r = await placeOrder(t, store, customer, { address: address.id, products: products.map(({ id }) => ({ id, quantity: 1 })) });
  assert.equal(r.status, 201, r.text);
}

test('DB_PREPARED_STATEMENTS=false: requests leave no named prepared statement on the server', { skip }, async () => {
  const { t } = await oneConnection(false);
  const store = await createStore(t);
  const product = await createProduct(t, store);
  for (let i = 0; i < 3; i++) assert.equal((await t.request('GET', '/api/v1/products', { token: store.storefront })).status, 200);
  await orderOf(t, store, [product]);
  assert.deepEqual(await preparedNames(t), []);
});

test('an order\'s statements are prepared once on the connection, and the next orders send only their values', { skip: poolerSkip }, async () => {
  const { t } = await oneConnection(true);
  const store = await createStore(t);
  const [a, b] = [await createProduct(t, store, { quantity: 10 }), await createProduct(t, store, { quantity: 10 })];
  const prepared = () =>
    queryRows<{ name: string; statement: string }>(t.database.db, sql`select name, statement from pg_prepared_statements where name <> 'storefront_token_lookup' order by name`);
  await orderOf(t, store, [a!]);
  const first = await prepared();
  // The order's round: idempotency keys, products locked, stock taken, the order written, its events.
  assert.ok(first.length >= 5, JSON.stringify(first.map((p) => p.statement.slice(0, 80))));
  for (const { statement } of first) assert.ok(statement.startsWith('/* prepared */'), statement.slice(0, 200));
  // Two products, then one again: lists are array parameters, so the texts are the same ones.
  await orderOf(t, store, [a!, b!]);
  await orderOf(t, store, [b!]);
  assert.deepEqual(await prepared(), first);
});

/** Runs `use` on the one connection of a pool of one, with a count of the answers (ReadyForQuery) the server has sent it. */
async function onOneConnection(use: (client: PoolClient, answers: () => number) => Promise<void>) {
  const pool = await openPool(TEST_DATABASE_URL!, { preparedStatements: TEST_PREPARED_STATEMENTS, poolSize: 1 });
  const client = await pool.connect();
  try {
    let answers = 0;
    (client as unknown as { connection: { on(event: string, f: () => void): void } }).connection.on('readyForQuery', () => answers++);
    await use(client, () => answers);
  } finally {
    client.release();
    await pool.end();
  }
}

test('a transaction\'s BEGIN goes in its first statement\'s round trip, and that statement runs inside the transaction', { skip }, async () => {
  // The server's answers a transaction of two statements waits for: BEGIN's own and the others'.
  await onOneConnection(async (client, answers) => {
    await drizzleOver(client).transaction(async (tx) => {
      await tx.execute(sql`select ${1}::int`);
      await tx.execute(sql`select ${2}::int`);
    });
    // With DB_PREPARED_STATEMENTS=false (a transaction pooler) BEGIN goes alone, as it always did.
    assert.equal(answers(), TEST_PREPARED_STATEMENTS ? 3 : 4);
    // A BEGIN that fails (here on a connection left in an aborted transaction) fails the statement it
    // goes with, which the server skips; alone, it fails itself. The connection goes on once that
    // transaction is rolled back.
    await client.query('BEGIN');
    await assert.rejects(client.query('select 1/0'));
    const begun = client.query({ text: 'begin' });
    if (TEST_PREPARED_STATEMENTS) {
      await begun;
      await assert.rejects(client.query({ text: 'select $1::int as n', values: [1] }), /aborted/);
    } else {
      await assert.rejects(begun, /aborted/);
    }
    await client.query('ROLLBACK');
    assert.deepEqual((await client.query({ text: 'select $1::int as n', values: [2] })).rows, [{ n: 2 }]);
  });

  const database = await openDatabase({ url: TEST_DATABASE_URL!, poolSize: 1, preparedStatements: TEST_PREPARED_STATEMENTS });
  const table = `begun_${randomUUID().replaceAll('-', '')}`;
  await database.db.execute(sql.raw(`create table ${table} (n int)`));
  after(async () => {
    await database.db.execute(sql.raw(`drop table if exists ${table}`));
    await database.close();
  });
  // Statements with values, as the service's are: those are the ones BEGIN goes ahead of.
  const insert = (i: number) => sql`insert into ${sql.raw(table)} values (${i})`;
  // The first statement and the next see one transaction: one id, one start time.
  const ids = await database.db.transaction(async (tx) => {
    const [first] = await queryRows<{ id: string; at: string }>(tx, sql`select txid_current()::text as id, now()::text as at, ${1}::int as n`);
    const [second] = await queryRows<{ id: string; at: string }>(tx, sql`select txid_current()::text as id, now()::text as at, ${2}::int as n`);
    return [first, second].map((row) => ({ id: row!.id, at: row!.at }));
  });
  assert.deepEqual(ids[0], ids[1]);
  // A transaction that fails takes its first statement's write back with it.
  await assert.rejects(database.db.transaction(async (tx) => {
    await tx.execute(insert(1));
    throw new Error('abandoned');
  }), /abandoned/);
  // Many at once on the one connection: each commits or rolls back whole.
  await Promise.all(Array.from({ length: 20 }, (_, i) => database.db.transaction(async (tx) => {
    await tx.execute(insert(i));
    await tx.execute(insert(i));
    if (i % 2 === 1) throw new Error('odd');
  }).catch(() => undefined)));
  const rows = await queryRows<{ n: number; c: number }>(database.db, sql.raw(`select n, count(*)::int as c from ${table} group by n order by n`));
  assert.deepEqual(rows, [0, 2, 4, 6, 8, 10, 12, 14, 16, 18].map((n) => ({ n, c: 2 })));
});

test('a transaction\'s last statement carries its COMMIT: one round trip less, and the transaction whole or not at all', { skip }, async () => {
  await onOneConnection(async (client, answers) => {
    await drizzleOver(client).transaction(async (tx) => {
      await tx.execute(sql`select ${1}::int`);
      await tx.execute(lastInTransaction(true, sql`select ${2}::int`));
    });
    // BEGIN, the first and the last with COMMIT: two answers. Behind a transaction pooler each alone.
    assert.equal(answers(), TEST_PREPARED_STATEMENTS ? 2 : 4);
    // Committed, not left open: the next statement is a transaction of its own.
    const [state] = (await client.query<{ fresh: boolean }>('select xact_start = query_start as fresh from pg_stat_activity where pid = pg_backend_pid()')).rows;
    assert.equal(state!.fresh, true);
  });

  const database = await openDatabase({ url: TEST_DATABASE_URL!, poolSize: 1, preparedStatements: TEST_PREPARED_STATEMENTS });
  // Another connection, to see only what was committed.
  const observer = await openDatabase({ url: TEST_DATABASE_URL!, poolSize: 1, preparedStatements: TEST_PREPARED_STATEMENTS });
  const table = `last_${randomUUID().replaceAll('-', '')}`;
  // Unique only at commit: a statement that succeeds and a COMMIT that fails.
  await database.db.execute(sql.raw(`create table ${table} (n int, tx bigint, unique (n) deferrable initially deferred)`));
  after(async () => {
    await database.db.execute(sql.raw(`drop table if exists ${table}`));
    await database.close();
    await observer.close();
  });
  const insert = (n: number) => sql`insert into ${sql.raw(table)} values (${n}, txid_current())`;
  const last = (n: number) => lastInTransaction(true, insert(n));
  const committed = async () => (await queryRows<{ n: number; tx: string }>(observer.db, sql.raw(`select n, tx::text from ${table} order by n`)));

  await database.db.transaction(async (tx) => {
    await tx.execute(insert(1));
    await tx.execute(last(2));
  });
  // A last statement that fails takes the transaction back with it.
  await assert.rejects(database.db.transaction(async (tx) => {
    await tx.execute(insert(3));
    await tx.execute(lastInTransaction(true, sql`insert into ${sql.raw(table)} values (${'four'}::int, 0)`));
  }), (error) => postgresErrorCode(error) === '22P02');
  // A COMMIT that fails fails the statement it went with: nothing stays.
  await assert.rejects(database.db.transaction(async (tx) => {
    await tx.execute(insert(5));
    await tx.execute(last(5));
  }), (error) => postgresErrorCode(error) === '23505');
  // A statement marked last inside a savepoint is not: the transaction goes on after it, one.
  await database.db.transaction(async (tx) => {
    await tx.transaction(async (savepoint) => {
      await savepoint.execute(last(6));
    });
    await tx.execute(insert(7));
  });
  // Outside a transaction the mark changes nothing, and the next transaction commits as its own.
  await database.db.execute(last(8));
  await database.db.transaction(async (tx) => {
    await tx.execute(insert(9));
    await tx.execute(insert(10));
  });
  // Many at once on the one connection, the last statement of half of them failing.
  await Promise.all(Array.from({ length: 10 }, (_, i) => database.db.transaction(async (tx) => {
    await tx.execute(insert(100 + i));
    await tx.execute(i % 2 === 1 ? lastInTransaction(true, sql`select 1/0, ${i}::int`) : last(200 + i));
  }).catch(() => undefined)));

  const rows = await committed();
  assert.deepEqual(rows.map((r) => r.n), [1, 2, 6, 7, 8, 9, 10, 100, 102, 104, 106, 108, 200, 202, 204, 206, 208]);
  const txOf = new Map(rows.map((r) => [r.n, r.tx]));
  for (const [a, b] of [[1, 2], [6, 7], [9, 10], [100, 200], [108, 208]] as const) assert.equal(txOf.get(a), txOf.get(b), `${a} and ${b} in one transaction`);
  assert.notEqual(txOf.get(8), txOf.get(9));
  // The connection goes on.
  assert.deepEqual(await queryRows(database.db, sql`select ${3}::int as n`), [{ n: 3 }]);
});

test('with prepared statements (the default) the token lookup is prepared on the connection', { skip: poolerSkip }, async () => {
  const { t } = await oneConnection(true);
  const store = await createStore(t);
  assert.equal((await t.request('GET', '/api/v1/products', { token: store.storefront })).status, 200);
  assert.deepEqual((await preparedNames(t)).map((r) => r.name), ['storefront_token_lookup']);
});

test('the token lookup reads one index entry per token, never the whole tokens table', { skip: poolerSkip }, async () => {
  const { database, t } = await oneConnection(true);
  const store = await createStore(t);
  // A deployment's tokens: enough that the planner has to choose, and statistics that say so.
  await database.db.execute(sql`insert into tokens (store, kind, secret_hash, customer_id, expires_at)
    select ${store.slug}, 'customer', md5(i::text || random()::text), gen_random_uuid(), now() + interval '1 day' from generate_series(1, 3000) i`);
  await database.db.execute(sql`analyze tokens`);
  // The plan every batch of lookups gets once the statement is prepared: the generic one.
  await database.db.execute(sql`set plan_cache_mode = force_generic_plan`);
  try {
    assert.equal((await t.request('GET', '/api/v1/products', { token: store.storefront })).status, 200);
    const [prepared] = await queryRows<{ types: string[] }>(database.db, sql`select parameter_types::text[] as types from pg_prepared_statements where name = 'storefront_token_lookup'`);
    const wanted = JSON.stringify([{ store: store.slug, hash: 'f'.repeat(64) }]);
    const args = prepared!.types.map((type) => (type === 'jsonb' ? `'${wanted}'::jsonb` : '1'));
    const plan = (await queryRows<{ 'QUERY PLAN': string }>(database.db, sql.raw(`explain execute storefront_token_lookup(${args.join(', ')})`))).map((r) => r['QUERY PLAN']).join('\n');
    assert.doesNotMatch(plan, /Seq Scan on (tokens|store_versions)/, plan);
    assert.match(plan, /Index Scan using tokens_store_secret_hash_key on tokens/, plan);
  } finally {
    await database.db.execute(sql`reset plan_cache_mode`);
  }
});

test('a round\'s stock update over several stores finds each (store, product) by the index, never every store with every id', { skip: poolerSkip }, async () => {
  const { database, t } = await oneConnection(true);
  const stores = [await createStore(t), await createStore(t), await createStore(t)];
  const products: Array<{ store: string; id: string }> = [];
  for (const store of stores) products.push({ store: store.slug, id: (await createProduct(t, store, { quantity: 10 }))!.id });
  await orderOf(t, stores[0]!, [{ id: products[0]!.id }]);
  // A catalog large enough that the planner has to choose, and statistics that say so.
  await database.db.execute(sql`insert into products (store, status, name, slug, price, quantity, sku)
    select ${stores[1]!.slug}, 'ACTIVE', 'Plan ' || i, 'plan-' || i, 100, 10, 'PLAN-' || i from generate_series(1, 3000) i`);
  await database.db.execute(sql`analyze products`);
  const [update] = await queryRows<{ name: string; types: string[] }>(database.db, sql`select name, parameter_types::text[] as types from pg_prepared_statements
    where statement like '%update products p set quantity = p.quantity - s.taken%'`);
  assert.ok(update, 'the stock update is prepared');
  const values: Record<string, string> = {
    jsonb: `'${JSON.stringify(products.map((p) => ({ ...p, taken: 0 })))}'::jsonb`,
    'text[]': `'{${products.map((p) => p.store).join(',')}}'::text[]`,
    'uuid[]': `'{${products.map((p) => p.id).join(',')}}'::uuid[]`,
  };
  // The plan a busy round gets once the statement is prepared: the generic one.
  await database.db.execute(sql`set plan_cache_mode = force_generic_plan`);
  try {
    const plan = (await queryRows<{ 'QUERY PLAN': string }>(database.db, sql.raw(`explain execute ${update.name}(${update.types.map((type) => values[type]!).join(', ')})`)))
      .map((r) => r['QUERY PLAN']).join('\n');
    assert.doesNotMatch(plan, /Seq Scan on products/, plan);
    // The one `= ANY` the statement may have is the stores' order number counters, found by their key.
    const lines = plan.split('\n');
    lines.forEach((line, i) => {
      if (/= ANY/.test(line)) assert.match(lines[i - 1] ?? '', /on store_versions(_pkey)? /, plan);
    });
    assert.match(plan, /Index Scan using products_store_id_pk on products p\b/, plan);
    assert.match(plan, /Index Cond: \(\(store = \w+\.store\) AND \(id = \w+\.id\)\)/, plan);
  } finally {
    await database.db.execute(sql`reset plan_cache_mode`);
  }
});

test('a round of orders finds its addresses by the key, one probe per pair, never the whole table', { skip: poolerSkip }, async () => {
  const { database, t } = await oneConnection(true);
  const store = await createStore(t);
  await orderOf(t, store, [(await createProduct(t, store, { quantity: 10 }))!]);
  // Statistics with a few thousand addresses. Joined as a set, the plan depended on the table's size:
  // with 2,000 (35 pages, the bench's 2,000 quiet stores) reading them all looked cheaper to the
  // planner than ten probes. Each pair's own subquery is probed by the key whatever the size.
  await database.db.execute(sql`insert into addresses (store, customer_id, zipcode, street, number, city, state, country)
    select ${store.slug}, gen_random_uuid(), '00000', 'Plan', i::text, 'City', 'ST', 'BR' from generate_series(1, 2000) i`);
  await database.db.execute(sql`analyze addresses`);
  const [read] = await queryRows<{ name: string; types: string[] }>(database.db, sql`select name, parameter_types::text[] as types from pg_prepared_statements
    where statement like '%from addresses a%'`);
  assert.ok(read, 'the addresses read is prepared');
  const values: Record<string, string> = { 'text[]': `'{${store.slug},${store.slug}}'::text[]`, 'uuid[]': `'{${randomUUID()},${randomUUID()}}'::uuid[]` };
  // The plan every round gets once the statement is prepared: the generic one.
  await database.db.execute(sql`set plan_cache_mode = force_generic_plan`);
  try {
    const plan = (await queryRows<{ 'QUERY PLAN': string }>(database.db, sql.raw(`explain execute ${read.name}(${read.types.map((type) => values[type] ?? 'null').join(', ')})`)))
      .map((r) => r['QUERY PLAN']).join('\n');
    assert.doesNotMatch(plan, /Seq Scan on addresses/, plan);
    assert.match(plan, /Limit[^\n]*\n\s*->  Index Scan using addresses_store_id_pk on addresses a\b/, plan);
  } finally {
    await database.db.execute(sql`reset plan_cache_mode`);
  }
});

test('a round\'s read of held units probes (store, product) by its index, never a busy store\'s every hold, once renewals have grown that index', { skip: poolerSkip }, async () => {
  const { database, t } = await oneConnection(true);
  const busy = await createStore(t);
  const product = await createProduct(t, busy, { quantity: 10 });
  const cart = await createCart(t, busy, [{ id: product.id, quantity: 1 }]);
  assert.equal((await t.request('POST', `/api/v1/carts/${cart.id}/hold`, { token: busy.storefront })).status, 200);
  await orderOf(t, busy, [product]);
  // A platform's holds: one busy store with 2,000 held carts of two products each among 1,000 quiet
  // stores of two holds each, then renewals that move every hold's end (each one a new entry in the
  // (store, product, until) index and none in the key's), and statistics that say so. On such a
  // table, with the key led by the store, the planner judged the key as cheap as that index and
  // walked the busy store's 4,000 holds for each product (13 ms for 25 products against 0.5).
  const prefix = `plan-${busy.slug}`;
  await database.db.execute(sql`insert into stores (slug, name) select ${prefix} || '-' || i, 'Plan' from generate_series(1, 1000) i`);
  await database.db.execute(sql`insert into carts (store, id, expires_at)
    select ${busy.slug}, gen_random_uuid(), now() + interval '1 day' from generate_series(1, 2000)
    union all select ${prefix} || '-' || i, gen_random_uuid(), now() + interval '1 day' from generate_series(1, 1000) i`);
  await database.db.execute(sql`insert into cart_holds (store, cart_id, product_id, quantity, until)
    select c.store, c.id, gen_random_uuid(), 1, now() + interval '15 minutes' from carts c, generate_series(1, 2) n
    where c.store = ${busy.slug} and c.id <> ${cart.id} or c.store like ${prefix} || '-%'`);
  for (let i = 0; i < 10; i++) {
    await database.db.execute(sql`update cart_holds set until = until + interval '1 second' where store = ${busy.slug} or store like ${prefix} || '-%'`);
  }
  await database.db.execute(sql`analyze cart_holds`);
  const reads = await queryRows<{ name: string; types: string[] }>(database.db, sql`select name, parameter_types::text[] as types from pg_prepared_statements
    where statement like '%from cart_holds where (store, product_id) in%'`);
  assert.ok(reads.length > 0, 'the read of held units is prepared');
  const held = await queryRows<{ id: string }>(database.db, sql`select product_id as id from cart_holds where store = ${busy.slug} limit 25`);
  const values: Record<string, string> = {
    'text[]': `'{${held.map(() => busy.slug).join(',')}}'::text[]`,
    'uuid[]': `'{${held.map((h) => h.id).join(',')}}'::uuid[]`,
  };
  // The plan every round gets once the statement is prepared: the generic one.
  await database.db.execute(sql`set plan_cache_mode = force_generic_plan`);
  try {
    for (const read of reads) {
      const plan = (await queryRows<{ 'QUERY PLAN': string }>(database.db, sql.raw(`explain execute ${read.name}(${read.types.map((type) => values[type] ?? 'null').join(', ')})`)))
        .map((r) => r['QUERY PLAN']).join('\n');
      // The key's probe by the store, with product_id checked on each of its holds.
      assert.doesNotMatch(plan, /Seq Scan on cart_holds|Index Cond: \(\(store = \S+\) AND \(product_id = \S+\)\)$/m, plan);
      assert.match(plan, /Index Scan using cart_holds_store_product_idx on cart_holds\b[^\n]*\n\s*Index Cond: \(\(store = \w+\.\w+\) AND \(product_id = \w+\.\w+\) AND \(until > now\(\)\)\)/, plan);
    }
  } finally {
    await database.db.execute(sql`reset plan_cache_mode`);
  }
});

test('the catalog bump after an order finds its stores\' version rows by the key, never the whole table', { skip: poolerSkip }, async () => {
  const { database, t } = await oneConnection(true);
  const store = await createStore(t);
  await orderOf(t, store, [(await createProduct(t, store, { quantity: 10 }))!]);
  // A deployment's stores: enough that the planner has to choose, and statistics that say so.
  const prefix = `plan-${store.slug}`;
  await database.db.execute(sql`insert into stores (slug, name) select ${prefix} || '-' || i, 'Plan' from generate_series(1, 3000) i`);
  await database.db.execute(sql`insert into store_versions (store) select ${prefix} || '-' || i from generate_series(1, 3000) i`);
  await database.db.execute(sql`analyze store_versions`);
  const [bump] = await queryRows<{ name: string }>(database.db, sql`select name from pg_prepared_statements where statement like '%update store_versions v set catalog%'`);
  assert.ok(bump, 'the bump is prepared');
  // The plan every bump gets once the statement is prepared: the generic one.
  await database.db.execute(sql`set plan_cache_mode = force_generic_plan`);
  try {
    const stores = `'${JSON.stringify([store.slug, `${prefix}-7`])}'::jsonb`;
    const plan = (await queryRows<{ 'QUERY PLAN': string }>(database.db, sql.raw(`explain execute ${bump.name}(${stores})`))).map((r) => r['QUERY PLAN']).join('\n');
    assert.doesNotMatch(plan, /Seq Scan on store_versions/, plan);
    assert.match(plan, /store_versions_pkey/, plan);
  } finally {
    await database.db.execute(sql`reset plan_cache_mode`);
  }
});

test('a connection whose server turned read-only answers 503 and is replaced by one that writes', { skip: poolerSkip }, async () => {
  const { database, t } = await oneConnection(true);
  const store = await createStore(t);
  const product = await createProduct(t, store);
  const demote = () => database.db.execute(sql`set default_transaction_read_only = on`);
  const cart = { token: store.storefront, body: { products: [{ id: product.id, quantity: 1 }] } };

  // A cart is written in a transaction, and changes no catalog (whose version bump would use the connection once more).
  await demote();
  const inTransaction = await t.request('POST', '/api/v1/carts', cart);
  assertProblem(inTransaction, 503, 'SERVICE_UNAVAILABLE');
  assert.equal(inTransaction.headers['retry-after'], '1');
  assert.equal((await t.request('POST', '/api/v1/carts', cart)).status, 201);

  await demote();
  const single = await t.request('POST', '/api/v1/admin/tokens', { token: store.admin, body: { kind: 'server' } });
  assertProblem(single, 503, 'SERVICE_UNAVAILABLE');
  assert.equal((await t.request('POST', '/api/v1/admin/tokens', { token: store.admin, body: { kind: 'server' } })).status, 201);
});

test('the pool drops a connection whose transaction met a read-only server, and keeps the others', { skip: poolerSkip }, async () => {
  const { database } = await oneConnection(true);
  const readOnly = async () => (await queryRows<{ value: string }>(database.db, sql`select current_setting('default_transaction_read_only') as value`))[0]!.value;
  await database.db.execute(sql`set default_transaction_read_only = on`);
  await assert.rejects(database.db.transaction((tx) => tx.execute(sql`create temporary table demoted (x int)`)), (error) => postgresErrorCode(error) === '25006');
  assert.equal(await readOnly(), 'off', 'the one pooled connection was replaced');
  await database.db.execute(sql`set default_transaction_read_only = on`);
  await assert.rejects(database.db.transaction((tx) => tx.execute(sql`select 1/0`)));
  assert.equal(await readOnly(), 'on', 'another error keeps its connection');
  await database.db.execute(sql`set default_transaction_read_only = off`);
});

test('DATABASE_READ_URL naming a server that is not a replica: catalog reads are answered by the primary', { skip }, async () => {
  const database = await openDatabase({ url: TEST_DATABASE_URL!, poolSize: 4, preparedStatements: TEST_PREPARED_STATEMENTS });
  after(() => database.close());
  const t = await startAppOn(database, { DATABASE_URL: TEST_DATABASE_URL!, DATABASE_READ_URL: TEST_DATABASE_URL!, DB_PREPARED_STATEMENTS: String(TEST_PREPARED_STATEMENTS) });
  const store = await createStore(t);
  const product = await createProduct(t, store);
  // The router looks at the server only once its first sample of the primary's position is in
  // ("warming-up" before that), and after a refusal it waits before looking again: on a loaded
  // machine that takes a while, so read (a new page each time, past the cache) until it has looked.
  let metrics = '';
  const deadline = Date.now() + 15_000;
  for (let i = 1; Date.now() < deadline; i++) {
    const r = await t.request('GET', `/api/v1/products?limit=${(i % 50) + 1}`, { token: store.storefront });
    assert.equal(r.status, 200);
    assert.equal(r.json.products[0].id, product.id);
    metrics = (await t.request('GET', '/api/metrics')).text;
    if (/^storefront_catalog_reads_total\{outcome="not-a-replica"\} [1-9]/m.test(metrics)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.match(metrics, /^storefront_catalog_reads_total\{outcome="not-a-replica"\} [1-9]/m);
  assert.doesNotMatch(metrics, /outcome="replica"/);
});
