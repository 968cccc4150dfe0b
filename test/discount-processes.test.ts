/**
 * Discount usage across real processes (PostgreSQL): a code with a usage limit of 100 raced by 1,000
 * orders over 200 connections, several customers and two server processes is used exactly 100 times,
 * and the 900 others are 422 used_up with no stock taken; a once-per-customer code raced by one
 * customer from 20 connections is used once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ROOT_TOKEN } from './support/app.js';
import { TEST_DATABASE_URL } from './support/database.js';
import { call, startServerProcess } from './support/server-process.js';
import { ADDRESS } from './support/shop.js';

const skip = !TEST_DATABASE_URL && 'needs TEST_DATABASE_URL (PostgreSQL): PGlite is one process';

/** Runs `count` jobs on `connections` workers at once. */
async function pool<T>(count: number, connections: number, job: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(Array.from({ length: connections }, async () => {
    while (next < count) {
      const i = next++;
      results[i] = await job(i);
    }
  }));
  return results;
}

test('two server processes: usageLimit 100, 1,000 concurrent orders over 200 connections: exactly 100 used, 900 used_up and no stock taken; once per customer from 20 connections: once', { skip }, async () => {
  const env = { DATABASE_URL: TEST_DATABASE_URL!, ORDER_RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '0' };
  const [one, two] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  try {
    const base = (i: number) => (i % 2 ? one.base : two.base);
    const created = await call(one.base, 'POST', '/v1/admin/stores', { token: ROOT_TOKEN, body: { slug: `disc-${randomUUID().slice(0, 8)}` } });
    const { admin } = created.json.tokens as { admin: string };
    const server = (await call(one.base, 'POST', '/v1/admin/tokens', { token: admin, body: { kind: 'server' } })).json.secret as string;
    const products: string[] = [];
    for (let i = 0; i < 5; i++) {
      const p = await call(one.base, 'POST', '/v1/admin/products', { token: admin, body: { name: 'P', slug: `p-${i}`, sku: 'S', price: 1000, quantity: 100_000, status: 'ACTIVE' } });
      products.push(p.json.product.id);
    }
    const customers = await Promise.all(Array.from({ length: 10 }, async () => {
      const customer = randomUUID();
      const address = await call(one.base, 'POST', `/v1/${customer}/addresses`, { token: server, body: { address: ADDRESS } });
      return { customer, address: address.json.address.id as string };
    }));
    const limited = (await call(one.base, 'POST', '/v1/admin/discounts', { token: admin, body: { code: 'FIRST100', type: 'percentage', value: 25, usageLimit: 100 } })).json.discount;
    const started = Date.now();
    const answers = await pool(1000, 200, (i) => {
      const who = customers[i % customers.length]!;
      return call(base(i), 'POST', `/v1/${who.customer}/orders`, {
        token: server,
        body: { address: who.address, products: [{ id: products[i % products.length]!, quantity: 2 }], discountCode: 'first100' },
      });
    });
    const statuses = answers.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 201).length, 100, statuses.join(','));
    for (const r of answers) if (r.status !== 201) assert.deepEqual([r.status, r.json.code, r.json.reason], [422, 'DISCOUNT_NOT_APPLICABLE', 'used_up'], r.text);
    console.log(`1000 orders with a limited code in ${Date.now() - started} ms`);
    assert.equal((await call(two.base, 'GET', `/v1/admin/discounts/${limited.id}`, { token: admin })).json.discount.usageCount, 100);
    let taken = 0;
    for (const id of products) taken += 100_000 - (await call(one.base, 'GET', `/v1/admin/products/${id}`, { token: admin })).json.product.quantity;
    assert.equal(taken, 200, 'only the 100 placed orders took stock');

    const once = (await call(one.base, 'POST', '/v1/admin/discounts', { token: admin, body: { code: 'ONCE', type: 'fixed', value: 100, oncePerCustomer: true } })).json.discount;
    const who = customers[0]!;
    const raced = await pool(20, 20, (i) =>
      call(base(i), 'POST', `/v1/${who.customer}/orders`, { token: server, body: { address: who.address, products: [{ id: products[0]!, quantity: 1 }], discountCode: 'once' } }),
    );
    assert.equal(raced.filter((r) => r.status === 201).length, 1, raced.map((r) => r.status).join(','));
    for (const r of raced) if (r.status !== 201) assert.equal(r.json.reason, 'already_used');
    assert.equal((await call(one.base, 'GET', `/v1/admin/discounts/${once.id}`, { token: admin })).json.discount.usageCount, 1);
  } finally {
    await Promise.all([one.stop(), two.stop()]);
  }
});
