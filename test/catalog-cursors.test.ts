import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp } from './support/app.js';
import { addToCollection, assertProblem, createCollection, createProduct, createStore, type TestStore } from './support/factories.js';

const t = await startTestApp();

interface ListAnswer {
  products: Array<{ id: string; name: string; price: number; quantity: number }>;
  total: number;
  nextCursor: string | null;
}
const list = async (s: TestStore, query: string): Promise<ListAnswer> => {
  const r = await t.request('GET', `/api/v1/products?${query}`, { token: s.storefront });
  assert.equal(r.status, 200, `${query}: ${r.text}`);
  return r.json;
};
const ids = (products: Array<{ id: string }>) => products.map((p) => p.id);

test('filters: minPrice, maxPrice (inclusive) and inStock, in every combination with collection and q; total counts every match', async () => {
  const s = await createStore(t);
  const coll = await createCollection(t, s);
  const made: Array<{ id: string; price: number; quantity: number; inCollection: boolean; linen: boolean }> = [];
  for (let i = 0; i < 12; i++) {
    const p = await createProduct(t, s, { name: `${i % 2 ? 'Linen' : 'Wool'} item ${i}`, price: 100 * i, quantity: i % 3 === 0 ? 0 : i });
    if (i % 4 !== 1) await addToCollection(t, s, coll.id, p.id);
    made.push({ ...p, inCollection: i % 4 !== 1, linen: i % 2 === 1 });
  }
  const options = {
    minPrice: [undefined, 0, 300],
    maxPrice: [undefined, 300, 800],
    inStock: [undefined, true, false],
    collection: [undefined, coll.slug],
    q: [undefined, 'linen'],
  };
  let combinations = 0;
  for (const minPrice of options.minPrice) for (const maxPrice of options.maxPrice) for (const inStock of options.inStock) {
    for (const collection of options.collection) for (const q of options.q) {
      const params = new URLSearchParams();
      const set = { minPrice, maxPrice, inStock, collection, q };
      for (const [k, v] of Object.entries(set)) if (v !== undefined) params.set(k, String(v));
      const expected = made.filter(
        (p) =>
          (minPrice === undefined || p.price >= minPrice) &&
          (maxPrice === undefined || p.price <= maxPrice) &&
          (inStock === undefined || (inStock ? p.quantity > 0 : p.quantity === 0)) &&
          (collection === undefined || p.inCollection) &&
          (q === undefined || p.linen),
      );
      const whole = await list(s, `${params}&sort=price`);
      assert.deepEqual(ids(whole.products), ids(expected), `${params}`);
      assert.equal(whole.total, expected.length, `${params}`);
      const page = await list(s, `${params}&sort=price&limit=2`);
      assert.equal(page.total, expected.length, `total on a short page: ${params}`);
      assert.equal(page.nextCursor === null, expected.length <= 2);
      combinations++;
    }
  }
  assert.equal(combinations, 108);
  assert.equal((await list(s, 'minPrice=300&maxPrice=300')).total, 1, 'a single price');
});

test('bad filters and cursors are 400 and change nothing', async () => {
  const s = await createStore(t);
  for (let i = 0; i < 3; i++) await createProduct(t, s, { price: i });
  const first = await list(s, 'limit=1&sort=price');
  const cursor = first.nextCursor!;
  assert.equal(typeof cursor, 'string');
  const bad = [
    'minPrice=5&maxPrice=4', 'minPrice=-1', 'maxPrice=1.5', 'minPrice=abc', 'maxPrice=99999999999', 'inStock=maybe', 'inStock=',
    'after=', 'after=not-a-cursor', `after=${cursor}x`, `after=${cursor.slice(0, -4)}`,
    `after=${Buffer.from('{"k":[1],"i":"x","b":"y"}').toString('base64url')}`,
    `after=${Buffer.from('[]').toString('base64url')}`,
    `after=${cursor}&sort=price&offset=0`, `after=${cursor}&sort=price&offset=1`,
    `after=${cursor}`, `after=${cursor}&sort=-price`, `after=${cursor}&sort=price&q=x`, `after=${cursor}&sort=price&minPrice=0`,
    `after=${cursor}&sort=price&inStock=true`, `after=${cursor}&sort=price&collection=c`, `after=${cursor}&sort=name`,
  ];
  for (const query of bad) {
    assertProblem(await t.request('GET', `/api/v1/products?${query}`, { token: s.storefront }), 400, 'VALIDATION_FAILED');
  }
  const other = await createStore(t);
  assertProblem(await t.request('GET', `/api/v1/products?after=${cursor}&sort=price`, { token: other.storefront }), 400, 'VALIDATION_FAILED');
  // A cursor whose keys were edited (the JSON is readable) is refused when a key has the wrong type.
  const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  const forged = Buffer.from(JSON.stringify({ ...decoded, k: ["0); drop table products; --"] })).toString('base64url');
  assertProblem(await t.request('GET', `/api/v1/products?after=${forged}&sort=price`, { token: s.storefront }), 400, 'VALIDATION_FAILED');
  assert.equal((await list(s, 'sort=price')).total, 3);
  // The same list with another page size continues where it was.
  const rest = await list(s, `after=${cursor}&sort=price&limit=5`);
  assert.deepEqual(rest.products.map((p) => p.price), [1, 2]);
  assert.equal(rest.nextCursor, null);
  assert.equal(rest.total, 3, 'total on every page');
});

/** Walks a list page by page while `between` changes the catalog; returns the ids seen, in order. */
async function walk(s: TestStore, query: string, between: (page: number) => Promise<void>) {
  const seen: string[] = [];
  let after: string | null = null;
  for (let page = 0; page < 100; page++) {
    const answer: ListAnswer = await list(s, `${query}&limit=3${after ? `&after=${after}` : ''}`);
    seen.push(...ids(answer.products));
    assert.ok(answer.total > 0, 'total on every page');
    if (answer.nextCursor === null) return seen;
    after = answer.nextCursor;
    await between(page);
  }
  throw new Error('the walk did not end');
}

test('cursor walks over a changing catalog: no product that existed throughout is skipped or repeated, for every sort and with q', async () => {
  const s = await createStore(t);
  const sorts = ['sort=createdAt', 'sort=-createdAt', 'sort=price', 'sort=-price', 'sort=name', 'sort=-name', 'q=lamp', 'q=lamp&sort=price', 'inStock=true&minPrice=100'];
  let n = 0;
  const make = (fields: { name?: string } = {}) => {
    n++;
    const price = 100 + ((n * 37) % 23) * 10;
    return createProduct(t, s, { name: `${n % 2 ? 'Lamp' : 'Desk lamp'} ${String((n * 7919) % 1000).padStart(3, '0')}`, price, quantity: 5, ...fields });
  };
  for (let i = 0; i < 14; i++) await make();
  for (const query of sorts) {
    const before = await list(s, `${query}&limit=250`);
    const deleted = new Set<string>();
    const added = new Set<string>();
    const seen = await walk(s, query, async (page) => {
      // Between pages: one new product, and one product deleted from somewhere in the list.
      added.add((await make()).id);
      const current = await list(s, `${query}&limit=250`);
      const victim = current.products[(page * 5) % current.products.length]!;
      if (!added.has(victim.id)) {
        await t.request('DELETE', `/api/v1/admin/products/${victim.id}`, { token: s.admin });
        deleted.add(victim.id);
      }
    });
    assert.ok(deleted.size >= 2 && added.size >= 4, `${query}: the catalog changed while walking`);
    assert.equal(new Set(seen).size, seen.length, `${query}: no product twice`);
    const throughout = ids(before.products).filter((id) => !deleted.has(id));
    for (const id of throughout) assert.ok(seen.includes(id), `${query}: ${id} existed throughout and was skipped`);
    for (const id of seen) assert.ok(!deleted.has(id) || ids(before.products).includes(id), `${query}: nothing unknown`);
  }
});

test('nextCursor: null on the last page and on an empty list; a cursor keeps working after its product is deleted', async () => {
  const s = await createStore(t);
  assert.deepEqual(await list(s, 'limit=5'), { products: [], total: 0, nextCursor: null });
  const made = [];
  for (let i = 0; i < 4; i++) made.push(await createProduct(t, s, { price: i }));
  const first = await list(s, 'sort=price&limit=2');
  assert.deepEqual(first.products.map((p) => p.price), [0, 1]);
  await t.request('DELETE', `/api/v1/admin/products/${made[1].id}`, { token: s.admin });
  const second = await list(s, `sort=price&limit=2&after=${first.nextCursor}`);
  assert.deepEqual(second.products.map((p) => p.price), [2, 3]);
  assert.equal(second.nextCursor, null, 'exactly a full page with nothing after it');
  assert.equal(second.total, 3);
  const exact = await list(s, 'sort=price&limit=3');
  assert.equal(exact.nextCursor, null);
});
