/** Request ids in logs, Prometheus metrics, security headers, CORS. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { logBuffer } from './support/log-buffer.js';
import { startAppOn, startTestApp } from './support/app.js';
import { assertProblem, createProduct, createStore } from './support/factories.js';
import { createAddress, placeOrder } from './support/shop.js';

const t = await startTestApp();

test('every log line of a request carries its request id', async () => {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  const logged = await startAppOn(t.database, {}, { logger: { level: 'info', stream } });
  const s = await createStore(t);
  await logged.request('GET', '/api/v1/products', { token: s.storefront, headers: { 'x-request-id': 'trace-me-123' } });
  await logged.request('GET', '/api/v1/products/missing', { token: s.storefront, headers: { 'x-request-id': 'trace-me-456' } });
  const mine = lines.filter((l) => JSON.stringify(l).includes('trace-me-'));
  assert.ok(mine.length >= 4, `${mine.length} lines`);
  for (const line of lines.filter((l) => l.req || l.res || l.code)) assert.match(String(line.reqId), /^trace-me-|^[0-9a-f-]{36}$/);
  assert.ok(lines.some((l) => l.reqId === 'trace-me-456' && l.code === 'NOT_FOUND'), 'the refusal is logged with its id');
});

test('/api/metrics exposes requests, latency, pool use and the business counters', async () => {
  const s = await createStore(t);
  const p = await createProduct(t, s, { quantity: 1 });
  const { customer, address } = await createAddress(t, s);
  const body = { address: address.id, products: [{ id: p.id, quantity: 1 }] };
  assert.equal((await placeOrder(t, s, customer, body, { 'idempotency-key': 'metrics-key' })).status, 201);
  assert.equal((await placeOrder(t, s, customer, body, { 'idempotency-key': 'metrics-key' })).headers['idempotent-replayed'], 'true');
  assert.equal((await placeOrder(t, s, customer, body)).status, 422);
  for (let i = 0; i < 2; i++) assert.equal((await t.request('GET', '/api/v1/collections', { token: s.storefront })).status, 200);
  const r = await t.request('GET', '/api/metrics');
  assert.equal(r.status, 200);
  assert.match(String(r.headers['content-type']), /text\/plain/);
  assert.match(r.text, /http_requests_total\{method="POST",route="\/api\/v1\/:customer\/orders",status="201"\} 2/);
  assert.match(r.text, /http_request_duration_seconds_bucket\{le="0.1",method="GET",route="\/api\/v1\/admin\/products\/:id"|http_request_duration_seconds_bucket/);
  assert.match(r.text, /storefront_orders_created_total 1\n/);
  assert.match(r.text, /storefront_idempotent_replays_total 1\n/);
  assert.match(r.text, /storefront_stock_refusals_total\{code="INSUFFICIENT_STOCK"\} 1\n/);
  assert.match(r.text, /db_pool_connections\{state="total"\} \d+/);
  assert.match(r.text, /storefront_catalog_cache_total\{outcome="computed"\} [1-9]/);
  assert.match(r.text, /storefront_catalog_cache_total\{outcome="hit"\} [1-9]/);
  assert.doesNotMatch(r.text, /route="\/api\/v1\/[0-9a-f]{8}-/, 'routes are labelled by pattern, never by raw URL');
});

test('with METRICS_TOKEN the metrics need it', async () => {
  const guarded = await startAppOn(t.database, { METRICS_TOKEN: 'metrics-secret-0123456789' });
  assertProblem(await guarded.request('GET', '/api/metrics'), 401, 'UNAUTHORIZED');
  assertProblem(await guarded.request('GET', '/api/metrics', { token: 'wrong-secret-0123456789' }), 401, 'UNAUTHORIZED');
  assert.equal((await guarded.request('GET', '/api/metrics', { token: 'metrics-secret-0123456789' })).status, 200);
});

test('without METRICS_TOKEN the metrics are served only on a loopback HOST, and are 404 otherwise', async () => {
  assert.equal((await t.request('GET', '/api/metrics')).status, 200, 'HOST 127.0.0.1 (the default)');
  const local6 = await startAppOn(t.database, { HOST: '::1' });
  assert.equal((await local6.request('GET', '/api/metrics')).status, 200);
  const open = await startAppOn(t.database, { HOST: '0.0.0.0' });
  assertProblem(await open.request('GET', '/api/metrics'), 404, 'NOT_FOUND');
  const guarded = await startAppOn(t.database, { HOST: '0.0.0.0', METRICS_TOKEN: 'metrics-secret-0123456789' });
  assertProblem(await guarded.request('GET', '/api/metrics'), 401, 'UNAUTHORIZED');
  assert.equal((await guarded.request('GET', '/api/metrics', { token: 'metrics-secret-0123456789' })).status, 200);
});

test('with TRUST_PROXY set the metrics need METRICS_TOKEN even on a loopback HOST: 404 without it, and the start says why', async () => {
  const log = logBuffer('warn');
  for (const trustProxy of ['2', '1', '127.0.0.1']) {
    const proxied = await startAppOn(t.database, { HOST: '127.0.0.1', TRUST_PROXY: trustProxy }, { logger: log.logger });
    assertProblem(await proxied.request('GET', '/api/metrics'), 404, 'NOT_FOUND');
  }
  assert.match(log.text(), /METRICS_TOKEN/);
  const guarded = await startAppOn(t.database, { TRUST_PROXY: '1', METRICS_TOKEN: 'metrics-secret-0123456789' });
  assertProblem(await guarded.request('GET', '/api/metrics'), 401, 'UNAUTHORIZED');
  assert.equal((await guarded.request('GET', '/api/metrics', { token: 'metrics-secret-0123456789' })).status, 200);
});

// The headers that act on an answer a program reads, on every one of them.
const ANSWER_HEADERS = {
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'SAMEORIGIN',
};
// Helmet's defaults besides (no content security policy; resources may be shown cross-origin): only
// on what a browser shows.
const PAGE_HEADERS = {
  ...ANSWER_HEADERS,
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'cross-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

test('security headers on every answer, all of helmet\'s on pages and pictures; the docs page keeps working under its own policy', async () => {
  const s = await createStore(t);
  const answers = {
    health: await t.request('GET', '/api/health'),
    'a catalog read': await t.request('GET', '/api/v1/products', { token: s.storefront }),
    'a refused token': await t.request('GET', '/api/v1/products', { token: 'sf_nobody_x' }),
    'an unknown route': await t.request('GET', '/api/v1/nowhere'),
    'a write': await t.request('POST', '/api/v1/carts', { token: s.storefront, body: {} }),
  };
  for (const [what, r] of Object.entries(answers)) {
    for (const [name, value] of Object.entries(ANSWER_HEADERS)) assert.equal(r.headers[name], value, `${what}: ${name}`);
    for (const name of Object.keys(PAGE_HEADERS)) if (!(name in ANSWER_HEADERS)) assert.equal(r.headers[name], undefined, `${what}: ${name}`);
    assert.equal(r.headers['x-powered-by'], undefined, what);
    assert.equal(r.headers['content-security-policy'], undefined, what);
  }
  const pages = {
    'the docs page': await t.request('GET', '/api/docs/'),
    'the dashboard': await t.request('GET', '/admin/'),
    'the way to the dashboard': await t.request('GET', '/admin'),
    'a picture': await t.request('GET', '/api/images/beanie.svg'),
  };
  for (const [what, r] of Object.entries(pages)) {
    for (const [name, value] of Object.entries(PAGE_HEADERS)) assert.equal(r.headers[name], value, `${what}: ${name}`);
  }
  const docs = pages['the docs page'];
  assert.equal(docs.status, 200);
  assert.match(String(docs.headers['content-security-policy']), /script-src/);
  for (const asset of docs.text.matchAll(/(?:src|href)="\.?\/?([^"]+\.(?:js|css))"/g)) {
    const url = asset[1]!.startsWith('/') ? asset[1]! : `/api/docs/${asset[1]}`;
    assert.equal((await t.request('GET', url)).status, 200, url);
  }
});

test('CORS answers only the configured origins', async () => {
  const open = await startAppOn(t.database, { CORS_ORIGINS: 'https://shop.example, https://m.shop.example' });
  const preflight = await open.request('OPTIONS', '/api/v1/carts', {
    headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,idempotency-key' },
  });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers['access-control-allow-origin'], 'https://shop.example');
  assert.match(String(preflight.headers['access-control-allow-headers']), /Idempotency-Key/i);
  const stranger = await open.request('GET', '/api/health', { headers: { origin: 'https://evil.example' } });
  assert.equal(stranger.headers['access-control-allow-origin'], undefined);
  assert.equal((await t.request('GET', '/api/health', { headers: { origin: 'https://shop.example' } })).headers['access-control-allow-origin'], undefined, 'no CORS unless configured');
});
