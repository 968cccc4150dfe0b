/**
 * Orders from carts under real concurrency: they are combined with the store's other orders in the
 * same rounds (carts locked in id order, then products), and every rule still holds: one order per
 * cart, a cart changed meanwhile, an expired cart, idempotent retries, all or nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { startTestApp } from './support/app.js';
import { assertProblem, createProduct, createStore } from './support/factories.js';
import { createAddress, createCart, placeOrder, stockOf } from './support/shop.js';

const t = await startTestApp();

test('one cart ordered by 6 concurrent requests: one order, the others 409 CART_NOT_PENDING, the stock taken once', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 10 });
  const { customer, address } = await createAddress(t, s);
  const cart = await createCart(t, s, [{ id: a.id, quantity: 2 }]);
  const answers = await Promise.all(Array.from({ length: 6 }, () => placeOrder(t, s, customer, { id: cart.id, address: address.id })));
  const placed = answers.filter((r) => r.status === 201);
  assert.equal(placed.length, 1, answers.map((r) => r.status).join(','));
  for (const r of answers) if (r.status !== 201) assertProblem(r, 409, 'CART_NOT_PENDING');
  assert.equal(await stockOf(t, s, a.id), 8);
  const stored = (await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront })).json.cart;
  assert.equal(stored.status, 'COMPLETED');
  assert.equal(stored.customerId, customer);
});

test('cart orders and product-list orders racing for the last units: all or nothing, never oversold, combined in rounds', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 8 });
  const b = await createProduct(t, s, { quantity: 30 });
  const { customer, address } = await createAddress(t, s);
  const carts = await Promise.all(Array.from({ length: 10 }, () => createCart(t, s, [{ id: a.id, quantity: 1 }, { id: b.id, quantity: 2 }])));
  const answers = await Promise.all([
    ...carts.map((cart) => placeOrder(t, s, customer, { id: cart.id, address: address.id })),
    ...Array.from({ length: 10 }, () => placeOrder(t, s, customer, { address: address.id, products: [{ id: a.id, quantity: 1 }] })),
  ]);
  const placed = answers.filter((r) => r.status === 201);
  assert.equal(placed.length, 8, 'exactly the stock of a');
  for (const r of answers) if (r.status !== 201) assertProblem(r, 422, 'INSUFFICIENT_STOCK');
  assert.equal(await stockOf(t, s, a.id), 0);
  const fromCarts = placed.filter((r) => r.json.order.products.length === 2).length;
  assert.equal(await stockOf(t, s, b.id), 30 - 2 * fromCarts, 'a cart order takes all its lines or none');
  const completed = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from carts where store = ${s.slug} and status = 'COMPLETED'`);
  assert.equal(completed[0]!.n, fromCarts, 'a cart is COMPLETED exactly when its order was placed');
  const rounds = await queryRows<{ n: number }>(t.database.db, sql`select count(distinct created_at)::int as n from orders where store = ${s.slug}`);
  console.log(`# ${placed.length} orders (${fromCarts} from carts) in ${rounds[0]!.n} rounds`);
});

test('a cart changed while it is ordered: the order has the lines as the cart was when locked, or the change is refused', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 10, price: 10 });
  const b = await createProduct(t, s, { quantity: 10, price: 100 });
  const { customer, address } = await createAddress(t, s);
  for (let i = 0; i < 5; i++) {
    const cart = await createCart(t, s, [{ id: a.id, quantity: 1 }]);
    const [order, added] = await Promise.all([
      placeOrder(t, s, customer, { id: cart.id, address: address.id }),
      t.request('POST', `/api/v1/carts/${cart.id}/products`, { token: s.storefront, body: { id: b.id, quantity: 1 } }),
    ]);
    assert.equal(order.status, 201, order.text);
    if (added.status === 200) assert.equal(order.json.order.price, 110, 'the addition came first: the order has it');
    else {
      assertProblem(added, 409, 'CART_NOT_PENDING');
      assert.equal(order.json.order.price, 10, 'the order came first: the addition is refused');
    }
  }
});

test('an expired cart is 409 CART_EXPIRED inside a round of other orders, which are placed', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 10 });
  const { customer, address } = await createAddress(t, s);
  const expired = await createCart(t, s, [{ id: a.id, quantity: 1 }]);
  await t.database.db.execute(sql`update carts set expires_at = now() - interval '1 second' where store = ${s.slug} and id = ${expired.id}`);
  const others = await Promise.all(Array.from({ length: 4 }, () => createCart(t, s, [{ id: a.id, quantity: 1 }])));
  const answers = await Promise.all([expired, ...others].map((cart) => placeOrder(t, s, customer, { id: cart.id, address: address.id })));
  assertProblem(answers[0]!, 409, 'CART_EXPIRED');
  for (const r of answers.slice(1)) assert.equal(r.status, 201, r.text);
  assert.equal(await stockOf(t, s, a.id), 6);
});

test('a cart order retried with its Idempotency-Key replays the order, even after the cart is COMPLETED', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 10 });
  const { customer, address } = await createAddress(t, s);
  const cart = await createCart(t, s, [{ id: a.id, quantity: 3 }]);
  const key = randomUUID();
  const answers = await Promise.all(Array.from({ length: 4 }, () => placeOrder(t, s, customer, { id: cart.id, address: address.id }, { 'idempotency-key': key })));
  const placed = answers.filter((r) => r.status === 201);
  for (const r of answers) assert.ok(r.status === 201 || (r.status === 409 && r.json.code === 'IDEMPOTENCY_KEY_IN_USE'), r.text);
  assert.equal(new Set(placed.map((r) => r.json.order.id)).size, 1);
  const again = await placeOrder(t, s, customer, { id: cart.id, address: address.id }, { 'idempotency-key': key });
  assert.equal(again.status, 201);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.json.order.id, placed[0]!.json.order.id);
  assertProblem(await placeOrder(t, s, customer, { id: cart.id, address: address.id }), 409, 'CART_NOT_PENDING');
  assert.equal(await stockOf(t, s, a.id), 7);
});
