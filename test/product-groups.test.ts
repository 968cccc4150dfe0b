/**
 * GET /v1/product-groups/:group: the variants of one item with their options, price range and
 * stock; 404 when none is visible; a cached catalog read whose ETag changes at once after an admin
 * change or an order of any of its products, in this process and in another.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startAppOn, startTestApp } from './support/app.js';
import { addToCollection, assertProblem, createCollection, createProduct, createStore, type TestStore } from './support/factories.js';
import { createAddress, placeOrder } from './support/shop.js';

const t = await startTestApp();

const group = (s: TestStore, slug: string, headers: Record<string, string> = {}, app = t) =>
  app.request('GET', `/api/v1/product-groups/${slug}`, { token: s.storefront, headers });

async function shirt(s: TestStore) {
  const image = (color: string) => [{ url: `/api/images/linen-shirt-${color.toLowerCase()}.svg`, alt: `${color} linen shirt` }];
  const variants = [];
  for (const [color, size, price, quantity] of [['White', 'S', 4990, 2], ['White', 'M', 4990, 0], ['Blue', 'M', 5290, 3], ['Blue', 'L', 5490, 1]] as const) {
    variants.push(
      await createProduct(t, s, {
        name: 'Linen shirt', slug: `linen-shirt-${color.toLowerCase()}-${size.toLowerCase()}`, price, quantity,
        group: 'linen-shirt', options: { Color: color, Size: size }, images: image(color),
      }),
    );
  }
  return variants;
}

test('the group: its visible products oldest first with _count, options in the order first met, price range and stock', async () => {
  const s = await createStore(t);
  const variants = await shirt(s);
  await createProduct(t, s, { group: 'linen-shirt', options: { Color: 'Red', Size: 'XL' }, status: 'DRAFT', price: 1 });
  await createProduct(t, s, { group: 'other', options: { Color: 'Green' } });
  const r = await group(s, 'linen-shirt');
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(Object.keys(r.json), ['group']);
  const g = r.json.group;
  assert.deepEqual(Object.keys(g), ['slug', 'options', 'priceRange', 'inStock', 'products']);
  assert.equal(g.slug, 'linen-shirt');
  assert.deepEqual(g.options, [{ name: 'Color', values: ['White', 'Blue'] }, { name: 'Size', values: ['S', 'M', 'L'] }]);
  assert.deepEqual(g.priceRange, { min: 4990, max: 5490 }, 'the draft at price 1 is not in it');
  assert.equal(g.inStock, true);
  assert.deepEqual(g.products.map((p: { id: string }) => p.id), variants.map((p) => p.id));
  assert.deepEqual(g.products[0]._count, { collections: 0, orders: 0, variants: 4 });
  assert.deepEqual(g.products[2].images, [{ url: '/api/images/linen-shirt-blue.svg', alt: 'Blue linen shirt' }]);
  // Options that not every variant has are listed too, in the order first met.
  const s2 = await createStore(t);
  await createProduct(t, s2, { group: 'mug', options: { Size: '300 ml' } });
  await createProduct(t, s2, { group: 'mug', options: { Glaze: 'Sage', Size: '300 ml' } });
  await createProduct(t, s2, { group: 'mug', options: { Size: '450 ml', Glaze: 'Sand' } });
  assert.deepEqual((await group(s2, 'mug')).json.group.options, [{ name: 'Size', values: ['300 ml', '450 ml'] }, { name: 'Glaze', values: ['Sage', 'Sand'] }]);
});

test('404 when the group has no visible product: unknown, only drafts, deleted, archived or another store\'s', async () => {
  const s = await createStore(t);
  const other = await createStore(t);
  assertProblem(await group(s, 'nothing'), 404, 'NOT_FOUND');
  const draft = await createProduct(t, s, { group: 'drafts', status: 'DRAFT' });
  assertProblem(await group(s, 'drafts'), 404, 'NOT_FOUND');
  await t.request('PATCH', `/api/v1/admin/products/${draft.id}`, { token: s.admin, body: { status: 'ACTIVE' } });
  assert.equal((await group(s, 'drafts')).status, 200);
  await t.request('DELETE', `/api/v1/admin/products/${draft.id}`, { token: s.admin });
  assertProblem(await group(s, 'drafts'), 404, 'NOT_FOUND');
  const archived = await createProduct(t, s, { group: 'archived' });
  const coll = await createCollection(t, s);
  await addToCollection(t, s, coll.id, archived.id);
  await t.request('PATCH', `/api/v1/admin/collections/${coll.id}`, { token: s.admin, body: { archived: true } });
  assertProblem(await group(s, 'archived'), 404, 'NOT_FOUND');
  await createProduct(t, other, { group: 'theirs' });
  assertProblem(await group(s, 'theirs'), 404, 'NOT_FOUND');
  assert.equal((await group(other, 'theirs')).status, 200);
  assertProblem(await group(s, 'x'.repeat(256)), 400, 'VALIDATION_FAILED');
});

test('ETag and 304; the tag changes at once after an admin change or an order of any product of the group, in every process', async () => {
  const s = await createStore(t);
  const variants = await shirt(s);
  const second = await startAppOn(t.database);
  const first = await group(s, 'linen-shirt');
  const etag = String(first.headers.etag);
  assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
  const same = await group(s, 'linen-shirt', { 'if-none-match': etag });
  assert.equal(same.status, 304);
  assert.equal(same.text, '');
  assert.equal((await group(s, 'linen-shirt', { 'if-none-match': etag }, second)).status, 304, 'another process tags the same body alike');

  // An order of one variant: its stock, its _count.orders and the tag change.
  const { customer, address } = await createAddress(t, s);
  const order = await placeOrder(t, s, customer, { address: address.id, products: [{ id: variants[3]!.id, quantity: 1 }] });
  assert.equal(order.status, 201, order.text);
  for (const app of [t, second]) {
    const after = await group(s, 'linen-shirt', { 'if-none-match': etag }, app);
    assert.equal(after.status, 200, 'the order changed the body, so the tag changed');
    assert.notEqual(after.headers.etag, etag);
    const sold = after.json.group.products[3];
    assert.equal(sold.quantity, 0);
    assert.equal(sold._count.orders, 1);
  }
  const afterOrder = String((await group(s, 'linen-shirt')).headers.etag);

  // An admin change of another variant.
  await t.request('PATCH', `/api/v1/admin/products/${variants[0]!.id}`, { token: s.admin, body: { price: 3990 } });
  const edited = await group(s, 'linen-shirt', { 'if-none-match': afterOrder }, second);
  assert.equal(edited.status, 200);
  assert.deepEqual(edited.json.group.priceRange, { min: 3990, max: 5490 }, 'a sold-out variant is still in the range');
  const afterEdit = String(edited.headers.etag);

  // The last units in stock sold: inStock turns false.
  await placeOrder(t, s, customer, { address: address.id, products: [{ id: variants[0]!.id, quantity: 2 }, { id: variants[2]!.id, quantity: 3 }] });
  const soldOut = await group(s, 'linen-shirt', { 'if-none-match': afterEdit });
  assert.equal(soldOut.status, 200);
  assert.equal(soldOut.json.group.inStock, false);

  // A variant leaving the group, and a new one joining it.
  await t.request('PATCH', `/api/v1/admin/products/${variants[1]!.id}`, { token: s.admin, body: { group: null } });
  const joined = await createProduct(t, s, { group: 'linen-shirt', options: { Color: 'Sand', Size: 'M' }, quantity: 4 });
  const regrouped = await group(s, 'linen-shirt', {}, second);
  assert.deepEqual(regrouped.json.group.products.map((p: { id: string }) => p.id), [variants[0]!.id, variants[2]!.id, variants[3]!.id, joined.id]);
  assert.equal(regrouped.json.group.inStock, true);
  assert.deepEqual(regrouped.json.group.options[0], { name: 'Color', values: ['White', 'Blue', 'Sand'] });
});
