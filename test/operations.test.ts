import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp } from './support/app.js';
import { assertProblem } from './support/factories.js';

const t = await startTestApp();

test('health and ready answer without a token', async () => {
  const health = await t.request('GET', '/api/health');
  assert.equal(health.status, 200);
  assert.deepEqual(health.json, { status: 'ok' });
  const ready = await t.request('GET', '/api/ready');
  assert.equal(ready.status, 200);
  assert.deepEqual(ready.json, { status: 'ready' });
});

test('the OpenAPI document is 3.1 and lists every route with its responses', async () => {
  const r = await t.request('GET', '/api/openapi.json');
  assert.equal(r.status, 200);
  assert.equal(r.json.openapi, '3.1.0');
  for (const path of ['/api/v1/products', '/api/v1/products/{slug}', '/api/v1/collections', '/api/v1/admin/stores', '/api/v1/admin/products']) {
    assert.ok(r.json.paths[path], `missing ${path}`);
  }
  const list = r.json.paths['/api/v1/products'].get;
  assert.ok(list.responses['200'] && list.responses['401'] && list.responses['400']);
  assert.deepEqual(list.security, [{ storefrontToken: [] }, { customerToken: [] }, { serverToken: [] }, { adminToken: [] }]);
});

test('the docs page is served', async () => {
  const r = await t.request('GET', '/api/docs/');
  assert.equal(r.status, 200);
  assert.match(String(r.headers['content-type']), /text\/html/);
});

test('an unknown route is a problem+json 404', async () => {
  assertProblem(await t.request('GET', '/api/v1/nothing-here'), 404, 'NOT_FOUND');
  assertProblem(await t.request('GET', '/nope'), 404, 'NOT_FOUND');
});

test('every answer carries a request id, the sane one of the client or a new one', async () => {
  const given = await t.request('GET', '/api/health', { headers: { 'x-request-id': 'abc-123.X_y' } });
  assert.equal(given.headers['x-request-id'], 'abc-123.X_y');
  const insane = await t.request('GET', '/api/v1/products', { headers: { 'x-request-id': 'bad id with spaces' } });
  assert.notEqual(insane.headers['x-request-id'], 'bad id with spaces');
  assert.equal(insane.json.instance, `urn:request:${insane.headers['x-request-id']}`);
  assert.equal(insane.headers['x-content-type-options'], 'nosniff');
});
