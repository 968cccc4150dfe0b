import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { expireCarts } from '../src/modules/carts/expiry-job.js';
import { startTestApp } from './support/app.js';
import { TEST_DATABASE_URL } from './support/database.js';
import { createAddress, placeOrder } from './support/shop.js';
import { addToCollection, assertProblem, createCollection, createProduct, createStore, type TestStore } from './support/factories.js';

const t = await startTestApp();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function newCart(store: TestStore, products: Array<{ id: string; quantity: number }>) {
  const r = await t.request('POST', '/api/v1/carts', { token: store.storefront, body: { products } });
  assert.equal(r.status, 201, r.text);
  return r.json.cart;
}
const line = (cart: { products: Array<{ id: string }> }, id: string) => cart.products.find((l) => l.id === id) as { order: { quantity: number; price: number } } | undefined;

test('POST /v1/carts creates a PENDING cart with the contract shape and totals', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { price: 100, originalPrice: 150 });
  const b = await createProduct(t, s, { price: 50 });
  const r = await t.request('POST', '/api/v1/carts', { token: s.storefront, body: { products: [{ id: a.id, quantity: 2 }, { id: b.id, quantity: 1 }] } });
  assert.equal(r.status, 201);
  const cart = r.json.cart;
  assert.equal(r.json.warnings, undefined);
  assert.deepEqual(Object.keys(cart).sort(), ['addressId', 'createdAt', 'currency', 'customerId', 'deletedAt', 'discount', 'discountTotal', 'expiresAt', 'heldUntil', 'id', 'originalPrice', 'price', 'products', 'shipping', 'shippingTotal', 'status', 'store', 'taxLines', 'taxTotal', 'total', 'updatedAt']);
  assert.equal(cart.status, 'PENDING');
  assert.equal(cart.store, s.slug);
  assert.equal(cart.customerId, null);
  assert.equal(cart.addressId, null);
  assert.equal(cart.price, 250);
  assert.equal(cart.originalPrice, 350, '(150 × 2) + (50 × 1)');
  assert.match(cart.createdAt, ISO);
  assert.match(cart.expiresAt, ISO);
  assert.equal(cart.updatedAt, null);
  assert.equal(cart.deletedAt, null);
  assert.deepEqual(cart.products.map((l: { id: string }) => l.id), [a.id, b.id], 'lines in the order they were added');
  const first = cart.products[0];
  assert.equal(first._count, undefined, 'lines carry no _count');
  assert.deepEqual(first.order, { quantity: 2, price: 200 });
  for (const k of ['id', 'store', 'status', 'name', 'slug', 'description', 'price', 'originalPrice', 'quantity', 'sku', 'createdAt', 'updatedAt', 'deletedAt']) assert.ok(k in first, k);
  const ttl = Date.parse(cart.expiresAt) - Date.parse(cart.createdAt);
  assert.ok(Math.abs(ttl - t.config.cartTtlSeconds * 1000) < 5000, 'expiresAt is createdAt + CART_TTL_SECONDS');
  const stored = await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront });
  assert.deepEqual(stored.json.cart, cart, 'the answer is the cart as stored');
});

test('cart originalPrice is null when no line has one', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { price: 70 });
  const cart = await newCart(s, [{ id: a.id, quantity: 3 }]);
  assert.equal(cart.price, 210);
  assert.equal(cart.originalPrice, null);
});

test('repeated product ids are summed before the stock check', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 5 });
  const cart = await newCart(s, [{ id: a.id, quantity: 2 }, { id: a.id, quantity: 3 }]);
  assert.deepEqual(line(cart, a.id)?.order, { quantity: 5, price: 500 });
  const over = await t.request('POST', '/api/v1/carts', { token: s.storefront, body: { products: [{ id: a.id, quantity: 3 }, { id: a.id, quantity: 3 }] } });
  assertProblem(over, 422, 'PRODUCT_UNAVAILABLE');
  assert.deepEqual(over.json.errors, [{ productId: a.id, code: 'INSUFFICIENT_STOCK', requested: 6, available: 5 }]);
});

test('unavailable lines are skipped and reported in warnings', async () => {
  const s = await createStore(t);
  const ok = await createProduct(t, s);
  const draft = await createProduct(t, s, { status: 'DRAFT' });
  const short = await createProduct(t, s, { quantity: 1 });
  const archived = await createProduct(t, s);
  const coll = await createCollection(t, s);
  await addToCollection(t, s, coll.id, archived.id);
  assert.equal((await t.request('PATCH', `/api/v1/admin/collections/${coll.id}`, { token: s.admin, body: { archived: true } })).status, 200);
  const missing = randomUUID();
  const r = await t.request('POST', '/api/v1/carts', {
    token: s.storefront,
    body: { products: [{ id: ok.id, quantity: 1 }, { id: draft.id, quantity: 1 }, { id: short.id, quantity: 2 }, { id: archived.id, quantity: 1 }, { id: missing, quantity: 1 }] },
  });
  assert.equal(r.status, 201);
  assert.deepEqual(r.json.cart.products.map((l: { id: string }) => l.id), [ok.id]);
  assert.deepEqual(r.json.warnings, [
    { productId: draft.id, code: 'PRODUCT_UNAVAILABLE', requested: 1, available: 0 },
    { productId: short.id, code: 'INSUFFICIENT_STOCK', requested: 2, available: 1 },
    { productId: archived.id, code: 'PRODUCT_UNAVAILABLE', requested: 1, available: 0 },
    { productId: missing, code: 'PRODUCT_UNAVAILABLE', requested: 1, available: 0 },
  ]);
});

test('nothing available is 422 PRODUCT_UNAVAILABLE with one entry per product, and no cart is stored', async () => {
  const s = await createStore(t);
  const draft = await createProduct(t, s, { status: 'DRAFT' });
  const soldOut = await createProduct(t, s, { quantity: 0 });
  const before = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from carts where store = ${s.slug}`);
  const r = await t.request('POST', '/api/v1/carts', { token: s.storefront, body: { products: [{ id: draft.id, quantity: 1 }, { id: soldOut.id, quantity: 1 }] } });
  assertProblem(r, 422, 'PRODUCT_UNAVAILABLE');
  assert.equal(r.json.errors.length, 2);
  for (const e of r.json.errors) assert.deepEqual(Object.keys(e).sort(), ['available', 'code', 'productId', 'requested']);
  const after = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from carts where store = ${s.slug}`);
  assert.deepEqual(after, before);
});

test('a product of another store is not available', async () => {
  const s = await createStore(t);
  const other = await createStore(t);
  const foreign = await createProduct(t, other);
  assertProblem(await t.request('POST', '/api/v1/carts', { token: s.storefront, body: { products: [{ id: foreign.id, quantity: 1 }] } }), 422, 'PRODUCT_UNAVAILABLE');
});

test('GET /v1/carts/:id reads the cart; another store, a missing or malformed id is 404 or 400', async () => {
  const s = await createStore(t);
  const other = await createStore(t);
  const a = await createProduct(t, s);
  const cart = await newCart(s, [{ id: a.id, quantity: 1 }]);
  const r = await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront });
  assert.equal(r.status, 200);
  assert.deepEqual(r.json.cart, cart);
  assertProblem(await t.request('GET', `/api/v1/carts/${cart.id}`, { token: other.storefront }), 404, 'NOT_FOUND');
  assertProblem(await t.request('GET', `/api/v1/carts/${randomUUID()}`, { token: s.storefront }), 404, 'NOT_FOUND');
  assertProblem(await t.request('GET', '/api/v1/carts/not-a-uuid', { token: s.storefront }), 400, 'VALIDATION_FAILED');
  assertProblem(await t.request('GET', `/api/v1/carts/${cart.id}`), 401, 'UNAUTHORIZED');
});

test('POST /v1/carts/:id/products adds a line or adds to an existing one, within stock', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 5 });
  const b = await createProduct(t, s, { price: 30 });
  const cart = await newCart(s, [{ id: a.id, quantity: 2 }]);
  const added = await t.request('POST', `/api/v1/carts/${cart.id}/products`, { token: s.storefront, body: { id: b.id, quantity: 2 } });
  assert.equal(added.status, 200);
  assert.deepEqual(line(added.json.cart, b.id)?.order, { quantity: 2, price: 60 });
  assert.equal(added.json.cart.price, 260);
  assert.match(added.json.cart.updatedAt, ISO);
  assert.ok(Date.parse(added.json.cart.expiresAt) >= Date.parse(cart.expiresAt), 'a change moves expiresAt');
  const more = await t.request('POST', `/api/v1/carts/${cart.id}/products`, { token: s.storefront, body: { id: a.id, quantity: 3 } });
  assert.deepEqual(line(more.json.cart, a.id)?.order, { quantity: 5, price: 500 });
  const over = await t.request('POST', `/api/v1/carts/${cart.id}/products`, { token: s.storefront, body: { id: a.id, quantity: 1 } });
  assertProblem(over, 422, 'INSUFFICIENT_STOCK');
  assert.deepEqual(over.json.errors, [{ productId: a.id, code: 'INSUFFICIENT_STOCK', requested: 6, available: 5 }]);
  const draft = await createProduct(t, s, { status: 'DRAFT' });
  assertProblem(await t.request('POST', `/api/v1/carts/${cart.id}/products`, { token: s.storefront, body: { id: draft.id, quantity: 1 } }), 422, 'PRODUCT_UNAVAILABLE');
  const after = await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront });
  assert.deepEqual(after.json.cart.products.map((l: { order: unknown }) => l.order), [{ quantity: 5, price: 500 }, { quantity: 2, price: 60 }], 'refused adds changed nothing');
});

test('PATCH: the same quantity changes nothing, not even updatedAt or expiresAt', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s);
  const cart = await newCart(s, [{ id: a.id, quantity: 2 }]);
  const r = await t.request('PATCH', `/api/v1/carts/${cart.id}/products/${a.id}`, { token: s.storefront, body: { quantity: 2 } });
  assert.equal(r.status, 200);
  assert.deepEqual(r.json.cart, cart);
  const [row] = await queryRows<{ updated: Date | null }>(t.database.db, sql`select updated_at as updated from cart_lines where cart_id = ${cart.id}`);
  assert.equal(row?.updated, null, 'the line row was not written');
});

test('PATCH changes a quantity within stock, refuses above stock with 422, and 404s a product not in the cart', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 4 });
  const b = await createProduct(t, s);
  const cart = await newCart(s, [{ id: a.id, quantity: 1 }, { id: b.id, quantity: 1 }]);
  const r = await t.request('PATCH', `/api/v1/carts/${cart.id}/products/${a.id}`, { token: s.storefront, body: { quantity: 4 } });
  assert.equal(r.status, 200);
  assert.deepEqual(line(r.json.cart, a.id)?.order, { quantity: 4, price: 400 });
  const over = await t.request('PATCH', `/api/v1/carts/${cart.id}/products/${a.id}`, { token: s.storefront, body: { quantity: 5 } });
  assertProblem(over, 422, 'INSUFFICIENT_STOCK');
  assert.deepEqual(over.json.errors, [{ productId: a.id, code: 'INSUFFICIENT_STOCK', requested: 5, available: 4 }]);
  assertProblem(await t.request('PATCH', `/api/v1/carts/${cart.id}/products/${randomUUID()}`, { token: s.storefront, body: { quantity: 1 } }), 404, 'NOT_FOUND');
  assertProblem(await t.request('DELETE', `/api/v1/carts/${cart.id}/products/${randomUUID()}`, { token: s.storefront }), 404, 'NOT_FOUND');
});

test('PATCH to 0 removes the line; removing the last line deletes the cart, which is 404 afterwards', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s);
  const b = await createProduct(t, s);
  const cart = await newCart(s, [{ id: a.id, quantity: 1 }, { id: b.id, quantity: 1 }]);
  const removed = await t.request('PATCH', `/api/v1/carts/${cart.id}/products/${a.id}`, { token: s.storefront, body: { quantity: 0 } });
  assert.equal(removed.status, 200);
  assert.deepEqual(removed.json.cart.products.map((l: { id: string }) => l.id), [b.id]);
  assert.equal(removed.json.cart.deletedAt, null);
  const last = await t.request('PATCH', `/api/v1/carts/${cart.id}/products/${b.id}`, { token: s.storefront, body: { quantity: 0 } });
  assert.equal(last.status, 200);
  assert.match(last.json.cart.deletedAt, ISO);
  assert.deepEqual(last.json.cart.products, []);
  assert.equal(last.json.cart.price, 0);
  assertProblem(await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront }), 404, 'NOT_FOUND');
  assertProblem(await t.request('POST', `/api/v1/carts/${cart.id}/products`, { token: s.storefront, body: { id: a.id, quantity: 1 } }), 404, 'NOT_FOUND');
  assertProblem(await t.request('PATCH', `/api/v1/carts/${cart.id}/products/${b.id}`, { token: s.storefront, body: { quantity: 1 } }), 404, 'NOT_FOUND');
});

test('DELETE removes one line; DELETE of the last line deletes the cart', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s);
  const b = await createProduct(t, s);
  const cart = await newCart(s, [{ id: a.id, quantity: 1 }, { id: b.id, quantity: 2 }]);
  const one = await t.request('DELETE', `/api/v1/carts/${cart.id}/products/${a.id}`, { token: s.storefront });
  assert.equal(one.status, 200);
  assert.deepEqual(one.json.cart.products.map((l: { id: string }) => l.id), [b.id]);
  const last = await t.request('DELETE', `/api/v1/carts/${cart.id}/products/${b.id}`, { token: s.storefront });
  assert.equal(last.status, 200);
  assert.match(last.json.cart.deletedAt, ISO);
  assert.deepEqual(last.json.cart.products, []);
  assertProblem(await t.request('DELETE', `/api/v1/carts/${cart.id}/products/${b.id}`, { token: s.storefront }), 404, 'NOT_FOUND');
});

test('a line whose product became invisible stays, with the product\'s current fields', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { price: 100 });
  const cart = await newCart(s, [{ id: a.id, quantity: 1 }]);
  await t.request('PATCH', `/api/v1/admin/products/${a.id}`, { token: s.admin, body: { status: 'DRAFT', price: 120 } });
  const r = await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront });
  assert.equal(r.json.cart.products[0].status, 'DRAFT');
  assert.deepEqual(r.json.cart.products[0].order, { quantity: 1, price: 120 });
});

test('an expired cart reads EXPIRED and refuses changes with 409 CART_EXPIRED; a completed one with CART_NOT_PENDING', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s);
  const expired = await newCart(s, [{ id: a.id, quantity: 1 }]);
  await t.database.db.execute(sql`update carts set expires_at = now() - interval '1 second' where id = ${expired.id}`);
  assert.equal((await t.request('GET', `/api/v1/carts/${expired.id}`, { token: s.storefront })).json.cart.status, 'EXPIRED');
  assertProblem(await t.request('POST', `/api/v1/carts/${expired.id}/products`, { token: s.storefront, body: { id: a.id, quantity: 1 } }), 409, 'CART_EXPIRED');
  assertProblem(await t.request('PATCH', `/api/v1/carts/${expired.id}/products/${a.id}`, { token: s.storefront, body: { quantity: 2 } }), 409, 'CART_EXPIRED');
  assertProblem(await t.request('DELETE', `/api/v1/carts/${expired.id}/products/${a.id}`, { token: s.storefront }), 409, 'CART_EXPIRED');
  const completed = await newCart(s, [{ id: a.id, quantity: 1 }]);
  await t.database.db.execute(sql`update carts set status = 'COMPLETED' where id = ${completed.id}`);
  assertProblem(await t.request('POST', `/api/v1/carts/${completed.id}/products`, { token: s.storefront, body: { id: a.id, quantity: 1 } }), 409, 'CART_NOT_PENDING');
  assertProblem(await t.request('PATCH', `/api/v1/carts/${completed.id}/products/${a.id}`, { token: s.storefront, body: { quantity: 0 } }), 409, 'CART_NOT_PENDING');
});

test('the expiry job marks expired carts and purges long-expired ones, in batches', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s);
  const carts = [];
  for (let i = 0; i < 5; i++) carts.push(await newCart(s, [{ id: a.id, quantity: 1 }]));
  const ids = carts.map((c) => c.id);
  await t.database.db.execute(sql`update carts set expires_at = now() - interval '1 hour' where id in (${sql.join(ids.slice(0, 3).map((id) => sql`${id}`), sql`, `)})`);
  await t.database.db.execute(sql`update carts set expires_at = now() - interval '40 days' where id = ${ids[0]}`);
  const first = await expireCarts(t.database.db, { batchSize: 2, purgeAfterSeconds: 30 * 86400 });
  assert.ok(first.expired >= 3, `expired ${first.expired}`);
  const rows = await queryRows<{ id: string; status: string }>(t.database.db, sql`select id, status from carts where store = ${s.slug} order by created_at`);
  const statusOf = new Map(rows.map((r) => [r.id, r.status]));
  assert.equal(statusOf.get(ids[0]!), undefined, 'long-expired cart purged');
  assert.equal(statusOf.get(ids[1]!), 'EXPIRED');
  assert.equal(statusOf.get(ids[2]!), 'EXPIRED');
  assert.equal(statusOf.get(ids[3]!), 'PENDING');
  const lines = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from cart_lines where cart_id = ${ids[0]}`);
  assert.equal(lines[0]?.n, 0, 'its lines went with it');
  assertProblem(await t.request('GET', `/api/v1/carts/${ids[0]}`, { token: s.storefront }), 404, 'NOT_FOUND');
  assertProblem(await t.request('POST', `/api/v1/carts/${ids[1]}/products`, { token: s.storefront, body: { id: a.id, quantity: 1 } }), 409, 'CART_EXPIRED');
});

test('the expiry job never purges a cart an order was placed from, even long expired and deleted', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s);
  const cart = await newCart(s, [{ id: a.id, quantity: 1 }]);
  const { customer, address } = await createAddress(t, s);
  const placed = await placeOrder(t, s, customer, { id: cart.id, address: address.id });
  assert.equal(placed.status, 201);
  await t.database.db.execute(sql`update carts set expires_at = now() - interval '40 days', deleted_at = now() where id = ${cart.id}`);
  await expireCarts(t.database.db, { purgeAfterSeconds: 30 * 86400 });
  const left = await queryRows<{ status: string }>(t.database.db, sql`select status from carts where id = ${cart.id}`);
  assert.deepEqual(left.map((r) => r.status), ['COMPLETED']);
  const order = await t.request('GET', `/api/v1/${customer}/orders/${placed.json.order.id}`, { token: s.server });
  assert.equal(order.status, 200);
});

test('20 concurrent adds of one unit to one cart all count', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 1000 });
  const b = await createProduct(t, s, { quantity: 1000 });
  const cart = await newCart(s, [{ id: a.id, quantity: 1 }]);
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) => t.request('POST', `/api/v1/carts/${cart.id}/products`, { token: s.storefront, body: { id: i % 2 ? a.id : b.id, quantity: 1 } })),
  );
  assert.deepEqual(answers.map((r) => r.status), Array(20).fill(200));
  const r = await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront });
  assert.equal(line(r.json.cart, a.id)?.order.quantity, 11);
  assert.equal(line(r.json.cart, b.id)?.order.quantity, 10);
});

test('40 concurrent new carts of a store, combined: each answer is its cart as stored, refusals only refuse their own, every key its own answer', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 5, price: 10 });
  const b = await createProduct(t, s, { quantity: 5, price: 20 });
  const hidden = await createProduct(t, s, { status: 'DRAFT' });
  // Every fourth asks only for what cannot be had (422, no cart); every third asks too much of b (a warning).
  const bodies = Array.from({ length: 40 }, (_, i) =>
    i % 4 === 3 ? [{ id: hidden.id, quantity: 1 }] : [{ id: a.id, quantity: 1 + (i % 5) }, { id: b.id, quantity: i % 3 === 0 ? 6 : 1 }],
  );
  const keys = bodies.map(() => randomUUID());
  const answers = await Promise.all(
    bodies.map((products, i) => t.request('POST', '/api/v1/carts', { token: s.storefront, body: { products }, headers: { 'idempotency-key': keys[i]! } })),
  );
  for (const [i, r] of answers.entries()) {
    if (i % 4 === 3) {
      assertProblem(r, 422, 'PRODUCT_UNAVAILABLE');
      continue;
    }
    assert.equal(r.status, 201, r.text);
    const expected = i % 3 === 0 ? [[a.id, 1 + (i % 5)]] : [[a.id, 1 + (i % 5)], [b.id, 1]];
    assert.deepEqual(r.json.cart.products.map((l: { id: string; order: { quantity: number } }) => [l.id, l.order.quantity]), expected);
    if (i % 3 === 0) assert.deepEqual(r.json.warnings, [{ productId: b.id, code: 'INSUFFICIENT_STOCK', requested: 6, available: 5 }]);
    else assert.equal(r.json.warnings, undefined);
    const stored = await t.request('GET', `/api/v1/carts/${r.json.cart.id}`, { token: s.storefront });
    assert.deepEqual(stored.json.cart, r.json.cart, 'the answer is the cart as stored');
  }
  const created = answers.filter((r) => r.status === 201);
  const rows = await queryRows<{ n: number; at: number }>(t.database.db, sql`select count(*)::int as n, count(distinct created_at)::int as at from carts where store = ${s.slug}`);
  assert.equal(rows[0]!.n, created.length, 'a refused request stores no cart');
  console.log(`# ${created.length} carts created in ${rows[0]!.at} statements`);
  // PGlite runs one query at a time, so requests rarely overlap a running round there.
  if (TEST_DATABASE_URL) assert.ok(rows[0]!.at < created.length, `carts were combined: ${created.length} carts in ${rows[0]!.at} statements`);
  for (const [i, key] of keys.entries()) {
    const again = await t.request('POST', '/api/v1/carts', { token: s.storefront, body: { products: bodies[i] }, headers: { 'idempotency-key': key } });
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.text, answers[i]!.text);
  }
});

test('concurrent adds to several carts, combined: each decided in arrival order against its cart, refusals and missing carts only refuse their own', async () => {
  const s = await createStore(t);
  const scarce = await createProduct(t, s, { quantity: 10, price: 3 });
  const other = await createProduct(t, s, { quantity: 100 });
  const carts = [await newCart(s, [{ id: other.id, quantity: 1 }]), await newCart(s, [{ id: other.id, quantity: 2 }]), await newCart(s, [{ id: other.id, quantity: 3 }])];
  const completed = await newCart(s, [{ id: other.id, quantity: 1 }]);
  await t.database.db.execute(sql`update carts set status = 'COMPLETED' where id = ${completed.id}`);
  const missing = randomUUID();
  const targets = [...Array.from({ length: 45 }, (_, i) => carts[i % 3]!.id), missing, completed.id];
  const answers = await Promise.all(targets.map((id) => t.request('POST', `/api/v1/carts/${id}/products`, { token: s.storefront, body: { id: scarce.id, quantity: 1 } })));
  assertProblem(answers[45]!, 404, 'NOT_FOUND');
  assertProblem(answers[46]!, 409, 'CART_NOT_PENDING');
  for (const cart of carts) {
    const mine = answers.slice(0, 45).filter((_, i) => targets[i] === cart.id);
    const added = mine.filter((r) => r.status === 200);
    assert.equal(added.length, 10, 'a cart takes the scarce product up to its stock');
    assert.deepEqual(added.map((r) => line(r.json.cart, scarce.id)!.order.quantity).sort((x, y) => x - y), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 'each add saw the ones before it');
    for (const r of mine.filter((r) => r.status !== 200)) {
      assertProblem(r, 422, 'INSUFFICIENT_STOCK');
      assert.deepEqual(r.json.errors, [{ productId: scarce.id, code: 'INSUFFICIENT_STOCK', requested: 11, available: 10 }]);
    }
    const last = added.find((r) => line(r.json.cart, scarce.id)!.order.quantity === 10)!;
    const stored = await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront });
    assert.deepEqual(stored.json.cart, last.json.cart, 'the last add answers the cart as stored');
    assert.deepEqual(stored.json.cart.products.map((l: { id: string }) => l.id), [other.id, scarce.id], 'a new line comes after the lines before it');
  }
  const rounds = new Set(answers.filter((r) => r.status === 200).map((r) => r.json.cart.updatedAt)).size;
  console.log(`# 30 adds in ${rounds} transactions`);
  if (TEST_DATABASE_URL) assert.ok(rounds < 30, `adds were combined: 30 adds in ${rounds} transactions`);
});

test('concurrent removals and adds never lose a change, and never add to a deleted cart', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 1000 });
  const b = await createProduct(t, s, { quantity: 1000 });
  const cart = await newCart(s, [{ id: a.id, quantity: 1 }]);
  const answers = await Promise.all([
    t.request('DELETE', `/api/v1/carts/${cart.id}/products/${a.id}`, { token: s.storefront }),
    ...Array.from({ length: 10 }, () => t.request('POST', `/api/v1/carts/${cart.id}/products`, { token: s.storefront, body: { id: b.id, quantity: 1 } })),
  ]);
  const adds = answers.slice(1).filter((r) => r.status === 200).length;
  const deleted = answers[0]!.json.cart.deletedAt !== null;
  const after = await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront });
  if (deleted) {
    assert.equal(after.status, 404);
    // Deleting the last line deleted the cart only if no addition came first, and none can follow.
    assert.equal(adds, 0, 'a deleted cart took no addition');
    const lines = await queryRows<{ n: number }>(t.database.db, sql`select coalesce(sum(quantity), 0)::int as n from cart_lines where cart_id = ${cart.id}`);
    assert.equal(lines[0]?.n, adds, 'adds that succeeded before the delete are the only lines left');
  } else {
    assert.equal(line(after.json.cart, b.id)?.order.quantity, adds);
    assert.equal(line(after.json.cart, a.id), undefined);
  }
  for (const r of answers.slice(1)) assert.ok(r.status === 200 || r.status === 404, String(r.status));
});

test('bad input is 400 and changes nothing', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s);
  const cart = await newCart(s, [{ id: a.id, quantity: 1 }]);
  const bodies: unknown[] = [
    {},
    { products: [] },
    { products: [{ id: 'nope', quantity: 1 }] },
    { products: [{ id: a.id, quantity: 0 }] },
    { products: [{ id: a.id, quantity: -1 }] },
    { products: [{ id: a.id, quantity: 1.5 }] },
    { products: [{ id: a.id, quantity: 100001 }] },
    { products: [{ id: a.id, quantity: 1e308 }] },
    { products: [{ id: a.id, quantity: '1' }] },
    { products: [{ id: a.id, quantity: 1, extra: true }] },
    { products: [{ id: a.id, quantity: 1 }], extra: 1 },
    { products: Array.from({ length: 101 }, () => ({ id: a.id, quantity: 1 })) },
    [{ id: a.id, quantity: 1 }],
  ];
  for (const body of bodies) assertProblem(await t.request('POST', '/api/v1/carts', { token: s.storefront, body }), 400, 'VALIDATION_FAILED');
  for (const body of [{ id: a.id, quantity: 0 }, { id: a.id }, { id: 'x', quantity: 1 }, { id: a.id, quantity: '2' }]) {
    assertProblem(await t.request('POST', `/api/v1/carts/${cart.id}/products`, { token: s.storefront, body }), 400, 'VALIDATION_FAILED');
  }
  for (const body of [{ quantity: -1 }, { quantity: 1.5 }, { quantity: '3' }, {}, { quantity: 1, id: a.id }]) {
    assertProblem(await t.request('PATCH', `/api/v1/carts/${cart.id}/products/${a.id}`, { token: s.storefront, body }), 400, 'VALIDATION_FAILED');
  }
  assertProblem(await t.request('PATCH', `/api/v1/carts/${cart.id}/products/not-a-uuid`, { token: s.storefront, body: { quantity: 1 } }), 400, 'VALIDATION_FAILED');
  assertProblem(await t.request('DELETE', `/api/v1/carts/nope/products/${a.id}`, { token: s.storefront }), 400, 'VALIDATION_FAILED');
  const after = await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront });
  assert.deepEqual(after.json.cart, cart);
  const [count] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from carts where store = ${s.slug}`);
  assert.equal(count?.n, 1);
});

test('a cart of another store answers 404 to every route', async () => {
  const s = await createStore(t);
  const other = await createStore(t);
  const a = await createProduct(t, s);
  const cart = await newCart(s, [{ id: a.id, quantity: 1 }]);
  assertProblem(await t.request('POST', `/api/v1/carts/${cart.id}/products`, { token: other.storefront, body: { id: a.id, quantity: 1 } }), 404, 'NOT_FOUND');
  assertProblem(await t.request('PATCH', `/api/v1/carts/${cart.id}/products/${a.id}`, { token: other.storefront, body: { quantity: 3 } }), 404, 'NOT_FOUND');
  assertProblem(await t.request('DELETE', `/api/v1/carts/${cart.id}/products/${a.id}`, { token: other.storefront }), 404, 'NOT_FOUND');
  assert.deepEqual((await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront })).json.cart, cart);
});
