/**
 * Discount codes (docs/discounts.md): the admin API, the amount (each type, rounding, eligibility by
 * product and by collection, nested and archived), every refusal reason, carts that follow their
 * lines and prices, orders that keep what they were placed with, and usage counted exactly under
 * concurrency (usage limit, once per customer, cancel gives the use back).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestApp } from './support/app.js';
import { addToCollection, assertProblem, createCollection, createProduct, createStore, type TestStore } from './support/factories.js';
import { createAddress, createCart, placeOrder, stockOf } from './support/shop.js';

const t = await startTestApp({ ORDER_RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '0' });

async function createDiscount(s: TestStore, body: Record<string, unknown>) {
  const r = await t.request('POST', '/api/v1/admin/discounts', { token: s.admin, body: { type: 'percentage', value: 10, ...body, code: body.code ?? `C${randomUUID().slice(0, 8)}` } });
  assert.equal(r.status, 201, r.text);
  return r.json.discount;
}
const getDiscount = async (s: TestStore, id: string) => (await t.request('GET', `/api/v1/admin/discounts/${id}`, { token: s.admin })).json.discount;
const patchDiscount = (s: TestStore, id: string, body: Record<string, unknown>) => t.request('PATCH', `/api/v1/admin/discounts/${id}`, { token: s.admin, body });
const setCode = (s: TestStore, cartId: string, code: string) => t.request('POST', `/api/v1/carts/${cartId}/discount`, { token: s.storefront, body: { code } });
const getCart = async (s: TestStore, cartId: string) => (await t.request('GET', `/api/v1/carts/${cartId}`, { token: s.storefront })).json.cart;

function assertRefused(r: Parameters<typeof assertProblem>[0] & { json: { reason?: string } }, reason: string) {
  assertProblem(r, 422, 'DISCOUNT_NOT_APPLICABLE');
  assert.equal(r.json.reason, reason);
}

test('admin API: create (code upper-case, defaults), read, list with total, update, soft delete; validation and conflicts', async () => {
  const s = await createStore(t);
  const created = await createDiscount(s, { code: 'welcome10' });
  assert.deepEqual(
    { ...created, id: undefined, createdAt: undefined },
    { id: undefined, code: 'WELCOME10', type: 'percentage', value: 10, minSubtotal: 0, startsAt: null, endsAt: null, usageLimit: null, usageCount: 0, oncePerCustomer: false, products: [], collections: [], active: true, createdAt: undefined, updatedAt: null },
  );
  const dup = await t.request('POST', '/api/v1/admin/discounts', { token: s.admin, body: { code: 'Welcome10', type: 'fixed', value: 5 } });
  assertProblem(dup, 409, 'CONFLICT');
  for (const body of [
    { code: 'ab', type: 'fixed', value: 1 },
    { code: 'has space', type: 'fixed', value: 1 },
    { code: 'OK1', type: 'percentage', value: 101 },
    { code: 'OK1', type: 'percentage', value: 0 },
    { code: 'OK1', type: 'fixed', value: 1.5 },
    { code: 'OK1', type: 'other', value: 1 },
    { code: 'OK1', type: 'fixed', value: 1, usageLimit: 0 },
    { code: 'OK1', type: 'fixed', value: 1, minSubtotal: -1 },
    { code: 'OK1', type: 'fixed', value: 1, products: [randomUUID()] },
    { code: 'OK1', type: 'fixed', value: 1, startsAt: '2030-01-02T00:00:00Z', endsAt: '2030-01-01T00:00:00Z' },
    { code: 'OK1', type: 'fixed', value: 1, usageCount: 3 },
  ]) {
    const r = await t.request('POST', '/api/v1/admin/discounts', { token: s.admin, body });
    assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
  }
  const other = await createStore(t);
  assert.equal((await t.request('GET', `/api/v1/admin/discounts/${created.id}`, { token: other.admin })).status, 404, 'another store does not see it');
  await createDiscount(s, { code: 'second', type: 'fixed', value: 500 });
  const list = (await t.request('GET', '/api/v1/admin/discounts?limit=1', { token: s.admin })).json;
  assert.equal(list.total, 2);
  assert.equal(list.discounts.length, 1);
  assert.equal(list.discounts[0].code, 'SECOND', 'newest first');
  const patched = await patchDiscount(s, created.id, { value: 15, usageLimit: 5, active: false });
  assert.equal(patched.status, 200, patched.text);
  assert.equal(patched.json.discount.value, 15);
  assert.equal(patched.json.discount.usageLimit, 5);
  assert.equal(patched.json.discount.active, false);
  assert.equal((await patchDiscount(s, created.id, { code: 'NEW' })).status, 400, 'code cannot change');
  assert.equal((await patchDiscount(s, created.id, { usageCount: 0 })).status, 400, 'usageCount cannot change');
  assert.equal((await patchDiscount(s, created.id, { type: 'percentage', value: 150 })).status, 400);
  const deleted = await t.request('DELETE', `/api/v1/admin/discounts/${created.id}`, { token: s.admin });
  assert.equal(deleted.status, 200);
  assert.equal((await t.request('GET', `/api/v1/admin/discounts/${created.id}`, { token: s.admin })).status, 404);
  assert.equal((await t.request('GET', '/api/v1/admin/discounts', { token: s.admin })).json.total, 1);
  await createDiscount(s, { code: 'WELCOME10' });
  assert.equal((await t.request('GET', '/api/v1/admin/discounts', { token: s.storefront })).status, 403);
});

test('amounts: percentage rounds down (33 % of odd amounts), fixed is at most the eligible subtotal; totals on the cart', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { price: 333 });
  const b = await createProduct(t, s, { price: 7 });
  const pct = await createDiscount(s, { code: 'third', value: 33 });
  const fixed = await createDiscount(s, { code: 'bigfixed', type: 'fixed', value: 10_000 });
  const cart = await createCart(t, s, [{ id: a.id, quantity: 1 }, { id: b.id, quantity: 3 }]);
  assert.equal(cart.discount, null);
  assert.equal(cart.discountTotal, 0);
  assert.equal(cart.total, 354);
  const r = await setCode(s, cart.id, 'THIRD');
  assert.equal(r.status, 200, r.text);
  // floor(354 * 33 / 100) = floor(116.82) = 116
  assert.deepEqual(r.json.cart.discount, { code: 'THIRD', type: 'percentage', value: 33, amount: 116 });
  assert.equal(r.json.cart.discountTotal, 116);
  assert.equal(r.json.cart.total, 238);
  assert.equal(r.json.cart.price, 354, 'price stays the lines\' total');
  const f = await setCode(s, cart.id, fixed.code.toLowerCase());
  assert.equal(f.status, 200, f.text);
  assert.deepEqual(f.json.cart.discount, { code: 'BIGFIXED', type: 'fixed', value: 10_000, amount: 354 }, 'replaces the earlier code; never more than the subtotal');
  assert.equal(f.json.cart.total, 0);
  const removed = await t.request('DELETE', `/api/v1/carts/${cart.id}/discount`, { token: s.storefront });
  assert.equal(removed.status, 200);
  assert.equal(removed.json.cart.discount, null);
  assert.equal(removed.json.cart.total, 354);
  void pct;
});

test('eligibility by product and by collection, nested collections included, an archived collection reaches nothing', async () => {
  const s = await createStore(t);
  const shirt = await createProduct(t, s, { price: 1000 });
  const sock = await createProduct(t, s, { price: 300 });
  const mug = await createProduct(t, s, { price: 500 });
  const clothes = await createCollection(t, s);
  const socks = await createCollection(t, s, { parents: [clothes.id] });
  await addToCollection(t, s, socks.id, sock.id);
  const byProduct = await createDiscount(s, { value: 20, products: [shirt.id] });
  const byCollection = await createDiscount(s, { type: 'fixed', value: 1000, collections: [clothes.id] });
  const cart = await createCart(t, s, [{ id: shirt.id, quantity: 1 }, { id: sock.id, quantity: 2 }, { id: mug.id, quantity: 1 }]);
  assert.equal((await setCode(s, cart.id, byProduct.code)).json.cart.discountTotal, 200, '20 % of the shirt only');
  assert.equal((await setCode(s, cart.id, byCollection.code)).json.cart.discountTotal, 600, 'the socks, through the nested collection: min(1000, 600)');
  const mugOnly = await createCart(t, s, [{ id: mug.id, quantity: 1 }]);
  assertRefused(await setCode(s, mugOnly.id, byCollection.code), 'no_eligible_products');
  // Archive the parent: the code no longer reaches the socks through it.
  const archived = await t.request('PATCH', `/api/v1/admin/collections/${clothes.id}`, { token: s.admin, body: { archived: true } });
  assert.equal(archived.status, 200, archived.text);
  const again = await getCart(s, cart.id);
  assert.deepEqual(again.discount, { code: byCollection.code, type: 'fixed', value: 1000, amount: 0 }, 'the code stays on the cart at 0');
  assert.equal(again.total, again.price);
  const { customer, address } = await createAddress(t, s);
  assertRefused(await placeOrder(t, s, customer, { id: cart.id, address: address.id }), 'no_eligible_products');
});

test('refusal reasons: unknown, inactive, not_started, expired, used_up, min_subtotal; case-insensitive match (secret tokens get every reason, public callers unknown for inactive and not_started)', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { price: 100, quantity: 100 });
  const cart = await createCart(t, s, [{ id: a.id, quantity: 2 }]);
  const hour = 3600_000;
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ active: false }, 'inactive'],
    [{ startsAt: new Date(Date.now() + hour).toISOString() }, 'not_started'],
    [{ endsAt: new Date(Date.now() - hour).toISOString() }, 'expired'],
    [{ minSubtotal: 201 }, 'min_subtotal'],
  ];
  assertRefused(await setCode(s, cart.id, 'NOSUCHCODE'), 'unknown');
  for (const [fields, reason] of cases) {
    const code = (await createDiscount(s, fields)).code;
    // The admin token (a secret) learns the true reason; the public token cannot tell a hidden code from none.
    assertRefused(await t.request('POST', `/api/v1/carts/${cart.id}/discount`, { token: s.admin, body: { code } }), reason);
    assertRefused(await setCode(s, cart.id, code), reason === 'inactive' || reason === 'not_started' ? 'unknown' : reason);
  }
  const within = await createDiscount(s, { code: 'MiXeD', minSubtotal: 200, startsAt: new Date(Date.now() - hour).toISOString(), endsAt: new Date(Date.now() + hour).toISOString() });
  const ok = await setCode(s, cart.id, 'mixed');
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.json.cart.discount.code, within.code);
  // used_up: a limit of 1, used by an order.
  const once = await createDiscount(s, { usageLimit: 1 });
  const { customer, address } = await createAddress(t, s);
  const first = await placeOrder(t, s, customer, { address: address.id, products: [{ id: a.id, quantity: 1 }], discountCode: once.code.toLowerCase() });
  assert.equal(first.status, 201, first.text);
  assertRefused(await setCode(s, cart.id, once.code), 'used_up');
  const stock = await stockOf(t, s, a.id);
  assertRefused(await placeOrder(t, s, customer, { address: address.id, products: [{ id: a.id, quantity: 1 }], discountCode: once.code }), 'used_up');
  assertRefused(await placeOrder(t, s, customer, { address: address.id, products: [{ id: a.id, quantity: 1 }], discountCode: 'nope-nope' }), 'unknown');
  assert.equal(await stockOf(t, s, a.id), stock, 'a refused order changes nothing');
  assert.equal((await getDiscount(s, once.id)).usageCount, 1);
});

test('orders: keep discount, discountTotal and total as placed; the price at order time counts; a cart code that stops applying refuses the order', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { price: 999, quantity: 50 });
  const code = await createDiscount(s, { value: 10 });
  const { customer, address } = await createAddress(t, s);
  const cart = await createCart(t, s, [{ id: a.id, quantity: 1 }]);
  assert.equal((await setCode(s, cart.id, code.code)).json.cart.discountTotal, 99);
  // The price changes between cart and order: the cart follows, the order uses the price at order time.
  await t.request('PATCH', `/api/v1/admin/products/${a.id}`, { token: s.admin, body: { price: 2001 } });
  assert.equal((await getCart(s, cart.id)).discountTotal, 200);
  const placed = await placeOrder(t, s, customer, { id: cart.id, address: address.id });
  assert.equal(placed.status, 201, placed.text);
  const order = placed.json.order;
  assert.deepEqual(order.discount, { code: code.code, type: 'percentage', value: 10, amount: 200 });
  assert.equal(order.discountTotal, 200);
  assert.equal(order.total, 1801);
  // Kept as placed: later edits of the code or the product change nothing.
  await patchDiscount(s, code.id, { value: 50 });
  await t.request('PATCH', `/api/v1/admin/products/${a.id}`, { token: s.admin, body: { price: 5 } });
  const read = (await t.request('GET', `/api/v1/${customer}/orders/${order.id}`, { token: s.server })).json.order;
  assert.deepEqual([read.discount, read.discountTotal, read.total], [order.discount, 200, 1801]);
  assert.equal((await getDiscount(s, code.id)).usageCount, 1);
  // discountCode beside a cart id is 400.
  const other = await createCart(t, s, [{ id: a.id, quantity: 1 }]);
  assertProblem(await placeOrder(t, s, customer, { id: other.id, address: address.id, discountCode: code.code }), 400, 'VALIDATION_FAILED');
  // Deactivated, then deleted between cart and order.
  await setCode(s, other.id, code.code);
  await patchDiscount(s, code.id, { active: false });
  assert.equal((await getCart(s, other.id)).discount.amount, 0);
  const before = await stockOf(t, s, a.id);
  assertRefused(await placeOrder(t, s, customer, { id: other.id, address: address.id }), 'inactive');
  await t.request('DELETE', `/api/v1/admin/discounts/${code.id}`, { token: s.admin });
  assertRefused(await placeOrder(t, s, customer, { id: other.id, address: address.id }), 'unknown');
  assert.equal(await stockOf(t, s, a.id), before);
  assert.equal((await getCart(s, other.id)).status, 'PENDING', 'the refused order left the cart as it was');
  // The cart can still be ordered once its code is removed.
  await t.request('DELETE', `/api/v1/carts/${other.id}/discount`, { token: s.storefront });
  const plain = await placeOrder(t, s, customer, { id: other.id, address: address.id });
  assert.equal(plain.status, 201, plain.text);
  assert.deepEqual([plain.json.order.discount, plain.json.order.discountTotal, plain.json.order.total], [null, 0, plain.json.order.price]);
});

test('idempotent retries of an order with a code answer the same order and count one use', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { price: 100 });
  const code = await createDiscount(s, { type: 'fixed', value: 30, usageLimit: 10 });
  const { customer, address } = await createAddress(t, s);
  const body = { address: address.id, products: [{ id: a.id, quantity: 1 }], discountCode: code.code };
  const key = randomUUID();
  const first = await placeOrder(t, s, customer, body, { 'idempotency-key': key });
  const again = await placeOrder(t, s, customer, body, { 'idempotency-key': key });
  assert.equal(first.status, 201, first.text);
  assert.equal(again.status, 201);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.deepEqual(again.json, first.json);
  assert.equal(first.json.order.total, 70);
  assert.equal((await getDiscount(s, code.id)).usageCount, 1);
  assert.equal(await stockOf(t, s, a.id), 9);
});

test('once per customer: already_used for a second order, other customers still may, a cancel gives the use back; raced from 20 connections it is used once', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { price: 100, quantity: 1000 });
  const code = await createDiscount(s, { oncePerCustomer: true });
  const one = await createAddress(t, s);
  const two = await createAddress(t, s);
  const order = (who: typeof one) => placeOrder(t, s, who.customer, { address: who.address.id, products: [{ id: a.id, quantity: 1 }], discountCode: code.code });
  const first = await order(one);
  assert.equal(first.status, 201, first.text);
  assertRefused(await order(one), 'already_used');
  const cart = await createCart(t, s, [{ id: a.id, quantity: 1 }]);
  assert.equal((await setCode(s, cart.id, code.code)).status, 200, 'a cart does not know its customer yet');
  assertRefused(await placeOrder(t, s, one.customer, { id: cart.id, address: one.address.id }), 'already_used');
  assert.equal((await order(two)).status, 201);
  const cancelled = await t.request('PATCH', `/api/v1/admin/orders/${first.json.order.id}`, { token: s.admin, body: { status: 'CANCELLED' } });
  assert.equal(cancelled.status, 200, cancelled.text);
  assert.equal((await getDiscount(s, code.id)).usageCount, 1, 'the cancel gave the use back');
  assert.equal((await order(one)).status, 201, 'usable again after the cancel');
  // 20 concurrent orders of a new customer.
  const three = await createAddress(t, s);
  const stock = await stockOf(t, s, a.id);
  const answers = await Promise.all(Array.from({ length: 20 }, () => order(three)));
  assert.equal(answers.filter((r) => r.status === 201).length, 1, answers.map((r) => r.status).join(','));
  for (const r of answers) if (r.status !== 201) assertRefused(r, 'already_used');
  assert.equal(await stockOf(t, s, a.id), stock - 1);
  assert.equal((await getDiscount(s, code.id)).usageCount, 3);
});

test('usage limit under concurrency: limit 100, 1,000 concurrent orders of 8 customers from carts and lists: exactly 100 used, the others used_up and change nothing', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { price: 100, quantity: 10_000 });
  const b = await createProduct(t, s, { price: 50, quantity: 10_000 });
  const code = await createDiscount(s, { usageLimit: 100, value: 50 });
  const customers = await Promise.all(Array.from({ length: 8 }, () => createAddress(t, s)));
  const carts = await Promise.all(Array.from({ length: 100 }, async () => {
    const cart = await createCart(t, s, [{ id: b.id, quantity: 2 }]);
    assert.equal((await setCode(s, cart.id, code.code)).status, 200);
    return cart;
  }));
  const answers = await Promise.all([
    ...Array.from({ length: 900 }, (_, i) => {
      const who = customers[i % customers.length]!;
      return placeOrder(t, s, who.customer, { address: who.address.id, products: [{ id: a.id, quantity: 3 }], discountCode: code.code });
    }),
    ...carts.map((cart, i) => {
      const who = customers[i % customers.length]!;
      return placeOrder(t, s, who.customer, { id: cart.id, address: who.address.id });
    }),
  ]);
  const placed = answers.filter((r) => r.status === 201);
  assert.equal(placed.length, 100, answers.map((r) => r.status).join(','));
  for (const r of answers) if (r.status !== 201) assertRefused(r, 'used_up');
  assert.equal((await getDiscount(s, code.id)).usageCount, 100);
  const fromCarts = placed.filter((r) => r.json.order.products[0].id === b.id).length;
  assert.equal(await stockOf(t, s, a.id), 10_000 - 3 * (100 - fromCarts), 'refused orders took no stock');
  assert.equal(await stockOf(t, s, b.id), 10_000 - 2 * fromCarts);
  for (const r of placed) assert.equal(r.json.order.total, r.json.order.price / 2);
});
