/**
 * Customer access (docs/api.md, "Tokens and access"): the public storefront token never
 * reaches a customer's data; customer tokens and guest sessions reach only their own customer;
 * tokens are minted, expire and are revoked (one, all of a customer's, itself), seen at once by
 * every process; idempotency keys are per caller.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { startAppOn, startTestApp } from './support/app.js';
import { assertProblem, createProduct, createStore, mintCustomerToken } from './support/factories.js';
import { ADDRESS, createAddress, placeOrder } from './support/shop.js';

const t = await startTestApp();

test('the storefront token answers 403 on every customer route, and changes nothing', async () => {
  const s = await createStore(t);
  const p = await createProduct(t, s);
  const { customer, address } = await createAddress(t, s);
  const order = await placeOrder(t, s, customer, { address: address.id, products: [{ id: p.id, quantity: 1 }] });
  const calls: Array<[string, string, unknown?]> = [
    ['GET', `/api/v1/${customer}/addresses`],
    ['POST', `/api/v1/${customer}/addresses`, { address: ADDRESS }],
    ['GET', `/api/v1/${customer}/orders`],
    ['GET', `/api/v1/${customer}/orders/${order.json.order.id}`],
    ['POST', `/api/v1/${customer}/orders`, { address: address.id, products: [{ id: p.id, quantity: 1 }] }],
    ['POST', '/api/v1/customer-tokens', { customerId: customer }],
    ['DELETE', `/api/v1/customer-tokens?customerId=${customer}`],
  ];
  for (const [method, url, body] of calls) {
    const r = await t.request(method, url, { token: s.storefront, body });
    assertProblem(r, 403, 'FORBIDDEN');
    assert.match(r.json.detail, /needs/, 'the answer says which credential the route needs');
  }
  const [counts] = await queryRows<{ addresses: number; orders: number; tokens: number }>(
    t.database.db,
    sql`select (select count(*)::int from addresses where store = ${s.slug}) as addresses, (select count(*)::int from orders where store = ${s.slug}) as orders,
          (select count(*)::int from tokens where store = ${s.slug} and kind = 'customer') as tokens`,
  );
  assert.deepEqual(counts, { addresses: 1, orders: 1, tokens: 0 });
});

test('a customer token reaches its own customer only: another customer\'s path is 403, another store\'s data 401', async () => {
  const s = await createStore(t);
  const p = await createProduct(t, s);
  const a = randomUUID();
  const b = await createAddress(t, s);
  const tokenA = await mintCustomerToken(t, s, a);
  const mine = await t.request('POST', `/api/v1/${a}/addresses`, { token: tokenA.secret, body: { address: ADDRESS } });
  assert.equal(mine.status, 201, mine.text);
  assert.equal((await t.request('GET', `/api/v1/${a}/addresses`, { token: tokenA.secret })).json.total, 1);
  const ordered = await placeOrder(t, s, a, { address: mine.json.address.id, products: [{ id: p.id, quantity: 1 }] }, {}, tokenA.secret);
  assert.equal(ordered.status, 201, ordered.text);
  assert.equal((await t.request('GET', `/api/v1/${a}/orders/${ordered.json.order.id}`, { token: tokenA.secret })).status, 200);
  // The uppercase form of its own id is still its own.
  assert.equal((await t.request('GET', `/api/v1/${a.toUpperCase()}/orders`, { token: tokenA.secret })).status, 200);
  for (const [method, url, body] of [
    ['GET', `/api/v1/${b.customer}/addresses`],
    ['POST', `/api/v1/${b.customer}/addresses`, { address: ADDRESS }],
    ['GET', `/api/v1/${b.customer}/orders`],
    ['POST', `/api/v1/${b.customer}/orders`, { address: b.address.id, products: [{ id: p.id, quantity: 1 }] }],
  ] as Array<[string, string, unknown?]>) {
    assertProblem(await t.request(method, url, { token: tokenA.secret, body }), 403, 'FORBIDDEN');
  }
  assertProblem(await t.request('GET', '/api/v1/not-a-uuid/orders', { token: tokenA.secret }), 400, 'VALIDATION_FAILED');
  // It shops like the storefront token: catalog and carts.
  assert.equal((await t.request('GET', '/api/v1/products', { token: tokenA.secret })).status, 200);
  assert.equal((await t.request('POST', '/api/v1/carts', { token: tokenA.secret, body: { products: [{ id: p.id, quantity: 1 }] } })).status, 201);
  // But nothing of the store's back office.
  assertProblem(await t.request('POST', '/api/v1/customer-tokens', { token: tokenA.secret, body: { customerId: a } }), 403, 'FORBIDDEN');
  assertProblem(await t.request('POST', '/api/v1/guest-sessions', { token: tokenA.secret }), 403, 'FORBIDDEN');
  assertProblem(await t.request('GET', '/api/v1/admin/products', { token: tokenA.secret }), 403, 'FORBIDDEN');
});

test('customer tokens: minted by a server or admin token, kept as hashes, with a TTL in bounds', async () => {
  const s = await createStore(t);
  const customer = randomUUID();
  const r = await t.request('POST', '/api/v1/customer-tokens', { token: s.admin, body: { customerId: customer, ttlSeconds: 120 } });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(Object.keys(r.json).sort(), ['secret', 'token']);
  assert.deepEqual(Object.keys(r.json.token).sort(), ['createdAt', 'customerId', 'expiresAt', 'id', 'revokedAt']);
  assert.equal(r.json.token.customerId, customer);
  const lifetime = Date.parse(r.json.token.expiresAt) - Date.parse(r.json.token.createdAt);
  assert.ok(Math.abs(lifetime - 120_000) < 2000, `expires 120 s after creation (${lifetime} ms)`);
  const byDefault = await t.request('POST', '/api/v1/customer-tokens', { token: s.server, body: { customerId: customer } });
  assert.ok(Math.abs(Date.parse(byDefault.json.token.expiresAt) - Date.parse(byDefault.json.token.createdAt) - 3600_000) < 2000, 'default 3600 s');
  const [row] = await queryRows<{ secret_hash: string; customer_id: string }>(t.database.db, sql`select secret_hash, customer_id from tokens where id = ${r.json.token.id}`);
  assert.equal(row?.secret_hash, createHash('sha256').update(r.json.secret).digest('hex'));
  assert.equal(row?.customer_id, customer);
  for (const body of [{ customerId: 'nope' }, { customerId: customer, ttlSeconds: 59 }, { customerId: customer, ttlSeconds: 2592001 }, { customerId: customer, ttlSeconds: 1.5 }, {}, { customerId: customer, extra: 1 }]) {
    assertProblem(await t.request('POST', '/api/v1/customer-tokens', { token: s.server, body }), 400, 'VALIDATION_FAILED');
  }
  const listed = await t.request('GET', '/api/v1/admin/tokens', { token: s.admin });
  assert.ok(listed.json.tokens.every((token: { kind: string }) => token.kind !== 'customer'), 'the admin token list shows the store\'s own tokens only');
});

test('an expired customer token is 401 invalid_token', async () => {
  const s = await createStore(t);
  const customer = randomUUID();
  const token = await mintCustomerToken(t, s, customer);
  assert.equal((await t.request('GET', `/api/v1/${customer}/orders`, { token: token.secret })).status, 200);
  await t.database.db.execute(sql`update tokens set expires_at = now() - interval '1 millisecond' where id = ${token.id}`);
  const r = await t.request('GET', `/api/v1/${customer}/orders`, { token: token.secret });
  assertProblem(r, 401, 'UNAUTHORIZED');
  assert.match(String(r.headers['www-authenticate']), /error="invalid_token"/);
});

test('revocation: one token, every token of a customer, and a token revoking itself; seen at once by another process', async () => {
  const s = await createStore(t);
  const other = await startAppOn(t.database);
  const customer = randomUUID();
  const [one, two, three] = [await mintCustomerToken(t, s, customer), await mintCustomerToken(t, s, customer), await mintCustomerToken(t, s, customer)];
  const bystander = await mintCustomerToken(t, s, randomUUID());
  const works = async (token: string) => (await other.request('GET', '/api/v1/products', { token })).status === 200;
  assert.ok(await works(one.secret));

  const revoked = await t.request('DELETE', `/api/v1/customer-tokens/${one.id}`, { token: s.server });
  assert.equal(revoked.status, 200, revoked.text);
  assert.ok(revoked.json.token.revokedAt);
  assert.equal(await works(one.secret), false, 'the other process refuses it at its next request');
  assert.ok(await works(two.secret));
  assertProblem(await t.request('DELETE', `/api/v1/customer-tokens/${randomUUID()}`, { token: s.server }), 404, 'NOT_FOUND');
  const foreign = await createStore(t);
  assertProblem(await t.request('DELETE', `/api/v1/customer-tokens/${two.id}`, { token: foreign.server }), 404, 'NOT_FOUND');
  const [serverTokenRow] = await queryRows<{ id: string }>(t.database.db, sql`select id from tokens where store = ${s.slug} and kind = 'server'`);
  assertProblem(await t.request('DELETE', `/api/v1/customer-tokens/${serverTokenRow!.id}`, { token: s.server }), 404, 'NOT_FOUND');

  const self = await t.request('DELETE', '/api/v1/customer-tokens/current', { token: two.secret });
  assert.equal(self.status, 200, self.text);
  assert.equal(self.json.token.id, two.id);
  assert.equal(await works(two.secret), false);
  assertProblem(await t.request('DELETE', '/api/v1/customer-tokens/current', { token: s.server }), 403, 'FORBIDDEN');

  const all = await t.request('DELETE', `/api/v1/customer-tokens?customerId=${customer}`, { token: s.admin });
  assert.equal(all.status, 200, all.text);
  assert.deepEqual(all.json, { revoked: 1 });
  assert.equal(await works(three.secret), false);
  assert.ok(await works(bystander.secret), 'another customer stays signed in');
  assertProblem(await t.request('DELETE', '/api/v1/customer-tokens', { token: s.admin }), 400, 'VALIDATION_FAILED');
});

test('guest sessions: a new random customer and a token for it, valid GUEST_SESSION_TTL_SECONDS', async () => {
  const s = await createStore(t);
  const p = await createProduct(t, s);
  const r = await t.request('POST', '/api/v1/guest-sessions', { token: s.storefront });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(Object.keys(r.json).sort(), ['customerId', 'secret', 'token']);
  assert.equal(r.json.token.customerId, r.json.customerId);
  assert.ok(Math.abs(Date.parse(r.json.token.expiresAt) - Date.parse(r.json.token.createdAt) - 86400_000) < 2000);
  const guest = r.json.customerId as string;
  const secret = r.json.secret as string;
  const address = await t.request('POST', `/api/v1/${guest}/addresses`, { token: secret, body: { address: ADDRESS } });
  assert.equal(address.status, 201);
  const cart = await t.request('POST', '/api/v1/carts', { token: secret, body: { products: [{ id: p.id, quantity: 1 }] } });
  const order = await placeOrder(t, s, guest, { id: cart.json.cart.id, address: address.json.address.id }, {}, secret);
  assert.equal(order.status, 201, order.text);
  assert.equal((await t.request('GET', `/api/v1/${guest}/orders`, { token: secret })).json.total, 1);
  const another = await t.request('POST', '/api/v1/guest-sessions', { token: s.storefront });
  assert.notEqual(another.json.customerId, guest);
  assertProblem(await t.request('GET', `/api/v1/${guest}/orders`, { token: another.json.secret }), 403, 'FORBIDDEN');
  assert.equal((await t.request('POST', '/api/v1/guest-sessions', { token: s.server })).status, 201);
  assertProblem(await t.request('POST', '/api/v1/guest-sessions', { token: s.storefront, body: { customerId: guest } }), 400, 'VALIDATION_FAILED');
});

test('idempotency keys are per caller: two customers with one key get two independent answers', async () => {
  const s = await createStore(t);
  const p = await createProduct(t, s, { quantity: 10 });
  const key = `shared-${randomUUID()}`;
  const [a, b] = [randomUUID(), randomUUID()];
  const [tokenA, tokenB] = [await mintCustomerToken(t, s, a), await mintCustomerToken(t, s, b)];
  const addressA = await t.request('POST', `/api/v1/${a}/addresses`, { token: tokenA.secret, body: { address: ADDRESS }, headers: { 'idempotency-key': key } });
  const addressB = await t.request('POST', `/api/v1/${b}/addresses`, { token: tokenB.secret, body: { address: { ...ADDRESS, city: 'Rio' } }, headers: { 'idempotency-key': key } });
  assert.equal(addressA.status, 201);
  assert.equal(addressB.status, 201, 'not IDEMPOTENCY_KEY_REUSED: B learns nothing of A');
  assert.equal(addressB.headers['idempotent-replayed'], undefined);
  assert.equal(addressB.json.address.city, 'Rio');
  // Carts: each customer credential has its own key space.
  const cartKey = `cart-${randomUUID()}`;
  const cartA = await t.request('POST', '/api/v1/carts', { token: tokenA.secret, body: { products: [{ id: p.id, quantity: 1 }] }, headers: { 'idempotency-key': cartKey } });
  const cartB = await t.request('POST', '/api/v1/carts', { token: tokenB.secret, body: { products: [{ id: p.id, quantity: 2 }] }, headers: { 'idempotency-key': cartKey } });
  assert.equal(cartA.status, 201);
  assert.equal(cartB.status, 201);
  assert.notEqual(cartB.json.cart.id, cartA.json.cart.id);
  // The server token on A's path shares A's key space: it is a retry of A's request.
  const replay = await t.request('POST', `/api/v1/${a}/addresses`, { token: s.server, body: { address: ADDRESS }, headers: { 'idempotency-key': key } });
  assert.equal(replay.headers['idempotent-replayed'], 'true');
  assert.equal(replay.json.address.id, addressA.json.address.id);
});
