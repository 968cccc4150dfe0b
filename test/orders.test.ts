import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { startTestApp } from './support/app.js';
import { addToCollection, assertProblem, createCollection, createProduct, createStore } from './support/factories.js';
import { createAddress, createCart, placeOrder, stockOf } from './support/shop.js';

const t = await startTestApp();

test('an order from a product list takes the stock and answers the order with lines, snapshot and address', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { price: 100, originalPrice: 120, quantity: 10 });
  const b = await createProduct(t, s, { price: 50, quantity: 3 });
  const { customer, address } = await createAddress(t, s);
  const r = await placeOrder(t, s, customer, { address: address.id, products: [{ id: a.id, quantity: 2 }, { id: b.id, quantity: 3 }] });
  assert.equal(r.status, 201, r.text);
  const order = r.json.order;
  assert.deepEqual(Object.keys(order).sort(), ['address', 'addressId', 'createdAt', 'currency', 'customerId', 'deletedAt', 'discount', 'discountTotal', 'email', 'fulfillmentStatus', 'fulfillments', 'id', 'number', 'originalPrice', 'paidTotal', 'paymentStatus', 'payments', 'price', 'products', 'refundedTotal', 'refunds', 'shipping', 'shippingTotal', 'status', 'store', 'taxLines', 'taxTotal', 'total', 'updatedAt']);
  assert.equal(order.status, 'CREATED');
  assert.equal(order.customerId, customer);
  assert.equal(order.addressId, address.id);
  assert.deepEqual(order.address, address);
  assert.equal(order.price, 350);
  assert.equal(order.originalPrice, 390, '120 × 2 + 50 × 3');
  const lineA = order.products.find((l: { id: string }) => l.id === a.id);
  assert.deepEqual(lineA.order, { quantity: 2, price: 200 });
  assert.equal(lineA.quantity, 8, 'a line shows the stock left right after the order');
  assert.equal(order.products.find((l: { id: string }) => l.id === b.id).quantity, 0);
  assert.equal(await stockOf(t, s, a.id), 8);
  assert.equal(await stockOf(t, s, b.id), 0);
  const listed = await t.request('GET', '/api/v1/products?limit=250', { token: s.storefront });
  assert.equal(listed.json.products.find((p: { id: string }) => p.id === a.id)._count.orders, 1);
});

test('an order from a cart completes the cart with the customer and address; a cart becomes at most one order', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 5 });
  const { customer, address } = await createAddress(t, s);
  const cart = await createCart(t, s, [{ id: a.id, quantity: 2 }]);
  const r = await placeOrder(t, s, customer, { id: cart.id, address: address.id });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.json.order.price, 200);
  const after = await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront });
  assert.equal(after.json.cart.status, 'COMPLETED');
  assert.equal(after.json.cart.customerId, customer);
  assert.equal(after.json.cart.addressId, address.id);
  assertProblem(await placeOrder(t, s, customer, { id: cart.id, address: address.id }), 409, 'CART_NOT_PENDING');
  assertProblem(await t.request('POST', `/api/v1/carts/${cart.id}/products`, { token: s.storefront, body: { id: a.id, quantity: 1 } }), 409, 'CART_NOT_PENDING');
  assert.equal(await stockOf(t, s, a.id), 3);
  await assert.rejects(
    t.database.db.execute(sql`insert into orders (store, customer_id, address_id, cart_id, price) values (${s.slug}, ${customer}, ${address.id}, ${cart.id}, 1)`),
    'the database itself refuses a second order of one cart',
  );
});

test('an expired cart is 409 CART_EXPIRED; a missing or foreign cart 404', async () => {
  const s = await createStore(t);
  const other = await createStore(t);
  const a = await createProduct(t, s);
  const { customer, address } = await createAddress(t, s);
  const cart = await createCart(t, s, [{ id: a.id, quantity: 1 }]);
  await t.database.db.execute(sql`update carts set expires_at = now() - interval '1 second' where id = ${cart.id}`);
  assertProblem(await placeOrder(t, s, customer, { id: cart.id, address: address.id }), 409, 'CART_EXPIRED');
  assertProblem(await placeOrder(t, s, customer, { id: randomUUID(), address: address.id }), 404, 'NOT_FOUND');
  const foreignCart = await createCart(t, other, [{ id: (await createProduct(t, other)).id, quantity: 1 }]);
  assertProblem(await placeOrder(t, s, customer, { id: foreignCart.id, address: address.id }), 404, 'NOT_FOUND');
  assert.equal(await stockOf(t, s, a.id), 10);
});

test('the address must be one of this customer in this store: 422 ADDRESS_NOT_FOUND', async () => {
  const s = await createStore(t);
  const other = await createStore(t);
  const a = await createProduct(t, s);
  const mine = await createAddress(t, s);
  const theirs = await createAddress(t, s);
  const foreign = await createAddress(t, other, mine.customer);
  for (const addressId of [theirs.address.id, foreign.address.id, randomUUID()]) {
    assertProblem(await placeOrder(t, s, mine.customer, { address: addressId, products: [{ id: a.id, quantity: 1 }] }), 422, 'ADDRESS_NOT_FOUND');
  }
  assert.equal(await stockOf(t, s, a.id), 10);
});

test('a wrong address refuses only its own order: from a cart the cart stays PENDING; orders combined with it are placed', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 10 });
  const mine = await createAddress(t, s);
  const theirs = await createAddress(t, s);
  const cart = await createCart(t, s, [{ id: a.id, quantity: 2 }]);
  assertProblem(await placeOrder(t, s, mine.customer, { id: cart.id, address: theirs.address.id }), 422, 'ADDRESS_NOT_FOUND');
  const still = await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront });
  assert.equal(still.json.cart.status, 'PENDING');
  assert.equal(await stockOf(t, s, a.id), 10);
  // Concurrent orders of one store are decided together: the refused one changes nothing of the others.
  const answers = await Promise.all([
    ...Array.from({ length: 4 }, () => placeOrder(t, s, mine.customer, { address: mine.address.id, products: [{ id: a.id, quantity: 1 }] })),
    placeOrder(t, s, mine.customer, { address: theirs.address.id, products: [{ id: a.id, quantity: 1 }] }),
  ]);
  assert.deepEqual(answers.map((r) => r.status), [201, 201, 201, 201, 422]);
  assertProblem(answers[4]!, 422, 'ADDRESS_NOT_FOUND');
  assert.equal(await stockOf(t, s, a.id), 6);
});

test('exactly one of id and products: both or neither is 400; bad bodies are 400', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s);
  const { customer, address } = await createAddress(t, s);
  const cart = await createCart(t, s, [{ id: a.id, quantity: 1 }]);
  const bodies: unknown[] = [
    { address: address.id },
    { address: address.id, id: cart.id, products: [{ id: a.id, quantity: 1 }] },
    { products: [{ id: a.id, quantity: 1 }] },
    { address: 'x', products: [{ id: a.id, quantity: 1 }] },
    { address: address.id, products: [] },
    { address: address.id, products: [{ id: a.id, quantity: 0 }] },
    { address: address.id, products: [{ id: a.id, quantity: 2.5 }] },
    { address: address.id, products: [{ id: a.id, quantity: '1' }] },
    { address: address.id, products: [{ id: a.id, quantity: 1 }], coupon: 'X' },
  ];
  for (const body of bodies) assertProblem(await placeOrder(t, s, customer, body as Record<string, unknown>), 400, 'VALIDATION_FAILED');
  // The body is a oneOf in the document; the details still say what is wrong, in the client's terms.
  for (const body of [bodies[0], bodies[1]]) {
    assert.equal((await placeOrder(t, s, customer, body as Record<string, unknown>)).json.detail, 'send exactly one of `id` (a cart) and `products`');
  }
  assert.equal((await placeOrder(t, s, customer, bodies[8] as Record<string, unknown>)).json.detail, 'body.coupon is not a known field');
  assert.equal((await placeOrder(t, s, customer, bodies[2] as Record<string, unknown>)).json.detail, "body.address must have required property 'address'");
  assertProblem(await t.request('POST', '/api/v1/not-a-uuid/orders', { token: s.server, body: { address: address.id, products: [{ id: a.id, quantity: 1 }] } }), 400, 'VALIDATION_FAILED');
  assert.equal(await stockOf(t, s, a.id), 10);
  const [n] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from orders where store = ${s.slug}`);
  assert.equal(n?.n, 0);
});

test('all or nothing: one failing line refuses the whole order with one entry per failing product', async () => {
  const s = await createStore(t);
  const ok = await createProduct(t, s, { quantity: 5 });
  const short = await createProduct(t, s, { quantity: 1 });
  const short2 = await createProduct(t, s, { quantity: 0 });
  const draft = await createProduct(t, s, { status: 'DRAFT' });
  const { customer, address } = await createAddress(t, s);
  const insufficient = await placeOrder(t, s, customer, { address: address.id, products: [{ id: ok.id, quantity: 1 }, { id: short.id, quantity: 2 }, { id: short2.id, quantity: 1 }] });
  assertProblem(insufficient, 422, 'INSUFFICIENT_STOCK');
  assert.deepEqual(
    insufficient.json.errors.map((e: { productId: string; requested: number; available: number }) => [e.productId, e.requested, e.available]).sort(),
    [[short.id, 2, 1], [short2.id, 1, 0]].sort(),
  );
  const unavailable = await placeOrder(t, s, customer, { address: address.id, products: [{ id: short.id, quantity: 2 }, { id: draft.id, quantity: 1 }] });
  assertProblem(unavailable, 422, 'PRODUCT_UNAVAILABLE');
  assert.equal(unavailable.json.errors.length, 2);
  assert.equal(await stockOf(t, s, ok.id), 5, 'nothing was taken');
  assert.equal(await stockOf(t, s, short.id), 1);
});

test('a cart line whose product became invisible makes the order 422 PRODUCT_UNAVAILABLE; the cart stays PENDING', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s);
  const b = await createProduct(t, s);
  const { customer, address } = await createAddress(t, s);
  const cart = await createCart(t, s, [{ id: a.id, quantity: 1 }, { id: b.id, quantity: 1 }]);
  const coll = await createCollection(t, s);
  await addToCollection(t, s, coll.id, b.id);
  await t.request('PATCH', `/api/v1/admin/collections/${coll.id}`, { token: s.admin, body: { archived: true } });
  const r = await placeOrder(t, s, customer, { id: cart.id, address: address.id });
  assertProblem(r, 422, 'PRODUCT_UNAVAILABLE');
  assert.deepEqual(r.json.errors.map((e: { productId: string }) => e.productId), [b.id]);
  assert.equal((await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront })).json.cart.status, 'PENDING');
  assert.equal(await stockOf(t, s, a.id), 10);
});

test('past orders keep the product as it was when ordered', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { price: 100, name: 'Before' });
  const { customer, address } = await createAddress(t, s);
  const placed = await placeOrder(t, s, customer, { address: address.id, products: [{ id: a.id, quantity: 1 }] });
  await t.request('PATCH', `/api/v1/admin/products/${a.id}`, { token: s.admin, body: { price: 999, name: 'After' } });
  const r = await t.request('GET', `/api/v1/${customer}/orders/${placed.json.order.id}`, { token: s.server });
  assert.equal(r.status, 200);
  assert.deepEqual(r.json.order, placed.json.order);
  assert.equal(r.json.order.products[0].name, 'Before');
  assert.equal(r.json.order.products[0].price, 100);
});

test('GET orders lists the customer\'s orders newest first with limit/offset and total; another customer\'s order is 404', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 100 });
  const { customer, address } = await createAddress(t, s);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await placeOrder(t, s, customer, { address: address.id, products: [{ id: a.id, quantity: 1 }] })).json.order.id);
  const stranger = await createAddress(t, s);
  await placeOrder(t, s, stranger.customer, { address: stranger.address.id, products: [{ id: a.id, quantity: 1 }] });
  const all = await t.request('GET', `/api/v1/${customer}/orders`, { token: s.server });
  assert.equal(all.json.total, 3);
  assert.deepEqual(all.json.orders.map((o: { id: string }) => o.id), [...ids].reverse());
  for (const o of all.json.orders) assert.equal(o.address.id, address.id);
  const page = await t.request('GET', `/api/v1/${customer}/orders?limit=1&offset=1`, { token: s.server });
  assert.equal(page.json.total, 3);
  assert.deepEqual(page.json.orders.map((o: { id: string }) => o.id), [ids[1]]);
  assertProblem(await t.request('GET', `/api/v1/${stranger.customer}/orders/${ids[0]}`, { token: s.server }), 404, 'NOT_FOUND');
  const other = await createStore(t);
  assertProblem(await t.request('GET', `/api/v1/${customer}/orders/${ids[0]}`, { token: other.server }), 404, 'NOT_FOUND');
  assert.equal((await t.request('GET', `/api/v1/${customer}/orders`, { token: other.server })).json.total, 0);
  assertProblem(await t.request('GET', `/api/v1/${customer}/orders?limit=0`, { token: s.server }), 400, 'VALIDATION_FAILED');
});

test('admin transitions: CREATED -> PAID -> FULFILLED; anything else 409; CANCELLED returns the stock', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 10 });
  const { customer, address } = await createAddress(t, s);
  const order = async () => (await placeOrder(t, s, customer, { address: address.id, products: [{ id: a.id, quantity: 3 }] })).json.order;
  const patch = (id: string, status: string) => t.request('PATCH', `/api/v1/admin/orders/${id}`, { token: s.admin, body: { status } });
  const first = await order();
  assertProblem(await patch(first.id, 'FULFILLED'), 409, 'INVALID_TRANSITION');
  assertProblem(await patch(first.id, 'CREATED'), 409, 'INVALID_TRANSITION');
  const paid = await patch(first.id, 'PAID');
  assert.equal(paid.status, 200);
  assert.equal(paid.json.order.status, 'PAID');
  assert.ok(paid.json.order.updatedAt);
  assert.equal((await patch(first.id, 'FULFILLED')).json.order.status, 'FULFILLED');
  assertProblem(await patch(first.id, 'CANCELLED'), 409, 'INVALID_TRANSITION');
  assert.equal(await stockOf(t, s, a.id), 7);
  const second = await order();
  assert.equal(await stockOf(t, s, a.id), 4);
  assert.equal((await patch(second.id, 'CANCELLED')).json.order.status, 'CANCELLED');
  assert.equal(await stockOf(t, s, a.id), 7, 'cancelling returned the stock');
  assertProblem(await patch(second.id, 'PAID'), 409, 'INVALID_TRANSITION');
  assertProblem(await patch(second.id, 'CANCELLED'), 409, 'INVALID_TRANSITION');
  assert.equal(await stockOf(t, s, a.id), 7, 'a second cancel returns nothing');
  const third = await order();
  await patch(third.id, 'PAID');
  assert.equal((await patch(third.id, 'CANCELLED')).json.order.status, 'CANCELLED');
  assert.equal(await stockOf(t, s, a.id), 7);
  assertProblem(await patch(third.id, 'SHIPPED'), 400, 'VALIDATION_FAILED');
  assertProblem(await patch(randomUUID(), 'PAID'), 404, 'NOT_FOUND');
  assertProblem(await t.request('PATCH', `/api/v1/admin/orders/${third.id}`, { token: s.storefront, body: { status: 'PAID' } }), 403, 'FORBIDDEN');
  const list = await t.request('GET', '/api/v1/admin/orders?status=CANCELLED', { token: s.admin });
  assert.equal(list.json.total, 2);
  assert.equal((await t.request('GET', '/api/v1/admin/orders', { token: s.admin })).json.total, 3);
});

test('30 concurrent orders of 1 unit with 5 in stock: exactly 5 succeed and the stock ends at 0', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 5 });
  const { customer, address } = await createAddress(t, s);
  const answers = await Promise.all(Array.from({ length: 30 }, () => placeOrder(t, s, customer, { address: address.id, products: [{ id: a.id, quantity: 1 }] })));
  const statuses = answers.map((r) => r.status);
  assert.equal(statuses.filter((x) => x === 201).length, 5, statuses.join(','));
  assert.equal(statuses.filter((x) => x === 422).length, 25);
  for (const r of answers.filter((x) => x.status === 422)) assert.equal(r.json.code, 'INSUFFICIENT_STOCK');
  assert.equal(await stockOf(t, s, a.id), 0);
  const [n] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from orders where store = ${s.slug}`);
  assert.equal(n?.n, 5);
});

test('10 carts holding a product with 3 in stock, ordered concurrently: exactly 3 orders', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 3 });
  const b = await createProduct(t, s, { quantity: 100 });
  const { customer, address } = await createAddress(t, s);
  const carts = [];
  for (let i = 0; i < 10; i++) carts.push(await createCart(t, s, [{ id: b.id, quantity: 1 }, { id: a.id, quantity: 1 }]));
  const answers = await Promise.all(carts.map((c) => placeOrder(t, s, customer, { id: c.id, address: address.id })));
  assert.equal(answers.filter((r) => r.status === 201).length, 3, answers.map((r) => r.status).join(','));
  assert.equal(await stockOf(t, s, a.id), 0);
  assert.equal(await stockOf(t, s, b.id), 97, 'refused orders took nothing of the other line');
  const rows = await queryRows<{ status: string; n: number }>(t.database.db, sql`select status, count(*)::int as n from carts where store = ${s.slug} group by status order by status`);
  assert.deepEqual(rows, [{ status: 'COMPLETED', n: 3 }, { status: 'PENDING', n: 7 }]);
});

test('concurrent orders over the same products in opposite line orders do not deadlock', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 100 });
  const b = await createProduct(t, s, { quantity: 100 });
  const { customer, address } = await createAddress(t, s);
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      placeOrder(t, s, customer, { address: address.id, products: i % 2 ? [{ id: a.id, quantity: 1 }, { id: b.id, quantity: 1 }] : [{ id: b.id, quantity: 1 }, { id: a.id, quantity: 1 }] }),
    ),
  );
  assert.deepEqual(answers.map((r) => r.status), Array(20).fill(201));
  assert.equal(await stockOf(t, s, a.id), 80);
  assert.equal(await stockOf(t, s, b.id), 80);
});
