/**
 * Payments across real processes: a server SIGKILLed after Stripe did what it was asked and before
 * the service committed the answer, then restarted (the retry, the webhook or the maintenance job
 * finishes the job once, by the same idempotency key); and two servers on one PostgreSQL receiving
 * the same deliveries and syncs at once.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { ROOT_TOKEN } from './support/app.js';
import { TEST_DATABASE_URL } from './support/database.js';
import { SECRETS_KEY } from './support/payments.js';
import { call, serverDatabaseEnv, startServerProcess } from './support/server-process.js';
import { ADDRESS } from './support/shop.js';
import { StripeEmulator, type Delivery } from './support/stripe-emulator.js';

const emulator = await new StripeEmulator().start();
after(() => emulator.stop());
const paymentEnv = { SECRETS_KEY, STRIPE_API_URL: emulator.url, PAYMENT_PROVIDER_TIMEOUT_MS: '3000', ORDER_RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '0' };

async function setUpShop(base: string) {
  const slug = `pay-${randomUUID().slice(0, 8)}`;
  const created = await call(base, 'POST', '/v1/admin/stores', { token: ROOT_TOKEN, body: { slug } });
  assert.equal(created.status, 201, created.text);
  const admin = created.json.tokens.admin as string;
  const server = (await call(base, 'POST', '/v1/admin/tokens', { token: admin, body: { kind: 'server' } })).json.secret as string;
  const secretKey = `sk_test_${randomBytes(16).toString('hex')}`;
  const webhookSecret = `whsec_${randomBytes(16).toString('hex')}`;
  emulator.keys.add(secretKey);
  const provider = await call(base, 'PUT', '/v1/admin/payment-providers/stripe', { token: admin, body: { secretKey, publishableKey: 'pk_test_processes', webhookSecret } });
  assert.equal(provider.status, 200, provider.text);
  const product = await call(base, 'POST', '/v1/admin/products', { token: admin, body: { name: 'P', slug: `p-${randomUUID().slice(0, 8)}`, sku: 'S', price: 1000, quantity: 10, status: 'ACTIVE' } });
  const customer = randomUUID();
  const address = await call(base, 'POST', `/v1/${customer}/addresses`, { token: server, body: { address: ADDRESS } });
  const order = await call(base, 'POST', `/v1/${customer}/orders`, { token: server, body: { address: address.json.address.id, products: [{ id: product.json.product.id, quantity: 2 }] } });
  assert.equal(order.status, 201, order.text);
  return { slug, admin, server, customer, webhookSecret, orderId: order.json.order.id as string, productId: product.json.product.id as string };
}

const deliverTo = (base: string, slug: string) => async (d: Delivery) =>
  fetch(`${base}/v1/payment-webhooks/stripe/${slug}`, { method: 'POST', headers: d.headers, body: d.body });
const intentsOf = (orderId: string) => [...emulator.intents.values()].filter((i) => i.metadata.orderId === orderId);

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('SIGKILL after Stripe created the intent, before the commit: after a restart the retried POST gets the same intent; the webhook pays the order once', async () => {
  const db = serverDatabaseEnv();
  after(db.remove);
  let server = await startServerProcess({ ...db.env, ...paymentEnv });
  const shop = await setUpShop(server.base);
  emulator.afterNext(/^POST \/v1\/payment_intents$/, () => server.child.kill('SIGKILL'));
  const lost = await call(server.base, 'POST', `/v1/${shop.customer}/orders/${shop.orderId}/payments`, { token: shop.server, body: { provider: 'stripe' } }).catch(() => null);
  assert.equal(lost, null, 'the server died before answering');
  await server.stop();
  assert.equal(intentsOf(shop.orderId).length, 1, 'Stripe made the intent');
  server = await startServerProcess({ ...db.env, ...paymentEnv });
  try {
    const retried = await call(server.base, 'POST', `/v1/${shop.customer}/orders/${shop.orderId}/payments`, { token: shop.server, body: { provider: 'stripe' } });
    assert.equal(retried.status, 200, retried.text);
    assert.equal(intentsOf(shop.orderId).length, 1, 'the same key got the same intent');
    assert.equal(retried.json.payment.clientSecret, intentsOf(shop.orderId)[0]!.client_secret);
    const intent = emulator.pay(intentsOf(shop.orderId)[0]!.id);
    await emulator.deliver(deliverTo(server.base, shop.slug), [emulator.event('payment_intent.succeeded', intent)], shop.webhookSecret, { repeat: 3 });
    const order = (await call(server.base, 'GET', `/v1/admin/orders/${shop.orderId}`, { token: shop.admin })).json.order;
    assert.equal(order.status, 'PAID');
    const events = (await call(server.base, 'GET', '/v1/admin/events?type=order.paid,payment.created,payment.succeeded', { token: shop.admin })).json.events as Array<{ type: string }>;
    assert.deepEqual(events.map((e) => e.type), ['payment.created', 'order.paid', 'payment.succeeded']);
  } finally {
    await server.stop();
  }
});

test('SIGKILL after Stripe refunded, before the commit: after a restart the maintenance job refunds with the same key, once', async () => {
  const db = serverDatabaseEnv();
  after(db.remove);
  let server = await startServerProcess({ ...db.env, ...paymentEnv });
  const shop = await setUpShop(server.base);
  const created = await call(server.base, 'POST', `/v1/${shop.customer}/orders/${shop.orderId}/payments`, { token: shop.server, body: { provider: 'stripe' } });
  assert.equal(created.status, 201, created.text);
  const intentId = intentsOf(shop.orderId)[0]!.id;
  emulator.pay(intentId);
  // The shopper paid; the admin cancels before the webhook came: the void finds it succeeded, and refunds.
  emulator.afterNext(/^POST \/v1\/refunds$/, () => server.child.kill('SIGKILL'));
  await call(server.base, 'PATCH', `/v1/admin/orders/${shop.orderId}`, { token: shop.admin, body: { status: 'CANCELLED' } }).catch(() => null);
  await server.stop();
  assert.equal(emulator.refunds.filter((r) => r.payment_intent === intentId).length, 1, 'Stripe refunded');
  server = await startServerProcess({ ...db.env, ...paymentEnv, PAYMENT_JOB_INTERVAL_SECONDS: '1' });
  try {
    const order = await until(
      async () => (await call(server.base, 'GET', `/v1/admin/orders/${shop.orderId}`, { token: shop.admin })).json.order,
      (o) => o.refundedTotal === 2000,
      'the refund to be recorded',
    );
    assert.equal(order.status, 'CANCELLED', 'the cancel committed before the refund call');
    assert.equal(order.paymentStatus, 'refunded');
    assert.equal(emulator.refunds.filter((r) => r.payment_intent === intentId).length, 1, 'one refund at Stripe');
    const events = (await call(server.base, 'GET', '/v1/admin/events?type=payment.refunded,order.paid', { token: shop.admin })).json.events as Array<{ type: string }>;
    assert.deepEqual(events.map((e) => e.type), ['payment.refunded']);
  } finally {
    await server.stop();
  }
});

test('two server processes: 20 duplicate deliveries and 20 syncs spread over both make the order PAID once', { skip: !TEST_DATABASE_URL && 'needs TEST_DATABASE_URL (PostgreSQL): PGlite is one process' }, async () => {
  const env = { DATABASE_URL: TEST_DATABASE_URL!, ...paymentEnv };
  const [one, two] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  try {
    const shop = await setUpShop(one.base);
    const created = await call(two.base, 'POST', `/v1/${shop.customer}/orders/${shop.orderId}/payments`, { token: shop.server, body: { provider: 'stripe' } });
    const paymentId = created.json.payment.id as string;
    const intentId = intentsOf(shop.orderId)[0]!.id;
    const event = emulator.event('payment_intent.succeeded', emulator.pay(intentId));
    const answers = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => deliverTo(i % 2 ? one.base : two.base, shop.slug)(emulator.sign(event, shop.webhookSecret)).then((r) => r.status)),
      ...Array.from({ length: 20 }, (_, i) => call(i % 2 ? two.base : one.base, 'POST', `/v1/${shop.customer}/orders/${shop.orderId}/payments/${paymentId}/sync`, { token: shop.server }).then((r) => r.status)),
    ]);
    assert.deepEqual(answers, Array(40).fill(200));
    const events = (await call(one.base, 'GET', '/v1/admin/events?type=order.paid,payment.succeeded,payment.refunded', { token: shop.admin })).json.events as Array<{ type: string }>;
    assert.deepEqual(events.map((e) => e.type), ['order.paid', 'payment.succeeded']);
    assert.equal(emulator.refunds.filter((r) => r.payment_intent === intentId).length, 0);
  } finally {
    await Promise.all([one.stop(), two.stop()]);
  }
});

test('two server processes: concurrent deliveries for ten orders, each event four times, spread over both: each order PAID with exactly one order.paid', { skip: !TEST_DATABASE_URL && 'needs TEST_DATABASE_URL (PostgreSQL): PGlite is one process' }, async () => {
  const env = { DATABASE_URL: TEST_DATABASE_URL!, ...paymentEnv };
  const [one, two] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  try {
    const shop = await setUpShop(one.base);
    const product = await call(one.base, 'POST', '/v1/admin/products', { token: shop.admin, body: { name: 'Q', slug: `q-${randomUUID().slice(0, 8)}`, sku: 'Q', price: 500, quantity: 100, status: 'ACTIVE' } });
    const address = await call(one.base, 'POST', `/v1/${shop.customer}/addresses`, { token: shop.server, body: { address: ADDRESS } });
    const orderIds = [shop.orderId];
    for (let i = 1; i < 10; i++) {
      const placed = await call(one.base, 'POST', `/v1/${shop.customer}/orders`, { token: shop.server, body: { address: address.json.address.id, products: [{ id: product.json.product.id, quantity: 1 }] } });
      assert.equal(placed.status, 201, placed.text);
      orderIds.push(placed.json.order.id);
    }
    for (const orderId of orderIds) {
      const created = await call(two.base, 'POST', `/v1/${shop.customer}/orders/${orderId}/payments`, { token: shop.server, body: { provider: 'stripe' } });
      assert.equal(created.status, 201, created.text);
    }
    const events = orderIds.map((orderId) => emulator.event('payment_intent.succeeded', emulator.pay(intentsOf(orderId)[0]!.id)));
    // Each event four times, copies apart in the list and alternating between the two servers.
    const deliveries = [0, 1, 2, 3].flatMap(() => events.map((e) => emulator.sign(e, shop.webhookSecret)));
    const answers = await Promise.all(deliveries.map((d, i) => deliverTo(i % 2 ? one.base : two.base, shop.slug)(d).then((r) => r.status)));
    assert.deepEqual(answers, Array(40).fill(200));
    for (const orderId of orderIds) assert.equal((await call(one.base, 'GET', `/v1/admin/orders/${orderId}`, { token: shop.admin })).json.order.status, 'PAID');
    // The feed serves an event once no older transaction runs: wait for all of them, then count.
    const paid = await until(
      async () => (await call(one.base, 'GET', '/v1/admin/events?type=order.paid,payment.succeeded,payment.refunded&limit=100', { token: shop.admin })).json.events as Array<{ type: string; data: { order: { id: string } } }>,
      (list) => list.length >= 20,
      'the events of the ten payments',
    );
    const ofType = (type: string) => paid.filter((e) => e.type === type).map((e) => e.data.order.id).sort();
    assert.deepEqual(ofType('order.paid'), [...orderIds].sort(), 'one order.paid per order');
    assert.deepEqual(ofType('payment.succeeded'), [...orderIds].sort());
    assert.deepEqual(ofType('payment.refunded'), []);
    assert.equal(emulator.refunds.filter((r) => orderIds.some((id) => intentsOf(id)[0]!.id === r.payment_intent)).length, 0);
  } finally {
    await Promise.all([one.stop(), two.stop()]);
  }
});
