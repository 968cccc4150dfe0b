/**
 * A checkout hold or release refreshes only the cached catalog answers that show its products: the
 * answers of other products, list pages without them and collections stay cached, in this process
 * and in any other, while every answer that shows a held product shows the hold to a read sent
 * after the hold was answered.
 *
 * How a test tells a cached answer from a fresh one: it renames products in the database directly,
 * which bumps no version, so a cached answer still shows the old name and a fresh one the new.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../src/db/client.js';
import { HeldMarks } from '../src/modules/catalog/held-marks.js';
import { ROOT_TOKEN, startAppOn, startTestApp, type TestApp } from './support/app.js';
import { TEST_DATABASE_URL, TEST_PREPARED_STATEMENTS } from './support/database.js';
import { addToCollection, createCollection, createProduct, createStore, type TestStore } from './support/factories.js';
import { call, startServerProcess } from './support/server-process.js';
import { createCart } from './support/shop.js';

const t = await startTestApp();
// A second app on the same database, with a cache of its own: another server process, as far as
// caching goes (PGlite cannot run two real ones).
const other = await startAppOn(t.database);

/** Renames products in the database, bumping no version: only a recomputed answer shows it. */
async function renameQuietly(s: TestStore, ids: string[], suffix: string) {
  await t.database.db.execute(sql`update products set name = name || ${suffix} where store = ${s.slug} and id in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`);
}

const get = async (app: TestApp, s: TestStore, url: string) => {
  const r = await app.request('GET', `/api/v1${url}`, { token: s.storefront });
  assert.equal(r.status, 200, `${url}: ${r.text}`);
  return r.json;
};
type Shown = { id: string; name: string; quantity: number };
const names = (products: Shown[]) => products.map((p) => p.name);

test('a hold, its renewal and its release refresh only the answers that show the held product, in both apps', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { name: 'A', quantity: 10, group: 'ga', options: { size: 'S' } });
  const b = await createProduct(t, s, { name: 'B', quantity: 10 });
  const collection = await createCollection(t, s, { name: 'Only B' });
  await addToCollection(t, s, collection.id, b.id);
  // Newest first: `limit=1` is the page of B alone.
  const urls = {
    a: `/products/${a.slug}`, b: `/products/${b.slug}`, pageWithoutA: '/products?limit=1', pageWithA: '/products',
    collectionOfB: `/products?collection=${collection.slug}`, groupOfA: '/product-groups/ga', inStock: '/products?inStock=true', collections: '/collections',
  };
  for (const app of [t, other]) for (const url of Object.values(urls)) await get(app, s, url);
  const cart = await createCart(t, s, [{ id: a.id, quantity: 3 }]);

  // `renamed`: the suffix a recomputed answer shows; cached answers of B still show plain 'B'.
  const expect = async (app: TestApp, when: string, { renamed, aQuantity }: { renamed: string; aQuantity: number }) => {
    const seen = `${when}, through ${app === t ? 'the app that held' : 'the other app'}`;
    const [aName, bName] = [`A${renamed}`, 'B'];
    assert.deepEqual(names([(await get(app, s, urls.b)).product]), [bName], `${seen}: B's page stays cached`);
    assert.deepEqual(names((await get(app, s, urls.pageWithoutA)).products), [bName], `${seen}: a page without A stays cached`);
    assert.deepEqual(names((await get(app, s, urls.collectionOfB)).products), [bName], `${seen}: a collection without A stays cached`);
    assert.equal((await get(app, s, urls.collections)).collections[0].name, 'Only B');
    const onA = (await get(app, s, urls.a)).product;
    assert.deepEqual([onA.name, onA.quantity], [aName, aQuantity], `${seen}: A's page is refreshed`);
    const page = (await get(app, s, urls.pageWithA)).products as Shown[];
    assert.deepEqual(page.map((p) => [p.name, p.quantity]), [[`B${renamed}`, 10], [aName, aQuantity]], `${seen}: a page with A is refreshed`);
    assert.deepEqual((await get(app, s, urls.groupOfA)).group.products.map((p: Shown) => [p.name, p.quantity]), [[aName, aQuantity]], `${seen}: A's group is refreshed`);
    assert.equal(((await get(app, s, urls.inStock)).products as Shown[]).find((p) => p.id === a.id)?.quantity, aQuantity, `${seen}: an inStock list depends on every product`);
  };

  await renameQuietly(s, [a.id, b.id], ' (1)');
  assert.equal((await t.request('POST', `/api/v1/carts/${cart.id}/hold`, { token: s.storefront })).status, 200);
  for (const app of [t, other]) await expect(app, 'after the hold', { renamed: ' (1)', aQuantity: 7 });

  // Renewing the running hold keeps the same units held: nothing is refreshed.
  await renameQuietly(s, [a.id, b.id], ' (2)');
  assert.equal((await other.request('POST', `/api/v1/carts/${cart.id}/hold`, { token: s.storefront })).status, 200);
  for (const app of [t, other]) assert.equal((await get(app, s, urls.a)).product.name, 'A (1)', 'a renewal leaves A cached');

  assert.equal((await other.request('DELETE', `/api/v1/carts/${cart.id}/hold`, { token: s.storefront })).status, 200);
  for (const app of [t, other]) await expect(app, 'after the release', { renamed: ' (1) (2)', aQuantity: 10 });

  // A cart change that ends a hold refreshes the same answers.
  assert.equal((await t.request('POST', `/api/v1/carts/${cart.id}/hold`, { token: s.storefront })).status, 200);
  await renameQuietly(s, [a.id, b.id], ' (3)');
  assert.equal((await other.request('PATCH', `/api/v1/carts/${cart.id}/products/${a.id}`, { token: s.storefront, body: { quantity: 2 } })).status, 200);
  for (const app of [t, other]) {
    assert.equal((await get(app, s, urls.b)).product.name, 'B', 'B stays cached');
    assert.deepEqual(((await get(app, s, urls.a)).product as Shown).quantity, 10, 'the change ended the hold, and A shows it');
  }
});

test('an admin edit still refreshes every answer of the store', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { name: 'A' });
  const b = await createProduct(t, s, { name: 'B' });
  for (const app of [t, other]) await get(app, s, `/products/${b.slug}`);
  await renameQuietly(s, [b.id], ' (quiet)');
  assert.equal((await t.request('PATCH', `/api/v1/admin/products/${a.id}`, { token: s.admin, body: { price: 120 } })).status, 200);
  for (const app of [t, other]) assert.equal((await get(app, s, `/products/${b.slug}`)).product.name, 'B (quiet)');
});

test('HeldMarks: marks only what changed since its last snapshot; past its bound, everything of the store once', async () => {
  const reads: Array<string | null> = [];
  let changes: string[] = [];
  const marks = new HeldMarks(async (_store, xmin) => {
    reads.push(xmin);
    const answer = { xmin: String(reads.length), productIds: changes };
    changes = [];
    return answer;
  }, 3);
  const first = await marks.seen('s', 1);
  assert.deepEqual(reads, [null], 'the first catch-up only takes its snapshot');
  assert.equal(await marks.seen('s', 1), first, 'a version already known needs no read');
  assert.deepEqual(reads, [null]);
  changes = ['a'];
  const second = await marks.seen('s', 2);
  assert.deepEqual(reads, [null, '1'], 'the next reads from the previous snapshot on');
  assert.ok(second > first);
  assert.equal(marks.fresh('s', first, ['a']), false);
  assert.equal(marks.fresh('s', first, ['b']), true);
  assert.equal(marks.fresh('s', first, 'every'), false);
  assert.equal(marks.fresh('s', second, ['a']), true, 'an answer computed after the catch-up holds the change');
  assert.equal(marks.fresh('t', first, ['a']), true, 'another store is not touched');
  changes = ['b', 'c', 'd'];
  const third = await marks.seen('s', 3);
  assert.equal(marks.fresh('s', second, ['x']), false, 'past its bound it forgets, and every older answer is stale');
  assert.equal(marks.fresh('s', third, ['b']), true);
  const [x, y] = await Promise.all([marks.seen('s', 4), marks.seen('s', 4)]);
  assert.equal(x, y);
  assert.equal(reads.length, 5, 'requests waiting at once share catch-ups');
});

test('HeldMarks: a store forgotten past the bound of stores has every answer filed before refreshed once when read again', async () => {
  let changes: string[] = [];
  const marks = new HeldMarks(async () => {
    const answer = { xmin: '1', productIds: changes };
    changes = [];
    return answer;
  }, 100, 1);
  const filed = await marks.seen('s', 1);
  await marks.seen('t', 1);
  changes = ['a']; // a hold of s while it was forgotten: no process catch-up marks it
  const again = await marks.seen('s', 2);
  assert.equal(marks.fresh('s', filed, ['b']), false, 'an answer filed before s was forgotten is stale');
  assert.equal(marks.fresh('s', again, ['b']), true, 'one computed after is not');
});

test('two server processes: a hold or release through one refreshes, through the other, only the answers that show its product', { skip: !TEST_DATABASE_URL && 'needs TEST_DATABASE_URL: PGlite is one process' }, async () => {
  const env = { DATABASE_URL: TEST_DATABASE_URL!, RATE_LIMIT_PER_MINUTE: '0', CLIENT_RATE_LIMIT_PER_MINUTE: '0', HOLDS_PER_CLIENT: '0' };
  const [one, two] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  const database = await openDatabase({ url: TEST_DATABASE_URL!, poolSize: 1, preparedStatements: TEST_PREPARED_STATEMENTS });
  try {
    const created = await call(one.base, 'POST', '/v1/admin/stores', { token: ROOT_TOKEN, body: { slug: `holdcache-${randomUUID().slice(0, 8)}` } });
    const { admin, storefront } = created.json.tokens;
    const product = async (name: string) =>
      (await call(one.base, 'POST', '/v1/admin/products', { token: admin, body: { name, slug: name.toLowerCase(), sku: name, price: 100, quantity: 50, status: 'ACTIVE' } })).json.product;
    const a = await product('A');
    const b = await product('B');
    const carts: string[] = [];
    for (let i = 0; i < 4; i++) carts.push((await call(two.base, 'POST', '/v1/carts', { token: storefront, body: { products: [{ id: a.id, quantity: i + 1 }] } })).json.cart.id);
    const read = async (base: string, url: string) => (await call(base, 'GET', url, { token: storefront })).json;
    for (const server of [one, two]) for (const url of ['/v1/products/a', '/v1/products/b', '/v1/products?limit=1']) await read(server.base, url);
    let held = 0;
    for (let round = 1; round <= 8; round++) {
      const [writer, reader] = round % 2 ? [one, two] : [two, one];
      const cart = carts[(round - 1) % 4]!;
      const holding = round <= 4;
      await database.db.execute(sql`update products set name = ${`A${round}`} where id = ${a.id}`);
      await database.db.execute(sql`update products set name = ${`B${round}`} where id = ${b.id}`);
      const r = await call(writer.base, holding ? 'POST' : 'DELETE', `/v1/carts/${cart}/hold`, { token: storefront });
      assert.equal(r.status, 200, r.text);
      held += (holding ? 1 : -1) * ((round - 1) % 4 + 1);
      const onA = (await read(reader.base, '/v1/products/a')).product;
      assert.deepEqual([onA.name, onA.quantity], [`A${round}`, 50 - held], `round ${round}: the other process shows the hold's change of A at once`);
      assert.equal((await read(reader.base, '/v1/products/b')).product.name, 'B', `round ${round}: B stays cached in the other process`);
      assert.deepEqual((await read(reader.base, '/v1/products?limit=1')).products.map((p: Shown) => p.name), ['B'], `round ${round}: a page without A stays cached`);
      assert.equal((await read(writer.base, '/v1/products/b')).product.name, 'B', `round ${round}: and in the process that held`);
    }
  } finally {
    await database.close();
    await Promise.all([one.stop(), two.stop()]);
  }
});
