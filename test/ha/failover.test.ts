/**
 * Failover on the local HA cluster (scripts/ha/cluster.sh), with real server processes of the
 * service behind HAProxy's primary port and orders streaming in with idempotency keys:
 * - the primary's PostgreSQL killed with SIGKILL: Patroni promotes the synchronous standby;
 * - a planned `patronictl switchover`.
 * Afterwards every order answered 201 exists exactly once, a retry with its key answers the same
 * order, the stock adds up, and the same processes serve again. The figures are printed and kept
 * in test-results/ha-failover.json.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../support/database.js';
import { call, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { assertNothingLostOrDoubled, longestGapMs, OrderLoad, refusedWindowMs, setUpShop, tally } from './support/order-load.js';
import { clusterMissing, freshDatabase, HA_DIR, killPostgres, leader, members, primaryUrl, waitForHealthyCluster } from './support/cluster.js';

const DB = 'storefront_ha_failover';
const CLIENTS = 16;
const skip = await clusterMissing();
let servers: ServerProcess[] = [];

before(async () => {
  if (skip) return;
  await waitForHealthyCluster();
  await freshDatabase(DB);
  const env = { DATABASE_URL: primaryUrl(DB), DB_CONNECT_TIMEOUT_MS: '2000', LOG_LEVEL: 'error' };
  servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
});
after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (ms: number) => Number((ms / 1000).toFixed(1));

/** The figures of this run, kept for docs/operations-several-machines.md. */
function record(name: string, figures: Record<string, unknown>) {
  const dir = join(ROOT, 'test-results');
  const file = join(dir, 'ha-failover.json');
  mkdirSync(dir, { recursive: true });
  const all = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  all[name] = { ...figures, at: new Date().toISOString() };
  writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
  console.log(`# ${name}: ${JSON.stringify(figures)}`);
}

/** The same processes answer, with the database ready: no restart was needed. */
async function assertServingWithoutRestart() {
  for (const server of servers) {
    assert.equal(server.child.exitCode, null, `server ${server.child.pid} exited:\n${server.output()}`);
    assert.equal((await call(server.base, 'GET', '/ready')).status, 200);
  }
}

/** Waits until a fresh order is answered 201 again (the load keeps trying meanwhile). */
async function waitForWrites(load: OrderLoad, since: number, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!load.orders.some((o) => o.attempts.some((a) => a.status === 201 && a.sentAt > since))) {
    assert.ok(Date.now() < deadline, `no order was answered 201 within ${timeoutMs} ms`);
    await sleep(100);
  }
}

test('the primary killed with SIGKILL under a stream of orders: a replica is promoted, nothing answered is lost or doubled', { skip, timeout: 300_000 }, async () => {
  const shop = await setUpShop(servers[0]!.base, [1_000_000, 1_000_000]);
  const old = await leader();
  const load = new OrderLoad(shop, servers.map((s) => s.base));
  load.start(CLIENTS);
  await sleep(3000);
  const killedAt = Date.now();
  killPostgres(old.node);
  await waitForWrites(load, killedAt);
  const recoveredAt = Date.now();
  await sleep(3000);
  const stoppedAt = Date.now();
  await load.stop();
  const settledAt = Date.now();

  const promoted = await leader();
  assert.notEqual(promoted.node, old.node, 'Patroni promoted another node');
  const { orders } = await assertNothingLostOrDoubled(load, shop, servers[0]!.base);
  await assertServingWithoutRestart();
  const gap = longestGapMs(load.orders, killedAt - 1000, stoppedAt);
  const { first, retries } = tally(load.orders);
  record('kill -9 of the primary', {
    writesRefusedSeconds: seconds(refusedWindowMs(load.orders, killedAt - 1000)),
    longestGapBetweenOrdersSeconds: seconds(gap.ms),
    firstWriteAfterKillSeconds: seconds(recoveredAt - killedAt),
    orders,
    lost: 0,
    duplicates: 0,
    firstAttempts: first,
    retries,
    lastKeySettledSeconds: seconds(settledAt - killedAt),
    ordersPerSecondBefore: Math.round(load.orders.filter((o) => o.attempts[0]!.sentAt < killedAt).length / 3),
    from: old.name,
    to: promoted.name,
  });
});

test('a planned switchover under a stream of orders: no error but 503s, nothing lost or doubled', { skip, timeout: 300_000 }, async () => {
  const members = await waitForHealthyCluster();
  const from = members.find((m) => m.role === 'leader')!;
  const to = members.find((m) => m.role === 'sync_standby')!;
  const shop = await setUpShop(servers[0]!.base, [1_000_000, 1_000_000]);
  const load = new OrderLoad(shop, servers.map((s) => s.base));
  load.start(CLIENTS);
  await sleep(3000);
  const switchedAt = Date.now();
  const { stdout } = await promisify(execFile)('runuser', ['-u', 'postgres', '--', 'patronictl', '-c', `${HA_DIR}/node1/patroni.yml`, 'switchover', '--leader', from.name, '--candidate', to.name, '--force'], { timeout: 120_000 });
  assert.match(stdout, /Successfully switched over/i, stdout);
  await waitForWrites(load, Date.now());
  await sleep(3000);
  const stoppedAt = Date.now();
  await load.stop();

  assert.equal((await leader()).name, to.name);
  const { first, retries } = tally(load.orders);
  const unexpected = Object.keys(first).filter((status) => !/^(201|503 SERVICE_UNAVAILABLE)$/.test(status));
  assert.deepEqual(unexpected, [], `first attempts answered only 201 or 503: ${JSON.stringify(first)}`);
  const unexpectedRetries = Object.keys(retries).filter((status) => !/^(201|503 SERVICE_UNAVAILABLE|409 IDEMPOTENCY_KEY_IN_USE)$/.test(status));
  assert.deepEqual(unexpectedRetries, [], `retries answered only 201, 503 or 409 (still running): ${JSON.stringify(retries)}`);
  const { orders } = await assertNothingLostOrDoubled(load, shop, servers[0]!.base);
  await assertServingWithoutRestart();
  const gap = longestGapMs(load.orders, switchedAt - 1000, stoppedAt);
  record('patronictl switchover', { writesRefusedSeconds: seconds(refusedWindowMs(load.orders, switchedAt)), longestGapBetweenOrdersSeconds: seconds(gap.ms), orders, lost: 0, duplicates: 0, firstAttempts: first, retries, from: from.name, to: to.name });
});

test('the cluster heals: the old primary follows the new one', { skip, timeout: 120_000 }, async () => {
  const healed = await waitForHealthyCluster(90_000);
  assert.equal(healed.filter((m) => m.state === 'running').length, 3, JSON.stringify(await members()));
});
