import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp } from './support/app.js';
import { addToCollection, assertProblem, createCollection, createProduct, createStore, type TestStore } from './support/factories.js';
import { createAddress, placeOrder } from './support/shop.js';

const t = await startTestApp();
const PRODUCT_KEYS = ['_count', 'createdAt', 'deletedAt', 'description', 'group', 'id', 'images', 'maxPerOrder', 'name', 'options', 'originalPrice', 'price', 'quantity', 'sku', 'slug', 'status', 'store', 'taxCategory', 'updatedAt'];
const COLLECTION_KEYS = ['_count', 'createdAt', 'deletedAt', 'description', 'id', 'name', 'slug', 'store', 'updatedAt'];

const list = async (s: TestStore, query = '') => (await t.request('GET', `/api/v1/products${query}`, { token: s.storefront })).json;
const ids = (products: Array<{ id: string }>) => products.map((p) => p.id);

test('only visible products are listed: ACTIVE, not deleted, in no archived collection, of this store', async () => {
  const s = await createStore(t);
  const other = await createStore(t);
  const visible = await createProduct(t, s, { description: '<p>HTML <b>kept</b></p>' });
  await createProduct(t, s, { status: 'DRAFT' });
  const deleted = await createProduct(t, s);
  await t.request('DELETE', `/api/v1/admin/products/${deleted.id}`, { token: s.admin });
  const archivedOnly = await createProduct(t, s);
  const archivedAndLive = await createProduct(t, s);
  const inLive = await createProduct(t, s);
  const archived = await createCollection(t, s);
  const live = await createCollection(t, s);
  await addToCollection(t, s, archived.id, archivedOnly.id);
  await addToCollection(t, s, archived.id, archivedAndLive.id);
  await addToCollection(t, s, live.id, archivedAndLive.id);
  await addToCollection(t, s, live.id, inLive.id);
  await t.request('PATCH', `/api/v1/admin/collections/${archived.id}`, { token: s.admin, body: { archived: true } });
  await createProduct(t, other);

  const body = await list(s);
  assert.deepEqual(ids(body.products).sort(), [visible.id, inLive.id].sort());
  assert.equal(body.total, 2);
  const p = body.products.find((x: { id: string }) => x.id === visible.id);
  assert.deepEqual(Object.keys(p).sort(), PRODUCT_KEYS, 'no column the contract does not show');
  assert.equal(p.description, '<p>HTML <b>kept</b></p>');
  assert.equal(p.store, s.slug);
  for (const slug of [archivedOnly.slug, archivedAndLive.slug, deleted.slug]) {
    assertProblem(await t.request('GET', `/api/v1/products/${slug}`, { token: s.storefront }), 404, 'NOT_FOUND');
  }
  // Deleting the archived collection makes its products visible again: a deleted collection holds nothing.
  await t.request('DELETE', `/api/v1/admin/collections/${archived.id}`, { token: s.admin });
  assert.equal((await list(s)).total, 4);
});

test('GET /v1/products/:slug answers the visible product with _count, or 404', async () => {
  const s = await createStore(t);
  const other = await createStore(t);
  const p = await createProduct(t, s);
  const draft = await createProduct(t, s, { status: 'DRAFT' });
  const r = await t.request('GET', `/api/v1/products/${p.slug}`, { token: s.storefront });
  assert.equal(r.status, 200);
  assert.deepEqual(Object.keys(r.json), ['product']);
  assert.deepEqual(Object.keys(r.json.product).sort(), PRODUCT_KEYS);
  assert.deepEqual(r.json.product._count, { collections: 0, orders: 0, variants: 0 });
  assertProblem(await t.request('GET', `/api/v1/products/${draft.slug}`, { token: s.storefront }), 404, 'NOT_FOUND');
  assertProblem(await t.request('GET', `/api/v1/products/${p.slug}`, { token: other.storefront }), 404, 'NOT_FOUND');
  assertProblem(await t.request('GET', '/api/v1/products/no-such-product', { token: s.storefront }), 404, 'NOT_FOUND');
  assert.equal((await t.request('GET', `/api/v1/products/${p.slug}`, { token: s.admin })).status, 200, 'an admin token reads the storefront too');
});

test('limit, offset and total: total counts every match, not just the page', async () => {
  const s = await createStore(t);
  const made = [];
  for (let i = 0; i < 7; i++) made.push(await createProduct(t, s, { price: 100 + i }));
  const page = await list(s, '?limit=3&offset=2&sort=price');
  assert.equal(page.total, 7);
  assert.deepEqual(ids(page.products), ids(made.slice(2, 5)));
  const beyond = await list(s, '?offset=100');
  assert.deepEqual(beyond, { products: [], total: 7, nextCursor: null });
  assert.equal((await list(s)).products.length, 7, 'default limit 50');
  for (const q of ['?limit=0', '?limit=251', '?limit=abc', '?offset=-1', '?offset=1.5', '?sort=cost', '?sort=', '?colour=red']) {
    assertProblem(await t.request('GET', `/api/v1/products${q}`, { token: s.storefront }), 400, 'VALIDATION_FAILED');
  }
  assert.equal((await list(s, '?limit=250')).products.length, 7);
});

test('sort: createdAt, price and name, each both ways; default newest first', async () => {
  const s = await createStore(t);
  const b = await createProduct(t, s, { name: 'Banana', price: 300 });
  const a = await createProduct(t, s, { name: 'apple', price: 100 });
  const c = await createProduct(t, s, { name: 'Cherry', price: 200 });
  assert.deepEqual(ids((await list(s)).products), [c.id, a.id, b.id]);
  assert.deepEqual(ids((await list(s, '?sort=-createdAt')).products), [c.id, a.id, b.id]);
  assert.deepEqual(ids((await list(s, '?sort=createdAt')).products), [b.id, a.id, c.id]);
  assert.deepEqual(ids((await list(s, '?sort=price')).products), [a.id, c.id, b.id]);
  assert.deepEqual(ids((await list(s, '?sort=-price')).products), [b.id, c.id, a.id]);
  const byName = ids((await list(s, '?sort=name')).products);
  assert.deepEqual(ids((await list(s, '?sort=-name')).products), [...byName].reverse());
  assert.equal(byName.length, 3);
});

test('collection filter: products of that collection; an unknown or archived slug gives an empty list', async () => {
  const s = await createStore(t);
  const inside = await createProduct(t, s);
  await createProduct(t, s);
  const coll = await createCollection(t, s);
  await addToCollection(t, s, coll.id, inside.id);
  const r = await list(s, `?collection=${coll.slug}`);
  assert.deepEqual(ids(r.products), [inside.id]);
  assert.equal(r.total, 1);
  assert.deepEqual(await list(s, '?collection=nothing-here'), { products: [], total: 0, nextCursor: null });
  const archived = await createCollection(t, s);
  const hidden = await createProduct(t, s);
  await addToCollection(t, s, archived.id, hidden.id);
  await t.request('PATCH', `/api/v1/admin/collections/${archived.id}`, { token: s.admin, body: { archived: true } });
  assert.deepEqual(await list(s, `?collection=${archived.slug}`), { products: [], total: 0, nextCursor: null });
  const other = await createStore(t);
  assert.deepEqual(await list(other, `?collection=${coll.slug}`), { products: [], total: 0, nextCursor: null });
});

test('_count.collections counts non-deleted collections; _count.orders counts the orders holding the product', async () => {
  const s = await createStore(t);
  const p = await createProduct(t, s, { quantity: 50 });
  const c1 = await createCollection(t, s);
  const c2 = await createCollection(t, s);
  const c3 = await createCollection(t, s);
  for (const c of [c1, c2, c3]) await addToCollection(t, s, c.id, p.id);
  await t.request('DELETE', `/api/v1/admin/collections/${c3.id}`, { token: s.admin });
  const { customer, address } = await createAddress(t, s);
  for (let i = 0; i < 2; i++) await placeOrder(t, s, customer, { address: address.id, products: [{ id: p.id, quantity: 1 }] });
  const r = await t.request('GET', `/api/v1/products/${p.slug}`, { token: s.storefront });
  assert.deepEqual(r.json.product._count, { collections: 2, orders: 2, variants: 0 });
  assert.deepEqual((await list(s)).products[0]._count, { collections: 2, orders: 2, variants: 0 });
});

test('GET /v1/collections: live collections only, oldest first, with parents/children/products counts', async () => {
  const s = await createStore(t);
  const parent = await createCollection(t, s);
  const child = await createCollection(t, s, { parents: [parent.id] });
  const archivedChild = await createCollection(t, s, { parents: [parent.id] });
  const deleted = await createCollection(t, s);
  await t.request('PATCH', `/api/v1/admin/collections/${archivedChild.id}`, { token: s.admin, body: { archived: true } });
  await t.request('DELETE', `/api/v1/admin/collections/${deleted.id}`, { token: s.admin });
  const visible = await createProduct(t, s);
  const draft = await createProduct(t, s, { status: 'DRAFT' });
  await addToCollection(t, s, child.id, visible.id);
  await addToCollection(t, s, child.id, draft.id);
  const r = await t.request('GET', '/api/v1/collections', { token: s.storefront });
  assert.equal(r.status, 200);
  assert.equal(r.json.total, 2);
  assert.deepEqual(r.json.collections.map((c: { id: string }) => c.id), [parent.id, child.id]);
  for (const c of r.json.collections) assert.deepEqual(Object.keys(c).sort(), COLLECTION_KEYS, 'no archived flag or parents leak');
  assert.deepEqual(r.json.collections[0]._count, { parents: 0, children: 1, products: 0 });
  assert.deepEqual(r.json.collections[1]._count, { parents: 1, children: 0, products: 1 });
  const page = await t.request('GET', '/api/v1/collections?limit=1&offset=1', { token: s.storefront });
  assert.deepEqual(page.json.collections.map((c: { id: string }) => c.id), [child.id]);
  assert.equal(page.json.total, 2);
  assertProblem(await t.request('GET', '/api/v1/collections?offset=-1', { token: s.storefront }), 400, 'VALIDATION_FAILED');
  const other = await createStore(t);
  assert.deepEqual((await t.request('GET', '/api/v1/collections', { token: other.storefront })).json, { collections: [], total: 0 });
});
