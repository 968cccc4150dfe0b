/**
 * Variants: `group`, `options` and `images` on every product the API shows, their validation, one
 * product per combination of options in a group (409, also under concurrent writes),
 * `_count.variants`, and order lines that keep the fields as ordered.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp } from './support/app.js';
import { addToCollection, assertProblem, createCollection, createProduct, createStore, type TestStore } from './support/factories.js';
import { createAddress, createCart, placeOrder } from './support/shop.js';

const t = await startTestApp();

const create = (s: TestStore, body: Record<string, unknown>) => t.request('POST', '/api/v1/admin/products', { token: s.admin, body });
const patch = (s: TestStore, id: string, body: Record<string, unknown>) => t.request('PATCH', `/api/v1/admin/products/${id}`, { token: s.admin, body });
const base = (slug: string) => ({ name: 'Linen shirt', slug, sku: slug.toUpperCase(), price: 4990, quantity: 5, status: 'ACTIVE' });

test('group, options and images: defaults, set on create, changed and cleared by PATCH, shown everywhere a product is', async () => {
  const s = await createStore(t);
  const plain = (await create(s, base('plain'))).json.product;
  assert.equal(plain.group, null);
  assert.deepEqual(plain.options, {});
  assert.deepEqual(plain.images, []);
  const images = [{ url: 'https://cdn.example/shirt-blue.jpg', alt: 'Blue shirt, front' }, { url: '/api/images/back.svg' }];
  const r = await create(s, { ...base('shirt-blue-m'), group: 'linen-shirt', options: { Size: 'M', Color: 'Blue' }, images });
  assert.equal(r.status, 201, r.text);
  const p = r.json.product;
  assert.equal(p.group, 'linen-shirt');
  assert.deepEqual(Object.entries(p.options), [['Size', 'M'], ['Color', 'Blue']], 'the order the admin wrote is kept');
  assert.deepEqual(p.images, [images[0], { url: '/api/images/back.svg', alt: '' }], 'order kept, alt defaults to ""');
  assert.equal(p._count.variants, 1);
  for (const view of [
    (await t.request('GET', `/api/v1/admin/products/${p.id}`, { token: s.admin })).json.product,
    (await t.request('GET', '/api/v1/products/shirt-blue-m', { token: s.storefront })).json.product,
    (await t.request('GET', '/api/v1/products?group=linen-shirt', { token: s.storefront })).json.products[0],
  ]) {
    assert.equal(view.group, 'linen-shirt');
    assert.deepEqual(Object.entries(view.options), [['Size', 'M'], ['Color', 'Blue']]);
    assert.deepEqual(view.images, p.images);
  }
  const cart = await createCart(t, s, [{ id: p.id, quantity: 1 }]);
  assert.equal(cart.products[0].group, 'linen-shirt');
  assert.deepEqual(cart.products[0].options, { Size: 'M', Color: 'Blue' });
  assert.deepEqual(cart.products[0].images, p.images);

  const moved = await patch(s, p.id, { group: 'shirt', options: { Size: 'L' }, images: [] });
  assert.equal(moved.status, 200, moved.text);
  assert.equal(moved.json.product.group, 'shirt');
  assert.deepEqual(moved.json.product.options, { Size: 'L' });
  assert.deepEqual(moved.json.product.images, []);
  const out = await patch(s, p.id, { group: null });
  assert.equal(out.json.product.group, null, 'group: null takes it out of its group');
  assert.deepEqual(out.json.product.options, { Size: 'L' }, 'options stay until changed');
  assert.equal(out.json.product._count.variants, 0);
  const events = await t.request('GET', '/api/v1/admin/events?type=product.created,product.updated', { token: s.admin });
  const last = events.json.events.at(-1).data.product;
  assert.equal(last.group, null);
  assert.deepEqual(last.options, { Size: 'L' });
  assert.equal(last._count.variants, 0);
  assert.equal(events.json.events.find((e: { data: { product: { id: string } } }) => e.data.product.id === p.id).data.product.group, 'linen-shirt');
});

test('validation: group slug, options count, name and value lengths, blanks, image count, url schemes and lengths, alt length', async () => {
  const s = await createStore(t);
  const long = (n: number) => 'x'.repeat(n);
  const ok: Array<Record<string, unknown>> = [
    { options: { [long(40)]: long(80) } },
    { options: { A: '1', B: '2', C: '3' } },
    { options: { 'Navy blue': 'Extra large' } },
    { images: Array.from({ length: 10 }, (_, n) => ({ url: `/img/${n}.png` })) },
    { images: [{ url: `https://cdn.example/${long(2048 - 'https://cdn.example/'.length)}`, alt: long(300) }] },
    { images: [{ url: '/' }] },
    { group: long(200) },
  ];
  for (const [n, fields] of ok.entries()) {
    const r = await create(s, { ...base(`ok-${n}`), ...fields });
    assert.equal(r.status, 201, `${JSON.stringify(fields).slice(0, 120)}: ${r.text}`);
  }
  const bad: Array<Record<string, unknown>> = [
    { group: 'Linen Shirt' }, { group: '' }, { group: '-x' }, { group: long(201) }, { group: 5 },
    { options: { A: '1', B: '2', C: '3', D: '4' } },
    { options: { '': 'M' } }, { options: { Size: '' } }, { options: { [long(41)]: 'M' } }, { options: { Size: long(81) } },
    { options: { ' Size': 'M' } }, { options: { Size: 'M ' } }, { options: { Size: '   ' } }, { options: { Size: 'a\nb' } },
    { options: { Size: 3 } }, { options: { Size: null } }, { options: ['Size', 'M'] }, { options: null },
    { options: { Size: 'M', size: 'L' } },
    { images: Array.from({ length: 11 }, (_, n) => ({ url: `/img/${n}.png` })) },
    { images: [{ url: 'http://cdn.example/a.png' }] }, { images: [{ url: 'javascript:alert(1)' }] },
    { images: [{ url: 'data:image/png;base64,iVBORw0KGgo=' }] }, { images: [{ url: 'ftp://cdn.example/a.png' }] },
    { images: [{ url: 'images/a.png' }] }, { images: [{ url: '//evil.example/a.png' }] }, { images: [{ url: '/\\evil.example/a.png' }] },
    { images: [{ url: 'https://' }] }, { images: [{ url: '/a b.png' }] }, { images: [{ url: '' }] },
    { images: [{ url: `https://cdn.example/${long(2049 - 'https://cdn.example/'.length)}` }] },
    { images: [{ url: '/a.png', alt: long(301) }] }, { images: [{ url: '/a.png', extra: 1 }] }, { images: [{ alt: 'no url' }] },
    { images: ['/a.png'] }, { images: {} },
  ];
  for (const [n, fields] of bad.entries()) {
    const r = await create(s, { ...base(`bad-${n}`), ...fields });
    assertProblem(r, 400, 'VALIDATION_FAILED');
    const p = (await create(s, base(`fine-${n}`))).json.product;
    assertProblem(await patch(s, p.id, fields), 400, 'VALIDATION_FAILED');
  }
  const r = await create(s, { ...base('bad-case'), options: { Size: 'M', size: 'L' } });
  assert.match(r.json.detail, /ignoring case/);
  assert.equal((await t.request('GET', '/api/v1/admin/products?limit=250', { token: s.admin })).json.total, ok.length + bad.length);
});

test('one product per combination of options in a group: 409 on create and PATCH, ignoring case and order; other groups, deleted products and no group are free', async () => {
  const s = await createStore(t);
  const other = await createStore(t);
  const first = (await create(s, { ...base('a'), group: 'shirt', options: { Size: 'M', Color: 'Blue' } })).json.product;
  const conflict = await create(s, { ...base('b'), group: 'shirt', options: { color: 'BLUE', size: 'm' } });
  assertProblem(conflict, 409, 'CONFLICT');
  assert.match(conflict.json.detail, /options/);
  assert.equal((await create(s, { ...base('c'), group: 'shirt', options: { Size: 'L', Color: 'Blue' } })).status, 201);
  assert.equal((await create(s, { ...base('d'), group: 'shirt', options: { Size: 'M' } })).status, 201, 'a subset is another combination');
  assert.equal((await create(s, { ...base('e'), group: 'other', options: { Size: 'M', Color: 'Blue' } })).status, 201);
  assert.equal((await create(s, { ...base('f'), options: { Size: 'M', Color: 'Blue' } })).status, 201, 'without a group');
  assert.equal((await create(s, { ...base('g'), options: { Size: 'M', Color: 'Blue' } })).status, 201, 'twice without a group');
  assert.equal((await create(other, { ...base('a'), group: 'shirt', options: { Size: 'M', Color: 'Blue' } })).status, 201, 'another store');
  const plainInGroup = (await create(s, { ...base('h'), group: 'shirt' })).json.product;
  assertProblem(await create(s, { ...base('i'), group: 'shirt', options: {} }), 409, 'CONFLICT');
  // PATCH: into the group, or options made equal to another's.
  const loose = (await create(s, { ...base('j'), options: { Size: 'm', Color: 'blue' } })).json.product;
  assertProblem(await patch(s, loose.id, { group: 'shirt' }), 409, 'CONFLICT');
  const l = (await t.request('GET', '/api/v1/admin/products?q=linen&limit=250', { token: s.admin })).json.products.find((p: { slug: string }) => p.slug === 'c');
  assertProblem(await patch(s, l.id, { options: { Size: 'M', Color: 'Blue' } }), 409, 'CONFLICT');
  assertProblem(await patch(s, plainInGroup.id, { options: { Size: 'M' } }), 409, 'CONFLICT');
  assert.equal((await patch(s, loose.id, { slug: 'j2' })).status, 200, 'an unrelated edit of a product is no conflict');
  const same = await patch(s, first.id, { options: { Size: 'M', Color: 'Blue' }, name: 'Same options again' });
  assert.equal(same.status, 200, 'a product keeps its own combination');
  // A deleted product frees its combination; a draft does not.
  await t.request('DELETE', `/api/v1/admin/products/${first.id}`, { token: s.admin });
  assert.equal((await patch(s, loose.id, { group: 'shirt' })).status, 200);
  await patch(s, loose.id, { status: 'DRAFT' });
  assertProblem(await create(s, { ...base('k'), group: 'shirt', options: { Size: 'M', Color: 'Blue' } }), 409, 'CONFLICT');
});

test('concurrent admin writes of one combination: exactly one succeeds, the others are 409', async () => {
  const s = await createStore(t);
  const creates = await Promise.all(
    Array.from({ length: 8 }, (_, n) => create(s, { ...base(`race-${n}`), group: 'race', options: { Size: n % 2 ? 'xl' : 'XL' } })),
  );
  assert.deepEqual(creates.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409, 409, 409], creates.map((r) => r.text).join('\n'));
  const movers = await Promise.all(Array.from({ length: 6 }, (_, n) => create(s, { ...base(`mover-${n}`), options: { Size: 'S' } })));
  const patches = await Promise.all(movers.map((r) => patch(s, r.json.product.id, { group: 'race' })));
  assert.deepEqual(patches.map((r) => r.status).sort(), [200, 409, 409, 409, 409, 409], patches.map((r) => r.text).join('\n'));
  const group = await t.request('GET', '/api/v1/products?group=race', { token: s.storefront });
  assert.equal(group.json.total, 2);
});

test('_count.variants counts the visible products of the group: drafts, deleted products and archived collections leave it', async () => {
  const s = await createStore(t);
  const coll = await createCollection(t, s);
  const variants: Array<{ id: string }> = [];
  for (const size of ['S', 'M', 'L', 'XL']) variants.push((await create(s, { ...base(`v-${size.toLowerCase()}`), group: 'tee', options: { Size: size } })).json.product);
  const count = async () => (await t.request('GET', `/api/v1/admin/products/${variants[0]!.id}`, { token: s.admin })).json.product._count.variants;
  const listed = async () => (await t.request('GET', '/api/v1/products?group=tee', { token: s.storefront })).json;
  assert.equal(await count(), 4);
  assert.deepEqual((await listed()).products.map((p: { _count: { variants: number } }) => p._count.variants), [4, 4, 4, 4]);
  await patch(s, variants[1]!.id, { status: 'DRAFT' });
  assert.equal(await count(), 3, 'a draft is not visible');
  const draft = await t.request('GET', `/api/v1/admin/products/${variants[1]!.id}`, { token: s.admin });
  assert.equal(draft.json.product._count.variants, 3, 'a draft counts the visible others');
  await addToCollection(t, s, coll.id, variants[2]!.id);
  await t.request('PATCH', `/api/v1/admin/collections/${coll.id}`, { token: s.admin, body: { archived: true } });
  assert.equal(await count(), 2, 'a product of an archived collection is not visible');
  assert.equal((await listed()).total, 2);
  await t.request('PATCH', `/api/v1/admin/collections/${coll.id}`, { token: s.admin, body: { archived: false } });
  assert.equal(await count(), 3);
  await t.request('DELETE', `/api/v1/admin/products/${variants[3]!.id}`, { token: s.admin });
  assert.equal(await count(), 2);
  assert.equal((await createProduct(t, s))._count.variants, 0, 'no group: 0');
});

test('order lines keep group, options and images as ordered, whatever the product becomes; cart lines show the current ones', async () => {
  const s = await createStore(t);
  const images = [{ url: 'https://cdn.example/tee-red.png', alt: 'Red tee' }];
  const p = (await create(s, { ...base('tee-red-m'), group: 'tee', options: { Color: 'Red', Size: 'M' }, images })).json.product;
  const { customer, address } = await createAddress(t, s);
  const direct = await placeOrder(t, s, customer, { address: address.id, products: [{ id: p.id, quantity: 1 }] });
  assert.equal(direct.status, 201, direct.text);
  const cart = await createCart(t, s, [{ id: p.id, quantity: 1 }]);
  const fromCart = await placeOrder(t, s, customer, { address: address.id, id: cart.id });
  assert.equal(fromCart.status, 201, fromCart.text);
  const cart2 = await createCart(t, s, [{ id: p.id, quantity: 1 }]);
  // JSON objects are unordered: the stored line keeps the names and values (the group view gives the display order).
  for (const order of [direct.json.order, fromCart.json.order]) {
    assert.equal(order.products[0].group, 'tee');
    assert.deepEqual(order.products[0].options, { Color: 'Red', Size: 'M' });
    assert.deepEqual(order.products[0].images, images);
  }
  await patch(s, p.id, { group: 'shirt', options: { Color: 'Crimson' }, images: [{ url: '/new.png', alt: 'new' }] });
  for (const order of [direct.json.order, fromCart.json.order]) {
    const again = await t.request('GET', `/api/v1/${customer}/orders/${order.id}`, { token: s.server });
    assert.equal(again.json.order.products[0].group, 'tee');
    assert.deepEqual(again.json.order.products[0].options, { Color: 'Red', Size: 'M' });
    assert.deepEqual(again.json.order.products[0].images, images);
  }
  const listed = await t.request('GET', '/api/v1/admin/orders', { token: s.admin });
  assert.ok(listed.json.orders.every((o: { products: Array<{ group: string }> }) => o.products[0]!.group === 'tee'));
  const created = await t.request('GET', '/api/v1/admin/events?type=order.created', { token: s.admin });
  assert.deepEqual(created.json.events[0].data.order.products[0].options, { Color: 'Red', Size: 'M' }, 'the event shows the line as ordered');
  const current = await t.request('GET', `/api/v1/carts/${cart2.id}`, { token: s.storefront });
  assert.equal(current.json.cart.products[0].group, 'shirt', 'a cart line shows the product as it is now');
  assert.deepEqual(current.json.cart.products[0].options, { Color: 'Crimson' });
});
