import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestApp } from './support/app.js';
import { addToCollection, assertProblem, createCollection, createProduct, createStore } from './support/factories.js';

const t = await startTestApp();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

test('POST /v1/admin/products: 201, DRAFT unless told, defaults for optional fields', async () => {
  const s = await createStore(t);
  const r = await t.request('POST', '/api/v1/admin/products', { token: s.admin, body: { name: 'Shirt', slug: 'shirt', sku: 'SH-1', price: 4990, quantity: 3 } });
  assert.equal(r.status, 201, r.text);
  const p = r.json.product;
  assert.equal(p.status, 'DRAFT');
  assert.equal(p.description, '');
  assert.equal(p.originalPrice, null);
  assert.equal(p.store, s.slug);
  assert.match(p.createdAt, ISO);
  assert.equal(p.updatedAt, null);
  assert.deepEqual(p._count, { collections: 0, orders: 0, variants: 0 });
  assertProblem(await t.request('GET', '/api/v1/products/shirt', { token: s.storefront }), 404, 'NOT_FOUND');
});

test('product validation: required fields, integers, ranges, slug shape and unknown fields are 400', async () => {
  const s = await createStore(t);
  const base = { name: 'N', slug: 'n-1', sku: 'S', price: 1, quantity: 1 };
  const bad: Record<string, unknown>[] = [
    { ...base, name: undefined }, { ...base, slug: 'Has Spaces' }, { ...base, slug: '-lead' }, { ...base, price: -1 },
    { ...base, price: 1.5 }, { ...base, price: '10' }, { ...base, quantity: -1 }, { ...base, status: 'LIVE' },
    { ...base, originalPrice: -5 }, { ...base, extra: 1 }, { ...base, name: '' }, { ...base, price: 1e12 },
  ];
  for (const body of bad) assertProblem(await t.request('POST', '/api/v1/admin/products', { token: s.admin, body }), 400, 'VALIDATION_FAILED');
  const r = await t.request('POST', '/api/v1/admin/products', { token: s.admin, body: { ...base, name: undefined } });
  assert.ok(r.json.errors.some((e: { field: string }) => e.field === 'body.name'), JSON.stringify(r.json.errors));
  assert.equal((await t.request('GET', '/api/v1/admin/products', { token: s.admin })).json.total, 0);
});

test('slugs are unique per store among non-deleted products: 409, reusable after delete, free in another store', async () => {
  const s = await createStore(t);
  const other = await createStore(t);
  const p = await createProduct(t, s, { slug: 'same' });
  assertProblem(await t.request('POST', '/api/v1/admin/products', { token: s.admin, body: { name: 'x', slug: 'same', sku: 'x', price: 1, quantity: 1 } }), 409, 'CONFLICT');
  const q = await createProduct(t, s);
  assertProblem(await t.request('PATCH', `/api/v1/admin/products/${q.id}`, { token: s.admin, body: { slug: 'same' } }), 409, 'CONFLICT');
  await createProduct(t, other, { slug: 'same' });
  const deleted = await t.request('DELETE', `/api/v1/admin/products/${p.id}`, { token: s.admin });
  assert.equal(deleted.status, 200);
  assert.match(deleted.json.product.deletedAt, ISO);
  const again = await createProduct(t, s, { slug: 'same' });
  assert.equal((await t.request('GET', '/api/v1/products/same', { token: s.storefront })).json.product.id, again.id);
});

test('PATCH changes the given fields and sets updatedAt; unknown, deleted or foreign products are 404', async () => {
  const s = await createStore(t);
  const other = await createStore(t);
  const p = await createProduct(t, s, { price: 100, originalPrice: 150 });
  const r = await t.request('PATCH', `/api/v1/admin/products/${p.id}`, { token: s.admin, body: { price: 90, originalPrice: null, name: 'Renamed' } });
  assert.equal(r.status, 200);
  assert.equal(r.json.product.price, 90);
  assert.equal(r.json.product.originalPrice, null);
  assert.equal(r.json.product.name, 'Renamed');
  assert.equal(r.json.product.sku, p.sku);
  assert.match(r.json.product.updatedAt, ISO);
  assertProblem(await t.request('PATCH', `/api/v1/admin/products/${p.id}`, { token: s.admin, body: {} }), 400, 'VALIDATION_FAILED');
  assertProblem(await t.request('PATCH', `/api/v1/admin/products/${randomUUID()}`, { token: s.admin, body: { price: 1 } }), 404, 'NOT_FOUND');
  assertProblem(await t.request('PATCH', `/api/v1/admin/products/${p.id}`, { token: other.admin, body: { price: 1 } }), 404, 'NOT_FOUND');
  assertProblem(await t.request('DELETE', `/api/v1/admin/products/${p.id}`, { token: other.admin }), 404, 'NOT_FOUND');
  await t.request('DELETE', `/api/v1/admin/products/${p.id}`, { token: s.admin });
  assertProblem(await t.request('DELETE', `/api/v1/admin/products/${p.id}`, { token: s.admin }), 404, 'NOT_FOUND');
  assertProblem(await t.request('PATCH', `/api/v1/admin/products/${p.id}`, { token: s.admin, body: { price: 1 } }), 404, 'NOT_FOUND');
});

test('GET /v1/admin/products lists every non-deleted product of any status, filtered by status, paginated', async () => {
  const s = await createStore(t);
  await createProduct(t, s, { status: 'DRAFT' });
  await createProduct(t, s, { status: 'ACTIVE' });
  await createProduct(t, s, { status: 'ACTIVE' });
  const gone = await createProduct(t, s);
  await t.request('DELETE', `/api/v1/admin/products/${gone.id}`, { token: s.admin });
  assert.equal((await t.request('GET', '/api/v1/admin/products', { token: s.admin })).json.total, 3);
  assert.equal((await t.request('GET', '/api/v1/admin/products?status=DRAFT', { token: s.admin })).json.total, 1);
  const page = await t.request('GET', '/api/v1/admin/products?status=ACTIVE&limit=1', { token: s.admin });
  assert.equal(page.json.total, 2);
  assert.equal(page.json.products.length, 1);
  assertProblem(await t.request('GET', '/api/v1/admin/products?status=GONE', { token: s.admin }), 400, 'VALIDATION_FAILED');
});

test('collections: create with parents, several parents, archive, soft delete and slug reuse', async () => {
  const s = await createStore(t);
  const a = await createCollection(t, s);
  const b = await createCollection(t, s);
  const r = await t.request('POST', '/api/v1/admin/collections', { token: s.admin, body: { name: 'Child', slug: 'child', description: '<p>x</p>', parents: [a.id, b.id] } });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual([...r.json.collection.parents].sort(), [a.id, b.id].sort());
  assert.equal(r.json.collection.archived, false);
  assert.equal(r.json.collection._count.parents, 2);
  assertProblem(await t.request('POST', '/api/v1/admin/collections', { token: s.admin, body: { name: 'Again', slug: 'child' } }), 409, 'CONFLICT');
  const archived = await t.request('PATCH', `/api/v1/admin/collections/${a.id}`, { token: s.admin, body: { archived: true } });
  assert.equal(archived.json.collection.archived, true);
  const child = await t.request('GET', `/api/v1/admin/collections/${r.json.collection.id}`, { token: s.admin });
  assert.equal(child.json.collection._count.parents, 1, 'links to an archived collection do not count');
  const del = await t.request('DELETE', `/api/v1/admin/collections/${r.json.collection.id}`, { token: s.admin });
  assert.match(del.json.collection.deletedAt, ISO);
  assert.equal((await createCollection(t, s, { slug: 'child' })).slug, 'child');
  const all = await t.request('GET', '/api/v1/admin/collections', { token: s.admin });
  assert.equal(all.json.total, 3, 'the admin list shows archived collections but not deleted ones');
  assertProblem(await t.request('POST', '/api/v1/admin/collections', { token: s.admin, body: { name: 'X', slug: 'x', parents: [randomUUID()] } }), 404, 'NOT_FOUND');
  assertProblem(await t.request('PATCH', `/api/v1/admin/collections/${randomUUID()}`, { token: s.admin, body: { name: 'x' } }), 404, 'NOT_FOUND');
});

test('a cycle in the hierarchy is refused with 422 COLLECTION_CYCLE and changes nothing', async () => {
  const s = await createStore(t);
  const a = await createCollection(t, s);
  const b = await createCollection(t, s, { parents: [a.id] });
  const c = await createCollection(t, s, { parents: [b.id] });
  assertProblem(await t.request('PATCH', `/api/v1/admin/collections/${a.id}`, { token: s.admin, body: { parents: [c.id] } }), 422, 'COLLECTION_CYCLE');
  assertProblem(await t.request('PATCH', `/api/v1/admin/collections/${a.id}`, { token: s.admin, body: { parents: [a.id] } }), 422, 'COLLECTION_CYCLE');
  assertProblem(await t.request('PATCH', `/api/v1/admin/collections/${b.id}`, { token: s.admin, body: { parents: [c.id], name: 'renamed' } }), 422, 'COLLECTION_CYCLE');
  const after = await t.request('GET', `/api/v1/admin/collections/${b.id}`, { token: s.admin });
  assert.deepEqual(after.json.collection.parents, [a.id]);
  assert.notEqual(after.json.collection.name, 'renamed', 'a refused change changes nothing');
  const moved = await t.request('PATCH', `/api/v1/admin/collections/${c.id}`, { token: s.admin, body: { parents: [a.id] } });
  assert.equal(moved.status, 200);
  assert.deepEqual(moved.json.collection.parents, [a.id]);
  const cleared = await t.request('PATCH', `/api/v1/admin/collections/${c.id}`, { token: s.admin, body: { parents: [] } });
  assert.deepEqual(cleared.json.collection.parents, []);
});

test('concurrent re-parenting cannot close a cycle', async () => {
  const s = await createStore(t);
  const a = await createCollection(t, s);
  const b = await createCollection(t, s);
  const [one, two] = await Promise.all([
    t.request('PATCH', `/api/v1/admin/collections/${a.id}`, { token: s.admin, body: { parents: [b.id] } }),
    t.request('PATCH', `/api/v1/admin/collections/${b.id}`, { token: s.admin, body: { parents: [a.id] } }),
  ]);
  assert.deepEqual([one.status, two.status].sort(), [200, 422]);
});

test('membership: add (idempotent), remove, 404 for unknown or foreign records', async () => {
  const s = await createStore(t);
  const other = await createStore(t);
  const c = await createCollection(t, s);
  const p = await createProduct(t, s);
  const added = await addToCollection(t, s, c.id, p.id);
  assert.equal(added._count.products, 1);
  assert.equal((await addToCollection(t, s, c.id, p.id))._count.products, 1, 'adding twice keeps one link');
  const foreign = await createProduct(t, other);
  assertProblem(await t.request('POST', `/api/v1/admin/collections/${c.id}/products`, { token: s.admin, body: { id: foreign.id } }), 404, 'NOT_FOUND');
  assertProblem(await t.request('POST', `/api/v1/admin/collections/${randomUUID()}/products`, { token: s.admin, body: { id: p.id } }), 404, 'NOT_FOUND');
  const removed = await t.request('DELETE', `/api/v1/admin/collections/${c.id}/products/${p.id}`, { token: s.admin });
  assert.equal(removed.status, 200);
  assert.equal(removed.json.collection._count.products, 0);
  assertProblem(await t.request('DELETE', `/api/v1/admin/collections/${c.id}/products/${p.id}`, { token: s.admin }), 404, 'NOT_FOUND');
  assertProblem(await t.request('GET', `/api/v1/admin/collections/${c.id}`, { token: other.admin }), 404, 'NOT_FOUND');
});

test('the admin product list pages by cursor (any status, newest first), bound to its status and q', async () => {
  const s = await createStore(t);
  const made = [];
  for (let i = 0; i < 5; i++) made.push(await createProduct(t, s, { status: i % 2 ? 'DRAFT' : 'ACTIVE' }));
  const seen: string[] = [];
  let after: string | null = null;
  do {
    const r: { status: number; json: { products: Array<{ id: string }>; total: number; nextCursor: string | null } } = await t.request('GET', `/api/v1/admin/products?limit=2${after ? `&after=${after}` : ''}`, { token: s.admin });
    assert.equal(r.status, 200);
    assert.equal(r.json.total, 5);
    seen.push(...r.json.products.map((p) => p.id));
    after = r.json.nextCursor;
  } while (after);
  assert.deepEqual(seen, made.map((p) => p.id).reverse());
  const first = (await t.request('GET', '/api/v1/admin/products?limit=2', { token: s.admin })).json;
  assert.equal((await t.request('GET', `/api/v1/admin/products?limit=2&offset=2&after=${first.nextCursor}`, { token: s.admin })).status, 400);
  assert.equal((await t.request('GET', `/api/v1/admin/products?limit=2&status=DRAFT&after=${first.nextCursor}`, { token: s.admin })).status, 400, 'a cursor of another list');
  const storefront = (await t.request('GET', '/api/v1/products?limit=1', { token: s.storefront })).json;
  assert.equal((await t.request('GET', `/api/v1/admin/products?limit=1&after=${storefront.nextCursor}`, { token: s.admin })).status, 400, 'a storefront cursor');
});
