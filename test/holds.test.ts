/**
 * Checkout holds over HTTP: POST and DELETE /v1/carts/:id/hold, `heldUntil`, all or nothing, every
 * way a hold ends, the available quantity everywhere the storefront shows one (and `held` for the
 * admin), catalog answers and ETags that follow holds (an expiry within 1 s, with no write), orders
 * that take only unheld units but a held cart's own, and races: holds with holds, holds with orders,
 * and a hold expiring during a race. Stock = ordered + held + left is checked after every race.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { expireCarts } from '../src/modules/carts/expiry-job.js';
import { ConfigError, loadConfig } from '../src/plugins/config.js';
import { startAppOn, startTestApp, type TestApp } from './support/app.js';
import { assertProblem, createProduct, createStore, type TestStore } from './support/factories.js';
import { createAddress, createCart, placeOrder, stockOf } from './support/shop.js';

const t = await startTestApp();
// The same data with 2-second holds, for expiry.
const short = await startAppOn(t.database, { CART_HOLD_SECONDS: '2' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const hold = (app: TestApp, s: TestStore, cartId: string) => app.request('POST', `/api/v1/carts/${cartId}/hold`, { token: s.storefront });
const release = (app: TestApp, s: TestStore, cartId: string) => app.request('DELETE', `/api/v1/carts/${cartId}/hold`, { token: s.storefront });
const shown = async (app: TestApp, s: TestStore, slug: string) => {
  const r = await app.request('GET', `/api/v1/products/${slug}`, { token: s.storefront });
  assert.equal(r.status, 200, r.text);
  return r.json.product.quantity as number;
};
const adminView = async (s: TestStore, id: string) => (await t.request('GET', `/api/v1/admin/products/${id}`, { token: s.admin })).json.product;

/** Stock = ordered + held + left, from the database itself. */
async function assertBalanced(s: TestStore, productId: string, initial: number) {
  const [row] = await queryRows<{ ordered: number; held: number; left: number }>(
    t.database.db,
    sql`select coalesce((select sum(quantity) from order_lines where store = ${s.slug} and product_id = ${productId}), 0)::int as ordered,
               coalesce((select sum(quantity) from cart_holds where store = ${s.slug} and product_id = ${productId} and until > now()), 0)::int as held,
               (select quantity from products where store = ${s.slug} and id = ${productId}) as left`,
  );
  assert.equal(row!.ordered + row!.left, initial, 'the stock is what was not ordered');
  assert.ok(row!.held <= row!.left, `held ${row!.held} never exceeds the stock left ${row!.left}`);
  return row!;
}

test('CART_HOLD_SECONDS: default 900, 1..86400, a bad value refused naming it', () => {
  assert.equal(loadConfig({}).cartHoldSeconds, 900);
  assert.equal(loadConfig({ CART_HOLD_SECONDS: '86400' }).cartHoldSeconds, 86400);
  assert.equal(loadConfig({ CART_HOLD_SECONDS: '1' }).cartHoldSeconds, 1);
  for (const bad of ['0', '86401', '-1', '1.5', 'soon']) {
    assert.throws(() => loadConfig({ CART_HOLD_SECONDS: bad }), (error: unknown) => error instanceof ConfigError && /CART_HOLD_SECONDS/.test(error.message), bad);
  }
});

test('a hold: 200 {cart} with heldUntil = now + CART_HOLD_SECONDS; every cart answer carries heldUntil', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 5 });
  const cart = await createCart(t, s, [{ id: a.id, quantity: 3 }]);
  assert.equal(cart.heldUntil, null);
  const r = await hold(t, s, cart.id);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.cart.id, cart.id);
  const until = Date.parse(r.json.cart.heldUntil);
  assert.ok(Math.abs(until - Date.now() - 900_000) < 5000, 'CART_HOLD_SECONDS defaults to 900');
  assert.ok(Date.parse(r.json.cart.expiresAt) >= until, 'a held cart does not expire before its hold ends');
  assert.equal(r.json.cart.products[0].quantity, 2, 'its line shows what is available: 5 in stock, 3 held');
  const read = await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront });
  assert.deepEqual(read.json.cart, r.json.cart, 'the answer is the cart as stored');
  assert.equal(await shown(t, s, a.slug), 2, '5 in stock, 3 held: the storefront shows 2');
  const admin = await adminView(s, a.id);
  assert.equal(admin.quantity, 5, 'the admin sees the stock');
  assert.equal(admin.held, 3);
  const list = await t.request('GET', '/api/v1/admin/products', { token: s.admin });
  assert.equal(list.json.products[0].held, 3);
  // Renewal: the same hold, later.
  await sleep(20);
  const again = await hold(t, s, cart.id);
  assert.equal(again.status, 200);
  assert.ok(Date.parse(again.json.cart.heldUntil) > until, 'holding again renews');
  assert.equal((await adminView(s, a.id)).held, 3, 'a renewal holds the same units, not more');
});

test('all or nothing: 422 with one entry per failing product, and nothing is held', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 5 });
  const b = await createProduct(t, s, { quantity: 5 });
  const c = await createProduct(t, s, { quantity: 5 });
  const first = await createCart(t, s, [{ id: a.id, quantity: 4 }, { id: b.id, quantity: 4 }]);
  const second = await createCart(t, s, [{ id: a.id, quantity: 2 }, { id: b.id, quantity: 2 }, { id: c.id, quantity: 2 }]);
  assert.equal((await hold(t, s, first.id)).status, 200);
  await t.request('PATCH', `/api/v1/admin/products/${c.id}`, { token: s.admin, body: { status: 'DRAFT' } });
  const r = await hold(t, s, second.id);
  assertProblem(r, 422, 'PRODUCT_UNAVAILABLE');
  const errors = [...r.json.errors].sort((x: { productId: string }, y: { productId: string }) => x.productId.localeCompare(y.productId));
  const expected = [
    { productId: a.id, code: 'INSUFFICIENT_STOCK', requested: 2, available: 1 },
    { productId: b.id, code: 'INSUFFICIENT_STOCK', requested: 2, available: 1 },
    { productId: c.id, code: 'PRODUCT_UNAVAILABLE', requested: 2, available: 0 },
  ].sort((x, y) => x.productId.localeCompare(y.productId));
  assert.deepEqual(errors, expected);
  assert.equal((await adminView(s, c.id)).held, 0, 'nothing held');
  assert.equal((await t.request('GET', `/api/v1/carts/${second.id}`, { token: s.storefront })).json.cart.heldUntil, null);
  // Only short: INSUFFICIENT_STOCK.
  await t.request('PATCH', `/api/v1/admin/products/${c.id}`, { token: s.admin, body: { status: 'ACTIVE' } });
  assertProblem(await hold(t, s, second.id), 422, 'INSUFFICIENT_STOCK');
});

test('a hold is refused on an unknown, completed or expired cart; releasing one that holds nothing answers it', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 5 });
  assertProblem(await hold(t, s, '00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
  const cart = await createCart(t, s, [{ id: a.id, quantity: 1 }]);
  const r = await release(t, s, cart.id);
  assert.equal(r.status, 200);
  assert.equal(r.json.cart.heldUntil, null);
  await t.database.db.execute(sql`update carts set expires_at = now() - interval '1 second' where store = ${s.slug} and id = ${cart.id}`);
  assertProblem(await hold(t, s, cart.id), 409, 'CART_EXPIRED');
  const other = await createCart(t, s, [{ id: a.id, quantity: 1 }]);
  const { customer, address } = await createAddress(t, s);
  assert.equal((await placeOrder(t, s, customer, { id: other.id, address: address.id })).status, 201);
  assertProblem(await hold(t, s, other.id), 409, 'CART_NOT_PENDING');
  assertProblem(await release(t, s, other.id), 409, 'CART_NOT_PENDING');
  // Another store's cart is not found.
  const s2 = await createStore(t);
  assertProblem(await hold(t, s2, cart.id), 404, 'NOT_FOUND');
});

test('a hold ends on release, on any line change, and on order; each shows at once in the catalog', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 10 });
  const b = await createProduct(t, s, { quantity: 10 });
  const cart = await createCart(t, s, [{ id: a.id, quantity: 4 }, { id: b.id, quantity: 1 }]);
  const cases: Array<[string, () => Promise<{ status: number; json: any }>]> = [
    ['release', () => release(t, s, cart.id)],
    ['add', () => t.request('POST', `/api/v1/carts/${cart.id}/products`, { token: s.storefront, body: { id: a.id, quantity: 1 } })],
    ['patch', () => t.request('PATCH', `/api/v1/carts/${cart.id}/products/${a.id}`, { token: s.storefront, body: { quantity: 4 } })],
    ['delete', () => t.request('DELETE', `/api/v1/carts/${cart.id}/products/${b.id}`, { token: s.storefront })],
  ];
  for (const [name, end] of cases) {
    const held = await hold(t, s, cart.id);
    assert.equal(held.status, 200, `${name}: ${JSON.stringify(held.json)}`);
    const quantity = held.json.cart.products.find((l: { id: string }) => l.id === a.id).order.quantity;
    assert.equal(await shown(t, s, a.slug), 10 - quantity, `${name}: held units leave the catalog`);
    const r = await end();
    assert.equal(r.status, 200, name);
    assert.equal(r.json.cart.heldUntil, null, `${name} ends the hold`);
    assert.equal(await shown(t, s, a.slug), 10, `${name}: the units show again at once`);
    assert.equal((await adminView(s, a.id)).held, 0, name);
  }
  const held = await hold(t, s, cart.id);
  assert.equal(held.status, 200);
  const { customer, address } = await createAddress(t, s);
  const order = await placeOrder(t, s, customer, { id: cart.id, address: address.id });
  assert.equal(order.status, 201, order.text);
  assert.equal((await adminView(s, a.id)).held, 0, 'the order ends the hold');
  assert.equal(await stockOf(t, s, a.id), 6, 'and takes the units once');
  assert.equal(await shown(t, s, a.slug), 6);
  const done = (await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront })).json.cart;
  assert.equal(done.status, 'COMPLETED');
  assert.equal(done.heldUntil, null);
  const rows = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from cart_holds where store = ${s.slug}`);
  assert.equal(rows[0]!.n, 0, 'no hold rows are left behind');
});

test('available quantity everywhere: listings, filters, groups, cart lines and refusals', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 3, group: 'tee', options: { size: 'S' } });
  const b = await createProduct(t, s, { quantity: 2, group: 'tee', options: { size: 'M' } });
  const cart = await createCart(t, s, [{ id: a.id, quantity: 3 }]);
  assert.equal((await hold(t, s, cart.id)).status, 200);
  const list = await t.request('GET', '/api/v1/products', { token: s.storefront });
  assert.equal(list.json.products.find((p: { id: string }) => p.id === a.id).quantity, 0);
  const inStock = await t.request('GET', '/api/v1/products?inStock=true', { token: s.storefront });
  assert.deepEqual(inStock.json.products.map((p: { id: string }) => p.id), [b.id], 'inStock judges what is available');
  const outOfStock = await t.request('GET', '/api/v1/products?inStock=false', { token: s.storefront });
  assert.deepEqual(outOfStock.json.products.map((p: { id: string }) => p.id), [a.id]);
  const group = await t.request('GET', '/api/v1/product-groups/tee', { token: s.storefront });
  assert.deepEqual(group.json.group.products.map((p: { quantity: number }) => p.quantity), [0, 2]);
  // Another cart: its line shows 0, and adding is refused with what is available.
  const other = await createCart(t, s, [{ id: b.id, quantity: 1 }]);
  const add = await t.request('POST', `/api/v1/carts/${other.id}/products`, { token: s.storefront, body: { id: a.id, quantity: 1 } });
  assertProblem(add, 422, 'INSUFFICIENT_STOCK');
  assert.deepEqual(add.json.errors, [{ productId: a.id, code: 'INSUFFICIENT_STOCK', requested: 1, available: 0 }]);
  const created = await t.request('POST', '/api/v1/carts', { token: s.storefront, body: { products: [{ id: a.id, quantity: 1 }, { id: b.id, quantity: 1 }] } });
  assert.equal(created.status, 201);
  assert.deepEqual(created.json.warnings, [{ productId: a.id, code: 'INSUFFICIENT_STOCK', requested: 1, available: 0 }]);
  assert.equal(created.json.cart.products[0].quantity, 2, 'a line shows the available quantity');
  // A product-list order cannot take held units.
  const { customer, address } = await createAddress(t, s);
  const order = await placeOrder(t, s, customer, { address: address.id, products: [{ id: a.id, quantity: 1 }] });
  assertProblem(order, 422, 'INSUFFICIENT_STOCK');
  assert.deepEqual(order.json.errors, [{ productId: a.id, code: 'INSUFFICIENT_STOCK', requested: 1, available: 0 }]);
  // The held cart may still change its own lines: its own units are its to take.
  const patch = await t.request('PATCH', `/api/v1/carts/${cart.id}/products/${a.id}`, { token: s.storefront, body: { quantity: 2 } });
  assert.equal(patch.status, 200, patch.text);
  assert.equal(patch.json.cart.heldUntil, null);
  assert.equal(patch.json.cart.products[0].quantity, 3);
});

test('catalog answers and ETags follow holds: a hold, its release and its expiry within 1 s, with no write', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 4 });
  const get = (headers: Record<string, string> = {}) => short.request('GET', `/api/v1/products/${a.slug}`, { token: s.storefront, headers });
  const before = await get();
  assert.equal(before.json.product.quantity, 4);
  const cart = await createCart(short, s, [{ id: a.id, quantity: 1 }]);
  const held = await hold(short, s, cart.id);
  assert.equal(held.status, 200);
  const during = await get({ 'if-none-match': String(before.headers.etag) });
  assert.equal(during.status, 200, 'the held units change the answer and its ETag');
  assert.equal(during.json.product.quantity, 3);
  assert.notEqual(during.headers.etag, before.headers.etag);
  assert.equal((await get({ 'if-none-match': String(during.headers.etag) })).status, 304);
  // Expiry: no write, yet the answer changes within 1 s of heldUntil.
  const until = Date.parse(held.json.cart.heldUntil);
  await sleep(Math.max(0, until - Date.now()) + 1000);
  const after = await get({ 'if-none-match': String(during.headers.etag) });
  assert.equal(after.status, 200);
  assert.equal(after.json.product.quantity, 4, 'an expired hold counts for nothing');
  assert.equal(after.headers.etag, before.headers.etag, 'the same answer, the same ETag');
  assert.equal((await short.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront })).json.cart.heldUntil, null, 'a lapsed hold reads null');
  // Release: at once.
  assert.equal((await hold(short, s, cart.id)).status, 200);
  assert.equal((await get()).json.product.quantity, 3);
  assert.equal((await release(short, s, cart.id)).status, 200);
  assert.equal((await get()).json.product.quantity, 4);
});

test('an order from a held cart within its hold cannot fail for stock; after it lapses it competes again', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 2 });
  const { customer, address } = await createAddress(t, s);
  const cart = await createCart(short, s, [{ id: a.id, quantity: 2 }]);
  assert.equal((await hold(short, s, cart.id)).status, 200);
  const rivals = await Promise.all(Array.from({ length: 5 }, () => placeOrder(short, s, customer, { address: address.id, products: [{ id: a.id, quantity: 1 }] })));
  for (const r of rivals) assertProblem(r, 422, 'INSUFFICIENT_STOCK');
  const mine = await placeOrder(short, s, customer, { id: cart.id, address: address.id });
  assert.equal(mine.status, 201, mine.text);
  assert.equal(await stockOf(t, s, a.id), 0);
  // A lapsed hold keeps nothing.
  const b = await createProduct(t, s, { quantity: 1 });
  const lapsed = await createCart(short, s, [{ id: b.id, quantity: 1 }]);
  assert.equal((await hold(short, s, lapsed.id)).status, 200);
  assertProblem(await placeOrder(short, s, customer, { address: address.id, products: [{ id: b.id, quantity: 1 }] }), 422, 'INSUFFICIENT_STOCK');
  await sleep(2100);
  assert.equal((await placeOrder(short, s, customer, { address: address.id, products: [{ id: b.id, quantity: 1 }] })).status, 201);
  assertProblem(await placeOrder(short, s, customer, { id: lapsed.id, address: address.id }), 422, 'INSUFFICIENT_STOCK');
});

test('50 carts racing to hold the last 10 units hold exactly 10', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 10 });
  const carts = await Promise.all(Array.from({ length: 50 }, () => createCart(t, s, [{ id: a.id, quantity: 1 }])));
  const answers = await Promise.all(carts.map((c) => hold(t, s, c.id)));
  assert.equal(answers.filter((r) => r.status === 200).length, 10, answers.map((r) => r.status).join(','));
  for (const r of answers) if (r.status !== 200) assertProblem(r, 422, 'INSUFFICIENT_STOCK');
  assert.equal((await adminView(s, a.id)).held, 10);
  assert.equal(await shown(t, s, a.slug), 0);
  const row = await assertBalanced(s, a.id, 10);
  assert.equal(row.held, 10);
});

test('orders and holds racing together never exceed the stock; the held carts then order', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 12 });
  const b = await createProduct(t, s, { quantity: 30 });
  const { customer, address } = await createAddress(t, s);
  const carts = await Promise.all(Array.from({ length: 15 }, () => createCart(t, s, [{ id: a.id, quantity: 1 }, { id: b.id, quantity: 1 }])));
  const answers = await Promise.all([
    ...carts.map((c) => hold(t, s, c.id)),
    ...Array.from({ length: 15 }, () => placeOrder(t, s, customer, { address: address.id, products: [{ id: a.id, quantity: 1 }] })),
  ]);
  const holds = answers.slice(0, 15).filter((r) => r.status === 200).length;
  const orders = answers.slice(15).filter((r) => r.status === 201).length;
  assert.equal(holds + orders, 12, `holds ${holds} + orders ${orders} take exactly the stock`);
  const row = await assertBalanced(s, a.id, 12);
  assert.equal(row.held, holds);
  assert.equal(row.ordered, orders);
  // Every held cart orders, racing rivals: the held ones all succeed.
  const heldCarts = carts.filter((_, i) => answers[i]!.status === 200);
  const second = await Promise.all([
    ...heldCarts.map((c) => placeOrder(t, s, customer, { id: c.id, address: address.id })),
    ...Array.from({ length: 10 }, () => placeOrder(t, s, customer, { address: address.id, products: [{ id: a.id, quantity: 1 }] })),
  ]);
  for (const r of second.slice(0, heldCarts.length)) assert.equal(r.status, 201, r.text);
  for (const r of second.slice(heldCarts.length)) assertProblem(r, 422, 'INSUFFICIENT_STOCK');
  const end = await assertBalanced(s, a.id, 12);
  assert.deepEqual(end, { ordered: 12, held: 0, left: 0 });
});

test('a hold expiring during a race frees its units for the others', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 5 });
  const { customer, address } = await createAddress(t, s);
  const first = await createCart(short, s, [{ id: a.id, quantity: 5 }]);
  const held = await hold(short, s, first.id);
  assert.equal(held.status, 200);
  const until = Date.parse(held.json.cart.heldUntil);
  // Orders keep arriving across the expiry; only those after it may take units, never more than 5.
  // Until the freed units are sold (a loaded machine answers slowly), at most 10 s past the expiry.
  const answers: Array<{ status: number; at: number }> = [];
  const deadline = until + 10_000;
  const sold = () => answers.filter((r) => r.status === 201).length;
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (Date.now() < deadline && (Date.now() < until + 500 || sold() < 5)) {
      const r = await placeOrder(short, s, customer, { address: address.id, products: [{ id: a.id, quantity: 1 }] });
      answers.push({ status: r.status, at: Date.now() });
      await sleep(50);
    }
  }));
  const placed = answers.filter((r) => r.status === 201);
  assert.equal(placed.length, 5, 'the freed units all sell');
  for (const r of placed) assert.ok(r.at >= until, 'none before the hold expired');
  assert.deepEqual(await assertBalanced(s, a.id, 5), { ordered: 5, held: 0, left: 0 });
  assertProblem(await placeOrder(short, s, customer, { id: first.id, address: address.id }), 422, 'INSUFFICIENT_STOCK');
});

test('the expiry job purges old carts with their hold rows', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 5 });
  const cart = await createCart(t, s, [{ id: a.id, quantity: 1 }]);
  assert.equal((await hold(t, s, cart.id)).status, 200);
  await t.database.db.execute(sql`update carts set expires_at = now() - interval '40 days', held_until = now() - interval '40 days' where store = ${s.slug} and id = ${cart.id}`);
  await t.database.db.execute(sql`update cart_holds set until = now() - interval '40 days' where store = ${s.slug}`);
  await expireCarts(t.database.db);
  await expireCarts(t.database.db);
  const rows = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from cart_holds where store = ${s.slug}`);
  assert.equal(rows[0]!.n, 0);
  assert.equal((await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront })).status, 404);
});
