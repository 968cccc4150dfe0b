/**
 * Orders in rounds that mix stores (orders/checkout.ts `placeStoresOrders`: one statement per step
 * over every store of the round): each store's orders are still decided against its own rows only,
 * so its numbers, stock, codes, shipping, events and refusals stay its own, and a refusal in one
 * store never changes an answer of another store in the same round.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { startTestApp, uniqueSlug, type Reply } from './support/app.js';
import { TEST_DATABASE_URL } from './support/database.js';
import { orderRequestOf, placeStoresOrders } from '../src/modules/orders/checkout.js';
import { createProduct, createStore, storesOfOneShard, type TestStore } from './support/factories.js';
import { createAddress, createCart, placeOrder, stockOf } from './support/shop.js';

const t = await startTestApp();

async function admin(store: TestStore, url: string, body: Record<string, unknown>) {
  const r = await t.request('POST', `/api/v1/admin/${url}`, { token: store.admin, body });
  assert.equal(r.status, 201, r.text);
  return r.json;
}

async function eventsOf(store: TestStore) {
  const r = await t.request('GET', '/api/v1/admin/events?limit=100', { token: store.admin });
  assert.equal(r.status, 200, r.text);
  return r.json.events as Array<{ type: string; data: { order?: { id: string }; product?: { id: string } } }>;
}

const codesOf = (answers: Reply[]) => answers.map((r) => (r.status === 201 ? 201 : `${r.status} ${r.json.code}`)).sort();

test("a round mixing stores decides each store's orders on its own: numbers, stock, carts, codes, shipping, events and refusals apart", async () => {
  const [scarce, carts, shipping] = await storesOfOneShard(t, 3);
  // scarce: 2 units for 4 orders, and an order to another customer's address.
  const scarceProduct = await createProduct(t, scarce!, { quantity: 2 });
  const scarceShop = await createAddress(t, scarce!);
  const stranger = await createAddress(t, scarce!);
  // carts: orders from carts (one cart twice) and a code that may be used once.
  const cartProduct = await createProduct(t, carts!, { quantity: 100 });
  const cartShop = await createAddress(t, carts!);
  const cartIds = await Promise.all([0, 1, 2].map(async () => (await createCart(t, carts!, [{ id: cartProduct.id, quantity: 2 }])).id as string));
  const code = `ONCE${randomUUID().slice(0, 6)}`;
  const discount = (await admin(carts!, 'discounts', { code, type: 'percentage', value: 10, usageLimit: 1 })).discount;
  // shipping: every order must ship (an active option) and is taxed.
  const shippedProduct = await createProduct(t, shipping!, { quantity: 5 });
  const shippedShop = await createAddress(t, shipping!);
  const option = (await admin(shipping!, 'shipping-options', { name: 'Courier', price: 1500, countries: ['BR'] })).shippingOption;
  await admin(shipping!, 'tax-rates', { country: 'BR', rate: 1000, name: 'VAT' });

  const lines = (id: string) => [{ id, quantity: 1 }];
  const sent: Array<{ store: TestStore; customer: string; body: Record<string, unknown> }> = [
    ...[0, 1, 2, 3].map(() => ({ store: scarce!, customer: scarceShop.customer, body: { address: scarceShop.address.id, products: lines(scarceProduct.id) } })),
    { store: scarce!, customer: scarceShop.customer, body: { address: stranger.address.id, products: lines(scarceProduct.id) } },
    ...[...cartIds, cartIds[0]!].map((id) => ({ store: carts!, customer: cartShop.customer, body: { address: cartShop.address.id, id } })),
    ...[0, 1].map(() => ({ store: carts!, customer: cartShop.customer, body: { address: cartShop.address.id, products: lines(cartProduct.id), discountCode: code } })),
    ...[0, 1].map(() => ({ store: shipping!, customer: shippedShop.customer, body: { address: shippedShop.address.id, products: lines(shippedProduct.id), shippingOption: option.id } })),
    { store: shipping!, customer: shippedShop.customer, body: { address: shippedShop.address.id, products: lines(shippedProduct.id) } },
  ];
  // Interleaved, so that the stores' requests arrive together and share rounds.
  const order = sent.map((_, i) => i).sort((a, b) => (a % 3) - (b % 3) || a - b);
  const replies: Reply[] = [];
  await Promise.all(order.map(async (i) => (replies[i] = await placeOrder(t, sent[i]!.store, sent[i]!.customer, sent[i]!.body))));
  const of = (store: TestStore) => replies.filter((_, i) => sent[i]!.store === store);

  assert.deepEqual(codesOf(of(scarce!)), [201, 201, '422 ADDRESS_NOT_FOUND', '422 INSUFFICIENT_STOCK', '422 INSUFFICIENT_STOCK']);
  assert.deepEqual(codesOf(of(carts!)), [201, 201, 201, 201, '409 CART_NOT_PENDING', '422 DISCOUNT_NOT_APPLICABLE']);
  assert.deepEqual(codesOf(of(shipping!)), [201, 201, '422 SHIPPING_REQUIRED']);

  assert.equal(await stockOf(t, scarce!, scarceProduct.id), 0);
  assert.equal(await stockOf(t, carts!, cartProduct.id), 100 - 3 * 2 - 1);
  assert.equal(await stockOf(t, shipping!, shippedProduct.id), 3);

  for (const store of [scarce!, carts!, shipping!]) {
    const placed = of(store).filter((r) => r.status === 201).map((r) => r.json.order);
    // Each store numbers its own orders, from its own sequence, whatever the other stores of the round took.
    assert.deepEqual(placed.map((o) => o.number as number).sort((a, b) => a - b), placed.map((_, i) => 1001 + i));
    const created = (await eventsOf(store)).filter((e) => e.type === 'order.created');
    assert.deepEqual(new Set(created.map((e) => e.data.order!.id)), new Set(placed.map((o) => o.id)));
    const [rows] = await queryRows<{ n: number; foreign: number }>(
      t.database.db,
      sql`select count(*)::int as n, count(*) filter (where not exists (select 1 from products p where p.store = o.store and p.id = l.product_id))::int as foreign
          from orders o join order_lines l on l.store = o.store and l.order_id = o.id where o.store = ${store.slug}`,
    );
    assert.deepEqual(rows, { n: placed.length, foreign: 0 });
  }
  // The last unit of the scarce store's product: its event there only.
  const outOfStock = (await eventsOf(scarce!)).filter((e) => e.type === 'product.out_of_stock');
  assert.deepEqual(outOfStock.map((e) => e.data.product!.id), [scarceProduct.id]);
  for (const store of [carts!, shipping!]) assert.equal((await eventsOf(store)).filter((e) => e.type === 'product.out_of_stock').length, 0);

  // The code was used once, by one order of its store; the carts' orders carry no code.
  const coded = of(carts!).filter((r) => r.status === 201 && r.json.order.discountTotal > 0);
  assert.equal(coded.length, 1);
  const used = await t.request('GET', `/api/v1/admin/discounts/${discount.id}`, { token: carts!.admin });
  assert.equal(used.json.discount.usageCount, 1);
  // Only the shipping store's orders ship and are taxed: its option and rates are not another store's.
  for (const r of of(shipping!).filter((x) => x.status === 201)) {
    assert.equal(r.json.order.shippingTotal, 1500);
    assert.ok(r.json.order.taxTotal > 0, r.text);
  }
  for (const r of [...of(scarce!), ...of(carts!)].filter((x) => x.status === 201)) {
    assert.equal(r.json.order.shippingTotal, 0);
    assert.equal(r.json.order.taxTotal, 0);
  }
  // The carts ordered are COMPLETED in their store.
  const [completed] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from carts where store = ${carts!.slug} and status = 'COMPLETED'`);
  assert.equal(completed!.n, 3);
});

// PGlite is one connection: a request's steps before its round wait for the running round, so rounds never combine there.
test('orders of many stores share rounds: one transaction writes orders of several stores, each with its own stock', { skip: !TEST_DATABASE_URL && 'needs TEST_DATABASE_URL (PostgreSQL): on PGlite rounds do not combine' }, async () => {
  const stores = await storesOfOneShard(t, 6);
  const shops = await Promise.all(stores.map(async (store) => ({ store, product: await createProduct(t, store, { quantity: 3 }), ...(await createAddress(t, store)) })));
  // Each store's credential once first (it is cached), so the burst below reaches the rounds at once.
  for (const shop of shops) assert.equal((await t.request('GET', `/api/v1/${shop.customer}/orders`, { token: shop.store.server })).status, 200);
  const sent = Array.from({ length: 30 }, (_, i) => shops[i % shops.length]!);
  const replies = await Promise.all(sent.map((shop) => placeOrder(t, shop.store, shop.customer, { address: shop.address.id, products: [{ id: shop.product.id, quantity: 1 }] })));
  for (const shop of shops) {
    const mine = replies.filter((_, i) => sent[i] === shop);
    assert.deepEqual(codesOf(mine), [201, 201, 201, '422 INSUFFICIENT_STOCK', '422 INSUFFICIENT_STOCK']);
    assert.equal(await stockOf(t, shop.store, shop.product.id), 0);
  }
  // Rows written by one transaction share its xmin: some round placed orders of several stores at once.
  const [mixed] = await queryRows<{ stores: number }>(
    t.database.db,
    sql`select coalesce(max(n), 0)::int as stores from (select count(distinct store) as n from orders
        where store in (${sql.join(stores.map((s) => sql`${s.slug}`), sql`, `)}) group by xmin::text) x`,
  );
  assert.ok(mixed!.stores > 1, `no round mixed stores (${mixed!.stores})`);
});

test('two rounds of orders at once in one process (never of one store): each store sells exactly its stock, its numbers from 1001 without a gap, one event per order', async () => {
  const stores = await Promise.all(Array.from({ length: 8 }, () => createStore(t, uniqueSlug('two'))));
  const shops = await Promise.all(stores.map(async (store) => ({ store, product: await createProduct(t, store, { quantity: 4 }), ...(await createAddress(t, store)) })));
  for (const shop of shops) assert.equal((await t.request('GET', `/api/v1/${shop.customer}/orders`, { token: shop.store.server })).status, 200);
  // Three waves a few milliseconds apart, so that rounds start while others run.
  const sent = Array.from({ length: 48 }, (_, i) => shops[(i * 5) % shops.length]!);
  const replies = await Promise.all(sent.map(async (shop, i) => {
    await new Promise((resolve) => setTimeout(resolve, Math.floor(i / 16) * 3));
    return placeOrder(t, shop.store, shop.customer, { address: shop.address.id, products: [{ id: shop.product.id, quantity: 1 }] });
  }));
  for (const shop of shops) {
    const mine = replies.filter((_, i) => sent[i] === shop);
    assert.deepEqual(codesOf(mine), [201, 201, 201, 201, '422 INSUFFICIENT_STOCK', '422 INSUFFICIENT_STOCK']);
    assert.deepEqual(mine.filter((r) => r.status === 201).map((r) => r.json.order.number).sort(), [1001, 1002, 1003, 1004]);
    assert.equal(await stockOf(t, shop.store, shop.product.id), 0);
    const events = await eventsOf(shop.store);
    assert.deepEqual(events.filter((e) => e.type === 'order.created').map((e) => e.data.order!.id).sort(), mine.filter((r) => r.status === 201).map((r) => r.json.order.id).sort());
    assert.equal(events.filter((e) => e.type === 'product.out_of_stock').length, 1);
  }
});

test('one round of several stores, on either database: each store decided against its own rows, a refusal in one never touching another', async () => {
  const stores = (await Promise.all([0, 1, 2].map(() => createStore(t, uniqueSlug('many'))))).sort((a, b) => (a.slug < b.slug ? -1 : 1));
  const shops = await Promise.all(stores.map(async (store, n) => ({ store, product: await createProduct(t, store, { quantity: [1, 10, 10][n]! }), ...(await createAddress(t, store)) })));
  const cart = await createCart(t, stores[2]!, [{ id: shops[2]!.product.id, quantity: 3 }]);
  const events: Array<{ store: string; job: number; type: string; data: unknown }> = [];
  const job = (n: number, k: number, body: Record<string, unknown>, client: string | null = null) => ({
    job: orderRequestOf(shops[n]!.customer, body as Parameters<typeof orderRequestOf>[1], { guest: false, client }),
    record: (type: string, data: unknown) => void events.push({ store: stores[n]!.slug, job: k, type, data }),
  });
  const list = (n: number, quantity = 1) => ({ address: shops[n]!.address.id, products: [{ id: shops[n]!.product.id, quantity }] });
  const round = [
    // 1 unit for 2 orders; a client at its one unpaid order.
    { store: stores[0]!.slug, jobs: [job(0, 0, list(0)), job(0, 1, list(0)), job(0, 2, list(0), '10.0.0.9')] },
    // The same client address in another store: its count there is its own.
    { store: stores[1]!.slug, jobs: [job(1, 0, list(1, 4), '10.0.0.9'), job(1, 1, list(1, 4), '10.0.0.9'), job(1, 2, list(1, 4))] },
    // A cart ordered twice in the round, and an address of another store.
    { store: stores[2]!.slug, jobs: [job(2, 0, { address: shops[2]!.address.id, id: cart.id }), job(2, 1, { address: shops[2]!.address.id, id: cart.id }), job(2, 2, { address: shops[0]!.address.id, products: [{ id: shops[2]!.product.id, quantity: 1 }] })] },
  ];
  const outcomes = await t.database.db.transaction((tx) => placeStoresOrders(tx, round as Parameters<typeof placeStoresOrders>[1], { unpaidPerClient: 1 }));
  const codes = outcomes.map((mine) => mine.map((o) => (o.ok ? o.value.order.number : (o.error as { code: string }).code)));
  assert.deepEqual(codes, [
    [1001, 'INSUFFICIENT_STOCK', 'INSUFFICIENT_STOCK'],
    [1001, 'RATE_LIMITED', 1002],
    [1001, 'CART_NOT_PENDING', 'ADDRESS_NOT_FOUND'],
  ]);
  assert.deepEqual(await Promise.all(shops.map((s) => stockOf(t, s.store, s.product.id))), [0, 2, 7]);
  // Each accepted order's events went to its own request, with its own store's order.
  const created = events.filter((e) => e.type === 'order.created').map((e) => `${e.store}:${e.job}:${(e.data as { order: { number: number; products: Array<{ id: string }> } }).order.products[0]!.id}`);
  assert.deepEqual(created, [`${stores[0]!.slug}:0:${shops[0]!.product.id}`, `${stores[1]!.slug}:0:${shops[1]!.product.id}`, `${stores[1]!.slug}:2:${shops[1]!.product.id}`, `${stores[2]!.slug}:0:${shops[2]!.product.id}`]);
  assert.deepEqual(events.filter((e) => e.type === 'product.out_of_stock').map((e) => e.store), [stores[0]!.slug]);
  const rows = await queryRows<{ store: string; n: number; lines: number }>(
    t.database.db,
    sql`select o.store, count(distinct o.id)::int as n, count(l.*)::int as lines from orders o join order_lines l on l.store = o.store and l.order_id = o.id
        join products p on p.store = o.store and p.id = l.product_id
        where o.store in (${sql.join(stores.map((s) => sql`${s.slug}`), sql`, `)}) group by o.store order by o.store`,
  );
  assert.deepEqual(rows, stores.map((s, n) => ({ store: s.slug, n: [1, 2, 1][n]!, lines: [1, 2, 1][n]! })));
  const [status] = await queryRows<{ status: string }>(t.database.db, sql`select status from carts where store = ${stores[2]!.slug} and id = ${cart.id}`);
  assert.equal(status!.status, 'COMPLETED');
});

test('codes of several stores in one round: the same code text is each store its own, its limits counted per store', async () => {
  const stores = (await Promise.all([0, 1].map(() => createStore(t, uniqueSlug('codes'))))).sort((a, b) => (a.slug < b.slug ? -1 : 1));
  const code = `SAME${randomUUID().slice(0, 6)}`;
  const shops = await Promise.all(stores.map(async (store) => ({ store, product: await createProduct(t, store, { quantity: 10 }), one: await createAddress(t, store), two: await createAddress(t, store) })));
  const limited = (await admin(stores[0]!, 'discounts', { code, type: 'percentage', value: 10, usageLimit: 1 })).discount;
  const once = (await admin(stores[1]!, 'discounts', { code, type: 'percentage', value: 20, oncePerCustomer: true })).discount;
  const job = (n: number, who: 'one' | 'two') => ({
    job: orderRequestOf(shops[n]![who].customer, { address: shops[n]![who].address.id, products: [{ id: shops[n]!.product.id, quantity: 1 }], discountCode: code } as Parameters<typeof orderRequestOf>[1], { guest: false, client: null }),
    record: () => {},
  });
  const place = (round: Array<{ store: string; jobs: Array<ReturnType<typeof job>> }>) =>
    t.database.db.transaction((tx) => placeStoresOrders(tx, round as Parameters<typeof placeStoresOrders>[1], { unpaidPerClient: 0 }));
  const answer = (o: Awaited<ReturnType<typeof place>>[number][number]) => (o.ok ? o.value.order.discountTotal > 0 : (o.error as { code: string }).code);
  const first = await place([
    { store: stores[0]!.slug, jobs: [job(0, 'one'), job(0, 'two')] },
    { store: stores[1]!.slug, jobs: [job(1, 'one'), job(1, 'one'), job(1, 'two')] },
  ]);
  assert.deepEqual(first.map((mine) => mine.map(answer)), [[true, 'DISCOUNT_NOT_APPLICABLE'], [true, 'DISCOUNT_NOT_APPLICABLE', true]]);
  const count = async (n: number, id: string) => (await t.request('GET', `/api/v1/admin/discounts/${id}`, { token: stores[n]!.admin })).json.discount.usageCount;
  assert.deepEqual([await count(0, limited.id), await count(1, once.id)], [1, 2]);
  // A later round reads what the stores' orders used: the limit reached in one, the customer's use in the other.
  const second = await place([
    { store: stores[0]!.slug, jobs: [job(0, 'two')] },
    { store: stores[1]!.slug, jobs: [job(1, 'one')] },
  ]);
  assert.deepEqual(second.map((mine) => mine.map(answer)), [['DISCOUNT_NOT_APPLICABLE'], ['DISCOUNT_NOT_APPLICABLE']]);
  assert.deepEqual(await Promise.all(shops.map((s) => stockOf(t, s.store, s.product.id))), [9, 8]);
});
