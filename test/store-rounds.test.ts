/**
 * Rounds that mix stores (plugins/commands.ts combines round requests per shard of stores, not per
 * store): each store's answers, events, idempotency keys and stock stay its own, and a request of
 * one store that fails never changes the answer of another store's request in the same round.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { roundShardCount, roundShardOf } from '../src/plugins/commands.js';
import { startTestApp, uniqueSlug } from './support/app.js';
import { createProduct, createStore, type TestStore } from './support/factories.js';
import { createAddress, placeOrder, stockOf } from './support/shop.js';

const t = await startTestApp();

/** `count` new stores whose requests join the same rounds (one shard). */
async function storesOfOneShard(count: number): Promise<TestStore[]> {
  const shards = roundShardCount(t.config.dbPoolSize);
  const slugs: string[] = [];
  const shard = roundShardOf(uniqueSlug('mix'), shards);
  while (slugs.length < count) {
    const slug = uniqueSlug('mix');
    if (roundShardOf(slug, shards) === shard) slugs.push(slug);
  }
  return Promise.all(slugs.map((slug) => createStore(t, slug)));
}

async function eventsOf(store: TestStore) {
  const r = await t.request('GET', '/api/v1/admin/events?limit=100', { token: store.admin });
  assert.equal(r.status, 200, r.text);
  return r.json.events as Array<{ type: string; store: string; data: { order?: { id: string } } }>;
}

test('a round mixing stores keeps each store its answers, events, idempotency keys and stock', async () => {
  const [scarce, plenty, third] = await storesOfOneShard(3);
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
  const [broken, healthy] = await storesOfOneShard(2);
  const shops = await Promise.all([broken!, healthy!].map(async (store) => ({ store, product: await createProduct(t, store, { quantity: 50 }), ...(await createAddress(t, store)) })));
  // The broken store cannot number its orders: its round work fails with a 5xx, inside the round's transaction.
  await t.database.db.execute(sql.raw(`drop sequence "order_number_${broken!.slug}"`));
  const sent = Array.from({ length: 12 }, (_, i) => shops[i % 2]!);
  const answers = await Promise.all(sent.map((shop) => placeOrder(t, shop.store, shop.customer, { address: shop.address.id, products: [{ id: shop.product.id, quantity: 1 }] })));
  answers.forEach((r, i) => {
    if (sent[i] === shops[0]) assert.equal(r.status, 500, r.text);
    else assert.equal(r.status, 201, r.text);
  });
  assert.equal(await stockOf(t, shops[0]!.store, shops[0]!.product.id), 50);
  assert.equal(await stockOf(t, shops[1]!.store, shops[1]!.product.id), 44);
  assert.equal((await eventsOf(shops[0]!.store)).filter((e) => e.type === 'order.created').length, 0);
  assert.equal((await eventsOf(shops[1]!.store)).filter((e) => e.type === 'order.created').length, 6);
});

test('carts and holds of several stores in mixed rounds: each cart in its own store, each hold on its own stock', async () => {
  const stores = await storesOfOneShard(3);
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
