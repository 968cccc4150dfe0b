/**
 * Delivery to a real local receiver, every signature checked by the `standardwebhooks` package
 * (an independent implementation of the specification). The worker is driven round by round
 * (`sendDue`) so each test knows exactly how many attempts were made.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { queryRows } from '../src/db/client.js';
import { DeliveryWorker, retryDelaySeconds } from '../src/modules/webhooks/worker.js';
import { startAppOn, startTestApp, type TestApp } from './support/app.js';
import { createProduct, createStore, type TestStore } from './support/factories.js';
import { startReceiver, type ReceivedRequest, type Receiver } from './support/receiver.js';
import { createAddress, placeOrder } from './support/shop.js';

const t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE_SECONDS: '0,0,0', WEBHOOK_TIMEOUT_MS: '400' });

async function subscribe(app: TestApp, s: TestStore, url: string, events: string[] = ['*']) {
  const r = await app.request('POST', '/api/v1/admin/webhooks', { token: s.admin, body: { url, events } });
  assert.equal(r.status, 201, r.text);
  return { id: r.json.webhook.id as string, secret: r.json.secret as string };
}

/** Runs delivery rounds until nothing is due. */
async function deliverAll(app: TestApp = t) {
  for (let round = 0; round < 100; round++) if ((await app.app.deliveryWorker.sendDue()) === 0) return;
  throw new Error('deliveries still due after 100 rounds');
}

async function deliveries(app: TestApp, s: TestStore, id: string, query = '') {
  const r = await app.request('GET', `/api/v1/admin/webhooks/${id}/deliveries${query}`, { token: s.admin });
  assert.equal(r.status, 200, r.text);
  return r.json as { deliveries: Array<Record<string, unknown>>; total: number };
}

/** Verifies a received request with `standardwebhooks` and answers its payload. */
function verified(secret: string, request: ReceivedRequest) {
  return new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Record<string, unknown>;
}

test('every event type arrives once, signed, with the event as the feed shows it', async () => {
  const s = await createStore(t);
  const receiver = await startReceiver();
  const hook = await subscribe(t, s, receiver.url);
  const p = await createProduct(t, s, { quantity: 1 });
  await t.request('PATCH', `/api/v1/admin/products/${p.id}`, { token: s.admin, body: { name: 'Renamed' } });
  const { customer, address } = await createAddress(t, s);
  const order = await placeOrder(t, s, customer, { address: address.id, products: [{ id: p.id, quantity: 1 }] });
  for (const status of ['PAID', 'CANCELLED']) await t.request('PATCH', `/api/v1/admin/orders/${order.json.order.id}`, { token: s.admin, body: { status } });
  const c = await t.request('POST', '/api/v1/admin/collections', { token: s.admin, body: { name: 'C', slug: 'c-1' } });
  await t.request('PATCH', `/api/v1/admin/collections/${c.json.collection.id}`, { token: s.admin, body: { name: 'C2' } });
  await t.request('DELETE', `/api/v1/admin/collections/${c.json.collection.id}`, { token: s.admin });
  await t.request('DELETE', `/api/v1/admin/products/${p.id}`, { token: s.admin });
  const second = await createProduct(t, s, { quantity: 1 });
  const order2 = await placeOrder(t, s, customer, { address: address.id, products: [{ id: second.id, quantity: 1 }] });
  for (const status of ['PAID', 'FULFILLED']) await t.request('PATCH', `/api/v1/admin/orders/${order2.json.order.id}`, { token: s.admin, body: { status } });

  await deliverAll();
  const feed = (await t.request('GET', '/api/v1/admin/events?limit=500', { token: s.admin })).json.events as Array<{ id: string; type: string }>;
  assert.deepEqual(
    [...new Set(feed.map((e) => e.type))].sort(),
    // PAID records a manual payment (payment.succeeded); cancelling gives it back (payment.refunded); FULFILLED ships the rest (fulfillment.created).
    ['collection.created', 'collection.deleted', 'collection.updated', 'fulfillment.created', 'order.cancelled', 'order.created', 'order.fulfilled', 'order.paid',
      'payment.refunded', 'payment.succeeded', 'product.back_in_stock', 'product.created', 'product.deleted', 'product.out_of_stock', 'product.updated'],
  );
  assert.equal(receiver.received.length, feed.length, 'one request per event');
  const byId = new Map(receiver.received.map((r) => [r.headers['webhook-id'] as string, r]));
  for (const event of feed) {
    const request = byId.get(event.id);
    assert.ok(request, `${event.type} ${event.id} arrived`);
    assert.equal(request.method, 'POST');
    assert.match(String(request.headers['content-type']), /^application\/json/);
    assert.match(String(request.headers['webhook-timestamp']), /^\d{10}$/);
    assert.match(String(request.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
    assert.deepEqual(verified(hook.secret, request), event);
  }
  const log = await deliveries(t, s, hook.id, '?limit=250');
  assert.equal(log.total, feed.length);
  assert.ok(log.deliveries.every((d) => d.status === 'delivered' && d.attempts === 1 && d.lastStatusCode === 204 && d.nextAttemptAt === null && d.deliveredAt));
});

test('an endpoint gets only the types it subscribed to; a disabled one gets nothing', async () => {
  const s = await createStore(t);
  const receiver = await startReceiver();
  await subscribe(t, s, receiver.url, ['order.created']);
  const off = await subscribe(t, s, receiver.url.replace('/hooks', '/off'));
  await t.request('PATCH', `/api/v1/admin/webhooks/${off.id}`, { token: s.admin, body: { disabled: true } });
  const p = await createProduct(t, s);
  const { customer, address } = await createAddress(t, s);
  await placeOrder(t, s, customer, { address: address.id, products: [{ id: p.id, quantity: 1 }] });
  await deliverAll();
  assert.deepEqual(receiver.received.map((r) => [r.url, JSON.parse(r.body).type]), [['/hooks', 'order.created']]);
});

test('a receiver that fails three times then succeeds gets the same webhook-id each time and ends delivered', async () => {
  const s = await createStore(t);
  const receiver = await startReceiver();
  receiver.answer = (_r, i) => ({ status: i < 3 ? 500 : 200 });
  const hook = await subscribe(t, s, receiver.url, ['product.created']);
  await createProduct(t, s);
  await deliverAll();
  assert.equal(receiver.received.length, 4);
  assert.equal(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, 1);
  for (const r of receiver.received) verified(hook.secret, r);
  const [d] = (await deliveries(t, s, hook.id)).deliveries;
  assert.deepEqual([d!.status, d!.attempts, d!.lastStatusCode, d!.lastError], ['delivered', 4, 200, null]);
});

test('failed after the last retry; a retry of that delivery sends it once more', async () => {
  const s = await createStore(t);
  const receiver = await startReceiver();
  receiver.answer = () => ({ status: 503 });
  const hook = await subscribe(t, s, receiver.url, ['product.created']);
  await createProduct(t, s);
  await deliverAll();
  assert.equal(receiver.received.length, 4, 'the first attempt and three retries');
  const [failed] = (await deliveries(t, s, hook.id, '?status=failed')).deliveries;
  assert.deepEqual([failed!.status, failed!.attempts, failed!.lastStatusCode, failed!.nextAttemptAt], ['failed', 4, 503, null]);
  assert.match(String(failed!.lastError), /503/);

  receiver.answer = () => ({ status: 200 });
  const retried = await t.request('POST', `/api/v1/admin/webhooks/${hook.id}/deliveries/${failed!.id}/retry`, { token: s.admin });
  assert.equal(retried.status, 202, retried.text);
  assert.equal(retried.json.delivery.status, 'pending');
  await deliverAll();
  assert.equal(receiver.received.length, 5);
  const [done] = (await deliveries(t, s, hook.id)).deliveries;
  assert.deepEqual([done!.status, done!.attempts], ['delivered', 5]);
});

test('a receiver that does not answer in time and a redirect are failed attempts; the redirect is not followed', async () => {
  const s = await createStore(t);
  const receiver = await startReceiver();
  receiver.answer = (r) => (r.url === '/slow' ? { status: 200, delayMs: 3000 } : { status: 302, headers: { location: `http://127.0.0.1:${receiver.port}/elsewhere` } });
  const slow = await subscribe(t, s, receiver.url.replace('/hooks', '/slow'), ['product.created']);
  const moved = await subscribe(t, s, receiver.url, ['product.created']);
  await createProduct(t, s);
  const started = Date.now();
  await deliverAll();
  assert.ok(Date.now() - started < 4 * 1000, 'each attempt gives up at the timeout');
  const [timedOut] = (await deliveries(t, s, slow.id)).deliveries;
  assert.deepEqual([timedOut!.status, timedOut!.attempts, timedOut!.lastStatusCode], ['failed', 4, null]);
  assert.match(String(timedOut!.lastError), /no answer within 400 ms/);
  const [redirected] = (await deliveries(t, s, moved.id)).deliveries;
  assert.deepEqual([redirected!.status, redirected!.lastStatusCode], ['failed', 302]);
  assert.match(String(redirected!.lastError), /redirect/);
  assert.ok(!receiver.received.some((r) => r.url === '/elsewhere'), 'the redirect was not followed');
});

test('after a rotation both secrets sign for the overlap; each verifies with standardwebhooks', async () => {
  const s = await createStore(t);
  const receiver = await startReceiver();
  const hook = await subscribe(t, s, receiver.url, ['product.created']);
  const rotated = (await t.request('POST', `/api/v1/admin/webhooks/${hook.id}/rotate-secret`, { token: s.admin })).json.secret as string;
  await createProduct(t, s);
  await deliverAll();
  const [request] = receiver.received;
  assert.equal(String(request!.headers['webhook-signature']).split(' ').length, 2);
  verified(rotated, request!);
  verified(hook.secret, request!);
  await t.database.db.execute(sql`update webhook_endpoints set previous_secret_expires_at = now() - interval '1 second' where id = ${hook.id}`);
  await createProduct(t, s);
  await deliverAll();
  const later = receiver.received[1]!;
  assert.equal(String(later.headers['webhook-signature']).split(' ').length, 1, 'after the overlap only the new secret signs');
  verified(rotated, later);
  assert.throws(() => verified(hook.secret, later));
});

test('the test event reaches only that endpoint, signed', async () => {
  const s = await createStore(t);
  const receiver = await startReceiver();
  const hook = await subscribe(t, s, receiver.url, ['order.created']);
  await subscribe(t, s, receiver.url.replace('/hooks', '/other'), ['*']);
  const r = await t.request('POST', `/api/v1/admin/webhooks/${hook.id}/test`, { token: s.admin });
  assert.equal(r.status, 202);
  await deliverAll();
  assert.deepEqual(receiver.received.map((x) => x.url), ['/hooks']);
  assert.deepEqual(verified(hook.secret, receiver.received[0]!), r.json.event);
});

test('the SSRF guard runs again at each attempt: a loopback endpoint gets no request from a strict process', async () => {
  const s = await createStore(t);
  const receiver = await startReceiver();
  const hook = await subscribe(t, s, receiver.url, ['product.created']);
  await subscribe(t, s, `http://localhost:${receiver.port}/by-name`, ['product.created']);
  const strict = await startAppOn(t.database, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false', WEBHOOK_RETRY_SCHEDULE_SECONDS: '0,0,0' });
  await createProduct(t, s);
  await deliverAll(strict);
  assert.equal(receiver.received.length, 0, 'no traffic to a loopback address');
  const [d] = (await deliveries(t, s, hook.id)).deliveries;
  assert.equal(d!.status, 'failed');
  assert.match(String(d!.lastError), /WEBHOOK_URL_NOT_ALLOWED/);
});

test('an endpoint failing for WEBHOOK_DISABLE_AFTER_HOURS is disabled and then gets no new deliveries', async () => {
  const s = await createStore(t);
  const receiver = await startReceiver();
  receiver.answer = () => ({ status: 500 });
  const hook = await subscribe(t, s, receiver.url, ['product.created']);
  await createProduct(t, s);
  await t.app.deliveryWorker.sendDue();
  assert.equal((await t.request('GET', `/api/v1/admin/webhooks/${hook.id}`, { token: s.admin })).json.webhook.disabled, false);
  await t.database.db.execute(sql`update webhook_endpoints set failing_since = now() - interval '121 hours' where id = ${hook.id}`);
  await t.app.deliveryWorker.sendDue();
  assert.equal((await t.request('GET', `/api/v1/admin/webhooks/${hook.id}`, { token: s.admin })).json.webhook.disabled, true);
  await createProduct(t, s);
  assert.equal((await deliveries(t, s, hook.id)).total, 1);
  const [row] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from webhook_deliveries where endpoint_id = ${hook.id}`);
  assert.equal(row!.n, 1);
});

test('a success clears the failure window, so an endpoint that recovers is not disabled', async () => {
  const s = await createStore(t);
  const receiver: Receiver = await startReceiver();
  receiver.answer = (_r, i) => ({ status: i === 0 ? 500 : 200 });
  const hook = await subscribe(t, s, receiver.url, ['product.created']);
  await createProduct(t, s);
  await deliverAll();
  const [row] = await queryRows<{ failing: Date | null }>(t.database.db, sql`select failing_since as failing from webhook_endpoints where id = ${hook.id}`);
  assert.equal(row!.failing, null);
});

test('the retry schedule adds up to 20 % jitter and ends after its last entry', () => {
  assert.equal(retryDelaySeconds([5, 30], 1, () => 0), 5);
  assert.equal(retryDelaySeconds([5, 30], 2, () => 1), 36);
  assert.equal(retryDelaySeconds([5, 30], 3), null);
});

test('placing an order never waits on a webhook: the running worker delivers it afterwards', async () => {
  const s = await createStore(t);
  const receiver = await startReceiver();
  receiver.answer = () => ({ status: 200, delayMs: 300 });
  const hook = await subscribe(t, s, receiver.url, ['order.created']);
  const p = await createProduct(t, s);
  const { customer, address } = await createAddress(t, s);
  const worker = t.app.deliveryWorker;
  worker.start();
  try {
    const started = Date.now();
    const order = await placeOrder(t, s, customer, { address: address.id, products: [{ id: p.id, quantity: 1 }] });
    assert.equal(order.status, 201);
    assert.ok(Date.now() - started < 300, 'answered before the receiver could have answered');
    worker.wake();
    await receiver.waitFor((r) => r.length === 1);
    assert.equal(verified(hook.secret, receiver.received[0]!).id, receiver.received[0]!.headers['webhook-id']);
  } finally {
    await worker.stop();
  }
});

test('while the process is busy with requests, deliveries yield: one claim per poll; once it is not, the rest go at once', async () => {
  const s = await createStore(t);
  const receiver = await startReceiver();
  await subscribe(t, s, receiver.url, ['order.created']);
  const p = await createProduct(t, s, { quantity: 100 });
  const { customer, address } = await createAddress(t, s);
  for (let i = 0; i < 6; i++) assert.equal((await placeOrder(t, s, customer, { address: address.id, products: [{ id: p.id, quantity: 1 }] })).status, 201);
  let busy = true;
  const worker = new DeliveryWorker(t.database.db, {
    retryScheduleSeconds: [0], disableAfterHours: 120, allowPrivateNetworks: true, timeoutMs: 400, concurrency: 2, pollIntervalMs: 60_000, busy: () => busy,
  }, { warn: () => {} });
  worker.start();
  try {
    await new Promise((resolve) => setTimeout(resolve, 800));
    assert.ok(receiver.received.length <= 2, `one claim of at most 2 while busy, got ${receiver.received.length}`);
    const pending = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from webhook_deliveries where store = ${s.slug} and status = 'pending'`);
    assert.ok(pending[0]!.n >= 4, 'the rest wait for the next poll');
    busy = false;
    worker.wake();
    await receiver.waitFor((r) => r.length === 6);
  } finally {
    await worker.stop();
    await receiver.close();
  }
});

test('a backlog is sent with at most `concurrency` requests in flight and a round claimed ahead, without waiting for a poll; each once', async () => {
  const s = await createStore(t);
  const receiver = await startReceiver();
  const hook = await subscribe(t, s, receiver.url, ['order.created']);
  const p = await createProduct(t, s, { quantity: 100 });
  const { customer, address } = await createAddress(t, s);
  for (let i = 0; i < 15; i++) assert.equal((await placeOrder(t, s, customer, { address: address.id, products: [{ id: p.id, quantity: 1 }] })).status, 201);
  let open = 0;
  let mostOpen = 0;
  receiver.answer = () => {
    mostOpen = Math.max(mostOpen, ++open);
    setTimeout(() => open--, 300).unref();
    return { status: 200, delayMs: 300 };
  };
  const worker = new DeliveryWorker(t.database.db, {
    retryScheduleSeconds: [0], disableAfterHours: 120, allowPrivateNetworks: true, timeoutMs: 2000, concurrency: 3, pollIntervalMs: 60_000,
  }, { warn: () => {} });
  const leased = async () =>
    (await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from webhook_deliveries where store = ${s.slug} and status = 'pending' and leased_until > now()`))[0]!.n;
  worker.start();
  try {
    await receiver.waitFor((r) => r.length >= 3);
    // (On a shared PostgreSQL the worker may also hold other stores' leftover deliveries: at least
    // one of this store's is then claimed ahead, at most a round.)
    const held = await leased();
    assert.ok(held > 3 && held <= 6, `while the first round is in flight, the next one is claimed: ${held} leased`);
    await receiver.waitFor((r) => r.length >= 15, 10000);
  } finally {
    await worker.stop();
  }
  assert.equal(mostOpen, 3, 'three requests in flight at most, and three at once');
  const ids = receiver.received.map((r) => r.headers['webhook-id']);
  assert.equal(new Set(ids).size, 15, 'each delivery once');
  const log = await deliveries(t, s, hook.id, '?status=delivered&limit=20');
  assert.equal(log.total, 15, 'every delivery recorded as delivered once the worker stopped');
});
