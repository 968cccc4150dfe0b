/**
 * Abuse resistance: a bad request costs a bounded amount of work, a slow one is cut, an aborted
 * upload is a client event, and X-Forwarded-For names the client only from a trusted proxy.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT_TOKEN, startAppOn, startTestApp } from './support/app.js';
import { copyTemplate, TEST_DATABASE_URL } from './support/database.js';
import { assertProblem, createStore } from './support/factories.js';
import { call, startServerProcess } from './support/server-process.js';

const t = await startTestApp();
const store = await createStore(t);

/** A cart body of `bytes` bytes whose every line is wrong three ways. */
function badCartBody(bytes: number): string {
  const line = '{"id":"not-a-uuid","quantity":-1.5,"extra":1},';
  const head = '{"products":[';
  const lines = line.repeat(Math.floor((bytes - head.length - 2) / line.length)).slice(0, -1);
  return (head + lines + ']}').padEnd(bytes, ' ');
}

/** An app whose log lines are kept, parsed. */
async function loggedApp(env: Record<string, string> = {}) {
  const lines: Array<Record<string, any>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = await startAppOn(t.database, env, { logger: { level: 'info', stream } });
  return { ...app, lines };
}

test('a validation problem lists at most 20 errors', async () => {
  const r = await t.request('POST', '/api/v1/carts', { token: store.storefront, rawBody: badCartBody(20_000), headers: { 'content-type': 'application/json' } });
  assertProblem(r, 400, 'VALIDATION_FAILED');
  assert.equal(r.json.errors.length, 20);
  assert.ok(r.text.length < 4000, `${r.text.length} bytes of answer`);
});

test('bodies over 64 KiB on storefront routes and over 1 MiB on admin routes are 413 naming the limit', async () => {
  const json = { 'content-type': 'application/json' };
  const storefront = await t.request('POST', '/api/v1/carts', { token: store.storefront, rawBody: badCartBody(64 * 1024 + 1), headers: json });
  assertProblem(storefront, 413, 'PAYLOAD_TOO_LARGE');
  assert.match(storefront.json.detail, /64 KiB/);
  const atLimit = await t.request('POST', '/api/v1/carts', { token: store.storefront, rawBody: badCartBody(64 * 1024), headers: json });
  assertProblem(atLimit, 400, 'VALIDATION_FAILED');
  const description = 'd'.repeat(200 * 1024);
  const admin = await t.request('POST', '/api/v1/admin/products', { token: store.admin, body: { name: 'Big', slug: 'big', sku: 'B', price: 1, quantity: 1, description } });
  assert.notEqual(admin.status, 413, 'an admin body of 200 KiB is within its limit');
  const tooBig = await t.request('POST', '/api/v1/admin/products', { token: store.admin, rawBody: JSON.stringify({ description: 'd'.repeat(1024 * 1024) }), headers: json });
  assertProblem(tooBig, 413, 'PAYLOAD_TOO_LARGE');
  assert.match(tooBig.json.detail, /1 MiB/);
});

// Measured on the 2-core development machine shared by four engineers (load average 8-9): during
// the flood below /api/health answered with p50 ~100 ms and at most 335-490 ms (it waits behind
// the bad bodies in the queue, ~10-30 ms each); before the limits, eight 999 KB bodies held it 2.2 s.
const HEALTH_BOUND_MS = 1000;

test(`a flood of maximal bad bodies keeps /api/health answering within ${HEALTH_BOUND_MS} ms`, { timeout: 120_000 }, async () => {
  const copy = TEST_DATABASE_URL ? undefined : copyTemplate();
  try {
    const server = await startServerProcess(copy ? { DATA_DIR: copy.dataDir } : { DATABASE_URL: TEST_DATABASE_URL! });
    const created = await call(server.base, 'POST', '/v1/admin/stores', { token: ROOT_TOKEN, body: { slug: `flood-${Date.now().toString(36)}` } });
    assert.equal(created.status, 201, created.text);
    const body = badCartBody(64 * 1024);
    const headers = { authorization: `Bearer ${created.json.tokens.storefront}`, 'content-type': 'application/json' };
    let flooding = true;
    let sent = 0;
    const statuses = new Set<number>();
    const flooders = Array.from({ length: 8 }, async () => {
      while (flooding) {
        const r = await fetch(`${server.base}/v1/carts`, { method: 'POST', headers, body });
        await r.arrayBuffer();
        statuses.add(r.status);
        sent++;
      }
    });
    const latencies: number[] = [];
    await sleep(300);
    for (const until = Date.now() + 4000; Date.now() < until; ) {
      const started = performance.now();
      assert.equal((await fetch(`${server.base}/health`)).status, 200);
      latencies.push(performance.now() - started);
      await sleep(50);
    }
    flooding = false;
    await Promise.all(flooders);
    assert.equal(await server.stop(), 0);
    latencies.sort((a, b) => a - b);
    const worst = latencies.at(-1)!;
    const p50 = latencies[Math.floor(latencies.length / 2)]!;
    console.log(`# flood: ${sent} bad 64 KiB bodies from 8 connections in ~4.3 s; /api/health p50 ${p50.toFixed(1)} ms, max ${worst.toFixed(1)} ms over ${latencies.length} probes`);
    assert.deepEqual([...statuses], [400]);
    assert.ok(sent > 50, `${sent} bodies sent`);
    assert.ok(worst < HEALTH_BOUND_MS, `/api/health took ${worst.toFixed(0)} ms`);
  } finally {
    copy?.remove();
  }
});

/** Connects to a listening app and sends the headers of a POST whose body will trickle in. */
async function slowUpload(port: number, token: string) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  let answer = '';
  socket.on('data', (d) => (answer += d.toString()));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(`POST /api/v1/carts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
  return { socket, closed, answer: () => answer };
}

test('a body that trickles in is cut with 408 REQUEST_TIMEOUT within the timeout plus the check interval; others are served meanwhile', async () => {
  const slow = await startAppOn(t.database, { REQUEST_TIMEOUT_MS: '1000' });
  await slow.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (slow.app.server.address() as net.AddressInfo).port;
  const started = Date.now();
  const upload = await slowUpload(port, store.storefront);
  const trickle = setInterval(() => upload.socket.writable && upload.socket.write(' '), 200);
  try {
    let served = 0;
    while (Date.now() - started < 800) {
      const r = await fetch(`http://127.0.0.1:${port}/api/v1/products`, { headers: { authorization: `Bearer ${store.storefront}` } });
      if (r.status === 200) served++;
      await r.arrayBuffer();
      await sleep(100);
    }
    await upload.closed;
    const elapsed = Date.now() - started;
    // 1000 ms timeout + 250 ms check interval, and slack for a shared machine.
    assert.ok(elapsed < 2500, `cut after ${elapsed} ms`);
    assert.ok(served >= 3, `${served} other requests served meanwhile`);
    assert.match(upload.answer(), /^HTTP\/1\.1 408/);
    assert.match(upload.answer(), /application\/problem\+json/);
    assert.match(upload.answer(), /"code":"REQUEST_TIMEOUT"/);
  } finally {
    clearInterval(trickle);
    upload.socket.destroy();
  }
});

test('a client that aborts its upload is logged at info as a client event, never as an error or a 503', async () => {
  const logged = await loggedApp();
  await logged.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (logged.app.server.address() as net.AddressInfo).port;
  const upload = await slowUpload(port, store.storefront);
  upload.socket.write('"products": [');
  await sleep(200);
  upload.socket.destroy();
  await upload.closed;
  await sleep(300);
  const event = logged.lines.find((l) => l.event === 'client_aborted');
  assert.ok(event, JSON.stringify(logged.lines));
  assert.equal(event.level, 30, 'info');
  assert.deepEqual(logged.lines.filter((l) => l.level >= 40), [], 'no warning or error');
  assert.ok(!logged.lines.some((l) => l.res?.statusCode >= 500 || /SERVICE_UNAVAILABLE|database/i.test(JSON.stringify(l))), 'not a database fault');
});

/** The client address Fastify saw, as its own log line of the request says. */
async function clientAddressSeen(env: Record<string, string>, remoteAddress: string, forwardedFor?: string): Promise<string> {
  const logged = await loggedApp(env);
  const id = `ip-${Math.random().toString(36).slice(2)}`;
  const headers: Record<string, string> = { 'x-request-id': id };
  if (forwardedFor) headers['x-forwarded-for'] = forwardedFor;
  await logged.app.inject({ method: 'GET', url: '/api/health', headers, remoteAddress });
  const line = logged.lines.find((l) => l.reqId === id && l.req);
  assert.ok(line, 'the request was logged');
  return line.req.remoteAddress;
}

test('X-Forwarded-For is ignored without TRUST_PROXY and honoured from a trusted proxy only', async () => {
  assert.equal(await clientAddressSeen({}, '10.0.0.2', '203.0.113.7'), '10.0.0.2', 'no TRUST_PROXY: the socket address');
  const proxies = { TRUST_PROXY: '10.0.0.0/8, 192.168.1.1' };
  assert.equal(await clientAddressSeen(proxies, '10.0.0.2', '203.0.113.7'), '203.0.113.7', 'from a trusted proxy: the forwarded client');
  assert.equal(await clientAddressSeen(proxies, '192.168.1.1', '198.51.100.1, 203.0.113.7'), '203.0.113.7', 'the nearest untrusted address');
  assert.equal(await clientAddressSeen(proxies, '198.51.100.9', '203.0.113.7'), '198.51.100.9', 'from anyone else: ignored');
  assert.equal(await clientAddressSeen({ TRUST_PROXY: '1' }, '198.51.100.9', '198.51.100.1, 203.0.113.7'), '203.0.113.7', 'a hop count');
  // TRUST_PROXY=true (any client names its own address) stops the start: test/config.test.ts and test/checkout-abuse.test.ts.
});
