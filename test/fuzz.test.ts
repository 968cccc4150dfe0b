/**
 * Property-based fuzzing of every route in the app's own OpenAPI document: arbitrary path values,
 * queries, headers and bodies (wrong types, huge numbers, deep nesting, unicode, prototype keys,
 * raw non-JSON). Properties: never a 5xx, every error is problem+json, no prototype pollution, a
 * refused request changes nothing, and a store the fuzzer holds no token of never changes.
 * FUZZ_RUNS sets the number of cases (default 400; `npm run fuzz` runs many more).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { ROOT_TOKEN, startTestApp } from './support/app.js';
import { addToCollection, createCollection, createProduct, createStore, type TestStore } from './support/factories.js';
import { createAddress, createCart, placeOrder } from './support/shop.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const t = await startTestApp();

async function populate(store: TestStore) {
  const product = await createProduct(t, store, { quantity: 1000 });
  const collection = await createCollection(t, store);
  await addToCollection(t, store, collection.id, product.id);
  const { customer, address } = await createAddress(t, store);
  const cart = await createCart(t, store, [{ id: product.id, quantity: 1 }]);
  const order = (await placeOrder(t, store, customer, { address: address.id, products: [{ id: product.id, quantity: 1 }] })).json.order;
  return { product, collection, customer, address, cart, order };
}

/** A cheap fingerprint of everything a store holds (idempotency bookkeeping aside). */
async function fingerprint(store: string): Promise<string> {
  const rows = await queryRows<Record<string, unknown>>(
    t.database.db,
    sql`select
      (select count(*) || ':' || coalesce(sum(quantity), 0) || ':' || coalesce(max(coalesce(updated_at, created_at))::text, '') || ':' || count(deleted_at) from products where store = ${store}) as products,
      (select count(*) || ':' || coalesce(max(coalesce(updated_at, created_at))::text, '') || ':' || count(*) filter (where archived) from collections where store = ${store}) as collections,
      (select count(*) from collection_products where store = ${store}) || ':' || (select count(*) from collection_parents where store = ${store}) as links,
      (select count(*) || ':' || coalesce(max(coalesce(updated_at, created_at))::text, '') || ':' || string_agg(status, '' order by id) from carts where store = ${store}) as carts,
      (select count(*) || ':' || coalesce(sum(quantity), 0) from cart_lines where store = ${store}) as lines,
      (select count(*) || ':' || coalesce(string_agg(status, '' order by id), '') from orders where store = ${store}) as orders,
      (select count(*) from addresses where store = ${store}) as addresses,
      (select count(*) filter (where revoked_at is null) from tokens where store = ${store}) as tokens`,
  );
  return JSON.stringify(rows[0]);
}

const target = await createStore(t);
const witness = await createStore(t);
const mine = await populate(target);
const theirs = await populate(witness);
const spec = (await t.request('GET', '/api/openapi.json')).json as { paths: Record<string, Record<string, unknown>> };
const operations = Object.entries(spec.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => ({ path, method: method.toUpperCase() })));

const ids = [mine.product.id, mine.collection.id, mine.cart.id, mine.order.id, mine.address.id, mine.customer, theirs.product.id, theirs.cart.id, theirs.order.id, theirs.customer];
const nasty = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom("' OR 1=1 --", '../..', '%00', '\u0000', 'admin', '-1', '0', '1e308', 'NaN', 'null', '__proto__', 'x'.repeat(300)),
);
const pathValue = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...ids) }, fc.uuid(), nasty, fc.constantFrom(mine.product.slug, theirs.product.slug));
const queryValue = fc.oneof(nasty, fc.integer().map(String), fc.constantFrom('50', '250', '251', '-createdAt', 'price', 'ACTIVE', 'PAID', mine.collection.slug));
const query = fc.dictionary(fc.constantFrom('limit', 'offset', 'sort', 'collection', 'status', 'x', '__proto__'), queryValue, { maxKeys: 3 });
const scalar = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(1e308, -1, 0, 2 ** 31, Number.MAX_SAFE_INTEGER + 2), fc.boolean(), fc.constant(null), nasty, fc.constantFrom(...ids));
const line = fc.record({ id: fc.oneof(fc.constantFrom(...ids), scalar), quantity: fc.oneof(fc.integer({ min: -2, max: 3 }), scalar) }, { requiredKeys: [] });
const shaped = fc.record(
  {
    products: fc.oneof(fc.array(line, { maxLength: 4 }), scalar),
    id: fc.oneof(fc.constantFrom(...ids), scalar),
    quantity: fc.oneof(fc.integer({ min: -2, max: 5 }), scalar),
    address: fc.oneof(fc.constantFrom(mine.address.id, theirs.address.id), fc.dictionary(fc.constantFrom('zipcode', 'street', 'number', 'city', 'state', 'country', 'neightborhood', 'x'), nasty)),
    status: fc.oneof(fc.constantFrom('PAID', 'CANCELLED', 'FULFILLED', 'ACTIVE', 'DRAFT'), scalar),
    name: nasty, slug: nasty, sku: nasty, price: scalar, kind: fc.constantFrom('admin', 'storefront', 'root'), archived: scalar, parents: fc.array(fc.constantFrom(...ids), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);
const deep = fc.letrec((tie) => ({ node: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), tie('node'), { maxKeys: 3 })) })).node;
const body = fc.oneof(
  { weight: 4, arbitrary: shaped.map((b) => ({ json: b as unknown })) },
  { weight: 2, arbitrary: deep.map((b) => ({ json: b as unknown })) },
  fc.constantFrom('{"__proto__": {"polluted": true}}', '{"constructor": {"prototype": {"polluted": true}}}', '{"products": [', 'not json', '[]', '""', '1e999', '{"a":' + '['.repeat(2000)).map((raw) => ({ raw })),
  fc.constant({ raw: '' }),
);
const token = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(target.storefront, target.admin) }, fc.constantFrom(ROOT_TOKEN, 'garbage', ''), fc.constant(undefined));
const headers = fc.record(
  {
    'content-type': fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/xml', 'multipart/form-data', ''),
    'idempotency-key': fc.oneof(fc.string({ minLength: 1, maxLength: 10 }), fc.constant('k'.repeat(300))),
    'x-request-id': nasty.filter((s) => !/[\r\n\u0000]/.test(s) && /^[\x20-\x7e]*$/.test(s)),
    'if-none-match': fc.constantFrom('*', '"x"', 'W/"y"'),
  },
  { requiredKeys: [] },
);

test(`${RUNS} fuzzed requests over ${operations.length} operations: no 5xx, no pollution, refusals change nothing`, { timeout: 15 * 60_000 }, async () => {
  const witnessBefore = await fingerprint(witness.slug);
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...operations), fc.dictionary(fc.constantFrom('id', 'pid', 'customer', 'slug'), pathValue), query, headers, token, body, async (op, params, q, h, tok, b) => {
      const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(params[name] ?? randomUUID())));
      const search = new URLSearchParams(q as Record<string, string>).toString();
      const url = search ? `${path}?${search}` : path;
      const send: Record<string, string> = { ...(h as Record<string, string>) };
      if (!send['content-type']) delete send['content-type'];
      const withBody = op.method !== 'GET';
      const before = await fingerprint(target.slug);
      const r = await t.request(op.method, url, {
        token: tok,
        headers: send,
        rawBody: withBody ? ('raw' in b ? b.raw : JSON.stringify((b as { json: unknown }).json)) : undefined,
      });
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      assert.ok(r.status < 500, `${op.method} ${url} answered ${r.status}: ${r.text.slice(0, 300)}`);
      if (r.status >= 400) {
        assert.match(String(r.headers['content-type']), /^application\/problem\+json/, `${op.method} ${url}`);
        if (r.status !== 404 || !url.startsWith('/api/docs')) assert.equal(await fingerprint(target.slug), before, `${op.method} ${url} refused with ${r.status} but changed data`);
      }
      assert.equal(({} as Record<string, unknown>).polluted, undefined, 'prototype polluted');
    }),
    { numRuns: RUNS },
  );
  assert.equal(await fingerprint(witness.slug), witnessBefore, 'a store the fuzzer has no token of did not change');
  console.log(`# fuzz: ${RUNS} cases over ${operations.length} operations; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
});
