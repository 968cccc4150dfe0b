import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp } from './support/app.js';
import { assertProblem, createStore } from './support/factories.js';

const t = await startTestApp();
const store = await createStore(t);

test('a body over 1 MiB is 413 PAYLOAD_TOO_LARGE', async () => {
  const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
  assertProblem(await t.request('POST', '/api/v1/admin/products', { token: store.admin, rawBody: big, headers: { 'content-type': 'application/json' } }), 413, 'PAYLOAD_TOO_LARGE');
});

test('a body that is not JSON is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
    assertProblem(await t.request('POST', '/api/v1/carts', { token: store.storefront, rawBody: 'a=1', headers: { 'content-type': type } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  }
});

test('malformed JSON, an empty body, a __proto__ key and a wrong top-level type are 400 with a clear detail', async () => {
  const send = (rawBody: string) => t.request('POST', '/api/v1/carts', { token: store.storefront, rawBody, headers: { 'content-type': 'application/json' } });
  const malformed = await send('{"products": [');
  assertProblem(malformed, 400, 'VALIDATION_FAILED');
  assert.match(malformed.json.detail, /JSON/);
  assertProblem(await send(''), 400, 'VALIDATION_FAILED');
  assertProblem(await send('{"__proto__": {"polluted": true}, "products": []}'), 400, 'VALIDATION_FAILED');
  assertProblem(await send('"just a string"'), 400, 'VALIDATION_FAILED');
  assertProblem(await send('null'), 400, 'VALIDATION_FAILED');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('validation problems name the field', async () => {
  const r = await t.request('POST', '/api/v1/carts', { token: store.storefront, body: { products: [{ id: 'x', quantity: 1 }] } });
  assertProblem(r, 400, 'VALIDATION_FAILED');
  assert.ok(Array.isArray(r.json.errors) && r.json.errors.length > 0);
  assert.match(r.json.errors[0].field, /^body\.products\.0\.id/);
  assert.match(r.json.detail, /body\.products\.0\.id/);
});

test('unknown routes and methods are problem+json 404', async () => {
  assertProblem(await t.request('GET', '/api/v2/products', { token: store.storefront }), 404, 'NOT_FOUND');
  assertProblem(await t.request('PUT', '/api/v1/products', { token: store.storefront }), 404, 'NOT_FOUND');
  assertProblem(await t.request('GET', '/', {}), 404, 'NOT_FOUND');
});

test('a malformed URL is 400, not a crash', async () => {
  assertProblem(await t.request('GET', '/api/v1/products/%E0%A4%A', { token: store.storefront }), 400, 'VALIDATION_FAILED');
});
