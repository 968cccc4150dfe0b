/**
 * No silent fallback: with REDIS_URL set and Redis not answering, the limits go on from this
 * process's own counters, the start says so, /api/ready says `degraded` (still 200), the outage is
 * logged once (no stack, not per request), and the counters are shared again once Redis answers.
 * The Redis here is a redis-server this file starts on a port of its own, never the machine's.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { startAppOn, startTestApp, type TestApp } from './support/app.js';
import { createStore } from './support/factories.js';
import { freePort } from './support/server-process.js';
import { events, LEVEL, logBuffer, until, type LogBuffer } from './support/log-buffer.js';
import { wellInsideAMinute } from './support/clock.js';

const base = await startTestApp();
const LIMITS = { RATE_LIMIT_PER_MINUTE: '4', CLIENT_RATE_LIMIT_PER_MINUTE: '4', GUEST_SESSIONS_PER_MINUTE: '2' };
const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

/** What a process said last about Redis. A first connect slower than its timeout says `degraded`, then `restored`. */
const lastSaid = (log: LogBuffer) => log.entries().filter((e) => String(e.event).startsWith('rate_limits_')).at(-1)?.event;
const shares = (log: LogBuffer) => ['rate_limits_shared', 'rate_limits_restored'].includes(String(lastSaid(log)));

async function statuses(app: TestApp | TestApp[], n: number, method: string, url: string, token: string): Promise<number[]> {
  const apps = Array.isArray(app) ? app : [app];
  const out = [];
  for (let i = 0; i < n; i++) out.push((await apps[i % apps.length]!.request(method, url, { token })).status);
  return out;
}

test('Redis on a closed port: limits count in this process, the start and /api/ready say degraded, one warning for the whole outage', async () => {
  const log = logBuffer();
  const redisUrl = `redis://127.0.0.1:${await freePort()}`;
  const app = await startAppOn(base.database, { ...LIMITS, REDIS_URL: redisUrl }, { logger: log.logger, rateLimitPrefix: `t-${randomUUID()}:` });
  assert.equal(events(log, 'rate_limits_degraded').length, 1, `the start says so: ${log.text()}`);

  const s = await createStore(base);
  await wellInsideAMinute();
  assert.deepEqual(await statuses(app, 6, 'GET', '/api/v1/collections', s.server), [200, 200, 200, 200, 429, 429]);
  assert.deepEqual(await statuses(app, 3, 'POST', '/api/v1/guest-sessions', s.storefront), [201, 201, 429]);
  await statuses(app, 40, 'GET', '/api/v1/collections', s.storefront);

  const ready = await app.request('GET', '/api/ready');
  assert.equal(ready.status, 200);
  assert.equal(ready.json.status, 'degraded');
  assert.equal(ready.json.degraded[0].component, 'rate-limits');
  assert.match(ready.json.degraded[0].detail, /REDIS_URL/);
  assert.equal(events(log, 'rate_limits_degraded').length, 1, 'logged once, not per request');
  assert.ok(!log.text().includes('"stack"'), 'no stack trace');
  assert.equal(log.entries().filter((e) => e.level >= LEVEL.warn && String(e.event).startsWith('rate_limits')).length, 1, 'the only warning about limits');
});

test('a real Redis that stops and comes back: shared counters, then per-process counters, then shared again', { skip: !hasRedisServer && 'redis-server is not installed' }, async () => {
  const port = await freePort();
  let redis: ChildProcess | undefined;
  const startRedis = async () => {
    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await until('redis-server to listen', () => spawnSync('redis-cli', ['-p', String(port), 'ping']).stdout?.toString().trim() === 'PONG');
  };
  const stopRedis = async () => {
    const child = redis!;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  after(async () => {
    if (redis && redis.exitCode === null && redis.signalCode === null) await stopRedis();
  });
  await startRedis();

  const [logA, logB] = [logBuffer(), logBuffer()];
  const env = { ...LIMITS, REDIS_URL: `redis://127.0.0.1:${port}` };
  const prefix = `t-${randomUUID()}:`;
  const a = await startAppOn(base.database, env, { logger: logA.logger, rateLimitPrefix: prefix });
  const b = await startAppOn(base.database, env, { logger: logB.logger, rateLimitPrefix: prefix });
  // The start waits at most 3 s for Redis to answer; on a loaded machine its first answer can come
  // later, or the first connect can time out and a retry answer (CI saw that once).
  await until('process A to say the counters are shared', () => shares(logA), 30_000);
  await until('process B to say the counters are shared', () => shares(logB), 30_000);
  const s = await createStore(base);
  const token = async () => (await base.request('POST', '/api/v1/admin/tokens', { token: s.admin, body: { kind: 'server' } })).json.secret as string;

  const first = await token();
  await wellInsideAMinute();
  assert.deepEqual(await statuses([a, b], 5, 'GET', '/api/v1/collections', first), [200, 200, 200, 200, 429], 'one counter for both');
  assert.deepEqual((await a.request('GET', '/api/ready')).json, { status: 'ready' });

  await stopRedis();
  await until('process A to notice', () => lastSaid(logA) === 'rate_limits_degraded');
  const warnings = events(logA, 'rate_limits_degraded').length;
  const during = await token();
  await wellInsideAMinute();
  assert.deepEqual(await statuses(a, 5, 'GET', '/api/v1/collections', during), [200, 200, 200, 200, 429], 'A still limits, alone');
  assert.equal((await a.request('GET', '/api/ready')).json.status, 'degraded');
  await statuses(a, 20, 'GET', '/api/v1/collections', during);
  assert.equal(events(logA, 'rate_limits_degraded').length, warnings, 'one warning for the outage');

  await startRedis();
  await until('process A to reconnect', () => lastSaid(logA) === 'rate_limits_restored', 30_000);
  await until('process B to reconnect', () => lastSaid(logB) === 'rate_limits_restored', 30_000);
  assert.deepEqual((await a.request('GET', '/api/ready')).json, { status: 'ready' });
  const again = await token();
  await wellInsideAMinute();
  assert.deepEqual(await statuses([a, b], 5, 'GET', '/api/v1/collections', again), [200, 200, 200, 200, 429], 'shared again');
  assert.ok(!logA.text().includes('"stack"'));
});
