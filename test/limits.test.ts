/** Rate limits per token, per client address without a valid token, and per token and customer for orders. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { startAppOn, startTestApp } from './support/app.js';
import { assertProblem, createProduct, createStore } from './support/factories.js';
import { createAddress, placeOrder } from './support/shop.js';

const base = await startTestApp();
const limited = await startAppOn(base.database, { RATE_LIMIT_PER_MINUTE: '5', ORDER_RATE_LIMIT_PER_MINUTE: '2' });
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

test('over RATE_LIMIT_PER_MINUTE a token gets 429 RATE_LIMITED with Retry-After and RateLimit-* headers', async () => {
  const s = await createStore(base);
  const answers = [];
  for (let i = 0; i < 6; i++) answers.push(await limited.request('GET', '/api/v1/collections', { token: s.storefront }));
  assert.deepEqual(answers.slice(0, 5).map((r) => r.status), [200, 200, 200, 200, 200]);
  assert.deepEqual(answers.slice(0, 5).map((r) => r.headers['ratelimit-remaining']), ['4', '3', '2', '1', '0']);
  const refused = answers[5]!;
  assertProblem(refused, 429, 'RATE_LIMITED');
  assert.equal(refused.headers['ratelimit-limit'], '5');
  assert.ok(Number(refused.headers['retry-after']) >= 1 && Number(refused.headers['retry-after']) <= 60);
  assert.ok(Number(refused.headers['ratelimit-reset']) >= 1);
  const other = await createStore(base);
  assert.equal((await limited.request('GET', '/api/v1/collections', { token: other.storefront })).status, 200, 'another token has its own budget');
});

test('requests without a valid token count against their client address', async () => {
  const statuses = [];
  for (let i = 0; i < 6; i++) statuses.push((await limited.request('GET', '/api/v1/products', { token: `nope-${i}` })).status);
  assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
});

test('order creation has its own tighter limit per token and customer', async () => {
  const s = await createStore(base);
  const p = await createProduct(base, s, { quantity: 100 });
  const one = await createAddress(base, s);
  const two = await createAddress(base, s);
  const order = (who: { customer: string; address: { id: string } }) =>
    placeOrder(limited, s, who.customer, { address: who.address.id, products: [{ id: p.id, quantity: 1 }] });
  assert.equal((await order(one)).status, 201);
  assert.equal((await order(one)).status, 201);
  const refused = await order(one);
  assertProblem(refused, 429, 'RATE_LIMITED');
  assert.equal(refused.headers['ratelimit-limit'], '2');
  assert.equal((await order(two)).status, 201, 'another customer of the same token has its own order budget');
});

test('a limit of 0 is off', async () => {
  const s = await createStore(base);
  for (let i = 0; i < 20; i++) assert.equal((await base.request('GET', '/api/v1/collections', { token: s.storefront })).status, 200);
});

test('with REDIS_URL two processes share one counter', { skip: !(await redisAnswers()) && `no Redis answers at ${REDIS_URL}` }, async () => {
  const prefix = `storefront-test:${randomUUID()}:`;
  const env = { RATE_LIMIT_PER_MINUTE: '4', REDIS_URL };
  const a = await startAppOn(base.database, env, { rateLimitPrefix: prefix });
  const b = await startAppOn(base.database, env, { rateLimitPrefix: prefix });
  const s = await createStore(base);
  const statuses = [];
  for (let i = 0; i < 5; i++) statuses.push((await (i % 2 ? b : a).request('GET', '/api/v1/collections', { token: s.storefront })).status);
  assert.deepEqual(statuses, [200, 200, 200, 200, 429]);
});

test('when Redis does not answer, requests go through (fail open)', async () => {
  const down = await startAppOn(base.database, { RATE_LIMIT_PER_MINUTE: '1', REDIS_URL: 'redis://127.0.0.1:1' });
  const s = await createStore(base);
  for (let i = 0; i < 3; i++) assert.equal((await down.request('GET', '/api/v1/collections', { token: s.storefront })).status, 200);
});
