/**
 * The total a shopper pays (docs/checkout.md): store settings and currency, tax rates and shipping
 * options (admin API), a cart's shipping options and choice, and every rule of the totals with
 * amounts worked out by hand in the test: a discount shared over three lines, odd amounts, 33 % and
 * 8.25 %, prices with and without tax, a half rounded up, free shipping at the exact threshold, a
 * region rate over a country rate and a category rate; orders keep what they were placed with;
 * SHIPPING_REQUIRED and SHIPPING_NOT_AVAILABLE; order numbers, email and the admin order search.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestApp } from './support/app.js';
import { assertProblem, createProduct, createStore, type ProductFields, type TestStore } from './support/factories.js';
import { createCart, placeOrder, stockOf } from './support/shop.js';

const t = await startTestApp({ ORDER_RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '0' });

const TX_ADDRESS = { zipcode: '73301', street: 'Congress Ave', number: '100', city: 'Austin', state: 'TX', country: 'US', name: 'Ana Souza', phone: '+1 512 555 0100' };

async function addressIn(s: TestStore, fields: Record<string, string>, customer = randomUUID()) {
  const r = await t.request('POST', `/api/v1/${customer}/addresses`, { token: s.server, body: { address: { ...TX_ADDRESS, ...fields } } });
  assert.equal(r.status, 201, r.text);
  return { customer, address: r.json.address };
}
async function taxRate(s: TestStore, body: Record<string, unknown>) {
  const r = await t.request('POST', '/api/v1/admin/tax-rates', { token: s.admin, body });
  assert.equal(r.status, 201, r.text);
  return r.json.taxRate;
}
async function shippingOption(s: TestStore, body: Record<string, unknown>) {
  const r = await t.request('POST', '/api/v1/admin/shipping-options', { token: s.admin, body });
  assert.equal(r.status, 201, r.text);
  return r.json.shippingOption;
}
const product = (s: TestStore, fields: ProductFields & { taxCategory?: string }) => createProduct(t, s, fields as ProductFields);
const setShipping = (s: TestStore, cartId: string, body: Record<string, unknown>) => t.request('PUT', `/api/v1/carts/${cartId}/shipping`, { token: s.storefront, body });
const totalsOf = (x: Record<string, unknown>) => ({
  price: x.price, discountTotal: x.discountTotal, shipping: x.shipping, shippingTotal: x.shippingTotal, taxLines: x.taxLines, taxTotal: x.taxTotal, total: x.total,
});

test('store settings: GET /v1/store with the public token, PATCH /v1/admin/store, currency checked; carts show the current currency, orders keep theirs', async () => {
  const s = await createStore(t);
  const read = await t.request('GET', '/api/v1/store', { token: s.storefront });
  assert.equal(read.status, 200, read.text);
  assert.deepEqual(read.json.store, { slug: s.slug, name: s.slug, currency: 'USD', pricesIncludeTax: false, unpaidOrderTimeoutSeconds: 86400, paymentProviders: [] });
  for (const body of [{ currency: 'eur' }, { currency: 'ZZZ' }, { currency: 'EURO' }, { unpaidOrderTimeoutSeconds: 59 }, { unpaidOrderTimeoutSeconds: 2_592_001 }, { pricesIncludeTax: 'yes' }, { slug: 'x' }]) {
    const r = await t.request('PATCH', '/api/v1/admin/store', { token: s.admin, body });
    assertProblem(r, 400, 'VALIDATION_FAILED');
  }
  assert.equal((await t.request('PATCH', '/api/v1/admin/store', { token: s.storefront, body: { currency: 'EUR' } })).status, 403);
  const changed = await t.request('PATCH', '/api/v1/admin/store', { token: s.admin, body: { currency: 'EUR', unpaidOrderTimeoutSeconds: null, name: 'Euro shop' } });
  assert.equal(changed.status, 200, changed.text);
  assert.deepEqual(changed.json.store, { slug: s.slug, name: 'Euro shop', currency: 'EUR', pricesIncludeTax: false, unpaidOrderTimeoutSeconds: null, paymentProviders: [] });
  assert.deepEqual((await t.request('GET', '/api/v1/store', { token: s.admin })).json.store, changed.json.store);

  const p = await product(s, { price: 250 });
  const cart = await createCart(t, s, [{ id: p.id, quantity: 2 }]);
  assert.equal(cart.currency, 'EUR');
  const { customer, address } = await addressIn(s, {});
  const order = await placeOrder(t, s, customer, { address: address.id, products: [{ id: p.id, quantity: 1 }] });
  assert.equal(order.status, 201, order.text);
  assert.equal(order.json.order.currency, 'EUR');
  await t.request('PATCH', '/api/v1/admin/store', { token: s.admin, body: { currency: 'JPY' } });
  assert.equal((await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront })).json.cart.currency, 'JPY', 'a cart shows the current currency');
  assert.equal((await t.request('GET', `/api/v1/admin/orders/${order.json.order.id}`, { token: s.admin })).json.order.currency, 'EUR', 'an order keeps its own');
});

test('tax rates: create (country upper case), one per (country, region ignoring case, category), validation, list, PATCH, DELETE, other stores see nothing', async () => {
  const s = await createStore(t);
  const de = await taxRate(s, { country: 'de', rate: 1900, name: 'VAT' });
  assert.deepEqual({ ...de, id: undefined, createdAt: undefined }, { id: undefined, country: 'DE', region: null, category: null, rate: 1900, name: 'VAT', createdAt: undefined, updatedAt: null });
  assertProblem(await t.request('POST', '/api/v1/admin/tax-rates', { token: s.admin, body: { country: 'DE', rate: 700, name: 'VAT' } }), 409, 'CONFLICT');
  await taxRate(s, { country: 'US', region: 'TX', rate: 825, name: 'Sales tax' });
  assertProblem(await t.request('POST', '/api/v1/admin/tax-rates', { token: s.admin, body: { country: 'us', region: 'tx', rate: 800, name: 'Sales tax' } }), 409, 'CONFLICT');
  const books = await taxRate(s, { country: 'DE', category: 'books', rate: 700, name: 'VAT reduced' });
  for (const body of [
    { country: 'DEU', rate: 1, name: 'x' }, { country: 'D1', rate: 1, name: 'x' }, { country: 'DE', rate: 10001, name: 'x', region: 'B' }, { country: 'DE', rate: -1, name: 'x', region: 'B' },
    { country: 'DE', rate: 8.5, name: 'x', region: 'B' }, { country: 'DE', rate: 1, name: '', region: 'B' }, { country: 'DE', rate: 1, name: 'x', region: '' },
    { country: 'DE', rate: 1, name: 'x', category: 'c'.repeat(41) }, { country: 'DE', rate: 1, name: 'x'.repeat(81), region: 'B' }, { country: 'DE', rate: 1, name: 'x', other: 1 },
  ]) {
    assertProblem(await t.request('POST', '/api/v1/admin/tax-rates', { token: s.admin, body }), 400, 'VALIDATION_FAILED');
  }
  const list = (await t.request('GET', '/api/v1/admin/tax-rates', { token: s.admin })).json;
  assert.equal(list.total, 3);
  assert.deepEqual(list.taxRates.map((r: { country: string; category: string | null }) => `${r.country}:${r.category}`), ['DE:null', 'DE:books', 'US:null']);
  const patched = await t.request('PATCH', `/api/v1/admin/tax-rates/${books.id}`, { token: s.admin, body: { rate: 750 } });
  assert.equal(patched.status, 200, patched.text);
  assert.equal(patched.json.taxRate.rate, 750);
  assert.ok(patched.json.taxRate.updatedAt);
  assertProblem(await t.request('PATCH', `/api/v1/admin/tax-rates/${books.id}`, { token: s.admin, body: { category: null } }), 409, 'CONFLICT');
  const other = await createStore(t);
  assert.equal((await t.request('GET', `/api/v1/admin/tax-rates/${de.id}`, { token: other.admin })).status, 404);
  assert.equal((await t.request('DELETE', `/api/v1/admin/tax-rates/${de.id}`, { token: other.admin })).status, 404);
  assert.equal((await t.request('DELETE', `/api/v1/admin/tax-rates/${de.id}`, { token: s.admin })).status, 200);
  assert.equal((await t.request('GET', `/api/v1/admin/tax-rates/${de.id}`, { token: s.admin })).status, 404);
  assert.equal((await t.request('GET', '/api/v1/admin/tax-rates', { token: s.admin })).json.total, 2);
});

test('shipping options: create with defaults (countries upper case), validation, PATCH, soft DELETE; products take a tax category', async () => {
  const s = await createStore(t);
  const standard = await shippingOption(s, { name: 'Standard', price: 500, countries: ['us', 'CA'] });
  assert.deepEqual(
    { ...standard, id: undefined, createdAt: undefined },
    { id: undefined, name: 'Standard', price: 500, countries: ['US', 'CA'], freeAbove: null, minSubtotal: 0, active: true, createdAt: undefined, updatedAt: null },
  );
  for (const body of [{ name: 'x', price: -1 }, { name: '', price: 1 }, { name: 'x', price: 1, countries: ['USA'] }, { name: 'x', price: 1, freeAbove: 1.5 }, { name: 'x', price: 1, minSubtotal: -1 }, { name: 'x' }]) {
    assertProblem(await t.request('POST', '/api/v1/admin/shipping-options', { token: s.admin, body }), 400, 'VALIDATION_FAILED');
  }
  const patched = await t.request('PATCH', `/api/v1/admin/shipping-options/${standard.id}`, { token: s.admin, body: { freeAbove: 5000, active: false } });
  assert.equal(patched.status, 200, patched.text);
  assert.equal(patched.json.shippingOption.freeAbove, 5000);
  assert.equal(patched.json.shippingOption.active, false);
  assert.equal((await t.request('GET', '/api/v1/admin/shipping-options', { token: s.admin })).json.total, 1);
  assert.equal((await t.request('DELETE', `/api/v1/admin/shipping-options/${standard.id}`, { token: s.admin })).status, 200);
  assert.equal((await t.request('GET', `/api/v1/admin/shipping-options/${standard.id}`, { token: s.admin })).status, 404);
  assert.equal((await t.request('GET', '/api/v1/admin/shipping-options', { token: s.admin })).json.total, 0);

  const p = await product(s, { taxCategory: 'books' });
  assert.equal(p.taxCategory, 'books');
  const cleared = await t.request('PATCH', `/api/v1/admin/products/${p.id}`, { token: s.admin, body: { taxCategory: null } });
  assert.equal(cleared.json.product.taxCategory, null);
  assertProblem(await t.request('PATCH', `/api/v1/admin/products/${p.id}`, { token: s.admin, body: { taxCategory: '' } }), 400, 'VALIDATION_FAILED');
});

test('the worked example of docs/checkout.md: a discount shared over three lines, a region rate over a country rate, a category rate, shipping taxed; the order keeps it', async () => {
  const s = await createStore(t);
  const a = await product(s, { price: 1999, name: 'Mug' });
  const b = await product(s, { price: 3333, name: 'Lamp' });
  const c = await product(s, { price: 1001, name: 'Book', taxCategory: 'books' });
  await taxRate(s, { country: 'US', rate: 500, name: 'Sales tax' });
  const texas = await taxRate(s, { country: 'US', region: 'TX', rate: 825, name: 'Sales tax' });
  await taxRate(s, { country: 'US', region: 'TX', category: 'books', rate: 200, name: 'Reduced tax' });
  const standard = await shippingOption(s, { name: 'Standard', price: 599, freeAbove: 10000 });
  const code = `C${randomUUID().slice(0, 8)}`;
  assert.equal((await t.request('POST', '/api/v1/admin/discounts', { token: s.admin, body: { code, type: 'fixed', value: 1000 } })).status, 201);

  const cart = await createCart(t, s, [{ id: a.id, quantity: 1 }, { id: b.id, quantity: 1 }, { id: c.id, quantity: 1 }]);
  assert.equal((await t.request('POST', `/api/v1/carts/${cart.id}/discount`, { token: s.storefront, body: { code } })).status, 200);
  // No destination yet: no tax, no shipping.
  assert.deepEqual(totalsOf((await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront })).json.cart), {
    price: 6333, discountTotal: 1000, shipping: null, shippingTotal: 0, taxLines: [], taxTotal: 0, total: 5333,
  });
  const options = await t.request('GET', `/api/v1/carts/${cart.id}/shipping-options?country=us`, { token: s.storefront });
  assert.deepEqual(options.json, { shippingOptions: [{ id: standard.id, name: 'Standard', amount: 599 }] });
  const shipped = await setShipping(s, cart.id, { optionId: standard.id, country: 'us', region: 'tx' });
  assert.equal(shipped.status, 200, shipped.text);
  // Shares of 1000 over 1999, 3333, 1001 (of 6333): floors 315, 526, 158 (999), the unit left to the
  // largest remainder (1999: 4105/6333) -> 316, 526, 158. Bases 1683, 2807, 843.
  // Mug 1683 x 8.25 % = 138.8475 -> 139; Lamp 2807 x 8.25 % = 231.5775 -> 232; Book 843 x 2 % = 16.86 -> 17;
  // shipping 599 (5333 < 10000) x 8.25 % = 49.4175 -> 49. Sales tax 139 + 232 + 49 = 420, Reduced 17.
  const expected = {
    price: 6333, discountTotal: 1000,
    shipping: { optionId: standard.id, name: 'Standard', country: 'US', region: 'tx', amount: 599 }, shippingTotal: 599,
    taxLines: [{ name: 'Sales tax', rate: 825, amount: 420 }, { name: 'Reduced tax', rate: 200, amount: 17 }], taxTotal: 437,
    total: 6333 - 1000 + 599 + 437,
  };
  assert.deepEqual(totalsOf(shipped.json.cart), expected);
  assert.equal(expected.total, 6369);
  assert.deepEqual(totalsOf((await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront })).json.cart), expected);

  const { customer, address } = await addressIn(s, { state: 'tx' });
  const placed = await placeOrder(t, s, customer, { id: cart.id, address: address.id, email: 'Ana@Example.com' });
  assert.equal(placed.status, 201, placed.text);
  const order = placed.json.order;
  assert.deepEqual(totalsOf(order), { ...expected, shipping: { ...expected.shipping, region: 'tx' } });
  assert.equal(order.email, 'Ana@Example.com');
  assert.equal(order.address.name, 'Ana Souza');
  assert.equal(order.address.phone, '+1 512 555 0100');
  // Later changes to the rates and options leave the order as it was placed.
  await t.request('PATCH', `/api/v1/admin/tax-rates/${texas.id}`, { token: s.admin, body: { rate: 900 } });
  await t.request('PATCH', `/api/v1/admin/shipping-options/${standard.id}`, { token: s.admin, body: { price: 1 } });
  assert.deepEqual(totalsOf((await t.request('GET', `/api/v1/admin/orders/${order.id}`, { token: s.admin })).json.order), totalsOf(order));
  const event = (await t.request('GET', '/api/v1/admin/events?type=order.created', { token: s.admin })).json.events.at(-1);
  assert.deepEqual(totalsOf(event.data.order), totalsOf(order), 'the event carries the totals');
});

test('prices with tax at 33 %: the tax is taken out of odd amounts and shipping, and not added to the total', async () => {
  const s = await createStore(t);
  await t.request('PATCH', '/api/v1/admin/store', { token: s.admin, body: { pricesIncludeTax: true } });
  const p = await product(s, { price: 999 });
  const q = await product(s, { price: 2501 });
  await taxRate(s, { country: 'FR', rate: 3300, name: 'TVA' });
  const express = await shippingOption(s, { name: 'Express', price: 1000, countries: ['FR'] });
  const { customer, address } = await addressIn(s, { country: 'FR', state: 'IDF' });
  const r = await placeOrder(t, s, customer, { address: address.id, products: [{ id: p.id, quantity: 1 }, { id: q.id, quantity: 1 }], shippingOption: express.id });
  assert.equal(r.status, 201, r.text);
  // 999 - round(9990000 / 13300 = 751.13) = 248; 2501 - round(25010000 / 13300 = 1880.45) = 621;
  // shipping 1000 - round(10000000 / 13300 = 751.88) = 248. Held in the prices: total 3500 + 1000.
  assert.deepEqual(totalsOf(r.json.order), {
    price: 3500, discountTotal: 0, shipping: { optionId: express.id, name: 'Express', country: 'FR', region: 'IDF', amount: 1000 }, shippingTotal: 1000,
    taxLines: [{ name: 'TVA', rate: 3300, amount: 1117 }], taxTotal: 1117, total: 4500,
  });
});

test('prices without tax at 8.25 %: a half rounds up (200 -> 16.5 -> 17); a percentage code shared; no shipping option: no shipping, still taxed for the address', async () => {
  const s = await createStore(t);
  const p = await product(s, { price: 200 });
  const q = await product(s, { price: 1, quantity: 100 });
  await taxRate(s, { country: 'US', rate: 825, name: 'Sales tax' });
  const { customer, address } = await addressIn(s, { state: 'NY' });
  const plain = await placeOrder(t, s, customer, { address: address.id, products: [{ id: p.id, quantity: 1 }] });
  assert.equal(plain.status, 201, plain.text);
  assert.deepEqual(totalsOf(plain.json.order), { price: 200, discountTotal: 0, shipping: null, shippingTotal: 0, taxLines: [{ name: 'Sales tax', rate: 825, amount: 17 }], taxTotal: 17, total: 217 });
  const code = `P${randomUUID().slice(0, 8)}`;
  await t.request('POST', '/api/v1/admin/discounts', { token: s.admin, body: { code, type: 'percentage', value: 33 } });
  // 33 % of 200 + 3 x 1 = 203 -> floor(66.99) = 66, shared: 200 x 66 / 203 = 65.02, 3 x 66 / 203 = 0.975 -> 65 and 0, the unit left
  // to the larger remainder (the 3-unit line: 198/203) -> 65 and 1. Bases 135 and 2: 11.1375 -> 11, 0.165 -> 0.
  const discounted = await placeOrder(t, s, customer, { address: address.id, products: [{ id: p.id, quantity: 1 }, { id: q.id, quantity: 3 }], discountCode: code });
  assert.equal(discounted.status, 201, discounted.text);
  assert.deepEqual(totalsOf(discounted.json.order), { price: 203, discountTotal: 66, shipping: null, shippingTotal: 0, taxLines: [{ name: 'Sales tax', rate: 825, amount: 11 }], taxTotal: 11, total: 148 });
  // An address whose country is no ISO code matches no rate.
  const nowhere = await addressIn(s, { country: 'United States' }, customer);
  const untaxed = await placeOrder(t, s, customer, { address: nowhere.address.id, products: [{ id: p.id, quantity: 1 }] });
  assert.equal(untaxed.json.order.taxTotal, 0);
  assert.deepEqual(untaxed.json.order.taxLines, []);
});

test('cart shipping options: active, for the country, from the minimum subtotal, free at exactly the threshold, cheapest first; PUT refuses one that does not apply; DELETE removes it and its taxes; a hold is kept', async () => {
  const s = await createStore(t);
  const p = await product(s, { price: 2500 });
  const standard = await shippingOption(s, { name: 'Standard', price: 500, freeAbove: 5000 });
  const express = await shippingOption(s, { name: 'Express', price: 1500, countries: ['US'] });
  const bulky = await shippingOption(s, { name: 'Freight', price: 300, minSubtotal: 7500 });
  await shippingOption(s, { name: 'Closed', price: 100, active: false });
  await taxRate(s, { country: 'US', rate: 1000, name: 'Tax' });
  const cart = await createCart(t, s, [{ id: p.id, quantity: 2 }]);
  const list = async (country: string) => (await t.request('GET', `/api/v1/carts/${cart.id}/shipping-options?country=${country}`, { token: s.storefront })).json.shippingOptions;
  // Subtotal 5000 = freeAbove: Standard is free.
  assert.deepEqual(await list('US'), [{ id: standard.id, name: 'Standard', amount: 0 }, { id: express.id, name: 'Express', amount: 1500 }]);
  assert.deepEqual(await list('DE'), [{ id: standard.id, name: 'Standard', amount: 0 }]);
  assertProblem(await setShipping(s, cart.id, { optionId: express.id, country: 'DE' }), 422, 'SHIPPING_NOT_AVAILABLE');
  assertProblem(await setShipping(s, cart.id, { optionId: bulky.id, country: 'US' }), 422, 'SHIPPING_NOT_AVAILABLE');
  assertProblem(await setShipping(s, cart.id, { optionId: randomUUID(), country: 'US' }), 422, 'SHIPPING_NOT_AVAILABLE');
  assertProblem(await setShipping(s, cart.id, { optionId: standard.id, country: 'USA' }), 400, 'VALIDATION_FAILED');
  assert.equal((await t.request('POST', `/api/v1/carts/${cart.id}/hold`, { token: s.storefront })).status, 200);
  const set = await setShipping(s, cart.id, { optionId: standard.id, country: 'US' });
  assert.equal(set.status, 200, set.text);
  assert.ok(set.json.cart.heldUntil, 'changing shipping keeps the hold');
  // Free at exactly 5000; 10 % of 5000 = 500.
  assert.deepEqual(totalsOf(set.json.cart), { price: 5000, discountTotal: 0, shipping: { optionId: standard.id, name: 'Standard', country: 'US', region: null, amount: 0 }, shippingTotal: 0, taxLines: [{ name: 'Tax', rate: 1000, amount: 500 }], taxTotal: 500, total: 5500 });
  // One unit less: 2500 < 5000, Standard costs 500 (and a change of lines ends the hold, as before).
  const fewer = await t.request('PATCH', `/api/v1/carts/${cart.id}/products/${p.id}`, { token: s.storefront, body: { quantity: 1 } });
  assert.deepEqual(totalsOf(fewer.json.cart), { price: 2500, discountTotal: 0, shipping: { optionId: standard.id, name: 'Standard', country: 'US', region: null, amount: 500 }, shippingTotal: 500, taxLines: [{ name: 'Tax', rate: 1000, amount: 300 }], taxTotal: 300, total: 3300 });
  const removed = await t.request('DELETE', `/api/v1/carts/${cart.id}/shipping`, { token: s.storefront });
  assert.equal(removed.status, 200, removed.text);
  assert.deepEqual(totalsOf(removed.json.cart), { price: 2500, discountTotal: 0, shipping: null, shippingTotal: 0, taxLines: [], taxTotal: 0, total: 2500 });
  assert.equal((await t.request('GET', `/api/v1/carts/${randomUUID()}/shipping-options?country=US`, { token: s.storefront })).status, 404);
});

test('carts of several stores at once: a cart with a shipping option keeps its shipping and taxes; new carts, in a store with options and rates or not, have none', async () => {
  const [a, b] = [await createStore(t), await createStore(t)];
  const pa = await product(a, { price: 2000 });
  const pb = await product(b, { price: 3000 });
  const option = await shippingOption(a, { name: 'Standard', price: 700 });
  await taxRate(a, { country: 'US', rate: 1000, name: 'Tax' });
  const chosen = await createCart(t, a, [{ id: pa.id, quantity: 1 }]);
  assert.equal((await setShipping(a, chosen.id, { optionId: option.id, country: 'US' })).status, 200);
  const plain = await createCart(t, b, [{ id: pb.id, quantity: 1 }]);
  // Sent together, so rounds combine the stores' carts (a round reads a store's options only for a
  // cart that chose one); each answer must be what its cart alone would give.
  for (let i = 0; i < 3; i++) {
    const [added, otherAdded, ...created] = await Promise.all([
      t.request('POST', `/api/v1/carts/${chosen.id}/products`, { token: a.storefront, body: { id: pa.id, quantity: 1 } }),
      t.request('POST', `/api/v1/carts/${plain.id}/products`, { token: b.storefront, body: { id: pb.id, quantity: 1 } }),
      ...[a, b, a, b].map((s, k) => t.request('POST', '/api/v1/carts', { token: s.storefront, body: { products: [{ id: (k % 2 ? pb : pa).id, quantity: 1 }] } })),
    ]);
    const price = 2000 * (i + 2);
    const tax = (price + 700) / 10;
    assert.equal(added.status, 200, added.text);
    // 10 % of (price + 700 shipping), shipping taxed.
    assert.deepEqual(totalsOf(added.json.cart), {
      price, discountTotal: 0, shipping: { optionId: option.id, name: 'Standard', country: 'US', region: null, amount: 700 }, shippingTotal: 700,
      taxLines: [{ name: 'Tax', rate: 1000, amount: tax }], taxTotal: tax, total: price + 700 + tax,
    });
    assert.equal(otherAdded.status, 200, otherAdded.text);
    assert.deepEqual(totalsOf(otherAdded.json.cart), { price: 3000 * (i + 2), discountTotal: 0, shipping: null, shippingTotal: 0, taxLines: [], taxTotal: 0, total: 3000 * (i + 2) });
    created.forEach((r, k) => {
      assert.equal(r.status, 201, r.text);
      const unit = k % 2 ? 3000 : 2000;
      assert.deepEqual(totalsOf(r.json.cart), { price: unit, discountTotal: 0, shipping: null, shippingTotal: 0, taxLines: [], taxTotal: 0, total: unit });
    });
  }
});

test('orders: SHIPPING_REQUIRED once the store has an active option, SHIPPING_NOT_AVAILABLE for the address, shippingOption beside id is 400; refused orders take nothing', async () => {
  const s = await createStore(t);
  const p = await product(s, { price: 1000, quantity: 5 });
  const { customer, address } = await addressIn(s, {});
  // No option yet: as before.
  const before = await placeOrder(t, s, customer, { address: address.id, products: [{ id: p.id, quantity: 1 }] });
  assert.equal(before.status, 201, before.text);
  assert.deepEqual(totalsOf(before.json.order), { price: 1000, discountTotal: 0, shipping: null, shippingTotal: 0, taxLines: [], taxTotal: 0, total: 1000 });
  const canada = await shippingOption(s, { name: 'Canada', price: 700, countries: ['CA'] });
  assertProblem(await placeOrder(t, s, customer, { address: address.id, products: [{ id: p.id, quantity: 1 }] }), 422, 'SHIPPING_REQUIRED');
  assertProblem(await placeOrder(t, s, customer, { address: address.id, products: [{ id: p.id, quantity: 1 }], shippingOption: canada.id }), 422, 'SHIPPING_NOT_AVAILABLE');
  const cart = await createCart(t, s, [{ id: p.id, quantity: 1 }]);
  assertProblem(await placeOrder(t, s, customer, { id: cart.id, address: address.id }), 422, 'SHIPPING_REQUIRED');
  assertProblem(await placeOrder(t, s, customer, { id: cart.id, address: address.id, shippingOption: canada.id }), 400, 'VALIDATION_FAILED');
  // The cart's option ships to Canada, the address is in the US.
  assert.equal((await setShipping(s, cart.id, { optionId: canada.id, country: 'CA' })).status, 200);
  assertProblem(await placeOrder(t, s, customer, { id: cart.id, address: address.id }), 422, 'SHIPPING_NOT_AVAILABLE');
  assert.equal(await stockOf(t, s, p.id), 4, 'refused orders took nothing');
  assertProblem(await placeOrder(t, s, customer, { address: address.id, products: [{ id: p.id, quantity: 1 }], email: 'not-an-email' }), 400, 'VALIDATION_FAILED');
  assertProblem(await placeOrder(t, s, customer, { address: address.id, products: [{ id: p.id, quantity: 1 }], email: `${'a'.repeat(250)}@b.co` }), 400, 'VALIDATION_FAILED');
  const ca = await addressIn(s, { country: 'CA', state: 'ON' }, customer);
  const shipped = await placeOrder(t, s, customer, { id: cart.id, address: ca.address.id });
  assert.equal(shipped.status, 201, shipped.text);
  assert.deepEqual(shipped.json.order.shipping, { optionId: canada.id, name: 'Canada', country: 'CA', region: 'ON', amount: 700 });
  assert.equal(shipped.json.order.total, 1700);
  // An inactive option is not needed and not available.
  await t.request('PATCH', `/api/v1/admin/shipping-options/${canada.id}`, { token: s.admin, body: { active: false } });
  assertProblem(await placeOrder(t, s, customer, { address: ca.address.id, products: [{ id: p.id, quantity: 1 }], shippingOption: canada.id }), 422, 'SHIPPING_NOT_AVAILABLE');
  assert.equal((await placeOrder(t, s, customer, { address: address.id, products: [{ id: p.id, quantity: 1 }] })).status, 201);
});

test('order numbers from 1001 per store, email, and the admin search: number, email ignoring case, customerId, created range, q over number, email and name', async () => {
  const s = await createStore(t);
  const other = await createStore(t);
  const p = await product(s, { quantity: 100 });
  const op = await product(other, {});
  const ana = await addressIn(s, { name: 'Ana Souza' });
  const bo = await addressIn(s, { name: 'Bo Li' });
  const first = (await placeOrder(t, s, ana.customer, { address: ana.address.id, products: [{ id: p.id, quantity: 1 }], email: 'ana@example.com' })).json.order;
  const second = (await placeOrder(t, s, bo.customer, { address: bo.address.id, products: [{ id: p.id, quantity: 1 }] })).json.order;
  const third = (await placeOrder(t, s, ana.customer, { address: ana.address.id, products: [{ id: p.id, quantity: 1 }], email: 'ANA@example.com' })).json.order;
  assert.deepEqual([first.number, second.number, third.number], [1001, 1002, 1003]);
  assert.equal(second.email, null);
  const theirs = await addressIn(other, {});
  assert.equal((await placeOrder(t, other, theirs.customer, { address: theirs.address.id, products: [{ id: op.id, quantity: 1 }] })).json.order.number, 1001, 'each store counts its own');

  const search = async (query: string) => {
    const r = await t.request('GET', `/api/v1/admin/orders?${query}`, { token: s.admin });
    assert.equal(r.status, 200, r.text);
    return r.json.orders.map((o: { number: number }) => o.number);
  };
  assert.deepEqual(await search('number=1002'), [1002]);
  assert.deepEqual(await search('email=Ana@Example.COM'), [1003, 1001]);
  assert.deepEqual(await search(`customerId=${bo.customer}`), [1002]);
  assert.deepEqual(await search(`createdFrom=${encodeURIComponent(second.createdAt)}`), [1003, 1002]);
  assert.deepEqual(await search(`createdTo=${encodeURIComponent(second.createdAt)}`), [1001]);
  assert.deepEqual(await search('q=1001'), [1001]);
  assert.deepEqual(await search('q=%231003'), [1003]);
  assert.deepEqual(await search('q=souza'), [1003, 1001]);
  assert.deepEqual(await search('q=example'), [1003, 1001]);
  assert.deepEqual(await search('q=100%25'), []);
  assert.deepEqual(await search(`email=ana@example.com&customerId=${bo.customer}`), []);
  assert.equal((await t.request('GET', '/api/v1/admin/orders?number=abc', { token: s.admin })).status, 400);
  assert.equal((await t.request('GET', '/api/v1/admin/orders?createdFrom=yesterday', { token: s.admin })).status, 400);
  const one = await t.request('GET', `/api/v1/admin/orders/${second.id}`, { token: s.admin });
  assert.equal(one.json.order.number, 1002);
  assert.equal((await t.request('GET', `/api/v1/admin/orders/${second.id}`, { token: other.admin })).status, 404);
});
