/**
 * Order numbers across real processes: 500 concurrent orders through two servers on one PostgreSQL
 * get 500 different numbers, all from 1001 on, and the stored orders hold exactly those numbers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ROOT_TOKEN } from './support/app.js';
import { TEST_DATABASE_URL } from './support/database.js';
import { call, startServerProcess } from './support/server-process.js';
import { ADDRESS } from './support/shop.js';

test('two server processes: 500 concurrent orders get 500 unique numbers from 1001', { skip: !TEST_DATABASE_URL && 'needs TEST_DATABASE_URL (PostgreSQL): PGlite is one process' }, async () => {
  const env = { DATABASE_URL: TEST_DATABASE_URL!, ORDER_RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '0' };
  const [one, two] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  try {
    const slug = `num-${randomUUID().slice(0, 8)}`;
    const created = await call(one.base, 'POST', '/v1/admin/stores', { token: ROOT_TOKEN, body: { slug } });
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
    const answers = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        call(i % 2 ? one.base : two.base, 'POST', `/v1/${customer}/orders`, { token: server, body: { address, products: [{ id: products[i % 10]!, quantity: 1 }] } }),
      ),
    );
    assert.deepEqual([...new Set(answers.map((r) => r.status))], [201], answers.find((r) => r.status !== 201)?.text);
    const numbers = answers.map((r) => r.json.order.number as number);
    assert.equal(new Set(numbers).size, 500, 'no number repeats');
    assert.ok(numbers.every((n) => Number.isInteger(n) && n >= 1001), 'from 1001');
    const stored: number[] = [];
    for (let offset = 0; offset < 500; offset += 250) {
      const page = await call(two.base, 'GET', `/v1/admin/orders?limit=250&offset=${offset}`, { token: admin });
      stored.push(...(page.json.orders as Array<{ number: number }>).map((o) => o.number));
    }
    assert.deepEqual(stored.sort((a, b) => a - b), [...numbers].sort((a, b) => a - b));
  } finally {
    await Promise.all([one.stop(), two.stop()]);
  }
});
