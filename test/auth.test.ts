import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { ROOT_TOKEN, startTestApp } from './support/app.js';
import { assertProblem, createProduct, createStore } from './support/factories.js';

const t = await startTestApp();

test('a missing, malformed or unknown token is 401 with WWW-Authenticate: Bearer', async () => {
  const cases: Array<Record<string, string>> = [
    {},
    { authorization: 'Basic dXNlcjpwYXNz' },
    { authorization: 'Bearer' },
    { authorization: 'Bearer a b' },
    { authorization: 'Bearer not-a-real-token' },
    { authorization: `Bearer sf_nostore_${'A'.repeat(43)}` },
  ];
  for (const headers of cases) {
    const r = await t.request('GET', '/api/v1/products', { headers });
    assertProblem(r, 401, 'UNAUTHORIZED');
    assert.match(String(r.headers['www-authenticate']), /^Bearer/);
  }
});

test('a known token of the wrong kind is 403 FORBIDDEN', async () => {
  const s = await createStore(t);
  const storefrontOnAdmin = await t.request('GET', '/api/v1/admin/products', { token: s.storefront });
  assertProblem(storefrontOnAdmin, 403, 'FORBIDDEN');
  assert.match(String(storefrontOnAdmin.headers['www-authenticate']), /insufficient_scope/);
  assertProblem(await t.request('GET', '/api/v1/products', { token: ROOT_TOKEN }), 403, 'FORBIDDEN');
  assertProblem(await t.request('POST', '/api/v1/admin/stores', { token: s.admin, body: { slug: 'nope-store' } }), 403, 'FORBIDDEN');
  const product = { name: 'P', slug: 'p', sku: 'S', price: 1, quantity: 1 };
  assertProblem(await t.request('POST', '/api/v1/admin/products', { token: ROOT_TOKEN, body: product }), 403, 'FORBIDDEN');
  assertProblem(await t.request('POST', '/api/v1/admin/products', { token: ROOT_TOKEN, body: {} }), 400, 'VALIDATION_FAILED');
  assert.equal((await t.request('GET', '/api/v1/products', { token: s.admin })).status, 200, 'admin tokens use every storefront route');
});

test('the root token creates stores: slug rules, 409 for an existing slug, tokens shown once and kept as hashes', async () => {
  const slug = `store-${randomUUID().slice(0, 8)}`;
  const r = await t.request('POST', '/api/v1/admin/stores', { token: ROOT_TOKEN, body: { slug, name: 'My Store' } });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(Object.keys(r.json).sort(), ['store', 'tokens']);
  assert.equal(r.json.store.slug, slug);
  assert.equal(r.json.store.name, 'My Store');
  const { admin, storefront } = r.json.tokens;
  assert.ok(admin && storefront && admin !== storefront);
  assertProblem(await t.request('POST', '/api/v1/admin/stores', { token: ROOT_TOKEN, body: { slug } }), 409, 'CONFLICT');
  for (const bad of ['A', 'x', '-x1', 'has_underscore', 'a'.repeat(64), 'spa ce']) {
    assertProblem(await t.request('POST', '/api/v1/admin/stores', { token: ROOT_TOKEN, body: { slug: bad } }), 400, 'VALIDATION_FAILED');
  }
  const rows = await queryRows<{ secret_hash: string }>(t.database.db, sql`select secret_hash from tokens where store = ${slug} order by created_at`);
  const hashes = rows.map((row) => row.secret_hash);
  assert.equal(hashes.length, 2);
  for (const secret of [admin, storefront]) {
    assert.ok(!hashes.includes(secret), 'the secret itself is not stored');
    assert.ok(hashes.includes(createHash('sha256').update(secret).digest('hex')));
  }
});

test('an admin issues and revokes tokens; a revoked token is refused at once; listings never show secrets', async () => {
  const s = await createStore(t);
  const created = await t.request('POST', '/api/v1/admin/tokens', { token: s.admin, body: { kind: 'storefront' } });
  assert.equal(created.status, 201);
  assert.deepEqual(Object.keys(created.json).sort(), ['secret', 'token']);
  assert.equal(created.json.token.kind, 'storefront');
  const secret = created.json.secret;
  assert.equal((await t.request('GET', '/api/v1/products', { token: secret })).status, 200);
  const revoked = await t.request('DELETE', `/api/v1/admin/tokens/${created.json.token.id}`, { token: s.admin });
  assert.equal(revoked.status, 200);
  assert.ok(revoked.json.token.revokedAt);
  assertProblem(await t.request('GET', '/api/v1/products', { token: secret }), 401, 'UNAUTHORIZED');
  const listed = await t.request('GET', '/api/v1/admin/tokens', { token: s.admin });
  assert.equal(listed.json.tokens.length, 4, 'admin, storefront, the factory\'s server token and the new one');
  assert.ok(!listed.text.includes(secret));
  const newAdmin = await t.request('POST', '/api/v1/admin/tokens', { token: s.admin, body: { kind: 'admin' } });
  assert.equal((await t.request('GET', '/api/v1/admin/products', { token: newAdmin.json.secret })).status, 200);
  assertProblem(await t.request('POST', '/api/v1/admin/tokens', { token: s.admin, body: { kind: 'root' } }), 400, 'VALIDATION_FAILED');
  const other = await createStore(t);
  assertProblem(await t.request('DELETE', `/api/v1/admin/tokens/${newAdmin.json.token.id}`, { token: other.admin }), 404, 'NOT_FOUND');
  assert.equal((await t.request('GET', '/api/v1/admin/products', { token: newAdmin.json.secret })).status, 200, 'another store cannot revoke it');
  // An admin can revoke its own token; the next request with it is refused.
  const self = await t.request('DELETE', `/api/v1/admin/tokens/${newAdmin.json.token.id}`, { token: newAdmin.json.secret });
  assert.equal(self.status, 200);
  assertProblem(await t.request('GET', '/api/v1/admin/products', { token: newAdmin.json.secret }), 401, 'UNAUTHORIZED');
});

test('the store comes from the token: another store\'s records answer exactly like missing ones', async () => {
  const s = await createStore(t);
  const other = await createStore(t);
  const p = await createProduct(t, s);
  const foreign = await t.request('GET', `/api/v1/admin/products/${p.id}`, { token: other.admin });
  const missing = await t.request('GET', `/api/v1/admin/products/${randomUUID()}`, { token: other.admin });
  assert.equal(foreign.status, 404);
  assert.equal(missing.status, 404);
  assert.equal(foreign.json.code, missing.json.code);
  assert.equal(foreign.json.title, missing.json.title);
  assert.equal((await t.request('GET', '/api/v1/products', { token: other.storefront })).json.total, 0);
});

test('health, ready, openapi.json and docs need no token', async () => {
  for (const path of ['/api/health', '/api/ready', '/api/openapi.json', '/api/docs/']) {
    assert.equal((await t.request('GET', path)).status, 200, path);
  }
});
