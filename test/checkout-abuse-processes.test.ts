/**
 * The per-client limits of the public checkout across real processes (PostgreSQL): one client
 * address, spread over two server processes, keeps at most HOLDS_PER_CLIENT held carts and
 * UNPAID_ORDERS_PER_CLIENT unpaid orders, because both are counted in the database under a lock of
 * that client, not in a process's memory. Each process trusts 127.0.0.1 as its proxy, so
 * X-Forwarded-For names the client (rotated on its left, as an attacker would, in vain).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ROOT_TOKEN } from './support/app.js';
import { TEST_DATABASE_URL } from './support/database.js';
import { call, startServerProcess } from './support/server-process.js';
import { ADDRESS } from './support/shop.js';

const skip = !TEST_DATABASE_URL && 'needs TEST_DATABASE_URL (PostgreSQL): PGlite is one process';

test('two server processes: one client races 40 holds and 20 guest orders over both; exactly 3 holds and 3 unpaid orders', { skip }, async () => {
  const env = {
    DATABASE_URL: TEST_DATABASE_URL!, TRUST_PROXY: '127.0.0.1', HOLDS_PER_CLIENT: '3', UNPAID_ORDERS_PER_CLIENT: '3',
    ORDER_RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '0', CLIENT_RATE_LIMIT_PER_MINUTE: '0', GUEST_SESSIONS_PER_MINUTE: '0',
  };
  const [one, two] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  try {
    const base = (i: number) => (i % 2 ? one.base : two.base);
    const client = (i: number) => ({ 'x-forwarded-for': `10.1.${i & 255}.7, 203.0.113.90` });
    const created = await call(one.base, 'POST', '/v1/admin/stores', { token: ROOT_TOKEN, body: { slug: `abuse-${randomUUID().slice(0, 8)}` } });
    assert.equal(created.status, 201, created.text);
    const { admin, storefront } = created.json.tokens as { admin: string; storefront: string };
    const p = await call(one.base, 'POST', '/v1/admin/products', { token: admin, body: { name: 'P', slug: 'p', sku: 'S', price: 10, quantity: 10_000, status: 'ACTIVE' } });
    const productId = p.json.product.id as string;

    const carts = await Promise.all(Array.from({ length: 40 }, async (_, i) => {
      const r = await call(base(i), 'POST', '/v1/carts', { token: storefront, body: { products: [{ id: productId, quantity: 10 }] }, headers: client(i) });
      assert.equal(r.status, 201, r.text);
      return r.json.cart.id as string;
    }));
    const holds = await Promise.all(carts.map((id, i) => call(base(i + 1), 'POST', `/v1/carts/${id}/hold`, { token: storefront, headers: client(i) })));
    assert.equal(holds.filter((r) => r.status === 200).length, 3, holds.map((r) => r.status).join(','));
    for (const r of holds) if (r.status !== 200) assert.deepEqual([r.status, r.json.code], [429, 'RATE_LIMITED'], r.text);

    const guests = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
      const session = await call(base(i), 'POST', '/v1/guest-sessions', { token: storefront, headers: client(i) });
      const { customerId, secret } = session.json as { customerId: string; secret: string };
      const address = await call(base(i), 'POST', `/v1/${customerId}/addresses`, { token: secret, body: { address: ADDRESS }, headers: client(i) });
      return { customerId, secret, addressId: address.json.address.id as string };
    }));
    const orders = await Promise.all(guests.map((g, i) =>
      call(base(i + 1), 'POST', `/v1/${g.customerId}/orders`, { token: g.secret, body: { address: g.addressId, products: [{ id: productId, quantity: 10 }] }, headers: client(i) })));
    assert.equal(orders.filter((r) => r.status === 201).length, 3, orders.map((r) => r.status).join(','));
    for (const r of orders) if (r.status !== 201) assert.deepEqual([r.status, r.json.code], [429, 'RATE_LIMITED'], r.text);

    const product = (await call(two.base, 'GET', `/v1/admin/products/${productId}`, { token: admin })).json.product;
    assert.deepEqual({ quantity: product.quantity, held: product.held }, { quantity: 10_000 - 30, held: 30 }, 'it adds up: 3 orders and 3 holds of 10 units');
  } finally {
    await Promise.all([one.stop(), two.stop()]);
  }
});
