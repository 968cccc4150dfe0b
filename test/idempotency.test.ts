import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { queryRows, type Executor } from '../src/db/client.js';
import { lockKeys, purgeExpiredKeys } from '../src/modules/idempotency/repository.js';
import { TEST_DATABASE_URL } from './support/database.js';
import { startTestApp } from './support/app.js';
import { assertProblem, createProduct, createStore } from './support/factories.js';
import { ADDRESS, createAddress, placeOrder, stockOf } from './support/shop.js';

const t = await startTestApp();
const key = () => `key-${randomUUID()}`;

test('a retried order with the same key replays the first answer and takes the stock once', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 10 });
  const { customer, address } = await createAddress(t, s);
  const k = key();
  const body = { address: address.id, products: [{ id: a.id, quantity: 2 }] };
  const first = await placeOrder(t, s, customer, body, { 'idempotency-key': k });
  assert.equal(first.status, 201);
  assert.equal(first.headers['idempotent-replayed'], undefined);
  const again = await placeOrder(t, s, customer, body, { 'idempotency-key': k });
  assert.equal(again.status, 201);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.deepEqual(again.json, first.json);
  assert.equal(await stockOf(t, s, a.id), 8);
});

test('8 concurrent retries with one key: one order, stock taken once, the others replay or wait (409)', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 10 });
  const { customer, address } = await createAddress(t, s);
  const k = key();
  const body = { address: address.id, products: [{ id: a.id, quantity: 1 }] };
  const answers = await Promise.all(Array.from({ length: 8 }, () => placeOrder(t, s, customer, body, { 'idempotency-key': k })));
  for (const r of answers) {
    if (r.status === 409) assert.equal(r.json.code, 'IDEMPOTENCY_KEY_IN_USE');
    else assert.equal(r.status, 201, r.text);
  }
  const created = answers.filter((r) => r.status === 201);
  assert.ok(created.length >= 1);
  assert.equal(new Set(created.map((r) => r.json.order.id)).size, 1, 'every 201 is the same order');
  assert.equal(await stockOf(t, s, a.id), 9);
  const [n] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from orders where store = ${s.slug}`);
  assert.equal(n?.n, 1);
  const late = await placeOrder(t, s, customer, body, { 'idempotency-key': k });
  assert.equal(late.status, 201);
  assert.equal(late.headers['idempotent-replayed'], 'true');
});

test('the same key with a different body is 422 IDEMPOTENCY_KEY_REUSED; a key over 255 characters is 400', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 10 });
  const { customer, address } = await createAddress(t, s);
  const k = key();
  assert.equal((await placeOrder(t, s, customer, { address: address.id, products: [{ id: a.id, quantity: 1 }] }, { 'idempotency-key': k })).status, 201);
  assertProblem(await placeOrder(t, s, customer, { address: address.id, products: [{ id: a.id, quantity: 2 }] }, { 'idempotency-key': k }), 422, 'IDEMPOTENCY_KEY_REUSED');
  const other = await createAddress(t, s);
  const theirs = await placeOrder(t, s, other.customer, { address: other.address.id, products: [{ id: a.id, quantity: 1 }] }, { 'idempotency-key': k });
  assert.equal(theirs.status, 201, 'another customer\'s key space is its own');
  assert.equal(theirs.headers['idempotent-replayed'], undefined);
  assertProblem(await placeOrder(t, s, customer, { address: address.id, products: [{ id: a.id, quantity: 1 }] }, { 'idempotency-key': 'k'.repeat(256) }), 400, 'VALIDATION_FAILED');
  assert.equal(await stockOf(t, s, a.id), 8);
});

test('keys are per store: another store may use the same key', async () => {
  const s1 = await createStore(t);
  const s2 = await createStore(t);
  const k = key();
  const r1 = await t.request('POST', `/api/v1/${randomUUID()}/addresses`, { token: s1.server, body: { address: ADDRESS }, headers: { 'idempotency-key': k } });
  const r2 = await t.request('POST', `/api/v1/${randomUUID()}/addresses`, { token: s2.server, body: { address: ADDRESS }, headers: { 'idempotency-key': k } });
  assert.equal(r1.status, 201);
  assert.equal(r2.status, 201);
  assert.equal(r2.headers['idempotent-replayed'], undefined);
});

test('a refusal below 500 is kept and replayed as is', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 1 });
  const { customer, address } = await createAddress(t, s);
  const k = key();
  const body = { address: address.id, products: [{ id: a.id, quantity: 5 }] };
  const first = await placeOrder(t, s, customer, body, { 'idempotency-key': k });
  assertProblem(first, 422, 'INSUFFICIENT_STOCK');
  await t.request('PATCH', `/api/v1/admin/products/${a.id}`, { token: s.admin, body: { quantity: 50 } });
  const again = await placeOrder(t, s, customer, body, { 'idempotency-key': k });
  assert.equal(again.status, 422);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.match(String(again.headers['content-type']), /problem\+json/);
  assert.deepEqual(again.json, first.json);
});

test('carts and addresses replay too', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s);
  const k = key();
  const cart1 = await t.request('POST', '/api/v1/carts', { token: s.storefront, body: { products: [{ id: a.id, quantity: 1 }] }, headers: { 'idempotency-key': k } });
  const cart2 = await t.request('POST', '/api/v1/carts', { token: s.storefront, body: { products: [{ id: a.id, quantity: 1 }] }, headers: { 'idempotency-key': k } });
  assert.equal(cart2.status, 201);
  assert.equal(cart2.headers['idempotent-replayed'], 'true');
  assert.equal(cart2.json.cart.id, cart1.json.cart.id);
  const [n] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from carts where store = ${s.slug}`);
  assert.equal(n?.n, 1);
  const customer = randomUUID();
  const k2 = key();
  const addr1 = await t.request('POST', `/api/v1/${customer}/addresses`, { token: s.server, body: { address: ADDRESS }, headers: { 'idempotency-key': k2 } });
  const addr2 = await t.request('POST', `/api/v1/${customer}/addresses`, { token: s.server, body: { address: ADDRESS }, headers: { 'idempotency-key': k2 } });
  assert.equal(addr2.json.address.id, addr1.json.address.id);
  assert.equal((await t.request('GET', `/api/v1/${customer}/addresses`, { token: s.server })).json.total, 1);
});

test('the same body with its JSON keys in another order is the same request; arrays keep their order', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 10 });
  const b = await createProduct(t, s, { quantity: 10 });
  const { customer, address } = await createAddress(t, s);
  const k = key();
  const send = (rawBody: string) => t.request('POST', `/api/v1/${customer}/orders`, { token: s.server, rawBody, headers: { 'idempotency-key': k, 'content-type': 'application/json' } });
  const lines = `[{"id":"${a.id}","quantity":1},{"id":"${b.id}","quantity":2}]`;
  const first = await send(`{"address":"${address.id}","products":${lines}}`);
  assert.equal(first.status, 201, first.text);
  const reordered = await send(`{"products":[{"quantity":1,"id":"${a.id}"},{"quantity":2,"id":"${b.id}"}],"address":"${address.id}"}`);
  assert.equal(reordered.status, 201, reordered.text);
  assert.equal(reordered.headers['idempotent-replayed'], 'true');
  assert.deepEqual(reordered.json, first.json);
  const swapped = await send(`{"address":"${address.id}","products":[{"id":"${b.id}","quantity":2},{"id":"${a.id}","quantity":1}]}`);
  assertProblem(swapped, 422, 'IDEMPOTENCY_KEY_REUSED');
  assert.equal(await stockOf(t, s, a.id), 9);
});

test('a key whose request is running answers 409, and is free the moment that transaction ends (no lease to wait out)', { skip: !TEST_DATABASE_URL && 'needs a second connection (PostgreSQL): PGlite runs one transaction at a time' }, async () => {
  const s = await createStore(t);
  const customer = randomUUID();
  const k = key();
  const send = () => t.request('POST', `/api/v1/${customer}/addresses`, { token: s.server, body: { address: ADDRESS }, headers: { 'idempotency-key': k } });
  const caller = `customer:${customer}`;
  const running = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await running.connect();
  try {
    // A request of another process, mid-work: its transaction holds the key.
    await running.query('begin');
    const [held] = await lockKeysOn(running, { store: s.slug, caller, key: k });
    assert.equal(held, true);
    assertProblem(await send(), 409, 'IDEMPOTENCY_KEY_IN_USE');
    // That process dies: its transaction ends without an answer, and the key is free at once.
    await running.query('rollback');
    const retried = await send();
    assert.equal(retried.status, 201, retried.text);
    assert.equal(retried.headers['idempotent-replayed'], undefined);
  } finally {
    await running.end();
  }
  assert.equal((await t.request('GET', `/api/v1/${customer}/addresses`, { token: s.server })).json.total, 1);
});

test('an answered key replays; expired keys are purged and then run again', async () => {
  const s = await createStore(t);
  const customer = randomUUID();
  const k = key();
  const send = () => t.request('POST', `/api/v1/${customer}/addresses`, { token: s.server, body: { address: ADDRESS }, headers: { 'idempotency-key': k } });
  const first = await send();
  assert.equal(first.status, 201);
  assert.equal((await send()).headers['idempotent-replayed'], 'true');
  await t.database.db.execute(sql`update idempotency_keys set expires_at = now() - interval '1 second' where store = ${s.slug} and key = ${k}`);
  const retried = await send();
  assert.equal(retried.status, 201);
  assert.equal(retried.headers['idempotent-replayed'], undefined);
  assert.notEqual(retried.json.address.id, first.json.address.id);
  await t.database.db.execute(sql`update idempotency_keys set expires_at = now() - interval '1 second' where store = ${s.slug} and key = ${k}`);
  assert.ok((await purgeExpiredKeys(t.database.db)) >= 1);
  const [n] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from idempotency_keys where store = ${s.slug}`);
  assert.equal(n?.n, 0);
});

/** Takes a key the way the pipeline does, on a connection of the test's own. */
async function lockKeysOn(client: pg.Client, id: { store: string; caller: string; key: string }): Promise<boolean[]> {
  const handle = { execute: async (query: SQL) => { const { sql: text, params } = new PgDialect().sqlToQuery(query); return client.query(text, params); } };
  return lockKeys(handle as unknown as Executor, [id]);
}
