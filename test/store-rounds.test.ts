/**
 * Rounds that mix stores (plugins/commands.ts combines round requests per shard of stores, not per
 * store): each store's answers, events, idempotency keys and stock stay its own, and a request of
 * one store that fails never changes the answer of another store's request in the same round.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { startTestApp } from './support/app.js';
import { createProduct, storesOfOneShard, type TestStore } from './support/factories.js';
import { createAddress, placeOrder, stockOf } from './support/shop.js';

const t = await startTestApp();

async function eventsOf(store: TestStore) {
  const r = await t.request('GET', '/api/v1/admin/events?limit=100', { token: store.admin });
  assert.equal(r.status, 200, r.text);
  return r.json.events as Array<{ type: string; store: string; data: { order?: { id: string } } }>;
}

test('a round mixing stores keeps each store its answers, events, idempotency keys and stock', async () => {
  const [scarce, plenty, third] = await storesOfOneShard(t, 3);
  const shops = await Promise.all(
    [
      { store: scarce!, stock: 3 },
      { store: plenty!, stock: 100 },
      { store: third!, stock: 5 },
    ].map(async ({ store, stock }) => ({ store, product: await createProduct(t, store, { quantity: stock }), ...(await createAddress(t, store)) })),
  );
  // The same keys in every store: a key belongs to its store, so none replays another store's answer.
  const sent = shops.flatMap((shop) =>
    Array.from({ length: 8 }, (_, i) => ({ shop, key: `key-${i}`, body: { address: shop.address.id, products: [{ id: shop.product.id, quantity: 1 }] } })),
  );
  const answers = await Promise.all(sent.map(({ shop, key, body }) => placeOrder(t, shop.store, shop.customer, body, { 'idempotency-key': key })));
  const byStore = (shop: (typeof shops)[number]) => answers.filter((_, i) => sent[i]!.shop === shop);
  const counts = shops.map((shop) => byStore(shop).filter((r) => r.status === 201).length);
  assert.deepEqual(counts, [3, 8, 5]);
  for (const [n, shop] of shops.entries()) {
    for (const r of byStore(shop)) {
      assert.ok(r.status === 201 || (r.status === 422 && r.json.code === 'INSUFFICIENT_STOCK'), `${r.status} ${r.text.slice(0, 200)}`);
      if (r.status === 201) assert.equal(r.json.order.products[0].id, shop.product.id);
    }
    assert.equal(await stockOf(t, shop.store, shop.product.id), [0, 92, 0][n]);
    const orders = (await eventsOf(shop.store)).filter((e) => e.type === 'order.created');
    assert.equal(orders.length, counts[n]);
    const placed = new Set(byStore(shop).filter((r) => r.status === 201).map((r) => r.json.order.id as string));
    assert.deepEqual(new Set(orders.map((e) => e.data.order!.id)), placed);
  }
  // Every key replays its own store's answer.
  for (const [i, { shop, key, body }] of sent.entries()) {
    const again = await placeOrder(t, shop.store, shop.customer, body, { 'idempotency-key': key });
    assert.equal(again.status, answers[i]!.status);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.text, answers[i]!.text);
  }
  const [stored] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from idempotency_keys where store in (${scarce!.slug}, ${plenty!.slug}, ${third!.slug})`);
  assert.equal(stored!.n, 24);
});

test("a request of one store that fails never fails another store's request in the same round", async () => {
  const [broken, healthy] = await storesOfOneShard(t, 2);
  const shops = await Promise.all([broken!, healthy!].map(async (store) => ({ store, product: await createProduct(t, store, { quantity: 50 }), ...(await createAddress(t, store)) })));
  // The broken store cannot number its orders (its counter may not move): its round work fails
  // with a 5xx, inside the round's transaction.
  const constraint = `numbers_not_${broken!.slug.replaceAll('-', '_')}`;
  await t.database.db.execute(sql.raw(`alter table store_versions add constraint "${constraint}" check (store <> '${broken!.slug}' or last_order_number = 1000) not valid`));
  try {
    const sent = Array.from({ length: 12 }, (_, i) => shops[i % 2]!);
    const answers = await Promise.all(sent.map((shop) => placeOrder(t, shop.store, shop.customer, { address: shop.address.id, products: [{ id: shop.product.id, quantity: 1 }] })));
    answers.forEach((r, i) => {
      if (sent[i] === shops[0]) assert.equal(r.status, 500, r.text);
      else assert.equal(r.status, 201, r.text);
    });
  } finally {
    await t.database.db.execute(sql.raw(`alter table store_versions drop constraint "${constraint}"`));
  }
  assert.equal(await stockOf(t, shops[0]!.store, shops[0]!.product.id), 50);
  assert.equal(await stockOf(t, shops[1]!.store, shops[1]!.product.id), 44);
  assert.equal((await eventsOf(shops[0]!.store)).filter((e) => e.type === 'order.created').length, 0);
  assert.equal((await eventsOf(shops[1]!.store)).filter((e) => e.type === 'order.created').length, 6);
});

test('a store without its versions row (so no order number counter) gets no order and keeps its stock; a store beside it in the round is served', async () => {
  const [broken, healthy] = await storesOfOneShard(t, 2);
  const shops = await Promise.all([broken!, healthy!].map(async (store) => ({ store, product: await createProduct(t, store, { quantity: 50 }), ...(await createAddress(t, store)) })));
  // Every store is made with its row. Without it, the broken store's orders would get no number
  // while the round's stock was taken in the same statement, and the healthy store's orders would
  // still be written: the round is refused whole, and each store then runs on its own.
  await t.database.db.execute(sql`delete from store_versions where store = ${broken!.slug}`);
  const sent = Array.from({ length: 12 }, (_, i) => shops[i % 2]!);
  const answers = await Promise.all(sent.map((shop) => placeOrder(t, shop.store, shop.customer, { address: shop.address.id, products: [{ id: shop.product.id, quantity: 1 }] })));
  answers.forEach((r, i) => assert.equal(r.status, sent[i] === shops[0] ? 500 : 201, r.text));
  assert.equal(await stockOf(t, shops[0]!.store, shops[0]!.product.id), 50);
  assert.equal(await stockOf(t, shops[1]!.store, shops[1]!.product.id), 44);
  assert.equal((await eventsOf(shops[0]!.store)).filter((e) => e.type === 'order.created').length, 0);
});

test("a cart of one store whose write fails never fails another store's carts in the same round", async () => {
  const [broken, healthy] = await storesOfOneShard(t, 2);
  const products = await Promise.all([broken!, healthy!].map((store) => createProduct(t, store, { quantity: 50 })));
  // Carts are written without a transaction, one statement for the round: the broken store's rows
  // fail it, and each store's carts are written again on their own.
  const constraint = `carts_not_${broken!.slug.replaceAll('-', '_')}`;
  await t.database.db.execute(sql.raw(`alter table carts add constraint "${constraint}" check (store <> '${broken!.slug}') not valid`));
  try {
    const sent = Array.from({ length: 12 }, (_, i) => i % 2);
    const answers = await Promise.all(sent.map((s) => t.request('POST', '/api/v1/carts', { token: [broken!, healthy!][s]!.storefront, body: { products: [{ id: products[s]!.id, quantity: 1 }] } })));
    answers.forEach((r, i) => assert.equal(r.status, sent[i] === 0 ? 500 : 201, r.text));
    const [counts] = await queryRows<{ broken: number; healthy: number }>(
      t.database.db,
      sql`select count(*) filter (where store = ${broken!.slug})::int as broken, count(*) filter (where store = ${healthy!.slug})::int as healthy from carts where store in (${broken!.slug}, ${healthy!.slug})`,
    );
    assert.deepEqual(counts, { broken: 0, healthy: 6 });
  } finally {
    await t.database.db.execute(sql.raw(`alter table carts drop constraint "${constraint}"`));
  }
});

test('carts and holds of several stores in mixed rounds: each cart in its own store, each hold on its own stock', async () => {
  const stores = await storesOfOneShard(t, 3);
  const products = await Promise.all(stores.map((store) => createProduct(t, store, { quantity: 4 })));
  const created = await Promise.all(
    Array.from({ length: 15 }, (_, i) => t.request('POST', '/api/v1/carts', { token: stores[i % 3]!.storefront, body: { products: [{ id: products[i % 3]!.id, quantity: 1 }] } })),
  );
  for (const r of created) assert.equal(r.status, 201, r.text);
  // A cart id answered to one store is unknown to the others.
  const other = await t.request('GET', `/api/v1/carts/${created[0]!.json.cart.id}`, { token: stores[1]!.storefront });
  assert.equal(other.status, 404);
  // 5 carts of 1 unit per store and 4 units each, all held at once: in each store exactly 4 are held.
  const held = await Promise.all(created.map((r, i) => t.request('POST', `/api/v1/carts/${r.json.cart.id}/hold`, { token: stores[i % 3]!.storefront })));
  stores.forEach((_, s) => {
    const mine = held.filter((_, i) => i % 3 === s);
    assert.equal(mine.filter((r) => r.status === 200).length, 4, mine.map((r) => r.status).join(','));
    assert.equal(mine.filter((r) => r.status === 422).length, 1, mine.map((r) => r.text).join(','));
  });
});

type Line = { id: string; quantity: number };
const linesOf = (r: { json: { cart: { products: Array<{ id: string; order: { quantity: number } }> } } }) => r.json.cart.products.map((p) => ({ id: p.id, quantity: p.order.quantity }));

async function heldCart(store: TestStore, products: Line[]): Promise<string> {
  const created = await t.request('POST', '/api/v1/carts', { token: store.storefront, body: { products } });
  assert.equal(created.status, 201, created.text);
  const held = await t.request('POST', `/api/v1/carts/${created.json.cart.id}/hold`, { token: store.storefront });
  assert.equal(held.status, 200, held.text);
  return created.json.cart.id as string;
}

async function holdRowsOf(cartId: string) {
  return queryRows<{ store: string; productId: string; quantity: number }>(
    t.database.db,
    sql`select store, product_id as "productId", quantity from cart_holds where cart_id = ${cartId} and until > now()`,
  );
}

test("cart creations and added lines in rounds mixing stores: each store's answers, stock, warnings and refusals its own", async () => {
  const [a, b, c] = await storesOfOneShard(t, 3);
  // a: 3 units, 2 of them held by a cart of its own; b: at most 3 per order; c: 5 units (1 held) and one product sold out.
  const pa = await createProduct(t, a!, { quantity: 3 });
  const pb = await createProduct(t, b!, { quantity: 50, maxPerOrder: 3 });
  const pc = await createProduct(t, c!, { quantity: 5 });
  const gone = await createProduct(t, c!, { quantity: 0 });
  const holderA = await heldCart(a!, [{ id: pa.id, quantity: 2 }]);
  const holderC = await heldCart(c!, [{ id: pc.id, quantity: 1 }]);
  const unavailable = (id: string, requested = 1) => ({ productId: id, code: 'PRODUCT_UNAVAILABLE', requested, available: 0 });
  const short = (id: string, requested: number, available: number) => ({ productId: id, code: 'INSUFFICIENT_STOCK', requested, available });

  // Every creation twice, all at once: the rounds mix the three stores. A product of another store is unknown to a store.
  const creations = [
    { store: a!, products: [{ id: pa.id, quantity: 1 }], lines: [{ id: pa.id, quantity: 1 }] },
    { store: a!, products: [{ id: pa.id, quantity: 2 }], refusal: 'PRODUCT_UNAVAILABLE', errors: [short(pa.id, 2, 1)] },
    { store: a!, products: [{ id: pa.id, quantity: 1 }, { id: pb.id, quantity: 1 }], lines: [{ id: pa.id, quantity: 1 }], warnings: [unavailable(pb.id)] },
    { store: b!, products: [{ id: pb.id, quantity: 3 }], lines: [{ id: pb.id, quantity: 3 }] },
    { store: b!, products: [{ id: pb.id, quantity: 4 }], refusal: 'QUANTITY_LIMIT_EXCEEDED' },
    { store: b!, products: [{ id: pb.id, quantity: 1 }, { id: pa.id, quantity: 1 }], lines: [{ id: pb.id, quantity: 1 }], warnings: [unavailable(pa.id)] },
    { store: c!, products: [{ id: pc.id, quantity: 4 }, { id: gone.id, quantity: 1 }], lines: [{ id: pc.id, quantity: 4 }], warnings: [short(gone.id, 1, 0)] },
    { store: c!, products: [{ id: pc.id, quantity: 5 }], refusal: 'PRODUCT_UNAVAILABLE', errors: [short(pc.id, 5, 4)] },
  ];
  const sent = [...creations, ...creations];
  const created = await Promise.all(sent.map((w) => t.request('POST', '/api/v1/carts', { token: w.store.storefront, body: { products: w.products } })));
  created.forEach((r, i) => {
    const w = sent[i]!;
    if (w.refusal) {
      assert.equal(r.status, 422, r.text);
      assert.equal(r.json.code, w.refusal);
      if (w.errors) assert.deepEqual(r.json.errors, w.errors);
      return;
    }
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.cart.store, w.store.slug);
    assert.deepEqual(linesOf(r), w.lines);
    assert.deepEqual(r.json.warnings, w.warnings);
  });
  const ids = created.filter((r) => r.status === 201).map((r) => r.json.cart.id as string);
  const stored = await queryRows<{ store: string; lines: number }>(
    t.database.db,
    sql`select c.store, (select count(*)::int from cart_lines l where l.store = c.store and l.cart_id = c.id) as lines from carts c where c.id::text in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)}) order by c.store`,
  );
  assert.deepEqual(stored.map((s) => s.store), [...Array(4).fill(a!.slug), ...Array(4).fill(b!.slug), ...Array(2).fill(c!.slug)].sort());
  assert.ok(stored.every((s) => s.lines === 1));
  // Carts take no stock.
  assert.deepEqual([await stockOf(t, a!, pa.id), await stockOf(t, b!, pb.id), await stockOf(t, c!, pc.id)], [3, 50, 5]);

  // Then lines added, all at once, each to a cart of its own (so no answer depends on the order of a round).
  const cartOf = (n: number) => created[n]!.json.cart.id as string;
  const additions = [
    // a's 1 unit left is not enough for a line of 2; b's product is unknown in a.
    { store: a!, cart: cartOf(0), line: { id: pa.id, quantity: 1 }, refusal: 'INSUFFICIENT_STOCK', errors: [short(pa.id, 2, 1)] },
    { store: a!, cart: cartOf(2), line: { id: pb.id, quantity: 1 }, refusal: 'PRODUCT_UNAVAILABLE', errors: [unavailable(pb.id)] },
    { store: b!, cart: cartOf(3), line: { id: pb.id, quantity: 1 }, refusal: 'QUANTITY_LIMIT_EXCEEDED' },
    { store: b!, cart: cartOf(5), line: { id: pb.id, quantity: 2 }, lines: [{ id: pb.id, quantity: 3 }] },
    // A cart of another store is not found.
    { store: b!, cart: cartOf(8), line: { id: pb.id, quantity: 1 }, refusal: 'NOT_FOUND' },
    // The held cart's change ends its own hold (its units are its to take); a's hold stays.
    { store: c!, cart: holderC, line: { id: pc.id, quantity: 2 }, lines: [{ id: pc.id, quantity: 3 }], ended: true },
    { store: c!, cart: cartOf(6), line: { id: gone.id, quantity: 1 }, refusal: 'INSUFFICIENT_STOCK', errors: [short(gone.id, 1, 0)] },
    { store: c!, cart: cartOf(11), line: { id: pc.id, quantity: 1 }, refusal: 'NOT_FOUND' },
  ];
  const before = await Promise.all(additions.map((w) => t.request('GET', `/api/v1/carts/${w.cart}`, { token: w.store.storefront })));
  // The embedded database runs one statement at a time and none while a transaction is open: one
  // held open while the requests authenticate lets them reach their rounds together, as on PostgreSQL.
  const gate = t.database.db.transaction(() => new Promise((resolve) => setTimeout(resolve, 200)));
  const added = await Promise.all(additions.map((w) => t.request('POST', `/api/v1/carts/${w.cart}/products`, { token: w.store.storefront, body: w.line })));
  await gate;
  for (const [i, r] of added.entries()) {
    const w = additions[i]!;
    const now = await t.request('GET', `/api/v1/carts/${w.cart}`, { token: w.store.storefront });
    if (w.refusal) {
      assert.equal(r.status, w.refusal === 'NOT_FOUND' ? 404 : 422, r.text);
      assert.equal(r.json.code, w.refusal);
      if (w.errors) assert.deepEqual(r.json.errors, w.errors);
      // A refused addition changed nothing of its cart (one of another store stays unknown).
      if (before[i]!.status !== 200) assert.equal(now.status, 404);
      else {
        assert.deepEqual(linesOf(now), linesOf(before[i]!));
        assert.deepEqual([now.json.cart.updatedAt, now.json.cart.expiresAt], [before[i]!.json.cart.updatedAt, before[i]!.json.cart.expiresAt]);
      }
      continue;
    }
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.cart.store, w.store.slug);
    assert.deepEqual(linesOf(r), w.lines);
    assert.deepEqual(linesOf(now), w.lines);
    if (w.ended) assert.equal(r.json.cart.heldUntil, null);
  }
  assert.deepEqual(await holdRowsOf(holderC), []);
  assert.deepEqual(await holdRowsOf(holderA), [{ store: a!.slug, productId: pa.id, quantity: 2 }]);
  assert.notEqual((await t.request('GET', `/api/v1/carts/${holderA}`, { token: a!.storefront })).json.cart.heldUntil, null);
});

test("lines added in rounds mixing stores: each cart priced with its own store's code, shipping, taxes and currency", async () => {
  const [coded, shipped, euro] = await storesOfOneShard(t, 3);
  const admin = async (store: TestStore, path: string, body: Record<string, unknown>, method = 'POST') => {
    const r = await t.request(method, `/api/v1/admin/${path}`, { token: store.admin, body });
    assert.ok(r.status === 200 || r.status === 201, r.text);
    return r.json;
  };
  const code = (await admin(coded!, 'discounts', { code: `MIX${randomUUID().slice(0, 6)}`, type: 'percentage', value: 10 })).discount.code as string;
  const option = (await admin(shipped!, 'shipping-options', { name: 'Standard', price: 500, countries: ['DE'] })).shippingOption.id as string;
  await admin(shipped!, 'tax-rates', { country: 'DE', rate: 1900, name: 'VAT' });
  await admin(euro!, 'store', { currency: 'EUR', pricesIncludeTax: true }, 'PATCH');
  const carts = await Promise.all(
    [coded!, shipped!, euro!].flatMap((store) =>
      [0, 1].map(async () => {
        const product = await createProduct(t, store, { quantity: 20, price: 1000 });
        const r = await t.request('POST', '/api/v1/carts', { token: store.storefront, body: { products: [{ id: product.id, quantity: 1 }] } });
        assert.equal(r.status, 201, r.text);
        const id = r.json.cart.id as string;
        const set =
          store === coded ? await t.request('POST', `/api/v1/carts/${id}/discount`, { token: store.storefront, body: { code } })
          : store === shipped ? await t.request('PUT', `/api/v1/carts/${id}/shipping`, { token: store.storefront, body: { optionId: option, country: 'DE' } })
          : r;
        assert.ok(set.status === 200 || set.status === 201, set.text);
        return { store, id, product: product.id as string };
      }),
    ),
  );
  const gate = t.database.db.transaction(() => new Promise((resolve) => setTimeout(resolve, 200)));
  const added = await Promise.all(carts.map((c) => t.request('POST', `/api/v1/carts/${c.id}/products`, { token: c.store.storefront, body: { id: c.product, quantity: 2 } })));
  await gate;
  for (const [i, r] of added.entries()) {
    const { store, id } = carts[i]!;
    assert.equal(r.status, 200, r.text);
    // The round's answer is the cart as its own store reads it alone.
    const alone = await t.request('GET', `/api/v1/carts/${id}`, { token: store.storefront });
    assert.deepEqual(r.json.cart, alone.json.cart);
    const cart = r.json.cart;
    assert.equal(cart.price, 3000);
    assert.equal(cart.currency, store === euro ? 'EUR' : 'USD');
    assert.equal(cart.discountTotal, store === coded ? 300 : 0);
    assert.equal(cart.shippingTotal, store === shipped ? 500 : 0);
    assert.equal(cart.taxTotal > 0, store === shipped);
  }
});
