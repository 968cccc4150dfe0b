/**
 * Saving a group's variants in one request (POST /v1/admin/product-groups/:group/variants): 100 new
 * products at once, changes and creations together, all or none (a refused entry leaves every row
 * and event as it was, and the problem names the entry and its field), the count limits, retries
 * with an Idempotency-Key, a staff member's session and its events' actor.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { startTestApp } from './support/app.js';
import { assertProblem, createProduct, createStore, type TestStore } from './support/factories.js';
import { staffMember } from './support/staff.js';

const t = await startTestApp();

const save = (s: TestStore, group: string, variants: unknown[], headers: Record<string, string> = {}, token = s.admin) =>
  t.request('POST', `/api/v1/admin/product-groups/${group}/variants`, { token, body: { variants }, headers });
const sizes = (group: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ name: 'Canvas tote', slug: `${group}-${i}`, sku: `${group.toUpperCase()}-${i}`, price: 2500 + i, quantity: i % 3, status: 'ACTIVE', options: { Size: `S${i}` } }));

/** The store's events as written (the feed waits for every transaction older than them, other databases' too). */
const eventsOf = (s: TestStore, types: string[]) =>
  queryRows<{ type: string; data: { product: { slug: string } }; actor: { type: string; id: string } }>(
    t.database.db,
    sql`select type, data, actor from events where store = ${s.slug} and type in (${sql.join(types.map((type) => sql`${type}`), sql`, `)}) order by txid, seq`,
  );

async function rows(s: TestStore) {
  const [counted] = await queryRows<{ products: number; events: number }>(
    t.database.db,
    sql`select (select count(*)::int from products where store = ${s.slug}) as products, (select count(*)::int from events where store = ${s.slug}) as events`,
  );
  return counted!;
}

test('100 variants in one request: every product created in the group, answered in order, one event each', async () => {
  const s = await createStore(t);
  assert.equal((await t.request('GET', '/api/v1/product-groups/tote', { token: s.storefront })).status, 404, 'read (and cached) before the save');
  const r = await save(s, 'tote', sizes('tote', 100));
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.group, 'tote');
  assert.equal(r.json.products.length, 100);
  r.json.products.forEach((p: { slug: string; group: string; options: Record<string, string>; price: number; held: number; status: string }, i: number) => {
    assert.equal(p.slug, `tote-${i}`, 'in the order of the request');
    assert.equal(p.group, 'tote');
    assert.deepEqual(p.options, { Size: `S${i}` });
    assert.equal(p.price, 2500 + i);
    assert.equal(p.held, 0);
    assert.equal(p.status, 'ACTIVE');
  });
  assert.equal(r.json.products[0]._count.variants, 100, 'the counts see every product of the save');
  const group = await t.request('GET', '/api/v1/product-groups/tote', { token: s.storefront });
  assert.equal(group.json.group.products.length, 100);
  assert.deepEqual(group.json.group.options[0].values, sizes('tote', 100).map((v) => v.options.Size), 'the group lists its values in the order given');
  const events = await eventsOf(s, ['product.created']);
  assert.deepEqual(events.map((e) => e.data.product.slug), r.json.products.map((p: { slug: string }) => p.slug));
});

test('changes and creations together: an entry with id changes that product and puts it in the group; an omitted field stays', async () => {
  const s = await createStore(t);
  const loose = await createProduct(t, s, { name: 'Mug', slug: 'mug-white', price: 1200, quantity: 0 });
  const r = await save(s, 'mug', [
    { id: loose.id, options: { Color: 'White' }, quantity: 4 },
    { name: 'Mug', slug: 'mug-black', sku: 'MUG-B', price: 1300, quantity: 2, options: { Color: 'Black' } },
  ]);
  assert.equal(r.status, 200, r.text);
  const [white, black] = r.json.products;
  assert.equal(white.id, loose.id);
  assert.equal(white.group, 'mug');
  assert.equal(white.price, 1200, 'unchanged fields stay');
  assert.equal(white.quantity, 4);
  assert.equal(white.status, loose.status);
  assert.equal(black.status, 'DRAFT', 'a new product is a draft unless told');
  const types = (await eventsOf(s, ['product.created', 'product.updated', 'product.back_in_stock'])).map((e) => e.type);
  assert.deepEqual(types.slice(-3), ['product.updated', 'product.back_in_stock', 'product.created'], 'a stock change that crosses zero is told as a single PATCH tells it');
  // The admin list of a group: every product of it, drafts too (what the dashboard edits together).
  const listed = await t.request('GET', '/api/v1/admin/products?group=mug', { token: s.admin });
  assert.deepEqual(listed.json.products.map((p: { slug: string }) => p.slug).sort(), ['mug-black', 'mug-white']);
  assert.equal(listed.json.total, 2);
  const again = await save(s, 'mug', [
    { id: white.id, price: 1250, originalPrice: 1500, options: { Color: 'Snow' } },
    { id: black.id, price: 1350, originalPrice: null, options: { Color: 'Black' } },
    { name: 'Mug', slug: 'mug-white-2', sku: 'MUG-W2', price: 1200, quantity: 1, options: { Color: 'White' } },
  ]);
  assert.equal(again.status, 200, again.text);
  assert.deepEqual(again.json.products.map((p: { price: number; originalPrice: number | null; options: object }) => [p.price, p.originalPrice, p.options]), [
    [1250, 1500, { Color: 'Snow' }], [1350, null, { Color: 'Black' }], [1200, null, { Color: 'White' }],
  ], 'changes in one statement (a null among them), and a combination one gives up taken by a new one');
});

test('one bad variant refuses all and changes nothing; the problem names its index and field', async () => {
  const s = await createStore(t);
  const taken = await createProduct(t, s, { slug: 'bag-taken', price: 100 });
  const [red] = (await save(s, 'bag', [{ name: 'Bag', slug: 'bag-red', sku: 'BAG-R', price: 900, quantity: 1, options: { Color: 'Red' } }])).json.products;
  const before = await rows(s);
  const good = sizes('bag', 10);

  const cases: Array<{ variants: unknown[]; status: number; code: string; field: string; message?: RegExp }> = [
    // The schema's refusal of one entry's field.
    { variants: [...good.slice(0, 5), { ...good[5], price: -1 }, ...good.slice(6)], status: 400, code: 'VALIDATION_FAILED', field: 'body.variants.5.price' },
    { variants: [...good.slice(0, 3), { ...good[3], group: 'other' }], status: 400, code: 'VALIDATION_FAILED', field: 'body.variants.3.group', message: /not a known field/ },
    // What a new product lacks.
    { variants: [...good.slice(0, 7), { name: 'Bag', slug: 'bag-x', price: 1, quantity: 1 }], status: 400, code: 'VALIDATION_FAILED', field: 'body.variants.7.sku', message: /required for a new product/ },
    // Entries that collide with each other.
    { variants: [...good.slice(0, 4), { ...good[4], slug: 'bag-0' }], status: 400, code: 'VALIDATION_FAILED', field: 'body.variants.4.slug', message: /variants\[0\]/ },
    { variants: [...good.slice(0, 9), { ...good[9], options: { size: 's2' } }], status: 400, code: 'VALIDATION_FAILED', field: 'body.variants.9.options', message: /variants\[2\]/ },
    { variants: [...good.slice(0, 2), { ...good[2], options: { Size: 'M', size: 'L' } }], status: 400, code: 'VALIDATION_FAILED', field: 'body.variants.2.options', message: /twice/ },
    { variants: [{ id: red.id, price: 1 }, ...good.slice(0, 3), { id: red.id, price: 2 }], status: 400, code: 'VALIDATION_FAILED', field: 'body.variants.4.id' },
    // Collisions with what the store has.
    { variants: [...good.slice(0, 6), { ...good[6], slug: 'bag-taken' }], status: 409, code: 'CONFLICT', field: 'body.variants.6.slug', message: /another product/ },
    { variants: [...good.slice(0, 8), { ...good[8], options: { COLOR: 'red' } }], status: 409, code: 'CONFLICT', field: 'body.variants.8.options', message: /bag-red/ },
    { variants: [...good.slice(0, 1), { id: randomUUID(), price: 5 }], status: 404, code: 'NOT_FOUND', field: 'body.variants.1.id' },
  ];
  for (const c of cases) {
    const r = await save(s, 'bag', c.variants);
    assertProblem(r, c.status, c.code);
    const problem = r.json.errors.find((e: { field: string }) => e.field === c.field);
    assert.ok(problem, `${c.field} in ${r.text}`);
    if (c.message) assert.match(problem.message, c.message);
    assert.deepEqual(await rows(s), before, `nothing written for ${c.field}`);
  }
  assert.equal((await t.request('GET', `/api/v1/admin/products/${red.id}`, { token: s.admin })).json.product.price, 900, 'the changed entry before the bad one is undone');
  assert.equal((await t.request('GET', '/api/v1/products?group=bag', { token: s.storefront })).json.total, 0, 'no new variant is visible');
});

test('limits on count: at least 1 and at most 100 entries per request; the group is a slug', async () => {
  const s = await createStore(t);
  const before = await rows(s);
  assertProblem(await save(s, 'cap', []), 400, 'VALIDATION_FAILED');
  const over = await save(s, 'cap', sizes('cap', 101));
  assertProblem(over, 400, 'VALIDATION_FAILED');
  assert.equal(over.json.errors[0].field, 'body.variants');
  assertProblem(await save(s, 'Not A Slug', sizes('cap', 1)), 400, 'VALIDATION_FAILED');
  assert.deepEqual(await rows(s), before);
});

test('a retry with the same Idempotency-Key replays the answer and creates nothing twice', async () => {
  const s = await createStore(t);
  const headers = { 'idempotency-key': 'save-lamps-1' };
  const first = await save(s, 'lamp', sizes('lamp', 3), headers);
  assert.equal(first.status, 200, first.text);
  const after = await rows(s);
  const second = await save(s, 'lamp', sizes('lamp', 3), headers);
  assert.equal(second.status, 200);
  assert.equal(second.headers['idempotent-replayed'], 'true');
  assert.deepEqual(second.json, first.json);
  assert.deepEqual(await rows(s), after);
});

test('a staff member may save variants; the events name them', async () => {
  const s = await createStore(t);
  const member = await staffMember(t, s, 'staff');
  const r = await save(s, 'cap', sizes('cap', 2), {}, member.secret);
  assert.equal(r.status, 200, r.text);
  const events = await eventsOf(s, ['product.created']);
  assert.deepEqual(events.map((e) => [e.actor.type, e.actor.id]), [['staff', member.id], ['staff', member.id]]);
});

test('two saves racing for one combination: one succeeds whole, the other is 409 and writes nothing', async () => {
  const s = await createStore(t);
  const entry = (slug: string) => [
    { name: 'Scarf', slug: `${slug}-a`, sku: `${slug}-A`, price: 900, quantity: 1, options: { Color: `Only-${slug}` } },
    { name: 'Scarf', slug: `${slug}-b`, sku: `${slug}-B`, price: 900, quantity: 1, options: { Color: 'Grey' } },
  ];
  const answers = await Promise.all([save(s, 'scarf', entry('one')), save(s, 'scarf', entry('two'))]);
  assert.deepEqual(answers.map((r) => r.status).sort(), [200, 409], answers.map((r) => r.text).join('\n'));
  const saved = await queryRows<{ slug: string }>(t.database.db, sql`select slug from products where store = ${s.slug} and group_slug = 'scarf' order by slug`);
  const winner = answers.find((r) => r.status === 200)!;
  assert.deepEqual(saved.map((p) => p.slug), winner.json.products.map((p: { slug: string }) => p.slug).sort(), 'only the winner\'s two products');
});
