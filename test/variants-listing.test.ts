/**
 * GET /v1/products with `group=` and `collapse=group`: with every sort, `q`, the filters, `total`
 * and cursors (also over a catalog that changes between pages); and search on option values.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp } from './support/app.js';
import { addToCollection, assertProblem, createCollection, createProduct, createStore, type ProductFields, type TestStore } from './support/factories.js';

const t = await startTestApp();

interface Listed {
  id: string;
  name: string;
  price: number;
  quantity: number;
  createdAt: string;
  group: string | null;
  options: Record<string, string>;
}
interface ListAnswer {
  products: Listed[];
  total: number;
  nextCursor: string | null;
}
const list = async (s: TestStore, query: string): Promise<ListAnswer> => {
  const r = await t.request('GET', `/api/v1/products?${query}`, { token: s.storefront });
  assert.equal(r.status, 200, `${query}: ${r.text}`);
  return r.json;
};
const ids = (products: Array<{ id: string }>) => products.map((p) => p.id);

/** Every page of a list, `limit` at a time. */
async function walk(s: TestStore, query: string, limit: number, between: (page: number) => Promise<void> = async () => {}) {
  const seen: Listed[] = [];
  let after: string | null = null;
  for (let page = 0; page < 100; page++) {
    const answer: ListAnswer = await list(s, `${query}&limit=${limit}${after ? `&after=${after}` : ''}`);
    seen.push(...answer.products);
    if (answer.nextCursor === null) return seen;
    after = answer.nextCursor;
    await between(page);
  }
  throw new Error('the walk did not end');
}

const SORTS = {
  createdAt: (a: Listed, b: Listed) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id),
  price: (a: Listed, b: Listed) => a.price - b.price || a.id.localeCompare(b.id),
  name: (a: Listed, b: Listed) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id.localeCompare(b.id)),
};
/** The expected collapsed list: the products in order, each group kept at its first product. */
function collapse(products: Listed[], sort: string): Listed[] {
  const compare = SORTS[sort.replace('-', '') as keyof typeof SORTS];
  const ordered = [...products].sort((a, b) => (sort.startsWith('-') ? compare(b, a) : compare(a, b)));
  const seen = new Set<string>();
  return ordered.filter((p) => p.group === null || (!seen.has(p.group) && seen.add(p.group)));
}

/** Names of one case and letters only, so PostgreSQL's collation and JavaScript order them alike. */
const NAMES = ['amber', 'birch', 'cedar', 'dune', 'ember', 'fern', 'grove', 'heath', 'iris', 'juniper', 'kelp', 'larch'];

async function catalogWithGroups(s: TestStore) {
  const made: Listed[] = [];
  const add = async (fields: ProductFields) => made.push(await createProduct(t, s, fields));
  for (let n = 0; n < 26; n++) {
    // Groups g0..g4 of 2..6 variants, and ungrouped products between them.
    const group = n % 3 === 2 ? null : `g${n % 5}`;
    await add({
      name: `${NAMES[(n * 5) % NAMES.length]} ${group ?? 'single'}`,
      price: 100 + ((n * 37) % 11) * 10,
      quantity: n % 4 === 0 ? 0 : 3,
      group,
      options: group ? { Size: `s${n}` } : {},
    });
  }
  return made;
}

test('group=: only that group\'s visible products, with every other parameter; an unknown group is empty', async () => {
  const s = await createStore(t);
  const made = await catalogWithGroups(s);
  const g1 = made.filter((p) => p.group === 'g1');
  const answer = await list(s, 'group=g1&sort=price&limit=250');
  assert.deepEqual(ids(answer.products), ids([...g1].sort(SORTS.price)));
  assert.equal(answer.total, g1.length);
  assert.equal((await list(s, 'group=g1&inStock=true')).total, g1.filter((p) => p.quantity > 0).length);
  assert.equal((await list(s, 'group=g1&collapse=group')).total, 1);
  assert.deepEqual(await list(s, 'group=nope'), { products: [], total: 0, nextCursor: null });
  assert.deepEqual(await list(s, 'group=g1&q=zzzz'), { products: [], total: 0, nextCursor: null });
  await t.request('PATCH', `/api/v1/admin/products/${g1[0]!.id}`, { token: s.admin, body: { status: 'DRAFT' } });
  assert.equal((await list(s, 'group=g1')).total, g1.length - 1, 'drafts are not listed');
  const other = await createStore(t);
  assert.equal((await list(other, 'group=g1')).total, 0, 'another store\'s group is not this one');
});

test('collapse=group with every sort, with filters and a collection: each group once, at its first product; total counts entries; pages join up', async () => {
  const s = await createStore(t);
  const made = await catalogWithGroups(s);
  const coll = await createCollection(t, s);
  for (const p of made.filter((_, n) => n % 2 === 0)) await addToCollection(t, s, coll.id, p.id);
  const inCollection = new Set(ids(made.filter((_, n) => n % 2 === 0)));
  const filters: Array<[string, (p: Listed) => boolean]> = [
    ['', () => true],
    ['&inStock=true', (p) => p.quantity > 0],
    ['&minPrice=150&maxPrice=190', (p) => p.price >= 150 && p.price <= 190],
    [`&collection=${coll.slug}`, (p) => inCollection.has(p.id)],
  ];
  for (const sort of ['createdAt', '-createdAt', 'price', '-price', 'name', '-name']) {
    for (const [filter, keep] of filters) {
      const query = `collapse=group&sort=${sort}${filter}`;
      const expected = collapse(made.filter(keep), sort);
      const whole = await list(s, `${query}&limit=250`);
      assert.deepEqual(ids(whole.products), ids(expected), query);
      assert.equal(whole.total, expected.length, `${query}: total counts groups plus ungrouped products`);
      const paged = await walk(s, query, 4);
      assert.deepEqual(ids(paged), ids(expected), `${query}: cursor pages`);
      assert.equal((await list(s, `${query}&limit=3&offset=2`)).products[0]?.id, expected[2]?.id, `${query}: offset`);
    }
  }
  // Without a sort, newest first.
  assert.deepEqual(ids((await list(s, 'collapse=group&limit=250')).products), ids(collapse(made, '-createdAt')));
  assert.equal((await list(s, 'limit=1')).total, made.length, 'not collapsed: every product');
});

test('collapse=group with q: the most relevant variant stands for its group; option values are searched', async () => {
  const s = await createStore(t);
  const red = await createProduct(t, s, { name: 'Linen shirt', sku: 'LS-RED', group: 'linen-shirt', options: { Color: 'Red', Size: 'M' } });
  const blue = await createProduct(t, s, { name: 'Linen shirt', sku: 'LS-BLUE', group: 'linen-shirt', options: { Color: 'Blue', Size: 'M' } });
  const green = await createProduct(t, s, { name: 'Linen shirt', sku: 'LS-GREEN', group: 'linen-shirt', options: { Color: 'Green', Size: 'M' } });
  const poster = await createProduct(t, s, { name: 'Poster of a linen shirt', description: '<p>Blue ink</p>' });
  const scarf = await createProduct(t, s, { name: 'Navy scarf', group: 'scarf', options: { Colour: 'Navy' } });
  const q = async (query: string) => ids((await list(s, query)).products);
  assert.deepEqual(await q('q=blue%20linen'), [blue.id, poster.id], 'the option value is a name word: the Blue variant ranks first');
  assert.deepEqual(await q('q=blue%20linen&collapse=group'), [blue.id, poster.id]);
  assert.deepEqual(await q('q=linen&collapse=group'), [poster.id, green.id], 'relevance ties: the newest variant');
  assert.deepEqual(await q('q=ls-red&collapse=group'), [red.id], 'an exact sku match first');
  assert.deepEqual(await q('q=shirt%20ls-red&collapse=group'), [red.id]);
  assert.deepEqual(await q('q=linen&collapse=group&sort=createdAt'), [red.id, poster.id]);
  assert.deepEqual(await q('q=gree&collapse=group'), [green.id], 'a prefix of an option value');
  assert.deepEqual(await q('q=greene'), [green.id], 'a one-letter typo of an option value');
  assert.deepEqual(await q('q=navy'), [scarf.id]);
  assert.equal((await list(s, 'q=linen&collapse=group')).total, 2);
  assert.equal((await list(s, 'q=linen')).total, 4);
  // The admin search finds option values too, and renamed options are found at once.
  await t.request('PATCH', `/api/v1/admin/products/${scarf.id}`, { token: s.admin, body: { options: { Colour: 'Teal' } } });
  assert.deepEqual(await q('q=teal'), [scarf.id]);
  assert.deepEqual(await q('q=navy'), [scarf.id], 'the name still says navy');
  const admin = await t.request('GET', '/api/v1/admin/products?q=teal', { token: s.admin });
  assert.deepEqual(ids(admin.json.products), [scarf.id]);
});

test('a cursor of a collapsed list walks a catalog that changes between pages: no entry that stayed is skipped or repeated', async () => {
  for (const sort of ['-createdAt', 'price', '-name']) {
    const s = await createStore(t);
    const made = await catalogWithGroups(s);
    const before = collapse(made, sort);
    let n = 0;
    const deleted = new Set<string>();
    const seen = await walk(s, `collapse=group&sort=${sort}`, 3, async (page) => {
      n++;
      // A new variant of a group, a new ungrouped product, and a deleted ungrouped product.
      await createProduct(t, s, { name: `${NAMES[n % NAMES.length]} g${n % 5}`, price: 100 + n * 3, group: `g${n % 5}`, options: { Size: `new${n}` } });
      await createProduct(t, s, { name: `${NAMES[(n + 3) % NAMES.length]} single`, price: 95 + n * 7 });
      const singles = before.filter((p) => p.group === null && !deleted.has(p.id));
      const victim = singles[(page * 4) % singles.length]!;
      await t.request('DELETE', `/api/v1/admin/products/${victim.id}`, { token: s.admin });
      deleted.add(victim.id);
    });
    assert.ok(n >= 3, `${sort}: the catalog changed while walking`);
    assert.equal(new Set(ids(seen)).size, seen.length, `${sort}: no product twice`);
    const groups = seen.filter((p) => p.group !== null).map((p) => p.group);
    assert.equal(new Set(groups).size, groups.length, `${sort}: no group twice`);
    // A group sits where its first product sits: a new variant that comes first moves the group
    // (as an edited sort key moves a product). Variants were only added, so a group whose first
    // product is the same at the end had it throughout, and must be there once.
    const after = (await list(s, `collapse=group&sort=${sort}&limit=250`)).products;
    for (const p of before) {
      if (deleted.has(p.id)) continue;
      const stayed = p.group === null || after.some((x) => x.id === p.id);
      if (stayed) assert.ok(seen.some((x) => x.id === p.id), `${sort}: ${p.name} (${p.group ?? 'no group'}) stayed and was skipped`);
    }
  }
});

test('cursors are bound to collapse and group; any other collapse is 400', async () => {
  const s = await createStore(t);
  await catalogWithGroups(s);
  const collapsed = (await list(s, 'collapse=group&sort=price&limit=2')).nextCursor!;
  const grouped = (await list(s, 'group=g1&sort=price&limit=1')).nextCursor!;
  assert.equal((await list(s, `collapse=group&sort=price&after=${collapsed}`)).products.length > 0, true);
  assert.equal((await list(s, `group=g1&sort=price&after=${grouped}`)).products.length > 0, true);
  for (const query of [
    `sort=price&after=${collapsed}`, `collapse=group&sort=-price&after=${collapsed}`, `collapse=group&group=g1&sort=price&after=${collapsed}`,
    `sort=price&after=${grouped}`, `group=g2&sort=price&after=${grouped}`, `group=g1&collapse=group&sort=price&after=${grouped}`,
    'collapse=groups', 'collapse=', 'collapse=Group', 'collapse=group&collapse=group', 'group=',
  ]) {
    assertProblem(await t.request('GET', `/api/v1/products?${query}`, { token: s.storefront }), 400, 'VALIDATION_FAILED');
  }
});
