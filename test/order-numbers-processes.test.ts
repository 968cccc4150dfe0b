/**
 * Order numbers across real processes: 600 concurrent orders of three stores through two servers
 * on one PostgreSQL, the stores mixed in every round. Each store's orders get its own numbers
 * 1001-1200, none repeated or skipped (no round failed), and the stored orders hold exactly those.
 * The rounds of the two processes lock the stores' counters in one order: they wait for each
 * other, never deadlock.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ROOT_TOKEN } from './support/app.js';
import { TEST_DATABASE_URL } from './support/database.js';
import { call, startServerProcess } from './support/server-process.js';
import { ADDRESS } from './support/shop.js';

test('two server processes: 600 concurrent orders of three stores get each store its numbers 1001-1200', { skip: !TEST_DATABASE_URL && 'needs TEST_DATABASE_URL (PostgreSQL): PGlite is one process' }, async () => {
  const env = { DATABASE_URL: TEST_DATABASE_URL!, ORDER_RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '0' };
  const [one, two] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  try {
    const shop = async () => {
      const created = await call(one.base, 'POST', '/v1/admin/stores', { token: ROOT_TOKEN, body: { slug: `num-${randomUUID().slice(0, 8)}` } });
      assert.equal(created.status, 201, created.text);
      const { admin } = created.json.tokens as { admin: string };
      const server = (await call(one.base, 'POST', '/v1/admin/tokens', { token: admin, body: { kind: 'server' } })).json.secret as string;
      const products: string[] = [];
      for (let i = 0; i < 10; i++) {
        const p = await call(one.base, 'POST', '/v1/admin/products', { token: admin, body: { name: 'P', slug: `p-${i}`, sku: 'S', price: 10, quantity: 1000, status: 'ACTIVE' } });
        products.push(p.json.product.id as string);
      }
      const customer = randomUUID();
      const address = (await call(one.base, 'POST', `/v1/${customer}/addresses`, { token: server, body: { address: ADDRESS } })).json.address.id as string;
      return { admin, server, products, customer, address };
    };
    const shops = await Promise.all([shop(), shop(), shop()]);
    const sent = Array.from({ length: 600 }, (_, i) => ({ shop: shops[i % 3]!, base: i % 2 ? one.base : two.base, product: shops[i % 3]!.products[i % 10]! }));
    const answers = await Promise.all(
      sent.map(({ shop: s, base, product }) =>
        call(base, 'POST', `/v1/${s.customer}/orders`, { token: s.server, body: { address: s.address, products: [{ id: product, quantity: 1 }] } }),
      ),
    );
    assert.deepEqual([...new Set(answers.map((r) => r.status))], [201], answers.find((r) => r.status !== 201)?.text);
    for (const s of shops) {
      const numbers = answers.filter((_, i) => sent[i]!.shop === s).map((r) => r.json.order.number as number);
      assert.deepEqual([...numbers].sort((a, b) => a - b), Array.from({ length: 200 }, (_, i) => 1001 + i), 'the store numbers its own orders, none repeated');
      const page = await call(two.base, 'GET', '/v1/admin/orders?limit=250', { token: s.admin });
      assert.deepEqual((page.json.orders as Array<{ number: number }>).map((o) => o.number).sort((a, b) => a - b), [...numbers].sort((a, b) => a - b));
    }
  } finally {
    await Promise.all([one.stop(), two.stop()]);
  }
});
