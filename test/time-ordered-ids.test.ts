// Row ids are UUIDs of version 7, in creation order, whether the service makes them (carts, orders)
// or the database does (products, addresses, events): lib/time-ordered-id.ts says why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { timeOrderedId } from '../src/lib/time-ordered-id.js';
import { startTestApp } from './support/app.js';
import { createProduct, createStore } from './support/factories.js';
import { createAddress, createCart, placeOrder } from './support/shop.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The Unix milliseconds a version 7 id was made at: its first 48 bits. */
const millisOf = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

test('a time-ordered id carries its millisecond, the version and variant bits, and random bits after them', () => {
  const at = Date.UTC(2026, 11, 1, 12, 0, 0, 123);
  const ids = Array.from({ length: 10_000 }, () => timeOrderedId(at));
  for (const id of ids) {
    assert.match(id, V7);
    assert.equal(millisOf(id), at);
  }
  // 10,000 ids draw the pool of random bits many times over: no id's bits are used twice.
  assert.equal(new Set(ids).size, ids.length, 'the 74 random bits tell ids of one millisecond apart');
  assert.ok(timeOrderedId(at) < timeOrderedId(at + 1), 'a later millisecond sorts after');
  assert.equal(millisOf(timeOrderedId(0)), 0);
  assert.equal(millisOf(timeOrderedId(2 ** 48 - 1)), 2 ** 48 - 1, 'the largest millisecond 48 bits hold');
});

const t = await startTestApp();

test('the ids the service makes and those the database makes are both time-ordered', async () => {
  const before = Date.now();
  const s = await createStore(t);
  const product = await createProduct(t, s);
  const { customer, address } = await createAddress(t, s);
  const cart = await createCart(t, s, [{ id: product.id, quantity: 1 }]);
  const placed = await placeOrder(t, s, customer, { address: address.id, products: [{ id: product.id, quantity: 1 }] });
  assert.equal(placed.status, 201, placed.text);
  const feed = await t.request('GET', '/api/v1/admin/events', { token: s.admin });
  assert.equal(feed.status, 200, feed.text);
  const after = Date.now();

  const made = { product: product.id, address: address.id, cart: cart.id, order: placed.json.order.id, event: feed.json.events[0].id };
  for (const [what, id] of Object.entries(made)) {
    assert.match(id, V7, what);
    // The database's clock and this process's are the same machine's; a second either way allows
    // for the clock a test server is started with.
    assert.ok(millisOf(id) >= before - 1000 && millisOf(id) <= after + 1000, `${what} ${id} was made during the test`);
  }
  assert.ok(made.product < made.order, 'a row made later sorts after');
});
