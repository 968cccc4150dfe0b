/**
 * Cached catalog answers are never older than the last committed change: after an admin edit or an
 * order that takes stock, the next read shows it, in this process and in any other.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { ROOT_TOKEN, startTestApp } from './support/app.js';
import { TEST_DATABASE_URL } from './support/database.js';
import { createProduct, createStore } from './support/factories.js';
import { call, startServerProcess } from './support/server-process.js';
import { ADDRESS, createAddress, placeOrder } from './support/shop.js';
import { ResponseCache } from '../src/modules/catalog/cache.js';

const t = await startTestApp();

test('reads after an admin edit or an order show the change at once; ETag and 304 follow the body', async () => {
  const s = await createStore(t);
  const p = await createProduct(t, s, { price: 100, quantity: 10 });
  const first = await t.request('GET', '/api/v1/products', { token: s.storefront });
  const etag = String(first.headers.etag);
  assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
  assert.equal(first.headers['cache-control'], 'private, no-cache');
  const same = await t.request('GET', '/api/v1/products', { token: s.storefront, headers: { 'if-none-match': etag } });
  assert.equal(same.status, 304);
  assert.equal(same.text, '');
  await t.request('PATCH', `/api/v1/admin/products/${p.id}`, { token: s.admin, body: { price: 120 } });
  const edited = await t.request('GET', '/api/v1/products', { token: s.storefront, headers: { 'if-none-match': etag } });
  assert.equal(edited.status, 200, 'the edit changed the body, so the tag changed');
  assert.equal(edited.json.products[0].price, 120);
  assert.notEqual(edited.headers.etag, etag);
  const { customer, address } = await createAddress(t, s);
  // Both answers cached before the order: its own transaction bumps the version (no bump after it).
  assert.equal((await t.request('GET', `/api/v1/products/${p.slug}`, { token: s.storefront })).json.product.quantity, 10);
  await placeOrder(t, s, customer, { address: address.id, products: [{ id: p.id, quantity: 3 }] });
  const bySlug = await t.request('GET', `/api/v1/products/${p.slug}`, { token: s.storefront });
  assert.equal(bySlug.json.product.quantity, 7, 'the order took stock, and the read shows it');
  assert.equal(bySlug.json.product._count.orders, 1);
  assert.equal((await t.request('GET', '/api/v1/products', { token: s.storefront })).json.products[0].quantity, 7);
  const other = await createStore(t);
  assert.equal((await t.request('GET', '/api/v1/products', { token: other.storefront })).json.total, 0, 'a cache never crosses stores');
});

test('under a stream of reads with one token, each read sent after an edit or a revocation sees it', async () => {
  // Requests of one token share their token lookup while it runs; this proves none gets one that
  // started before it was sent.
  const s = await createStore(t);
  const p = await createProduct(t, s, { price: 100, quantity: 10 });
  let streaming = true;
  const readers = Array.from({ length: 8 }, async () => {
    // Each turn of a reader yields to the event loop, as requests from sockets do: on the
    // in-process PGlite, app.inject alone would run on microtasks and starve the writer.
    while (streaming) {
      await nextTurn();
      assert.equal((await t.request('GET', `/api/v1/products/${p.slug}`, { token: s.storefront })).status, 200);
    }
  });
  try {
    for (let price = 101; price <= 110; price++) {
      assert.equal((await t.request('PATCH', `/api/v1/admin/products/${p.id}`, { token: s.admin, body: { price } })).status, 200);
      assert.equal((await t.request('GET', `/api/v1/products/${p.slug}`, { token: s.storefront })).json.product.price, price);
    }
  } finally {
    streaming = false;
    await Promise.all(readers);
  }
  const extra = await t.request('POST', '/api/v1/admin/tokens', { token: s.admin, body: { kind: 'storefront' } });
  const secret = extra.json.secret;
  streaming = true;
  const revokedReaders = Array.from({ length: 8 }, async () => {
    while (streaming) {
      await nextTurn();
      await t.request('GET', '/api/v1/products', { token: secret });
    }
  });
  try {
    await sleep(50);
    assert.equal((await t.request('DELETE', `/api/v1/admin/tokens/${extra.json.token.id}`, { token: s.admin })).status, 200);
    assert.equal((await t.request('GET', '/api/v1/products', { token: secret })).status, 401, 'revoked at once, even mid-stream');
  } finally {
    streaming = false;
    await Promise.all(revokedReaders);
  }
});

test('two server processes: a change through one is seen at once through the other', { skip: !TEST_DATABASE_URL && 'needs TEST_DATABASE_URL: PGlite is one process' }, async () => {
  const env = { DATABASE_URL: TEST_DATABASE_URL! };
  const [one, two] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  try {
    const created = await call(one.base, 'POST', '/v1/admin/stores', { token: ROOT_TOKEN, body: { slug: `cache-${Date.now().toString(36)}` } });
    const { admin, storefront } = created.json.tokens;
    const p = await call(one.base, 'POST', '/v1/admin/products', { token: admin, body: { name: 'P', slug: 'p', sku: 'S', price: 100, quantity: 5, status: 'ACTIVE' } });
    for (const server of [one, two]) assert.equal((await call(server.base, 'GET', '/v1/products/p', { token: storefront })).json.product.price, 100);
    for (let i = 1; i <= 5; i++) {
      const price = 100 + i;
      const writer = i % 2 ? one : two;
      const reader = i % 2 ? two : one;
      assert.equal((await call(writer.base, 'PATCH', `/v1/admin/products/${p.json.product.id}`, { token: admin, body: { price } })).status, 200);
      assert.equal((await call(reader.base, 'GET', '/v1/products/p', { token: storefront })).json.product.price, price);
      assert.equal((await call(reader.base, 'GET', '/v1/products', { token: storefront })).json.products[0].price, price);
    }
    // Stock taken by an order through one process shows at once through the other.
    const server = (await call(one.base, 'POST', '/v1/admin/tokens', { token: admin, body: { kind: 'server' } })).json.secret;
    const customer = randomUUID();
    const address = await call(one.base, 'POST', `/v1/${customer}/addresses`, { token: server, body: { address: ADDRESS } });
    for (let left = 4; left >= 3; left--) {
      const [writer, reader] = left % 2 ? [two, one] : [one, two];
      const order = await call(writer.base, 'POST', `/v1/${customer}/orders`, { token: server, body: { address: address.json.address.id, products: [{ id: p.json.product.id, quantity: 1 }] } });
      assert.equal(order.status, 201, order.text);
      assert.equal((await call(reader.base, 'GET', '/v1/products/p', { token: storefront })).json.product.quantity, left);
      assert.equal((await call(reader.base, 'GET', '/v1/products/p', { token: storefront })).json.product._count.orders, 5 - left);
    }
    const token = await call(one.base, 'POST', '/v1/admin/tokens', { token: admin, body: { kind: 'storefront' } });
    assert.equal((await call(two.base, 'GET', '/v1/products', { token: token.json.secret })).status, 200);
    await call(one.base, 'DELETE', `/v1/admin/tokens/${token.json.token.id}`, { token: admin });
    assert.equal((await call(two.base, 'GET', '/v1/products', { token: token.json.secret })).status, 401, 'revoked at once in the other process');
  } finally {
    await Promise.all([one.stop(), two.stop()]);
  }
});

test('CATALOG_CACHE_ENTRIES=0 keeps no answer, yet every answer still gets its ETag', () => {
  const off = new ResponseCache(0);
  const entry = off.set('k', '{"products":[]}');
  assert.match(entry.etag, /^"[A-Za-z0-9_-]+"$/);
  assert.equal(off.get('k'), undefined);
  const on = new ResponseCache(1);
  on.set('k', '{}');
  assert.equal(on.get('k')?.body.toString(), '{}');
});
