/**
 * Orders across real processes: two servers on one PostgreSQL never oversell, and a server killed
 * with SIGKILL in the middle of a stream of orders loses nothing it answered and leaves the stock
 * consistent with the stored orders.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { ROOT_TOKEN } from './support/app.js';
import { TEST_DATABASE_URL } from './support/database.js';
import { call, serverDatabaseEnv, startServerProcess, type ServerProcess } from './support/server-process.js';
import { ADDRESS } from './support/shop.js';

async function setUpStore(base: string, stock: number[]) {
  const slug = `proc-${randomUUID().slice(0, 8)}`;
  const created = await call(base, 'POST', '/v1/admin/stores', { token: ROOT_TOKEN, body: { slug } });
  assert.equal(created.status, 201, created.text);
  const { admin } = created.json.tokens as { admin: string };
  const server = (await call(base, 'POST', '/v1/admin/tokens', { token: admin, body: { kind: 'server' } })).json.secret as string;
  const products: Array<{ id: string; initial: number }> = [];
  for (const quantity of stock) {
    const p = await call(base, 'POST', '/v1/admin/products', {
      token: admin,
      body: { name: 'P', slug: `p-${randomUUID().slice(0, 8)}`, sku: 'S', price: 10, quantity, status: 'ACTIVE' },
    });
    assert.equal(p.status, 201, p.text);
    products.push({ id: p.json.product.id, initial: quantity });
  }
  const customer = randomUUID();
  const address = await call(base, 'POST', `/v1/${customer}/addresses`, { token: server, body: { address: ADDRESS } });
  assert.equal(address.status, 201, address.text);
  return { admin, server, products, customer, addressId: address.json.address.id as string };
}

test('two server processes on one PostgreSQL: 30 concurrent orders of 1 unit with 5 in stock, exactly 5 succeed', { skip: !TEST_DATABASE_URL && 'needs TEST_DATABASE_URL (PostgreSQL): PGlite is one process' }, async () => {
  const env = { DATABASE_URL: TEST_DATABASE_URL!, ORDER_RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '0' };
  const [one, two] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  try {
    const shop = await setUpStore(one.base, [5]);
    const product = shop.products[0]!;
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(i % 2 ? one.base : two.base, 'POST', `/v1/${shop.customer}/orders`, {
          token: shop.server,
          body: { address: shop.addressId, products: [{ id: product.id, quantity: 1 }] },
        }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 201).length, 5, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 422).length, 25, statuses.join(','));
    const left = await call(two.base, 'GET', `/v1/admin/products/${product.id}`, { token: shop.admin });
    assert.equal(left.json.product.quantity, 0);
  } finally {
    await Promise.all([one.stop(), two.stop()]);
  }
});

test('two server processes: 8 concurrent retries of one Idempotency-Key make one order', { skip: !TEST_DATABASE_URL && 'needs TEST_DATABASE_URL (PostgreSQL): PGlite is one process' }, async () => {
  const env = { DATABASE_URL: TEST_DATABASE_URL!, ORDER_RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '0' };
  const [one, two] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  try {
    const shop = await setUpStore(one.base, [10]);
    const product = shop.products[0]!;
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(i % 2 ? one.base : two.base, 'POST', `/v1/${shop.customer}/orders`, {
          token: shop.server,
          headers: { 'idempotency-key': key },
          body: { address: shop.addressId, products: [{ id: product.id, quantity: 1 }] },
        }),
      ),
    );
    for (const r of answers) assert.ok(r.status === 201 || (r.status === 409 && r.json.code === 'IDEMPOTENCY_KEY_IN_USE'), `${r.status} ${r.text.slice(0, 200)}`);
    assert.equal(new Set(answers.filter((r) => r.status === 201).map((r) => r.json.order.id)).size, 1);
    const orders = await call(two.base, 'GET', `/v1/${shop.customer}/orders`, { token: shop.server });
    assert.equal(orders.json.total, 1);
    assert.equal((await call(one.base, 'GET', `/v1/admin/products/${product.id}`, { token: shop.admin })).json.product.quantity, 9);
  } finally {
    await Promise.all([one.stop(), two.stop()]);
  }
});

test('a server killed with SIGKILL during a stream of orders: every answered order is whole and stock adds up', async () => {
  const database = serverDatabaseEnv();
  const removeDataDir = database.remove;
  const env = { ...database.env, ORDER_RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '0' };
  let server: ServerProcess = await startServerProcess(env);
  try {
    const shop = await setUpStore(server.base, [1000, 1000, 1000]);
    const answered: string[] = [];
    let attempted = 0;
    const worker = async (w: number) => {
      for (let i = 0; ; i++) {
        attempted++;
        const products = shop.products.filter((_, j) => (i + w + j) % 3 !== 0).map((p, j) => ({ id: p.id, quantity: 1 + ((i + j) % 3) }));
        try {
          const r = await call(server.base, 'POST', `/v1/${shop.customer}/orders`, { token: shop.server, body: { address: shop.addressId, products } });
          if (r.status === 201) answered.push(r.json.order.id);
        } catch {
          return; // the connection died with the process
        }
      }
    };
    const stream = Promise.all([0, 1, 2, 3].map(worker));
    while (answered.length < 20) await new Promise((r) => setTimeout(r, 20));
    server.child.kill('SIGKILL');
    await stream;
    await server.kill();
    server = await startServerProcess(env);
    const orders: Array<{ id: string; products: Array<{ id: string; order: { quantity: number } }> }> = [];
    for (let offset = 0; ; offset += 250) {
      const page = await call(server.base, 'GET', `/v1/${shop.customer}/orders?limit=250&offset=${offset}`, { token: shop.server });
      assert.equal(page.status, 200, page.text);
      orders.push(...page.json.orders);
      if (page.json.orders.length < 250) break;
    }
    const stored = new Set(orders.map((o) => o.id));
    for (const id of answered) assert.ok(stored.has(id), `order ${id} was answered 201 but is not stored`);
    for (const order of orders) assert.ok(order.products.length === 2, 'every stored order is whole');
    for (const product of shop.products) {
      const ordered = orders.flatMap((o) => o.products).filter((l) => l.id === product.id).reduce((sum, l) => sum + l.order.quantity, 0);
      const now = await call(server.base, 'GET', `/v1/admin/products/${product.id}`, { token: shop.admin });
      assert.equal(now.json.product.quantity + ordered, product.initial, `stock of ${product.id} adds up`);
    }
    console.log(`# SIGKILL test: ${attempted} orders attempted, ${answered.length} answered 201 before the kill, ${orders.length} stored`);
  } finally {
    await server.stop();
    removeDataDir();
  }
});

test('a server killed mid-order frees its Idempotency-Key at once: the retry on another process places the order', { skip: !TEST_DATABASE_URL && 'needs TEST_DATABASE_URL (PostgreSQL): PGlite is one process' }, async () => {
  const env = { DATABASE_URL: TEST_DATABASE_URL!, ORDER_RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '0' };
  const [one, two] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  const blocker = new pg.Client({ connectionString: TEST_DATABASE_URL });
  // Watched from a connection of its own: inside the blocker's transaction pg_stat_activity is a
  // snapshot taken at its first read, so polling there would never see the order start waiting.
  const watcher = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await Promise.all([blocker.connect(), watcher.connect()]);
  try {
    const shop = await setUpStore(one.base, [10]);
    const product = shop.products[0]!;
    const key = randomUUID();
    const order = (base: string) =>
      call(base, 'POST', `/v1/${shop.customer}/orders`, { token: shop.server, headers: { 'idempotency-key': key }, body: { address: shop.addressId, products: [{ id: product.id, quantity: 1 }] } });
    // Hold the product's row so that the first request stops mid-work, its key taken.
    await blocker.query('begin');
    await blocker.query('select 1 from products where id = $1 for update', [product.id]);
    let answered: { status: number; text: string } | undefined;
    const first = order(one.base).then((r) => (answered = r), () => undefined);
    const waiting = async () => (await watcher.query(`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`)).rows[0].n as number;
    // Up to 15 s: a server process's first order meets a cold JIT on a machine that may be busy.
    for (let i = 0; (await waiting()) === 0; i++) {
      // An order answered without waiting never took the product's lock: say what it was answered.
      if (answered) assert.fail(`the first order was answered ${answered.status} before it reached the product lock: ${answered.text.slice(0, 300)}`);
      if (i >= 600) assert.fail(`the first order never reached the product lock: ${JSON.stringify((await watcher.query(`select state, wait_event_type, left(query, 80) as q from pg_stat_activity where datname = current_database()`)).rows)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    one.child.kill('SIGKILL');
    await first;
    await blocker.query('rollback');
    // The dead request's transaction ends when PostgreSQL sees its connection gone: at once, not after a lease.
    const started = Date.now();
    let retry = await order(two.base);
    while (retry.status === 409 && Date.now() - started < 5000) {
      await new Promise((r) => setTimeout(r, 50));
      retry = await order(two.base);
    }
    assert.equal(retry.status, 201, `${retry.status} ${retry.text.slice(0, 200)} after ${Date.now() - started} ms`);
    assert.equal(retry.headers.get('idempotent-replayed'), null);
    console.log(`# the key was free ${Date.now() - started} ms after the kill`);
    const replay = await order(two.base);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.json.order.id, retry.json.order.id);
    assert.equal((await call(two.base, 'GET', `/v1/${shop.customer}/orders`, { token: shop.server })).json.total, 1);
    assert.equal((await call(two.base, 'GET', `/v1/admin/products/${product.id}`, { token: shop.admin })).json.product.quantity, 9);
  } finally {
    await Promise.all([blocker.end(), watcher.end()]);
    await Promise.all([one.stop(), two.stop()]);
  }
});

test('two server processes: carts raced by cart orders (each cart ordered twice) make at most one order per cart and never oversell', { skip: !TEST_DATABASE_URL && 'needs TEST_DATABASE_URL (PostgreSQL): PGlite is one process' }, async () => {
  const env = { DATABASE_URL: TEST_DATABASE_URL!, ORDER_RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '0' };
  const [one, two] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  try {
    const shop = await setUpStore(one.base, [6]);
    const product = shop.products[0]!;
    const carts: string[] = [];
    for (let i = 0; i < 12; i++) {
      const cart = await call(one.base, 'POST', '/v1/carts', { token: shop.server, body: { products: [{ id: product.id, quantity: 1 }] } });
      assert.equal(cart.status, 201, cart.text);
      carts.push(cart.json.cart.id);
    }
    // Every cart ordered once on each process at the same time: 24 requests for 12 carts and 6 units.
    const answers = await Promise.all(
      carts.flatMap((id) => [one, two].map((server) => call(server.base, 'POST', `/v1/${shop.customer}/orders`, { token: shop.server, body: { address: shop.addressId, id } }))),
    );
    const placed = answers.filter((r) => r.status === 201);
    for (const r of answers) {
      if (r.status === 409) assert.equal(r.json.code, 'CART_NOT_PENDING');
      else if (r.status === 422) assert.equal(r.json.code, 'INSUFFICIENT_STOCK');
      else assert.equal(r.status, 201, r.text);
    }
    assert.equal(placed.length, 6, answers.map((r) => r.status).join(','));
    const orders = (await call(two.base, 'GET', `/v1/${shop.customer}/orders?limit=100`, { token: shop.server })).json.orders as Array<{ id: string }>;
    assert.equal(orders.length, 6);
    const completed = [];
    for (const id of carts) {
      const cart = (await call(two.base, 'GET', `/v1/carts/${id}`, { token: shop.server })).json.cart;
      if (cart.status === 'COMPLETED') completed.push(id);
      else assert.equal(cart.status, 'PENDING');
    }
    assert.equal(completed.length, 6, 'one order per completed cart');
    assert.equal((await call(one.base, 'GET', `/v1/admin/products/${product.id}`, { token: shop.admin })).json.product.quantity, 0);
  } finally {
    await Promise.all([one.stop(), two.stop()]);
  }
});
