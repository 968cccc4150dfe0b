/**
 * Checkout holds across real processes: two servers on one PostgreSQL hold and order exactly the
 * stock, and a server killed with SIGKILL while holds are being taken keeps every hold it answered
 * and none it refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ROOT_TOKEN } from './support/app.js';
import { TEST_DATABASE_URL } from './support/database.js';
import { call, serverDatabaseEnv, startServerProcess, type ServerProcess } from './support/server-process.js';
import { ADDRESS } from './support/shop.js';

async function setUpStore(base: string, quantity: number) {
  const created = await call(base, 'POST', '/v1/admin/stores', { token: ROOT_TOKEN, body: { slug: `hold-${randomUUID().slice(0, 8)}` } });
  assert.equal(created.status, 201, created.text);
  const { admin, storefront } = created.json.tokens as { admin: string; storefront: string };
  const server = (await call(base, 'POST', '/v1/admin/tokens', { token: admin, body: { kind: 'server' } })).json.secret as string;
  const p = await call(base, 'POST', '/v1/admin/products', {
    token: admin,
    body: { name: 'P', slug: `p-${randomUUID().slice(0, 8)}`, sku: 'S', price: 10, quantity, status: 'ACTIVE' },
  });
  assert.equal(p.status, 201, p.text);
  const customer = randomUUID();
  const address = await call(base, 'POST', `/v1/${customer}/addresses`, { token: server, body: { address: ADDRESS } });
  assert.equal(address.status, 201, address.text);
  return { admin, storefront, server, productId: p.json.product.id as string, customer, addressId: address.json.address.id as string };
}

async function newCarts(base: string, storefront: string, productId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, n - i) }, () => call(base, 'POST', '/v1/carts', { token: storefront, body: { products: [{ id: productId, quantity: 1 }] } })),
    );
    for (const r of batch) {
      assert.equal(r.status, 201, r.text);
      ids.push(r.json.cart.id);
    }
  }
  return ids;
}

test('two server processes: 50 carts hold and 20 orders race for 10 units; held + ordered is exactly 10', { skip: !TEST_DATABASE_URL && 'needs TEST_DATABASE_URL (PostgreSQL): PGlite is one process' }, async () => {
  const env = { DATABASE_URL: TEST_DATABASE_URL!, ORDER_RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '0', CLIENT_RATE_LIMIT_PER_MINUTE: '0' };
  const [one, two] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  try {
    const shop = await setUpStore(one.base, 10);
    const carts = await newCarts(two.base, shop.storefront, shop.productId, 50);
    const answers = await Promise.all([
      ...carts.map((id, i) => call(i % 2 ? one.base : two.base, 'POST', `/v1/carts/${id}/hold`, { token: shop.storefront })),
      ...Array.from({ length: 20 }, (_, i) =>
        call(i % 2 ? two.base : one.base, 'POST', `/v1/${shop.customer}/orders`, { token: shop.server, body: { address: shop.addressId, products: [{ id: shop.productId, quantity: 1 }] } }),
      ),
    ]);
    const held = answers.slice(0, 50).filter((r) => r.status === 200).length;
    const ordered = answers.slice(50).filter((r) => r.status === 201).length;
    for (const r of answers) assert.ok([200, 201, 422].includes(r.status), `${r.status} ${r.text.slice(0, 200)}`);
    assert.equal(held + ordered, 10, `held ${held} + ordered ${ordered}`);
    const product = (await call(one.base, 'GET', `/v1/admin/products/${shop.productId}`, { token: shop.admin })).json.product;
    assert.equal(product.quantity, 10 - ordered, 'stock = ordered + left');
    assert.equal(product.held, held);
    // The held carts order through either process: none fails.
    const heldCarts = carts.filter((_, i) => answers[i]!.status === 200);
    const orders = await Promise.all(heldCarts.map((id, i) => call(i % 2 ? one.base : two.base, 'POST', `/v1/${shop.customer}/orders`, { token: shop.server, body: { id, address: shop.addressId } })));
    for (const r of orders) assert.equal(r.status, 201, r.text);
    const after = (await call(two.base, 'GET', `/v1/admin/products/${shop.productId}`, { token: shop.admin })).json.product;
    assert.deepEqual({ quantity: after.quantity, held: after.held }, { quantity: 0, held: 0 });
  } finally {
    await Promise.all([one.stop(), two.stop()]);
  }
});

test('a server killed with SIGKILL while holds are taken: after restart every answered hold counts, none refused does', async () => {
  const database = serverDatabaseEnv();
  const env = { ...database.env, ORDER_RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '0', CLIENT_RATE_LIMIT_PER_MINUTE: '0' };
  let server: ServerProcess = await startServerProcess(env);
  try {
    const shop = await setUpStore(server.base, 60);
    const carts = await newCarts(server.base, shop.storefront, shop.productId, 150);
    const accepted: string[] = [];
    const refused: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < carts.length) {
        const id = carts[next++]!;
        try {
          const r = await call(server.base, 'POST', `/v1/carts/${id}/hold`, { token: shop.storefront });
          if (r.status === 200) accepted.push(id);
          else if (r.status === 422) refused.push(id);
        } catch {
          return; // the connection died with the process
        }
      }
    };
    const stream = Promise.all([0, 1, 2, 3].map(worker));
    // Past the stock, so that both answered and refused holds exist when the process dies.
    while (accepted.length + refused.length < 80 && next < carts.length) await new Promise((r) => setTimeout(r, 10));
    server.child.kill('SIGKILL');
    await stream;
    await server.kill();
    server = await startServerProcess(env);
    assert.ok(accepted.length > 0 && refused.length > 0, `accepted ${accepted.length}, refused ${refused.length}`);
    const heldUntil = async (id: string) => (await call(server.base, 'GET', `/v1/carts/${id}`, { token: shop.storefront })).json.cart.heldUntil;
    for (const id of accepted) assert.notEqual(await heldUntil(id), null, `cart ${id} was answered 200 but holds nothing`);
    for (const id of refused) assert.equal(await heldUntil(id), null, `cart ${id} was refused but holds units`);
    let holding = 0;
    for (const id of carts) if ((await heldUntil(id)) !== null) holding++;
    const product = (await call(server.base, 'GET', `/v1/admin/products/${shop.productId}`, { token: shop.admin })).json.product;
    assert.equal(product.held, holding, 'what is held is what the held carts hold');
    assert.ok(product.held <= product.quantity, 'never more than the stock');
    console.log(`# SIGKILL hold test: ${accepted.length} holds answered 200, ${refused.length} refused, ${holding} stored`);
  } finally {
    await server.stop();
    database.remove();
  }
});
