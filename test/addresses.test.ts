import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestApp } from './support/app.js';
import { assertProblem, createStore } from './support/factories.js';
import { ADDRESS } from './support/shop.js';

const t = await startTestApp();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

test('POST creates an address with the contract fields, optional ones defaulting to ""', async () => {
  const s = await createStore(t);
  const customer = randomUUID();
  const r = await t.request('POST', `/api/v1/${customer}/addresses`, { token: s.server, body: { address: ADDRESS } });
  assert.equal(r.status, 201, r.text);
  const a = r.json.address;
  assert.deepEqual(Object.keys(a).sort(), ['alias', 'city', 'complement', 'country', 'createdAt', 'customerId', 'deletedAt', 'id', 'name', 'neightborhood', 'number', 'phone', 'state', 'store', 'street', 'updatedAt', 'zipcode']);
  assert.equal(a.customerId, customer);
  assert.equal(a.store, s.slug);
  assert.equal(a.alias, '');
  assert.equal(a.neightborhood, '');
  assert.equal(a.complement, '');
  assert.match(a.createdAt, ISO);
  assert.equal(a.updatedAt, null);
  assert.equal(a.deletedAt, null);
  const full = { ...ADDRESS, alias: 'home', neightborhood: 'Centro', complement: 'apt 1' };
  const r2 = await t.request('POST', `/api/v1/${customer}/addresses`, { token: s.server, body: { address: full } });
  assert.equal(r2.json.address.neightborhood, 'Centro');
  assert.equal(r2.json.address.alias, 'home');
});

test('GET lists the customer\'s addresses in this store, newest first, with total', async () => {
  const s = await createStore(t);
  const other = await createStore(t);
  const customer = randomUUID();
  const ids = [];
  for (const alias of ['one', 'two', 'three']) {
    ids.push((await t.request('POST', `/api/v1/${customer}/addresses`, { token: s.server, body: { address: { ...ADDRESS, alias } } })).json.address.id);
  }
  await t.request('POST', `/api/v1/${randomUUID()}/addresses`, { token: s.server, body: { address: ADDRESS } });
  await t.request('POST', `/api/v1/${customer}/addresses`, { token: other.server, body: { address: ADDRESS } });
  const r = await t.request('GET', `/api/v1/${customer}/addresses`, { token: s.server });
  assert.equal(r.status, 200);
  assert.equal(r.json.total, 3);
  assert.deepEqual(r.json.addresses.map((a: { id: string }) => a.id), [...ids].reverse());
  const page = await t.request('GET', `/api/v1/${customer}/addresses?limit=2&offset=2`, { token: s.server });
  assert.deepEqual(page.json.addresses.map((a: { id: string }) => a.id), [ids[0]]);
  assert.equal(page.json.total, 3);
  assert.equal((await t.request('GET', `/api/v1/${randomUUID()}/addresses`, { token: s.server })).json.total, 0);
});

test('missing required fields, unknown fields, non-strings, long strings and a bad customer are 400 and store nothing', async () => {
  const s = await createStore(t);
  const customer = randomUUID();
  const bad: unknown[] = [
    {},
    { address: {} },
    { address: { ...ADDRESS, zipcode: undefined } },
    { address: { ...ADDRESS, street: '' } },
    { address: { ...ADDRESS, number: 10 } },
    { address: { ...ADDRESS, neighborhood: 'misspelt the other way' } },
    { address: { ...ADDRESS, city: 'x'.repeat(256) } },
    { address: ADDRESS, extra: true },
    { address: [ADDRESS] },
  ];
  for (const body of bad) assertProblem(await t.request('POST', `/api/v1/${customer}/addresses`, { token: s.server, body }), 400, 'VALIDATION_FAILED');
  assertProblem(await t.request('POST', '/api/v1/not-a-uuid/addresses', { token: s.server, body: { address: ADDRESS } }), 400, 'VALIDATION_FAILED');
  assertProblem(await t.request('GET', '/api/v1/12345/addresses', { token: s.server }), 400, 'VALIDATION_FAILED');
  assert.equal((await t.request('GET', `/api/v1/${customer}/addresses`, { token: s.server })).json.total, 0);
  assertProblem(await t.request('POST', `/api/v1/${customer}/addresses`, { body: { address: ADDRESS } }), 401, 'UNAUTHORIZED');
});
