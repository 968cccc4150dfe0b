/**
 * Read replicas on the local HA cluster (scripts/ha/cluster.sh): storefront catalog reads go to the
 * replica port, a replica that lags or does not answer is skipped for the primary, and a shopper
 * who just ordered never sees stock older than the order, nor does a lagging replica's answer get
 * cached under a newer catalog version. Each app below plays one process of the service.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { openDatabase, queryRows, type DatabaseHandle } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { startAppOn, type TestApp } from '../support/app.js';
import { createProduct, createStore, type TestStore } from '../support/factories.js';
import { ADDRESS } from '../support/shop.js';
import { startTcpProxy } from '../support/tcp-proxy.js';
import { clusterMissing, freshDatabase, leader, members, onNode, patronictl, primaryUrl, replicaUrl, REPLICA_PORT, waitForHealthyCluster } from './support/cluster.js';

const DB = 'storefront_ha_replicas';
const skip = await clusterMissing();
let database: DatabaseHandle;

before(async () => {
  if (skip) return;
  await waitForHealthyCluster();
  await freshDatabase(DB);
  database = await openDatabase({ url: primaryUrl(DB), poolSize: 10 });
  await migrate(database.db);
});
after(async () => {
  if (skip) return;
  if (paused) await setReplay('resume').catch(() => {});
  await database?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A process of the service that reads its catalog on the cluster's replica port (or `readUrl`). */
const withReplica = (env: Record<string, string> = {}, readUrl = replicaUrl(DB)) =>
  startAppOn(database, { DATABASE_URL: primaryUrl(DB), DATABASE_READ_URL: readUrl, ...env });

async function replicaNodes(): Promise<number[]> {
  return (await members()).filter((m) => m.role !== 'leader').map((m) => m.node);
}

/**
 * Pauses or resumes WAL replay on every replica. Patroni resumes a replay it finds paused, except in
 * its maintenance mode (no failover either), which lasts while replay is paused.
 */
let paused = false;
async function setReplay(action: 'pause' | 'resume') {
  paused = action === 'pause';
  if (action === 'pause') patronictl('pause', '--wait');
  for (const node of await replicaNodes()) await onNode(node, 'postgres', `select pg_wal_replay_${action}()`);
  if (action === 'resume') patronictl('resume', '--wait');
}

/** Waits until every replica has replayed everything the primary has written so far. */
async function replicasCaughtUp() {
  const [{ lsn }] = (await queryRows<{ lsn: string }>(database.db, sql`select pg_current_wal_insert_lsn()::text as lsn`)) as [{ lsn: string }];
  for (const node of await replicaNodes()) {
    for (let i = 0; ; i++) {
      const [row] = await onNode<{ done: boolean }>(node, 'postgres', `select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn as done`);
      if (row?.done) break;
      assert.ok(i < 100, `replica node${node} did not replay ${lsn} within 10 s`);
      await sleep(100);
    }
  }
}

/** storefront_catalog_reads_total by outcome, from the app's /api/metrics. */
async function outcomes(t: TestApp): Promise<Record<string, number>> {
  const metrics = await t.request('GET', '/api/metrics');
  const counts: Record<string, number> = {};
  for (const match of metrics.text.matchAll(/^storefront_catalog_reads_total\{outcome="([a-z-]+)"\} (\d+)$/gm)) counts[match[1]!] = Number(match[2]);
  return counts;
}

const grew = (before: Record<string, number>, now: Record<string, number>, outcome: string) => (now[outcome] ?? 0) - (before[outcome] ?? 0);

/** One read that starts the primary's position samples, and the time for the first of them. */
async function warmUp(t: TestApp, store: TestStore) {
  await t.request('GET', '/api/v1/collections?limit=1', { token: store.storefront });
  await sleep(300);
}

test('storefront catalog reads go to a replica; carts and admin reads stay on the primary', { skip }, async () => {
  const t = await withReplica();
  const store = await createStore(t);
  const product = await createProduct(t, store, { quantity: 7 });
  await replicasCaughtUp();
  await warmUp(t, store);
  const start = await outcomes(t);
  for (let i = 1; i <= 10; i++) {
    const r = await t.request('GET', `/api/v1/products?limit=${i}`, { token: store.storefront });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.products[0].id, product.id);
  }
  assert.equal((await t.request('GET', `/api/v1/products/${product.slug}`, { token: store.storefront })).json.product.quantity, 7);
  assert.equal((await t.request('GET', '/api/v1/collections', { token: store.storefront })).status, 200);
  const read = await outcomes(t);
  // A read may find the replica a moment behind on a loaded machine; nearly all must be on it.
  assert.ok(grew(start, read, 'replica') >= 10, JSON.stringify({ start, read }));

  // The replica pool's sessions are on replicas, none on the primary.
  const sessions = `select count(*)::int as n from pg_stat_activity where datname = '${DB}' and application_name = 'storefront-read'`;
  let onReplicas = 0;
  for (const node of await replicaNodes()) onReplicas += (await onNode<{ n: number }>(node, 'postgres', sessions))[0]!.n;
  assert.ok(onReplicas > 0, 'the read pool has sessions on the replicas');
  assert.equal((await onNode<{ n: number }>((await leader()).node, 'postgres', sessions))[0]!.n, 0, 'and none on the primary');

  const cart = await t.request('POST', '/api/v1/carts', { token: store.storefront, body: { products: [{ id: product.id, quantity: 1 }] } });
  assert.equal(cart.status, 201, cart.text);
  assert.equal((await t.request('GET', `/api/v1/carts/${cart.json.cart.id}`, { token: store.storefront })).status, 200);
  assert.equal((await t.request('GET', '/api/v1/admin/products', { token: store.admin })).status, 200);
  const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
  assert.equal(total(await outcomes(t)), total(read), 'carts and admin reads never ask the replica');
});

test('a replica further behind than DATABASE_READ_MAX_LAG_MS is skipped for the primary, and used again once it caught up', { skip }, async () => {
  const t = await withReplica({ DATABASE_READ_MAX_LAG_MS: '300' });
  const otherProcess = await startAppOn(database);
  const store = await createStore(otherProcess);
  const product = await createProduct(otherProcess, store, { price: 100 });
  await replicasCaughtUp();
  await warmUp(t, store);
  await setReplay('pause');
  try {
    const changed = await otherProcess.request('PATCH', `/api/v1/admin/products/${product.id}`, { token: store.admin, body: { price: 555 } });
    assert.equal(changed.status, 200, changed.text);
    await sleep(800);
    const start = await outcomes(t);
    const r = await t.request('GET', `/api/v1/products/${product.slug}`, { token: store.storefront });
    assert.equal(r.json.product.price, 555, 'the primary answered, not the paused replica');
    const now = await outcomes(t);
    assert.equal(grew(start, now, 'lagging'), 1, JSON.stringify({ start, now }));
  } finally {
    await setReplay('resume');
  }
  await replicasCaughtUp();
  assert.ok(await backOnReplica(t, store), 'back on the replica');
  assert.equal((await t.request('GET', `/api/v1/products/${product.slug}?again`, { token: store.storefront })).json.product.price, 555);
});

/** Reads (new URLs, so no cached answer) until one is answered by the replica, for at most 10 s. */
async function backOnReplica(t: TestApp, store: TestStore): Promise<boolean> {
  for (let i = 10; i < 60; i++) {
    const before = await outcomes(t);
    const r = await t.request('GET', `/api/v1/products?limit=${i}`, { token: store.storefront });
    assert.equal(r.status, 200, r.text);
    if (grew(before, await outcomes(t), 'replica') === 1) return true;
    await sleep(200);
  }
  return false;
}

test('a replica that does not answer is skipped for the primary at once, and used again when it is back', { skip }, async () => {
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: REPLICA_PORT });
  after(() => proxy.close());
  const t = await withReplica({}, `postgres://postgres@127.0.0.1:${proxy.port}/${DB}`);
  const store = await createStore(t);
  await createProduct(t, store);
  await replicasCaughtUp();
  await warmUp(t, store);
  await proxy.cut();
  const start = await outcomes(t);
  for (let i = 1; i <= 5; i++) {
    const began = Date.now();
    const r = await t.request('GET', `/api/v1/products?limit=${i}`, { token: store.storefront });
    assert.equal(r.status, 200, r.text);
    assert.ok(Date.now() - began < 2000, `answered by the primary in ${Date.now() - began} ms`);
  }
  assert.equal(grew(start, await outcomes(t), 'unavailable'), 5);
  await proxy.restore();
  assert.ok(await backOnReplica(t, store), 'reads went back to the replica');
});

test('a shopper who just ordered sees the stock of the order; a lagging answer is never cached under the newer version', { skip }, async () => {
  // A lag allowance so large that only the read-your-order rule can send the shopper's read to the primary.
  const shopperProcess = await withReplica({ DATABASE_READ_MAX_LAG_MS: '60000' });
  const otherProcess = await withReplica({ DATABASE_READ_MAX_LAG_MS: '60000' });
  const setup = await startAppOn(database);
  const store = await createStore(setup);
  const product = await createProduct(setup, store, { quantity: 10 });
  const customer = randomUUID();
  const address = await setup.request('POST', `/api/v1/${customer}/addresses`, { token: store.server, body: { address: ADDRESS } });
  assert.equal(address.status, 201, address.text);
  await replicasCaughtUp();
  await warmUp(shopperProcess, store);
  await warmUp(otherProcess, store);
  const url = `/api/v1/products/${product.slug}`;
  await setReplay('pause');
  try {
    const order = await shopperProcess.request('POST', `/api/v1/${customer}/orders`, {
      token: store.server,
      body: { address: address.json.address.id, products: [{ id: product.id, quantity: 3 }] },
    });
    assert.equal(order.status, 201, order.text);
    const start = await outcomes(shopperProcess);
    assert.equal((await shopperProcess.request('GET', url, { token: store.storefront })).json.product.quantity, 7, 'the shopper sees the stock of the order');
    assert.equal(grew(start, await outcomes(shopperProcess), 'behind-write'), 1);
    // Another process may read the paused replica: within its allowance, it answers the stock before the order.
    const elsewhere = await outcomes(otherProcess);
    assert.equal((await otherProcess.request('GET', url, { token: store.storefront })).json.product.quantity, 10);
    assert.equal(grew(elsewhere, await outcomes(otherProcess), 'replica'), 1);
  } finally {
    await setReplay('resume');
  }
  await replicasCaughtUp();
  await sleep(300);
  // Same URL, same catalog version: had the replica's older answer been cached, it would come back now.
  assert.equal((await otherProcess.request('GET', url, { token: store.storefront })).json.product.quantity, 7);
});
