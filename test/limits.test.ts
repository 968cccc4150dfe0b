/**
 * Rate limits: per secret token (admin, server); per store and client address for public callers
 * (the storefront token, customer credentials, no or a refused token); per store and customer for
 * orders, counted after validation and authorization; per store and client for guest sessions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { startAppOn, startTestApp } from './support/app.js';
import { assertProblem, createProduct, createStore, mintCustomerToken } from './support/factories.js';
import { createAddress, placeOrder } from './support/shop.js';
import { wellInsideAMinute } from './support/clock.js';
import { events, logBuffer, until } from './support/log-buffer.js';

const base = await startTestApp();
const limited = await startAppOn(base.database, {
  RATE_LIMIT_PER_MINUTE: '5',
  CLIENT_RATE_LIMIT_PER_MINUTE: '5',
  ORDER_RATE_LIMIT_PER_MINUTE: '2',
  GUEST_SESSIONS_PER_MINUTE: '2',
});
/** A request from one client address (the socket's, as inject sets it). */
const from = (ip: string, method: string, url: string, options: { token?: string; body?: unknown } = {}) =>
  limited.app.inject({
    method: method as 'GET',
    url,
    remoteAddress: ip,
    headers: { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...(options.body ? { 'content-type': 'application/json' } : {}) },
    payload: options.body ? JSON.stringify(options.body) : undefined,
  });
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisAnswers(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000 });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

test('over RATE_LIMIT_PER_MINUTE a secret token gets 429 RATE_LIMITED with Retry-After and RateLimit-* headers', async () => {
  const s = await createStore(base);
  await wellInsideAMinute();
  const answers = [];
  for (let i = 0; i < 6; i++) answers.push(await limited.request('GET', '/api/v1/collections', { token: s.server }));
  assert.deepEqual(answers.slice(0, 5).map((r) => r.status), [200, 200, 200, 200, 200]);
  assert.deepEqual(answers.slice(0, 5).map((r) => r.headers['ratelimit-remaining']), ['4', '3', '2', '1', '0']);
  const refused = answers[5]!;
  assertProblem(refused, 429, 'RATE_LIMITED');
  assert.equal(refused.headers['ratelimit-limit'], '5');
  assert.ok(Number(refused.headers['retry-after']) >= 1 && Number(refused.headers['retry-after']) <= 60);
  assert.ok(Number(refused.headers['ratelimit-reset']) >= 1);
  assert.equal((await limited.request('GET', '/api/v1/collections', { token: s.admin })).status, 200, 'another token has its own budget');
});

test('public callers count per store and client address: one client flooding does not stop another of the same storefront token', async () => {
  const s = await createStore(base);
  await wellInsideAMinute();
  const flood = await Promise.all(Array.from({ length: 12 }, () => from('203.0.113.1', 'GET', '/api/v1/collections', { token: s.storefront })));
  assert.equal(flood.filter((r) => r.statusCode === 200).length, 5);
  assert.equal(flood.filter((r) => r.statusCode === 429).length, 7);
  assert.equal((await from('203.0.113.2', 'GET', '/api/v1/collections', { token: s.storefront })).statusCode, 200, 'another shopper still shops');
  const customer = await mintCustomerToken(base, s, randomUUID());
  assert.equal((await from('203.0.113.3', 'GET', '/api/v1/collections', { token: customer.secret })).statusCode, 200);
  const other = await createStore(base);
  assert.equal((await from('203.0.113.1', 'GET', '/api/v1/collections', { token: other.storefront })).statusCode, 200, 'the same client in another store');
});

test('requests without a valid token count against their client address', async () => {
  await wellInsideAMinute();
  const statuses = [];
  for (let i = 0; i < 6; i++) statuses.push((await from('203.0.113.9', 'GET', '/api/v1/products', { token: `nope-${i}` })).statusCode);
  assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
  assert.equal((await from('203.0.113.10', 'GET', '/api/v1/products', { token: 'nope' })).statusCode, 401, 'another address is not blocked');
});

test('guest sessions: at most GUEST_SESSIONS_PER_MINUTE per store and client address', async () => {
  const s = await createStore(base);
  await wellInsideAMinute();
  const statuses = [];
  for (let i = 0; i < 3; i++) statuses.push((await from('203.0.113.20', 'POST', '/api/v1/guest-sessions', { token: s.storefront })).statusCode);
  assert.deepEqual(statuses, [201, 201, 429]);
  assert.equal((await from('203.0.113.21', 'POST', '/api/v1/guest-sessions', { token: s.storefront })).statusCode, 201);
});

test('order creation has its own tighter limit per store and customer', async () => {
  const s = await createStore(base);
  const p = await createProduct(base, s, { quantity: 100 });
  const one = await createAddress(base, s);
  const two = await createAddress(base, s);
  const order = (who: { customer: string; address: { id: string } }) =>
    placeOrder(limited, s, who.customer, { address: who.address.id, products: [{ id: p.id, quantity: 1 }] });
  await wellInsideAMinute();
  assert.equal((await order(one)).status, 201);
  assert.equal((await order(one)).status, 201);
  const refused = await order(one);
  assertProblem(refused, 429, 'RATE_LIMITED');
  assert.equal(refused.headers['ratelimit-limit'], '2');
  assert.equal((await order(two)).status, 201, 'another customer of the same token has its own order budget');
});

test('the order limit counts only requests that passed validation and authorization: nobody can lock a victim out', async () => {
  const s = await createStore(base);
  const p = await createProduct(base, s, { quantity: 100 });
  const victim = await createAddress(base, s);
  const body = { address: victim.address.id, products: [{ id: p.id, quantity: 1 }] };
  for (let i = 0; i < 10; i++) {
    const malformed = await from(`198.51.100.${i}`, 'POST', `/api/v1/${victim.customer}/orders`, { token: s.storefront, body: { ...body, coupon: 'x' } });
    assert.equal(malformed.statusCode, 400);
    const forbidden = await from(`198.51.100.${i}`, 'POST', `/api/v1/${victim.customer}/orders`, { token: s.storefront, body });
    assert.equal(forbidden.statusCode, 403);
  }
  const own = await mintCustomerToken(base, s, victim.customer);
  const placed = await placeOrder(limited, s, victim.customer, body, {}, own.secret);
  assert.equal(placed.status, 201, placed.text);
});

test('a limit of 0 is off', async () => {
  const s = await createStore(base);
  for (let i = 0; i < 20; i++) assert.equal((await base.request('GET', '/api/v1/collections', { token: s.storefront })).status, 200);
});

test('a limit counts on its own when the others are off', async () => {
  // Each limit's hooks are registered only when it is on: the order and guest-session limits must
  // not depend on the caller limits' hooks being there.
  const alone = await startAppOn(base.database, { ORDER_RATE_LIMIT_PER_MINUTE: '1', GUEST_SESSIONS_PER_MINUTE: '1' });
  const s = await createStore(base);
  const p = await createProduct(base, s, { quantity: 100 });
  const who = await createAddress(base, s);
  await wellInsideAMinute();
  const collections = await alone.request('GET', '/api/v1/collections', { token: s.storefront });
  assert.equal(collections.headers['ratelimit-limit'], undefined, 'no caller budget: no RateLimit headers');
  const order = () => placeOrder(alone, s, who.customer, { address: who.address.id, products: [{ id: p.id, quantity: 1 }] });
  assert.equal((await order()).status, 201);
  assertProblem(await order(), 429, 'RATE_LIMITED');
  const guests = [];
  for (let i = 0; i < 2; i++) guests.push((await alone.request('POST', '/api/v1/guest-sessions', { token: s.storefront })).status);
  assert.deepEqual(guests, [201, 429]);
});

test('with REDIS_URL two processes share one counter', { skip: !(await redisAnswers()) && `no Redis answers at ${REDIS_URL}` }, async () => {
  const prefix = `storefront-test:${randomUUID()}:`;
  const env = { RATE_LIMIT_PER_MINUTE: '4', REDIS_URL };
  const [logA, logB] = [logBuffer(), logBuffer()];
  const a = await startAppOn(base.database, env, { logger: logA.logger, rateLimitPrefix: prefix });
  const b = await startAppOn(base.database, env, { logger: logB.logger, rateLimitPrefix: prefix });
  // Until a process's Redis connection is ready it counts in its own memory, and says so on
  // /api/ready. The start waits at most 3 s, and on a loaded CI machine a first connection can fail
  // and come back later (the process then logs `rate_limits_restored`): five requests once went
  // unrefused so. Both must count in Redis before the requests that test it.
  for (const [name, app] of [['A', a], ['B', b]] as const) {
    await until(`process ${name} to count in Redis`, async () => (await app.request('GET', '/api/ready')).json.status === 'ready', 30_000);
  }
  const s = await createStore(base);
  await wellInsideAMinute();
  const statuses = [];
  for (let i = 0; i < 5; i++) statuses.push((await (i % 2 ? b : a).request('GET', '/api/v1/collections', { token: s.server })).status);
  // A Redis command slower than its timeout (500 ms) is counted in memory too; the log says so.
  assert.deepEqual(statuses, [200, 200, 200, 200, 429], JSON.stringify([...events(logA, 'rate_limits_degraded'), ...events(logB, 'rate_limits_degraded')]));
});
