/**
 * Orders across real processes: two servers on one PostgreSQL never oversell, and a server killed
 * with SIGKILL in the middle of a stream of orders loses nothing it answered and leaves the stock
 * consistent with the stored orders.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
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
