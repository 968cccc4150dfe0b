/**
 * Orders under contention: concurrent orders of one store are combined into one transaction,
 * whatever their products, each still all or nothing, decided in arrival order, with its own answer and
 * idempotency record; no oversell, on one or two processes, and a crash in the middle of a
 * combined batch loses no answered order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setImmediate as turn } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { KeyedBatcher } from '../src/lib/keyed-batcher.js';
import { ROOT_TOKEN, startTestApp } from './support/app.js';
import { TEST_DATABASE_URL } from './support/database.js';
import { createProduct, createStore } from './support/factories.js';
import { call, serverDatabaseEnv, startServerProcess, type ServerProcess } from './support/server-process.js';
import { ADDRESS, createAddress, createCart, placeOrder, stockOf } from './support/shop.js';

const t = await startTestApp();

test('the batcher: a lone job runs at once; jobs arriving meanwhile run together next, in arrival order, each with its own outcome', async () => {
  const batches: number[][] = [];
  const release: Array<() => void> = [];
  const batcher = new KeyedBatcher<number, number>(async (jobs) => {
    batches.push(jobs);
    await new Promise<void>((resolve) => release.push(resolve));
    return jobs.map((j) => (j % 2 ? { ok: true as const, value: j * 10 } : { ok: false as const, error: new Error(`odd only: ${j}`) }));
  });
  const first = batcher.submit('k', 1);
  await turn();
  assert.deepEqual(batches, [[1]]);
  const later = [3, 4, 5].map((j) => batcher.submit('k', j));
  const other = batcher.submit('other-key', 7);
  await turn();
  assert.deepEqual(batches, [[1], [7]], 'another key does not wait');
  release.shift()!();
  assert.equal(await first, 10);
  await turn();
  assert.deepEqual(batches[2], [3, 4, 5], 'the three that waited run as one batch, in arrival order');
  release.shift()!();
  release.shift()!();
  assert.equal(await other, 70);
  const settled = await Promise.allSettled(later);
  assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'rejected', 'fulfilled']);
  assert.equal((settled[0] as PromiseFulfilledResult<number>).value, 30);
});

test('the batcher: a batch that throws fails its own jobs only', async () => {
  let calls = 0;
  const batcher = new KeyedBatcher<number, number>(async (jobs) => {
    if (calls++ === 0) throw new Error('database went away');
    return jobs.map((j) => ({ ok: true as const, value: j }));
  });
  const results = await Promise.allSettled([batcher.submit('k', 1), batcher.submit('k', 2), batcher.submit('k', 3)]);
  assert.deepEqual(results.map((r) => r.status), ['rejected', 'fulfilled', 'fulfilled']);
});

test('a flash sale: 60 concurrent orders of 1 to 3 units on 40 in stock; no oversell, each order whole, combined commits, every key its own answer', async () => {
  const s = await createStore(t);
  const hot = await createProduct(t, s, { quantity: 40, price: 7 });
  const { customer, address } = await createAddress(t, s);
  const keys = Array.from({ length: 60 }, () => randomUUID());
  const answers = await Promise.all(
    keys.map((key, i) => placeOrder(t, s, customer, { address: address.id, products: [{ id: hot.id, quantity: 1 + (i % 3) }] }, { 'idempotency-key': key })),
  );
  const created = answers.filter((r) => r.status === 201);
  const refused = answers.filter((r) => r.status !== 201);
  for (const r of refused) {
    assert.equal(r.status, 422, r.text);
    assert.equal(r.json.code, 'INSUFFICIENT_STOCK');
    assert.ok(r.json.errors[0].available < r.json.errors[0].requested);
  }
  const sold = created.reduce((sum, r) => sum + r.json.order.products[0].order.quantity, 0);
  assert.ok(sold <= 40 && sold >= 38, `sold ${sold}: once an order is refused only smaller ones can follow`);
  assert.equal(await stockOf(t, s, hot.id), 40 - sold);
  // Each order's line shows the stock left right after it: all different, and consistent with what was sold.
  const lefts = created.map((r) => r.json.order.products[0].quantity).sort((a, b) => a - b);
  assert.equal(new Set(lefts).size, lefts.length);
  assert.equal(lefts[0], 40 - sold);
  const stored = await queryRows<{ id: string; at: string }>(t.database.db, sql`select id::text, created_at::text as at from orders where store = ${s.slug}`);
  assert.equal(stored.length, created.length);
  assert.deepEqual(new Set(stored.map((o) => o.id)), new Set(created.map((r) => r.json.order.id)));
  const commits = new Set(stored.map((o) => o.at)).size;
  console.log(`# flash sale: ${created.length} orders in ${commits} transactions`);
  // PGlite runs one query at a time, so requests rarely overlap a running transaction there.
  if (TEST_DATABASE_URL) assert.ok(commits < created.length, `orders were combined: ${created.length} orders in ${commits} transactions`);
  // Every key keeps its own answer.
  for (const [i, key] of keys.entries()) {
    const again = await placeOrder(t, s, customer, { address: address.id, products: [{ id: hot.id, quantity: 1 + (i % 3) }] }, { 'idempotency-key': key });
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.text, answers[i]!.text);
  }
});

test('combined with carts and other products: orders from carts and lists of several products never oversell either', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 10 });
  const b = await createProduct(t, s, { quantity: 10 });
  const { customer, address } = await createAddress(t, s);
  const carts = await Promise.all(Array.from({ length: 6 }, () => createCart(t, s, [{ id: a.id, quantity: 1 }, { id: b.id, quantity: 1 }])));
  const requests = [
    ...carts.map((cart) => placeOrder(t, s, customer, { id: cart.id, address: address.id })),
    ...Array.from({ length: 12 }, () => placeOrder(t, s, customer, { address: address.id, products: [{ id: a.id, quantity: 1 }, { id: b.id, quantity: 1 }] })),
    ...Array.from({ length: 6 }, () => placeOrder(t, s, customer, { address: address.id, products: [{ id: a.id, quantity: 1 }] })),
  ];
  const answers = await Promise.all(requests);
  const units = (id: string) => answers.filter((r) => r.status === 201).flatMap((r) => r.json.order.products).filter((l: { id: string }) => l.id === id).reduce((n: number, l: { order: { quantity: number } }) => n + l.order.quantity, 0);
  assert.equal(units(a.id), 10, 'a sold out exactly');
  assert.equal(await stockOf(t, s, a.id), 0);
  assert.equal(await stockOf(t, s, b.id), 10 - units(b.id));
  for (const r of answers) assert.ok(r.status === 201 || r.status === 422, r.text);
});

test('a busy checkout: 80 concurrent orders over 10 products of 3 in stock each; every product sells out exactly, refusals name their product, orders combined', async () => {
  const s = await createStore(t);
  const products = await Promise.all(Array.from({ length: 10 }, () => createProduct(t, s, { quantity: 3 })));
  const { customer, address } = await createAddress(t, s);
  const wanted = Array.from({ length: 80 }, (_, i) => products[i % products.length]!.id);
  const answers = await Promise.all(wanted.map((id) => placeOrder(t, s, customer, { address: address.id, products: [{ id, quantity: 1 }] })));
  for (const product of products) {
    const mine = answers.filter((_, i) => wanted[i] === product.id);
    assert.equal(mine.filter((r) => r.status === 201).length, 3, `${product.id}: exactly its stock sold`);
    for (const r of mine.filter((x) => x.status !== 201)) {
      assert.equal(r.status, 422, r.text);
      assert.deepEqual(r.json.errors, [{ productId: product.id, code: 'INSUFFICIENT_STOCK', requested: 1, available: 0 }]);
    }
    assert.equal(await stockOf(t, s, product.id), 0);
  }
  const stored = await queryRows<{ at: string }>(t.database.db, sql`select created_at::text as at from orders where store = ${s.slug}`);
  assert.equal(stored.length, 30);
  const commits = new Set(stored.map((o) => o.at)).size;
  console.log(`# busy checkout: 30 orders of 10 products in ${commits} transactions`);
  if (TEST_DATABASE_URL) assert.ok(commits < 30, `orders of different products were combined: 30 orders in ${commits} transactions`);
});

test('two processes on one PostgreSQL, 200 concurrent orders for 100 units of one product: exactly 100', { skip: !TEST_DATABASE_URL && 'needs TEST_DATABASE_URL (PostgreSQL): PGlite is one process' }, async () => {
  const env = { DATABASE_URL: TEST_DATABASE_URL!, ORDER_RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '0', CLIENT_RATE_LIMIT_PER_MINUTE: '0' };
  const [one, two] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  try {
    const shop = await shopOn(one.base, 100);
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => call(i % 2 ? one.base : two.base, 'POST', `/v1/${shop.customer}/orders`, { token: shop.server, body: shop.order(1) })),
    );
    const statuses = answers.map((r) => r.status);
    assert.equal(statuses.filter((x) => x === 201).length, 100, statuses.join(','));
    assert.equal(statuses.filter((x) => x === 422).length, 100);
    assert.equal((await call(one.base, 'GET', `/v1/admin/products/${shop.productId}`, { token: shop.admin })).json.product.quantity, 0);
  } finally {
    await Promise.all([one.stop(), two.stop()]);
  }
});

test('SIGKILL in the middle of combined batches on one product: every answered order is stored, stock adds up', async () => {
  const database = serverDatabaseEnv();
  const removeDataDir = database.remove;
  const env = { ...database.env, ORDER_RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '0', CLIENT_RATE_LIMIT_PER_MINUTE: '0' };
  let server: ServerProcess = await startServerProcess(env);
  try {
    const shop = await shopOn(server.base, 100000);
    const answered: string[] = [];
    const worker = async (w: number) => {
      for (let i = 0; ; i++) {
        try {
          const r = await call(server.base, 'POST', `/v1/${shop.customer}/orders`, { token: shop.server, body: shop.order(1 + ((i + w) % 3)) });
          if (r.status === 201) answered.push(r.json.order.id);
        } catch {
          return; // the connection died with the process
        }
      }
    };
    const stream = Promise.all(Array.from({ length: 16 }, (_, w) => worker(w)));
    while (answered.length < 60) await new Promise((r) => setTimeout(r, 10));
    server.child.kill('SIGKILL');
    await stream;
    await server.kill();
    server = await startServerProcess(env);
    const orders: Array<{ id: string; products: Array<{ order: { quantity: number } }> }> = [];
    for (let offset = 0; ; offset += 250) {
      const page = await call(server.base, 'GET', `/v1/${shop.customer}/orders?limit=250&offset=${offset}`, { token: shop.server });
      orders.push(...page.json.orders);
      if (page.json.orders.length < 250) break;
    }
    const stored = new Set(orders.map((o) => o.id));
    for (const id of answered) assert.ok(stored.has(id), `order ${id} was answered 201 but is not stored`);
    const sold = orders.reduce((n, o) => n + o.products[0]!.order.quantity, 0);
    const left = (await call(server.base, 'GET', `/v1/admin/products/${shop.productId}`, { token: shop.admin })).json.product.quantity;
    assert.equal(left + sold, 100000, 'stock adds up');
    console.log(`# hot SIGKILL test: ${answered.length} answered 201 before the kill, ${orders.length} stored`);
  } finally {
    await server.stop();
    removeDataDir();
  }
});

/** A store with one product of `quantity` units and a customer with an address, over HTTP. */
async function shopOn(base: string, quantity: number) {
  const created = await call(base, 'POST', '/v1/admin/stores', { token: ROOT_TOKEN, body: { slug: `hot-${randomUUID().slice(0, 8)}` } });
  const admin = created.json.tokens.admin as string;
  const server = (await call(base, 'POST', '/v1/admin/tokens', { token: admin, body: { kind: 'server' } })).json.secret as string;
  const product = await call(base, 'POST', '/v1/admin/products', { token: admin, body: { name: 'Hot', slug: 'hot', sku: 'H', price: 5, quantity, status: 'ACTIVE' } });
  const customer = randomUUID();
  const address = await call(base, 'POST', `/v1/${customer}/addresses`, { token: server, body: { address: ADDRESS } });
  const productId = product.json.product.id as string;
  return { admin, server, customer, productId, order: (units: number) => ({ address: address.json.address.id, products: [{ id: productId, quantity: units }] }) };
}
