import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { purgeOldEvents } from '../src/modules/events/repository.js';
import { startTestApp, type TestApp } from './support/app.js';
import { addToCollection, assertProblem, createCollection, createProduct, createStore, type TestStore } from './support/factories.js';
import { createAddress, placeOrder } from './support/shop.js';

const t = await startTestApp();

interface FeedEvent {
  id: string;
  type: string;
  store: string;
  timestamp: string;
  data: Record<string, { id: string } & Record<string, unknown>>;
}

async function feed(app: TestApp, s: TestStore, query = ''): Promise<{ events: FeedEvent[]; nextCursor: string | null }> {
  const r = await app.request('GET', `/api/v1/admin/events${query}`, { token: s.admin });
  assert.equal(r.status, 200, r.text);
  return r.json;
}

const types = (events: FeedEvent[]) => events.map((e) => e.type);

test('catalog admin writes record their events with the data the admin API answers', async () => {
  const s = await createStore(t);
  const p = await createProduct(t, s, { quantity: 2 });
  const updated = await t.request('PATCH', `/api/v1/admin/products/${p.id}`, { token: s.admin, body: { name: 'Renamed' } });
  const toZero = await t.request('PATCH', `/api/v1/admin/products/${p.id}`, { token: s.admin, body: { quantity: 0 } });
  const back = await t.request('PATCH', `/api/v1/admin/products/${p.id}`, { token: s.admin, body: { quantity: 4 } });
  const c = await createCollection(t, s);
  const withProduct = await addToCollection(t, s, c.id, p.id);
  const cDeleted = await t.request('DELETE', `/api/v1/admin/collections/${c.id}`, { token: s.admin });
  const deleted = await t.request('DELETE', `/api/v1/admin/products/${p.id}`, { token: s.admin });

  const { events } = await feed(t, s);
  assert.deepEqual(types(events), [
    'product.created',
    'product.updated',
    'product.updated', 'product.out_of_stock',
    'product.updated', 'product.back_in_stock',
    'collection.created',
    'collection.updated',
    'collection.deleted',
    'product.deleted',
  ]);
  for (const e of events) {
    assert.equal(e.store, s.slug);
    assert.match(e.id, /^[0-9a-f-]{36}$/);
    assert.match(e.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  }
  assert.deepEqual(events[0]!.data, { product: p });
  assert.deepEqual(events[1]!.data, { product: updated.json.product });
  assert.deepEqual(events[3]!.data, { product: toZero.json.product });
  assert.deepEqual(events[5]!.data, { product: back.json.product });
  assert.deepEqual(events[6]!.data, { collection: c });
  assert.deepEqual(events[7]!.data, { collection: withProduct });
  assert.deepEqual(events[8]!.data, { collection: cDeleted.json.collection });
  assert.deepEqual(events[9]!.data, { product: deleted.json.product });
});

test('orders record order.created and out_of_stock (no product.updated); transitions and cancel record theirs', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 2 });
  const b = await createProduct(t, s, { quantity: 5 });
  const { customer, address } = await createAddress(t, s);
  const start = (await feed(t, s)).nextCursor!;
  const placed = await placeOrder(t, s, customer, { address: address.id, products: [{ id: a.id, quantity: 2 }, { id: b.id, quantity: 1 }] });
  assert.equal(placed.status, 201);
  const paid = await t.request('PATCH', `/api/v1/admin/orders/${placed.json.order.id}`, { token: s.admin, body: { status: 'PAID' } });
  const cancelled = await t.request('PATCH', `/api/v1/admin/orders/${placed.json.order.id}`, { token: s.admin, body: { status: 'CANCELLED' } });
  assert.equal(cancelled.status, 200);
  const { events } = await feed(t, s, `?after=${start}`);
  // PAID records the manual payment of the balance; cancelling gives that money back (docs/payments.md).
  assert.deepEqual(types(events), ['order.created', 'product.out_of_stock', 'order.paid', 'payment.succeeded', 'order.cancelled', 'payment.refunded', 'product.back_in_stock']);
  assert.deepEqual(events[0]!.data, { order: placed.json.order });
  assert.equal(events[1]!.data.product!.id, a.id);
  assert.equal(events[1]!.data.product!.quantity, 0);
  assert.deepEqual(events[2]!.data, { order: paid.json.order });
  assert.deepEqual(events[4]!.data, { order: cancelled.json.order });
  const admin = await t.request('GET', `/api/v1/admin/products/${a.id}`, { token: s.admin });
  assert.deepEqual(events[6]!.data, { product: admin.json.product });

  const second = await placeOrder(t, s, customer, { address: address.id, products: [{ id: b.id, quantity: 1 }] });
  for (const status of ['PAID', 'FULFILLED']) {
    assert.equal((await t.request('PATCH', `/api/v1/admin/orders/${second.json.order.id}`, { token: s.admin, body: { status } })).status, 200);
  }
  const tail = await feed(t, s, `?after=${start}&type=order.fulfilled`);
  assert.deepEqual(types(tail.events), ['order.fulfilled']);
});

test('a refused order, a refused transition and an idempotent replay record nothing', async () => {
  const s = await createStore(t);
  const a = await createProduct(t, s, { quantity: 1 });
  const { customer, address } = await createAddress(t, s);
  const start = (await feed(t, s)).nextCursor!;
  const refused = await placeOrder(t, s, customer, { address: address.id, products: [{ id: a.id, quantity: 2 }] });
  assertProblem(refused, 422, 'INSUFFICIENT_STOCK');
  const headers = { 'idempotency-key': 'k-1' };
  const first = await t.request('POST', `/api/v1/${customer}/orders`, { token: s.admin, headers, body: { address: address.id, products: [{ id: a.id, quantity: 1 }] } });
  assert.equal(first.status, 201);
  const replay = await t.request('POST', `/api/v1/${customer}/orders`, { token: s.admin, headers, body: { address: address.id, products: [{ id: a.id, quantity: 1 }] } });
  assert.equal(replay.headers['idempotent-replayed'], 'true');
  const bad = await t.request('PATCH', `/api/v1/admin/orders/${first.json.order.id}`, { token: s.admin, body: { status: 'FULFILLED' } });
  assertProblem(bad, 409, 'INVALID_TRANSITION');
  const conflict = await t.request('POST', '/api/v1/admin/products', { token: s.admin, body: { name: 'x', slug: a.slug, sku: 'x', price: 1, quantity: 1 } });
  assertProblem(conflict, 409, 'CONFLICT');
  const { events } = await feed(t, s, `?after=${start}`);
  assert.deepEqual(types(events), ['order.created', 'product.out_of_stock']);
});

test('the feed pages with cursors, filters by type, keeps to its store and refuses bad input', async () => {
  const s = await createStore(t);
  const other = await createStore(t);
  await createProduct(t, other);
  for (let i = 0; i < 5; i++) await createProduct(t, s);
  await createCollection(t, s);
  const seen: string[] = [];
  let cursor = '';
  for (let page = 0; page < 4; page++) {
    const r = await feed(t, s, `?limit=2${cursor ? `&after=${cursor}` : ''}`);
    seen.push(...r.events.map((e) => e.id));
    cursor = r.nextCursor!;
  }
  const all = await feed(t, s);
  assert.equal(all.events.length, 6);
  assert.deepEqual(seen, all.events.map((e) => e.id), 'pages in order, none skipped or repeated');
  const empty = await feed(t, s, `?after=${cursor}`);
  assert.deepEqual(empty, { events: [], nextCursor: cursor }, 'an empty page keeps the cursor');
  assert.deepEqual(types((await feed(t, s, '?type=collection.created,product.deleted')).events), ['collection.created']);
  for (const query of ['?limit=0', '?limit=501', '?after=bm9wZQ', '?type=order.nope', '?type=webhook.test', '?offset=1']) {
    assertProblem(await t.request('GET', `/api/v1/admin/events${query}`, { token: s.admin }), 400, 'VALIDATION_FAILED');
  }
  assertProblem(await t.request('GET', '/api/v1/admin/events', { token: s.storefront }), 403, 'FORBIDDEN');
});

test('an event of a transaction still running is not served, so a cursor cannot step past it', async () => {
  if (t.database.kind === 'pglite') return; // one connection: no transaction can be open beside a read
  const s = await createStore(t);
  await createProduct(t, s);
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let recorded = () => {};
  const inFlight = new Promise<void>((resolve) => (recorded = resolve));
  const tx = t.database.db.transaction(async (txn) => {
    await txn.execute(sql`insert into events (store, type, data) values (${s.slug}, 'product.updated', '{}'::jsonb)`);
    recorded();
    await held;
  });
  // Released whatever happens: a transaction left open would hide every later event of every
  // database on this server (the horizon is the server's), and keep this file from ending.
  let during: Awaited<ReturnType<typeof feed>>;
  try {
    await inFlight;
    await createProduct(t, s);
    during = await feed(t, s);
  } finally {
    release();
    await tx;
  }
  assert.deepEqual(types(during.events), ['product.created'], 'later events wait for the older transaction');
  const after = await feed(t, s, `?after=${during.nextCursor}`);
  assert.deepEqual(types(after.events), ['product.updated', 'product.created']);
});

test('the maintenance purge deletes events past the retention', async () => {
  const s = await createStore(t);
  await createProduct(t, s);
  await createProduct(t, s);
  const [oldest] = (await feed(t, s)).events;
  await t.database.db.execute(sql`update events set created_at = now() - interval '31 days' where store = ${s.slug} and id = ${oldest!.id}`);
  assert.equal((await feed(t, s)).events.length, 1, 'the feed shows only the retention window');
  assert.ok((await purgeOldEvents(t.database.db, 30)) >= 1);
  const rows = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from events where store = ${s.slug}`);
  assert.equal(rows[0]!.n, 1);
});
