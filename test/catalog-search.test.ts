import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestApp } from './support/app.js';
import { assertProblem, createProduct, createStore, type TestStore } from './support/factories.js';

const t = await startTestApp();

const search = async (s: TestStore, q: string, extra = '') => {
  const r = await t.request('GET', `/api/v1/products?q=${encodeURIComponent(q)}${extra}`, { token: s.storefront });
  assert.equal(r.status, 200, r.text);
  return r.json as { products: Array<{ id: string; name: string }>; total: number; nextCursor: string | null };
};
const names = async (s: TestStore, q: string) => (await search(s, q)).products.map((p) => p.name).sort();

test('q: every word must match a word or the start of a word, in any order, of name, sku or description', async () => {
  const s = await createStore(t);
  await createProduct(t, s, { name: 'Shirt in linen', sku: 'SIL-1', description: '<p>Light</p>' });
  await createProduct(t, s, { name: 'Linen trousers', sku: 'LT-1', description: '<p>Cool</p>' });
  await createProduct(t, s, { name: 'Wool shirt', sku: 'WS-1', description: '<p>Warm</p>' });
  assert.deepEqual(await names(s, 'linen shirt'), ['Shirt in linen'], '"linen shirt" finds "Shirt in linen"');
  assert.deepEqual(await names(s, 'shir'), ['Shirt in linen', 'Wool shirt'], '"shir" finds "Shirt"');
  assert.deepEqual(await names(s, 'SHIRT LIN'), ['Shirt in linen'], 'case ignored, prefixes in any order');
  assert.deepEqual(await names(s, 'warm'), ['Wool shirt'], 'description words match');
  assert.deepEqual(await names(s, 'irt'), [], 'the middle of a word is no match');
  assert.deepEqual(await names(s, 'linen warm'), [], 'every word must match');
  assert.equal((await search(s, 'linen')).total, 2);
});

test('q: accents ignored both ways; sku matched exactly and by its words; HTML tags ignored', async () => {
  const s = await createStore(t);
  await createProduct(t, s, { name: 'Café mug', sku: 'CM-9' });
  await createProduct(t, s, { name: 'Plain mug', sku: 'LS-1' });
  await createProduct(t, s, { name: 'Other', sku: 'LS-12' });
  await createProduct(t, s, { name: 'Tagged', description: '<p class="strong">Soft <strong>cotton</strong></p>' });
  assert.deepEqual(await names(s, 'cafe'), ['Café mug'], '"cafe" finds "Café mug"');
  assert.deepEqual(await names(s, 'CAFÉ'), ['Café mug']);
  const sku = await search(s, 'ls-1');
  assert.equal(sku.products[0]!.name, 'Plain mug', '"ls-1" finds sku "LS-1", first');
  assert.deepEqual(await names(s, 'cm-9'), ['Café mug']);
  assert.deepEqual(await names(s, 'cotton'), ['Tagged'], 'text between tags is searched');
  assert.deepEqual(await names(s, 'strong'), [], 'tag names and attributes are not');
  assert.deepEqual(await names(s, 'class'), []);
});

test('q: one letter missing, extra or wrong in a query word of 5+ letters matches a name word, not sku or description', async () => {
  const s = await createStore(t);
  await createProduct(t, s, { name: 'Sweater', sku: 'SW-1' });
  await createProduct(t, s, { name: 'Linen scarf', sku: 'LN-1' });
  await createProduct(t, s, { name: 'Plain', sku: 'MARBLES', description: '<p>Crochet</p>' });
  await createProduct(t, s, { name: 'Lamp', sku: 'LP-1' });
  assert.deepEqual(await names(s, 'sweter'), ['Sweater'], 'missing letter: "sweter" finds "Sweater"');
  assert.deepEqual(await names(s, 'linnen'), ['Linen scarf'], 'extra letter: "linnen" finds "Linen"');
  assert.deepEqual(await names(s, 'swezter'), ['Sweater'], 'extra letter');
  assert.deepEqual(await names(s, 'swaater'), ['Sweater'], 'wrong letter');
  assert.deepEqual(await names(s, 'swtr'), [], 'two letters missing is no match');
  assert.deepEqual(await names(s, 'sweatre'), [], 'two letters swapped is two changes');
  assert.deepEqual(await names(s, 'marbels'), [], 'no typo in the sku');
  assert.deepEqual(await names(s, 'crochat'), [], 'no typo in the description');
  assert.deepEqual(await names(s, 'scarv'), ['Linen scarf'], 'a 5-letter word one letter from a name word');
  assert.deepEqual(await names(s, 'lamb'), [], 'a query word of 4 letters gets no typo');
  assert.deepEqual(await names(s, 'plainn'), ['Plain'], 'a 6-letter query word reaches a 5-letter name word');
});

test('q: typo matching follows renames (the name word list is kept by the database)', async () => {
  const s = await createStore(t);
  const p = await createProduct(t, s, { name: 'Blanket' });
  assert.deepEqual(await names(s, 'blankett'), ['Blanket']);
  const r = await t.request('PATCH', `/api/v1/admin/products/${p.id}`, { token: s.admin, body: { name: 'Cushion' } });
  assert.equal(r.status, 200);
  assert.deepEqual(await names(s, 'cushon'), ['Cushion']);
  assert.deepEqual(await names(s, 'blankett'), [], 'the old name no longer matches');
  const sku = await t.request('PATCH', `/api/v1/admin/products/${p.id}`, { token: s.admin, body: { sku: 'NEW-77', description: '<p>fresh</p>' } });
  assert.equal(sku.status, 200);
  assert.deepEqual(await names(s, 'new-77 fresh'), ['Cushion'], 'sku and description edits are searchable at once');
});

test('concurrent creations sharing name words all succeed, and every one is found, typo included', async () => {
  const s = await createStore(t);
  const words = ['Velvet', 'Cotton', 'Denim', 'Woolen', 'Leather'];
  const made = await Promise.all(
    Array.from({ length: 16 }, (_, i) => createProduct(t, s, { name: `${words[i % 5]} ${words[(i + 2) % 5]} jacket ${i}` })),
  );
  assert.equal(made.length, 16);
  assert.equal((await search(s, 'jacket')).total, 16);
  assert.equal((await search(s, 'velvat jackat')).total, made.filter((p) => /Velvet/.test(p.name)).length);
});

test('relevance: exact sku first, then name holding every word (typo included), then the rest; newest first among equals', async () => {
  const s = await createStore(t);
  const inDescOld = await createProduct(t, s, { name: 'Mug', description: '<p>for linen lovers</p>', sku: 'A-1' });
  const inName = await createProduct(t, s, { name: 'Linen towel', sku: 'B-1' });
  const typoName = await createProduct(t, s, { name: 'Linnen sheet', sku: 'C-1' });
  const inDescNew = await createProduct(t, s, { name: 'Cup', description: '<p>linen</p>', sku: 'D-1' });
  const skuExact = await createProduct(t, s, { name: 'Bag', sku: 'LINEN' });
  const got = await search(s, 'linen');
  assert.deepEqual(
    got.products.map((p) => p.id),
    [skuExact.id, typoName.id, inName.id, inDescNew.id, inDescOld.id],
  );
  assert.equal(got.total, 5);
  // An explicit sort wins over relevance.
  const byName = await search(s, 'linen', '&sort=name');
  assert.deepEqual(byName.products.map((p) => p.name), ['Bag', 'Cup', 'Linen towel', 'Linnen sheet', 'Mug']);
});

test('q on GET /v1/admin/products finds products of any status, by relevance', async () => {
  const s = await createStore(t);
  const draft = await createProduct(t, s, { name: 'Draft lamp', status: 'DRAFT' });
  const active = await createProduct(t, s, { name: 'Desk', description: '<p>lamp included</p>' });
  await createProduct(t, s, { name: 'Chair' });
  const r = await t.request('GET', '/api/v1/admin/products?q=lamp', { token: s.admin });
  assert.equal(r.status, 200);
  assert.deepEqual(r.json.products.map((p: { id: string }) => p.id), [draft.id, active.id]);
  assert.equal(r.json.total, 2);
  assert.equal((await search(s, 'lamp')).total, 1, 'the storefront sees the ACTIVE one only');
  const drafts = await t.request('GET', '/api/v1/admin/products?q=lamp&status=DRAFT', { token: s.admin });
  assert.deepEqual(drafts.json.products.map((p: { id: string }) => p.id), [draft.id]);
  assertProblem(await t.request('GET', '/api/v1/admin/products?q=%20', { token: s.admin }), 400, 'VALIDATION_FAILED');
});

test('hostile q: SQL and tsquery syntax are plain words; 200 characters pass, 201 are 400; blank is 400', async () => {
  const s = await createStore(t);
  await createProduct(t, s, { name: "O'Brien drop table" });
  const other = await createStore(t);
  await createProduct(t, other, { name: 'Secret' });
  for (const q of ["'; drop table products; --", "' or 1=1 --", 'secret | !x', "drop & table:*", '\\', "o'brien", '(((', '1=1) or (1']) {
    const r = await t.request('GET', `/api/v1/products?q=${encodeURIComponent(q)}`, { token: s.storefront });
    assert.equal(r.status, 200, `${q}: ${r.text}`);
    assert.ok(r.json.products.every((p: { name: string }) => p.name !== 'Secret'), 'never another store');
  }
  assert.deepEqual(await names(s, "o'brien"), ["O'Brien drop table"]);
  assert.deepEqual(await names(s, "drop table; --"), ["O'Brien drop table"]);
  const long = 'a'.repeat(200);
  assert.equal((await t.request('GET', `/api/v1/products?q=${long}`, { token: s.storefront })).status, 200);
  assertProblem(await t.request('GET', `/api/v1/products?q=${long}b`, { token: s.storefront }), 400, 'VALIDATION_FAILED');
  assertProblem(await t.request('GET', `/api/v1/products?q=${'word '.repeat(60)}`, { token: s.storefront }), 400, 'VALIDATION_FAILED');
  for (const q of ['', '%20%20', '%09']) assertProblem(await t.request('GET', `/api/v1/products?q=${q}`, { token: s.storefront }), 400, 'VALIDATION_FAILED');
  // Only punctuation: a valid q with no word in it matches nothing.
  assert.deepEqual(await search(s, '!!! --- ...'), { products: [], total: 0, nextCursor: null });
  assert.equal((await t.request('GET', `/api/v1/products?q=${encodeURIComponent('a'.repeat(197) + ' b')}`, { token: s.storefront })).status, 200);
});

test('unicode q: emoji, other scripts and combining accents', async () => {
  const s = await createStore(t);
  await createProduct(t, s, { name: 'Чай зелёный', sku: 'TEA-1' });
  await createProduct(t, s, { name: 'Crème brûlée set', sku: 'CB-1' });
  await createProduct(t, s, { name: 'Party 🎉 hat', sku: 'PH-1' });
  assert.deepEqual(await names(s, 'чай'), ['Чай зелёный']);
  assert.deepEqual(await names(s, 'creme brulee'), ['Crème brûlée set']);
  assert.deepEqual(await names(s, 'party hat'), ['Party 🎉 hat']);
  for (const q of ['🎉', '💥💥', '\u0301', '日本語', '\u202e', 'ﬁ']) {
    const r = await t.request('GET', `/api/v1/products?q=${encodeURIComponent(q)}`, { token: s.storefront });
    assert.equal(r.status, 200, `${q}: ${r.text}`);
  }
});

test('any q is 200 (1..200 characters, not blank, no NUL) or 400, never an error of the server', async () => {
  const s = await createStore(t);
  await createProduct(t, s, { name: 'Crème linen shirt' });
  const seen = new Set<number>();
  await fc.assert(
    fc.asyncProperty(fc.string({ unit: 'binary', minLength: 0, maxLength: 205 }), async (q) => {
      const r = await t.request('GET', `/api/v1/products?q=${encodeURIComponent(q)}`, { token: s.storefront });
      const valid = [...q].length >= 1 && [...q].length <= 200 && /\S/.test(q) && !q.includes('\u0000');
      seen.add(r.status);
      assert.equal(r.status, valid ? 200 : 400, `${JSON.stringify(q)}: ${r.text}`);
    }),
    { numRuns: Number(process.env.FUZZ_RUNS ?? 150) },
  );
  assert.ok(seen.has(200));
});
