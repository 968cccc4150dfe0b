/**
 * Webhooks across real processes and outages: two servers on one PostgreSQL share the deliveries
 * and send none twice; a server killed with SIGKILL mid-delivery loses none (another takes them
 * over after their lease); 1,000 orders placed while the receiver is down all arrive once it is back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT_TOKEN, startTestApp } from './support/app.js';
import { copyTemplate, TEST_DATABASE_URL } from './support/database.js';
import { createProduct, createStore } from './support/factories.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import { call, startServerProcess, type ServerProcess } from './support/server-process.js';
import { ADDRESS, createAddress, placeOrder } from './support/shop.js';

const WEBHOOK_ENV = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,1,1,1' };

async function setUpShop(base: string, receiver: Receiver) {
  const slug = `whp-${randomUUID().slice(0, 8)}`;
  const created = await call(base, 'POST', '/v1/admin/stores', { token: ROOT_TOKEN, body: { slug } });
  assert.equal(created.status, 201, created.text);
  const { admin } = created.json.tokens as { admin: string };
  // Orders are placed as a shop's back end does, with a server token.
  const server = (await call(base, 'POST', '/v1/admin/tokens', { token: admin, body: { kind: 'server' } })).json.secret as string;
  const hook = await call(base, 'POST', '/v1/admin/webhooks', { token: admin, body: { url: receiver.url, events: ['order.created'] } });
  assert.equal(hook.status, 201, hook.text);
  const p = await call(base, 'POST', '/v1/admin/products', { token: admin, body: { name: 'P', slug: 'p', sku: 'S', price: 10, quantity: 100000, status: 'ACTIVE' } });
  const customer = randomUUID();
  const address = await call(base, 'POST', `/v1/${customer}/addresses`, { token: server, body: { address: ADDRESS } });
  return { admin, server, productId: p.json.product.id as string, customer, addressId: address.json.address.id as string };
}

type Shop = Awaited<ReturnType<typeof setUpShop>>;

async function order(base: string, shop: Shop): Promise<string> {
  const r = await call(base, 'POST', `/v1/${shop.customer}/orders`, { token: shop.server, body: { address: shop.addressId, products: [{ id: shop.productId, quantity: 1 }] } });
  assert.equal(r.status, 201, r.text);
  return r.json.order.id;
}

/** Order ids of the order.created events the receiver got, with how often each came. */
function arrivals(receiver: Receiver): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of receiver.received) {
    const id = (JSON.parse(r.body) as { data: { order: { id: string } } }).data.order.id;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

test('two server processes on one PostgreSQL deliver every event, none twice', { skip: !TEST_DATABASE_URL && 'needs TEST_DATABASE_URL (PostgreSQL): PGlite is one process' }, async () => {
  const receiver = await startReceiver();
  receiver.answer = () => ({ status: 200, delayMs: 5 });
  const env = { DATABASE_URL: TEST_DATABASE_URL!, ...WEBHOOK_ENV };
  const [one, two] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  try {
    const shop = await setUpShop(one.base, receiver);
    const ids: string[] = [];
    await Promise.all([one, two, one, two].map(async (server) => {
      for (let i = 0; i < 50; i++) ids.push(await order(server.base, shop));
    }));
    await receiver.waitFor((r) => r.length >= ids.length, 30000);
    await sleep(300); // a duplicate would arrive now
    const counts = arrivals(receiver);
    assert.deepEqual([...counts.keys()].sort(), [...ids].sort(), 'every order.created arrived');
    assert.ok([...counts.values()].every((n) => n === 1), 'none twice');
  } finally {
    await Promise.all([one.stop(), two.stop()]);
  }
});

test('a server killed with SIGKILL in the middle of deliveries: after a restart every event arrives', async () => {
  let removeDataDir = () => {};
  const env: Record<string, string> = { ...WEBHOOK_ENV, WEBHOOK_POLL_INTERVAL_MS: '0' };
  if (TEST_DATABASE_URL) env.DATABASE_URL = TEST_DATABASE_URL;
  else {
    const copy = copyTemplate();
    env.DATA_DIR = copy.dataDir;
    removeDataDir = copy.remove;
  }
  const receiver = await startReceiver();
  receiver.answer = () => ({ status: 200, delayMs: 400 });
  // Orders first with the worker off, then a server that delivers them, killed mid-way.
  let server: ServerProcess = await startServerProcess(env);
  try {
    const shop = await setUpShop(server.base, receiver);
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) ids.push(await order(server.base, shop));
    await server.stop();
    server = await startServerProcess({ ...env, WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_CONCURRENCY: '8' });
    await receiver.waitFor((r) => r.length >= 10, 20000);
    await server.kill();
    const beforeRestart = arrivals(receiver).size;
    assert.ok(beforeRestart < ids.length, 'killed while deliveries were still due');
    receiver.answer = () => ({ status: 200 });
    server = await startServerProcess({ ...env, WEBHOOK_POLL_INTERVAL_MS: '50' });
    await receiver.waitFor(() => arrivals(receiver).size === ids.length, 30000);
    assert.deepEqual([...arrivals(receiver).keys()].sort(), [...ids].sort());
    console.log(`# SIGKILL webhook test: ${beforeRestart} of ${ids.length} delivered before the kill, ${receiver.received.length - ids.length} sent twice (in flight at the kill)`);
  } finally {
    await server.stop();
    removeDataDir();
  }
});

test('1,000 orders placed while the receiver is down: all 1,000 order.created events arrive once it is back', async () => {
  const t = await startTestApp({ ...WEBHOOK_ENV, WEBHOOK_RETRY_SCHEDULE_SECONDS: Array(60).fill('10').join(','), WEBHOOK_CONCURRENCY: '64' });
  const down = await startReceiver();
  const port = down.port;
  await down.close();
  const s = await createStore(t);
  const hook = await t.request('POST', '/api/v1/admin/webhooks', { token: s.admin, body: { url: `http://127.0.0.1:${port}/hooks`, events: ['order.created'] } });
  assert.equal(hook.status, 201);
  const p = await createProduct(t, s, { quantity: 5000 });
  const { customer, address } = await createAddress(t, s);
  const ids: string[] = [];
  const started = Date.now();
  for (let i = 0; i < 1000; i++) {
    const r = await placeOrder(t, s, customer, { address: address.id, products: [{ id: p.id, quantity: 1 }] });
    assert.equal(r.status, 201, r.text);
    ids.push(r.json.order.id);
  }
  const failing = await t.request('GET', `/api/v1/admin/webhooks/${hook.json.webhook.id}/deliveries?status=pending&limit=1`, { token: s.admin });
  assert.equal(failing.json.total, 1000, 'all pending while the receiver is down');
  const placedMs = Date.now() - started;
  const receiver = await startReceiver(port);
  await receiver.waitFor(() => arrivals(receiver).size === 1000, 120000);
  console.log(`# 1,000 orders placed in ${placedMs} ms with the receiver down; all delivered ${Date.now() - started - placedMs} ms after it came back`);
  assert.deepEqual([...arrivals(receiver).keys()].sort(), ids.sort());
  const delivered = async () =>
    (await t.request('GET', `/api/v1/admin/webhooks/${hook.json.webhook.id}/deliveries?status=delivered&limit=1`, { token: s.admin })).json.total;
  for (let i = 0; i < 100 && (await delivered()) < 1000; i++) await sleep(100);
  assert.equal(await delivered(), 1000, 'every delivery recorded as delivered');
});
