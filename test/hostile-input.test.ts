import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp } from './support/app.js';
import { assertProblem, createProduct, createStore } from './support/factories.js';

const t = await startTestApp();
const store = await createStore(t);
const product = await createProduct(t, store, { name: 'Café ☕ — 東京 🎌', description: '<script>alert(1)</script> \u202e reversed' });

const HOSTILE = ["' OR 1=1 --", "'; drop table products; --", 'robert"); DROP TABLE stores;--', '%27%20OR%201%3D1', '../../etc/passwd', '\u202e\u0301', '🎌🍣', 'a'.repeat(255), '${7*7}', '<img src=x onerror=alert(1)>'];

test('hostile slugs in the path are 404 (or 400 when too long), never a 5xx, and harm nothing', async () => {
  for (const value of [...HOSTILE, 'a'.repeat(256), 'x'.repeat(5000)]) {
    const r = await t.request('GET', `/api/v1/products/${encodeURIComponent(value)}`, { token: store.storefront });
    assert.ok(r.status === 404 || r.status === 400, `${value.slice(0, 20)}: ${r.status}`);
    assert.match(String(r.headers['content-type']), /problem\+json/);
  }
  assertProblem(await t.request('GET', `/api/v1/products/${encodeURIComponent('a\u0000b')}`, { token: store.storefront }), 400, 'VALIDATION_FAILED');
  assert.equal((await t.request('GET', '/api/v1/products', { token: store.storefront })).json.total, 1);
});

test('hostile query values are 400 or an empty result, never a 5xx', async () => {
  for (const value of HOSTILE) {
    const q = encodeURIComponent(value);
    const byCollection = await t.request('GET', `/api/v1/products?collection=${q}`, { token: store.storefront });
    assert.equal(byCollection.status, 200, value);
    assert.deepEqual(byCollection.json, { products: [], total: 0, nextCursor: null });
    for (const param of ['limit', 'offset', 'sort']) {
      assertProblem(await t.request('GET', `/api/v1/products?${param}=${q}`, { token: store.storefront }), 400, 'VALIDATION_FAILED');
    }
  }
});

test('hostile strings in bodies are stored and returned verbatim, or refused with 400', async () => {
  for (const value of HOSTILE) {
    const r = await t.request('POST', '/api/v1/admin/products', { token: store.admin, body: { name: value, sku: value, description: value, slug: `h-${Math.random().toString(36).slice(2, 10)}`, price: 1, quantity: 1 } });
    assert.equal(r.status, 201, `${value.slice(0, 20)}: ${r.text.slice(0, 200)}`);
    assert.equal(r.json.product.name, value);
    assert.equal(r.json.product.description, value);
  }
  const huge = await t.request('POST', '/api/v1/admin/products', { token: store.admin, body: { name: 'x'.repeat(256), slug: 'huge-name', sku: 's', price: 1, quantity: 1 } });
  assertProblem(huge, 400, 'VALIDATION_FAILED');
  const nul = await t.request('POST', '/api/v1/admin/products', { token: store.admin, body: { name: 'a\u0000b', slug: 'nul-name', sku: 's', price: 1, quantity: 1 } });
  assertProblem(nul, 400, 'VALIDATION_FAILED');
  const r = await t.request('GET', `/api/v1/products/${product.slug}`, { token: store.storefront });
  assert.equal(r.json.product.name, 'Café ☕ — 東京 🎌');
  assert.equal(r.json.product.description, '<script>alert(1)</script> \u202e reversed');
});

test('hostile path ids are 400', async () => {
  for (const value of ["1' OR '1'='1", '00000000-0000-0000-0000-00000000000G', 'urn:uuid:00000000-0000-0000-0000-000000000000', '🎌']) {
    assertProblem(await t.request('GET', `/api/v1/carts/${encodeURIComponent(value)}`, { token: store.storefront }), 400, 'VALIDATION_FAILED');
    assertProblem(await t.request('GET', `/api/v1/${encodeURIComponent(value)}/orders`, { token: store.server }), 400, 'VALIDATION_FAILED');
  }
});
