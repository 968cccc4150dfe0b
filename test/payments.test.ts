/**
 * Payments (docs/payments.md): providers with their secrets encrypted and never answered, manual
 * and Stripe payments of an order's balance, CREATED -> PAID once with `order.paid`, Stripe's
 * webhooks verified with the SDK on the raw body, and refusals that leave nothing behind. The
 * races are in payment-races.test.ts.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { startAppOn, startTestApp } from './support/app.js';
import { assertProblem, createStore } from './support/factories.js';
import { logBuffer } from './support/log-buffer.js';
import { eventsOf, getOrder, orderToPay, pay, SECRETS_KEY, stripeStore, sync, webhookTo } from './support/payments.js';
import { StripeEmulator } from './support/stripe-emulator.js';
import { Secrets } from '../src/modules/payments/secrets.js';
import { openDatabase } from '../src/db/client.js';
import { TEST_DATABASE_URL, TEST_PREPARED_STATEMENTS } from './support/database.js';
import { startTcpProxy } from './support/tcp-proxy.js';

const emulator = await new StripeEmulator().start();
after(() => emulator.stop());
const logs = logBuffer('info');
const t = await startTestApp({ SECRETS_KEY, STRIPE_API_URL: emulator.url, PAYMENT_PROVIDER_TIMEOUT_MS: '1000' });
// A second app on the same data, logging into memory: what it logs must carry no secret.
const logged = await startAppOn(t.database, { SECRETS_KEY, STRIPE_API_URL: emulator.url, PAYMENT_PROVIDER_TIMEOUT_MS: '1000', LOG_LEVEL: 'info' }, { logger: logs.logger });

test('providers: PUT manual and stripe, listed without secrets, stored encrypted, disabled by DELETE; bad bodies are 400', async () => {
  const s = await stripeStore(t, emulator);
  const manual = await t.request('PUT', '/api/v1/admin/payment-providers/manual', { token: s.admin, body: { instructions: 'Pay on delivery' } });
  assert.equal(manual.status, 200, manual.text);
  assert.equal(manual.json.paymentProvider.instructions, 'Pay on delivery');
  const list = await t.request('GET', '/api/v1/admin/payment-providers', { token: s.admin });
  assert.deepEqual(list.json.paymentProviders.map((p: { name: string }) => p.name), ['manual', 'stripe']);
  const stripe = list.json.paymentProviders[1];
  assert.equal(stripe.secretKeyLast4, s.secretKey.slice(-4));
  assert.equal(stripe.webhookUrl, `/api/v1/payment-webhooks/stripe/${s.slug}`);
  assert.equal(stripe.captureMethod, 'automatic');
  assert.ok(!list.text.includes(s.secretKey) && !list.text.includes(s.webhookSecret), 'never answered');
  const rows = await t.database.db.execute(sql`select * from payment_providers where store = ${s.slug}`);
  const stored = JSON.stringify(rows);
  assert.ok(!stored.includes(s.secretKey) && !stored.includes(s.webhookSecret), 'stored only encrypted');
  assert.ok(stored.includes('v1:'));
  for (const body of [{}, { secretKey: 'sk_test_12345678', publishableKey: 'nope', webhookSecret: 'whsec_12345678' }, { secretKey: 'sk_test_12345678', publishableKey: 'pk_test_12345678', webhookSecret: 'whsec_12345678', captureMethod: 'later' }, { secretKey: 'sk_test_12345678', publishableKey: 'pk_test_12345678', webhookSecret: 'whsec_12345678', extra: 1 }]) {
    assert.equal((await t.request('PUT', '/api/v1/admin/payment-providers/stripe', { token: s.admin, body })).status, 400, JSON.stringify(body));
  }
  assert.equal((await t.request('PUT', '/api/v1/admin/payment-providers/stripe', { token: s.storefront, body: { secretKey: 'sk_test_12345678', publishableKey: 'pk_test_12345678', webhookSecret: 'whsec_12345678' } })).status, 403);
  const other = await createStore(t);
  assert.deepEqual((await t.request('GET', '/api/v1/admin/payment-providers', { token: other.admin })).json.paymentProviders, []);
  const off = await t.request('DELETE', '/api/v1/admin/payment-providers/manual', { token: s.admin });
  assert.equal(off.status, 200);
  assert.equal(off.json.paymentProvider.enabled, false);
  assertProblem(await t.request('DELETE', '/api/v1/admin/payment-providers/manual', { token: other.admin }), 404, 'NOT_FOUND');
  const { publicPaymentProviders } = await import('../src/modules/payments/index.js');
  assert.deepEqual(await publicPaymentProviders(t.database.db, s.slug), [{ name: 'stripe', publishableKey: 'pk_test_123456789' }]);
});

test('secrets: a key file is made in DATA_DIR on first use (0600) and reused; with DATABASE_URL and no SECRETS_KEY saving a secret is 409 naming it', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'secrets-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = new Secrets({ secretsKey: undefined, databaseUrl: undefined, dataDir });
  const sealed = first.encrypt('sk_test_secret');
  assert.equal(statSync(join(dataDir, 'secrets.key')).mode & 0o777, 0o600);
  assert.equal(new Secrets({ secretsKey: undefined, databaseUrl: undefined, dataDir }).decrypt(sealed), 'sk_test_secret');
  assert.throws(() => new Secrets({ secretsKey: SECRETS_KEY, databaseUrl: undefined, dataDir }).decrypt(sealed), 'another key cannot read it');
  const noKey = await startAppOn(t.database, { DATABASE_URL: 'postgres://elsewhere/db' });
  const s = await createStore(t);
  const r = await noKey.request('PUT', '/api/v1/admin/payment-providers/stripe', { token: s.admin, body: { secretKey: 'sk_test_12345678', publishableKey: 'pk_test_12345678', webhookSecret: 'whsec_12345678' } });
  assertProblem(r, 409, 'CONFLICT');
  assert.match(r.json.detail, /SECRETS_KEY/);
  assert.equal((await noKey.request('GET', '/api/v1/admin/payment-providers', { token: s.admin })).json.paymentProviders.length, 0, 'nothing saved');
});

test('manual: a pending payment with the instructions, answered again while pending; PATCH PAID records it succeeded; PAID once', async () => {
  const s = await createStore(t);
  const { customer, order } = await orderToPay(t, s);
  assertProblem(await pay(t, s, customer, order.id, 'manual'), 422, 'PAYMENT_PROVIDER_NOT_ENABLED');
  await t.request('PUT', '/api/v1/admin/payment-providers/manual', { token: s.admin, body: { instructions: 'Pay on delivery' } });
  const first = await pay(t, s, customer, order.id, 'manual');
  assert.equal(first.status, 201, first.text);
  assert.deepEqual({ ...first.json.payment, id: undefined, createdAt: undefined }, {
    id: undefined, orderId: order.id, provider: 'manual', status: 'pending', amount: order.total, currency: 'USD', capturedAmount: 0, refundedAmount: 0,
    instructions: 'Pay on delivery', clientSecret: null, createdAt: undefined, updatedAt: null,
  });
  const again = await pay(t, s, customer, order.id, 'manual');
  assert.equal(again.status, 200);
  assert.deepEqual(again.json.payment, first.json.payment, 'the same payment, read again: never updated, so updatedAt is null');
  const [created] = await eventsOf(t, s, ['payment.created']);
  const shown = (created!.data.order as unknown as { payments: Array<{ id: string; createdAt: string; updatedAt: string | null }> }).payments;
  assert.deepEqual(shown.map((p) => [p.id, p.createdAt, p.updatedAt]), [[first.json.payment.id, first.json.payment.createdAt, null]], 'the order as rendered shows it the same');
  assertProblem(await pay(t, s, '00000000-0000-4000-8000-000000000000', order.id, 'manual'), 404, 'NOT_FOUND');
  const paid = await t.request('PATCH', `/api/v1/admin/orders/${order.id}`, { token: s.admin, body: { status: 'PAID' } });
  assert.equal(paid.status, 200, paid.text);
  assert.equal(paid.json.order.status, 'PAID');
  assert.equal(paid.json.order.paidTotal, order.total);
  assert.equal(paid.json.order.paymentStatus, 'paid');
  assert.equal(paid.json.order.payments.length, 1, 'the pending payment became it');
  assert.equal(paid.json.order.payments[0].status, 'succeeded');
  assert.equal(paid.json.order.payments[0].clientSecret, undefined, 'an order never shows a client secret');
  assertProblem(await pay(t, s, customer, order.id, 'manual'), 409, 'ORDER_NOT_PAYABLE');
  const events = await eventsOf(t, s, ['order.paid', 'payment.created', 'payment.succeeded']);
  assert.deepEqual(events.map((e) => e.type), ['payment.created', 'order.paid', 'payment.succeeded']);
  // Cancelling a manually paid order gives the money back at once (the shop does it by hand).
  const cancelled = await t.request('PATCH', `/api/v1/admin/orders/${order.id}`, { token: s.admin, body: { status: 'CANCELLED' } });
  assert.equal(cancelled.json.order.refundedTotal, order.total);
  assert.equal(cancelled.json.order.paymentStatus, 'refunded');
  assert.equal((await eventsOf(t, s, ['payment.refunded'])).length, 1);
});

test('a payment is in the currency the order was placed in, whatever the store uses since', async () => {
  const s = await createStore(t);
  const { customer, order } = await orderToPay(t, s);
  assert.equal(order.currency, 'USD');
  await t.request('PUT', '/api/v1/admin/payment-providers/manual', { token: s.admin, body: { instructions: 'Pay on delivery' } });
  assert.equal((await t.request('PATCH', '/api/v1/admin/store', { token: s.admin, body: { currency: 'EUR' } })).status, 200);
  const payment = await pay(t, s, customer, order.id, 'manual');
  assert.equal(payment.status, 201, payment.text);
  assert.equal(payment.json.payment.currency, 'USD');
  const paid = await t.request('PATCH', `/api/v1/admin/orders/${order.id}`, { token: s.admin, body: { status: 'PAID' } });
  assert.deepEqual(paid.json.order.payments.map((p: { currency: string }) => p.currency), ['USD']);
});

test('stripe: the intent is the balance in the currency, with metadata and the payment id as idempotency key; the webhook makes the order PAID once', async () => {
  const s = await stripeStore(t, emulator);
  const { customer, order } = await orderToPay(t, s);
  const created = await pay(t, s, customer, order.id, 'stripe');
  assert.equal(created.status, 201, created.text);
  const payment = created.json.payment;
  assert.equal(payment.status, 'pending');
  assert.match(payment.clientSecret, /^pi_.+_secret_/);
  const intents = [...emulator.intents.values()].filter((i) => i.metadata.store === s.slug);
  assert.equal(intents.length, 1);
  const intent = intents[0]!;
  assert.deepEqual({ amount: intent.amount, currency: intent.currency, capture: intent.capture_method, metadata: intent.metadata }, {
    amount: order.total, currency: 'usd', capture: 'automatic', metadata: { store: s.slug, orderId: order.id, paymentId: payment.id },
  });
  const again = await pay(t, s, customer, order.id, 'stripe');
  assert.equal(again.status, 200);
  assert.equal(again.json.payment.clientSecret, payment.clientSecret);
  assert.equal([...emulator.intents.values()].filter((i) => i.metadata.store === s.slug).length, 1, 'no second intent');

  emulator.pay(intent.id);
  const statuses = await emulator.deliver(webhookTo(t, s.slug), [emulator.event('payment_intent.succeeded', emulator.intents.get(intent.id)!)], s.webhookSecret);
  assert.deepEqual(statuses, [200]);
  const paidOrder = await getOrder(t, s, order.id);
  assert.equal(paidOrder.status, 'PAID');
  assert.equal(paidOrder.paymentStatus, 'paid');
  assert.equal(paidOrder.paidTotal, order.total);
  assert.equal(paidOrder.payments[0].status, 'succeeded');
  const events = await eventsOf(t, s, ['order.paid', 'payment.created', 'payment.succeeded', 'payment.refunded']);
  assert.deepEqual(events.map((e) => e.type), ['payment.created', 'order.paid', 'payment.succeeded']);
  // The events render the order and the payment as the round leaves them, without reading them back.
  assert.ok(paidOrder.updatedAt && paidOrder.payments[0].updatedAt, 'both changed');
  assert.deepEqual(events[1]!.data.order, paidOrder, 'order.paid shows the order as it is read after');
  assert.deepEqual(events[2]!.data, { order: paidOrder, payment: paidOrder.payments[0] }, 'payment.succeeded shows the order and the payment as they are read after');
  const customerView = await t.request('GET', `/api/v1/${customer}/orders/${order.id}`, { token: s.server });
  assert.ok(!customerView.text.includes('secret'), 'no client secret on the order');
});

test('a delivery alone is one round of four statements (the event id with its payment, the order locked, what is read under the lock, the writes with the events) between BEGIN and COMMIT', async () => {
  let statements = 0;
  const counted = await startTestApp({ SECRETS_KEY, STRIPE_API_URL: emulator.url }, { onQuery: () => statements++ });
  const s = await stripeStore(counted, emulator);
  const deliveries = [];
  for (let i = 0; i < 4; i++) {
    const { customer, order } = await orderToPay(counted, s);
    const payment = (await pay(counted, s, customer, order.id, 'stripe')).json.payment;
    const intent = [...emulator.intents.values()].find((x) => x.metadata.paymentId === payment.id)!;
    deliveries.push(emulator.event('payment_intent.succeeded', emulator.pay(intent.id)));
  }
  // The first reads the store's webhook secret, which is then kept for a second.
  const counts: number[] = [];
  for (const event of deliveries) {
    const before = statements;
    assert.deepEqual(await emulator.deliver(webhookTo(counted, s.slug), [event], s.webhookSecret), [200]);
    counts.push(statements - before);
  }
  // The least of the last three: a job of the app's own may send a statement meanwhile. Drizzle
  // sends (and counts) BEGIN and COMMIT on PostgreSQL; PGlite's transactions send their own.
  const control = TEST_DATABASE_URL ? 2 : 0;
  assert.equal(Math.min(...counts.slice(1)), 4 + control, `statements of each delivery: ${counts.join(', ')}`);
  const paid = await eventsOf(counted, s, ['order.paid']);
  assert.equal(paid.length, 4);
});

test('stripe: a refusal or an unreachable Stripe is 502 and leaves nothing pending; a timeout is retried with the same key (one intent)', async () => {
  const s = await stripeStore(t, emulator);
  const { customer, order } = await orderToPay(t, s);
  for (const fault of ['api_error', 'card_declined'] as const) {
    // The SDK retries a 5xx once (same idempotency key), never a card error.
    emulator.failNext(/^POST \/v1\/payment_intents$/, fault);
    if (fault === 'api_error') emulator.failNext(/^POST \/v1\/payment_intents$/, fault);
    const r = await logged.request('POST', `/api/v1/${customer}/orders/${order.id}/payments`, { token: s.server, body: { provider: 'stripe' } });
    assertProblem(r, 502, 'PAYMENT_PROVIDER_ERROR');
    assert.deepEqual((await getOrder(t, s, order.id)).payments, [], 'nothing left pending');
  }
  emulator.keys.delete(s.secretKey);
  const wrongKey = await logged.request('POST', `/api/v1/${customer}/orders/${order.id}/payments`, { token: s.server, body: { provider: 'stripe' } });
  assertProblem(wrongKey, 502, 'PAYMENT_PROVIDER_ERROR');
  assert.ok(!wrongKey.text.includes(s.secretKey.slice(0, 12)));
  emulator.keys.add(s.secretKey);
  emulator.failNext(/^POST \/v1\/payment_intents$/, 'timeout');
  const before = emulator.intents.size;
  const r = await pay(t, s, customer, order.id, 'stripe');
  assert.equal(r.status, 201, r.text);
  assert.equal(emulator.intents.size, before + 1, 'the retry after the timeout got the same intent');
  // Saved again through the app that logs (a request with the secrets in its body), then read back.
  assert.equal((await logged.request('PUT', '/api/v1/admin/payment-providers/stripe', { token: s.admin, body: { secretKey: s.secretKey, publishableKey: 'pk_test_123456789', webhookSecret: s.webhookSecret } })).status, 200);
  const text = logs.text();
  assert.ok(text.includes('payment-providers/stripe'), 'the request was logged');
  for (const secret of [s.secretKey, s.webhookSecret]) assert.ok(!text.includes(secret), 'no secret in the logs');
  assert.ok(!JSON.stringify(await eventsOf(t, s, ['payment.created', 'order.paid'])).includes(s.secretKey));
});

test('stripe webhooks: a wrong signature, a stale timestamp, an unknown store are 400 and change nothing; another store\'s intent and unhandled types are 200 and ignored', async () => {
  const s = await stripeStore(t, emulator);
  const other = await stripeStore(t, emulator);
  const { customer, order } = await orderToPay(t, s);
  const payment = (await pay(t, s, customer, order.id, 'stripe')).json.payment;
  const intentId = [...emulator.intents.values()].find((i) => i.metadata.paymentId === payment.id)!.id;
  const event = emulator.event('payment_intent.succeeded', emulator.pay(intentId));
  const send = webhookTo(t, s.slug);
  assert.equal((await send(emulator.sign(event, 'whsec_wrong_secret_000'))).status, 400, 'wrong secret');
  assert.equal((await send(emulator.sign(event, s.webhookSecret, { timestamp: Math.floor(Date.now() / 1000) - 301 }))).status, 400, 'stale');
  const tampered = emulator.sign(event, s.webhookSecret);
  assert.equal((await send({ ...tampered, body: tampered.body.replace(s.slug, other.slug) })).status, 400, 'body changed after signing');
  assert.equal((await send({ body: tampered.body, headers: { 'content-type': 'application/json' } })).status, 400, 'no signature');
  assert.equal((await webhookTo(t, 'no-such-store')(emulator.sign(event, s.webhookSecret))).status, 400);
  assert.equal((await getOrder(t, s, order.id)).status, 'CREATED', 'nothing changed');
  // Signed by the other store's secret, to the other store: not its intent, ignored.
  assert.equal((await webhookTo(t, other.slug)(emulator.sign(event, other.webhookSecret))).status, 200);
  assert.equal((await webhookTo(t, s.slug)(emulator.sign(emulator.event('customer.created' as 'payment_intent.succeeded', emulator.intents.get(intentId)!), s.webhookSecret))).status, 200);
  assert.equal((await getOrder(t, s, order.id)).status, 'CREATED');
  assert.equal((await send(emulator.sign(event, s.webhookSecret))).status, 200);
  assert.equal((await getOrder(t, s, order.id)).status, 'PAID');
});

test('stripe: manual capture authorizes and the order is PAID with paymentStatus authorized; sync applies what Stripe says', async () => {
  const s = await stripeStore(t, emulator, 'manual');
  const { customer, order } = await orderToPay(t, s);
  const payment = (await pay(t, s, customer, order.id, 'stripe')).json.payment;
  const intent = [...emulator.intents.values()].find((i) => i.metadata.paymentId === payment.id)!;
  assert.equal(intent.capture_method, 'manual');
  emulator.pay(intent.id);
  const synced = await sync(t, s, customer, order.id, payment.id);
  assert.equal(synced.status, 200, synced.text);
  assert.equal(synced.json.payment.status, 'authorized');
  const o = await getOrder(t, s, order.id);
  assert.equal(o.status, 'PAID');
  assert.equal(o.paymentStatus, 'authorized');
  assert.equal(o.paidTotal, 0);
  assertProblem(await sync(t, s, customer, order.id, '00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
  // Cancelling voids the authorization at Stripe: no money moved.
  const cancelled = await t.request('PATCH', `/api/v1/admin/orders/${order.id}`, { token: s.admin, body: { status: 'CANCELLED' } });
  assert.equal(cancelled.status, 200);
  assert.equal(emulator.intents.get(intent.id)!.status, 'canceled');
  assert.equal((await getOrder(t, s, order.id)).payments[0].status, 'cancelled');
});

test('a declined card is payment.failed; the shopper pays again with a new intent; a lost webhook is found by the maintenance sync', async () => {
  const s = await stripeStore(t, emulator);
  const { customer, order } = await orderToPay(t, s);
  const first = (await pay(t, s, customer, order.id, 'stripe')).json.payment;
  const firstIntent = [...emulator.intents.values()].find((i) => i.metadata.paymentId === first.id)!;
  await emulator.deliver(webhookTo(t, s.slug), [emulator.event('payment_intent.payment_failed', emulator.pay(firstIntent.id, 'decline'))], s.webhookSecret);
  assert.equal((await getOrder(t, s, order.id)).payments[0].status, 'failed');
  const second = await pay(t, s, customer, order.id, 'stripe');
  assert.equal(second.status, 201);
  assert.notEqual(second.json.payment.id, first.id);
  const secondIntent = [...emulator.intents.values()].find((i) => i.metadata.paymentId === second.json.payment.id)!;
  emulator.pay(secondIntent.id);
  // No webhook comes: the job syncs pending payments (PAYMENT_SYNC_AFTER_SECONDS, 600 by default).
  await t.database.db.execute(sql`update payments set created_at = now() - interval '11 minutes' where store = ${s.slug} and id = ${second.json.payment.id}`);
  await t.app.payments.runMaintenance();
  const o = await getOrder(t, s, order.id);
  assert.equal(o.status, 'PAID');
  assert.deepEqual(o.payments.map((p: { status: string }) => p.status).sort(), ['failed', 'succeeded']);
  assert.equal((await eventsOf(t, s, ['payment.failed'])).length, 1);
});

test('a Stripe webhook while the database does not answer is 503 (Stripe retries), and applies once it is back', { skip: !TEST_DATABASE_URL && 'needs TEST_DATABASE_URL (a PostgreSQL server behind a proxy the test cuts)' }, async () => {
  const s = await stripeStore(t, emulator);
  const { customer, order } = await orderToPay(t, s);
  const payment = (await pay(t, s, customer, order.id, 'stripe')).json.payment;
  const intentId = [...emulator.intents.values()].find((i) => i.metadata.paymentId === payment.id)!.id;
  const target = new URL(TEST_DATABASE_URL!);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  after(() => proxy.close());
  const viaProxy = new URL(TEST_DATABASE_URL!);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  const database = await openDatabase({ url: viaProxy.toString(), poolSize: 2, connectTimeoutMs: 1000, statementTimeoutMs: 5000, preparedStatements: TEST_PREPARED_STATEMENTS });
  after(() => database.close());
  const cut = await startAppOn(database, { SECRETS_KEY, STRIPE_API_URL: emulator.url });
  const delivery = emulator.sign(emulator.event('payment_intent.succeeded', emulator.pay(intentId)), s.webhookSecret);
  await proxy.cut();
  const down = await cut.request('POST', `/api/v1/payment-webhooks/stripe/${s.slug}`, { rawBody: delivery.body, headers: delivery.headers });
  assertProblem(down, 503, 'SERVICE_UNAVAILABLE');
  await proxy.restore();
  let status = 0;
  for (let i = 0; i < 100 && status !== 200; i++) {
    status = (await cut.request('POST', `/api/v1/payment-webhooks/stripe/${s.slug}`, { rawBody: delivery.body, headers: delivery.headers })).status;
    if (status !== 200) await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(status, 200);
  assert.equal((await getOrder(t, s, order.id)).status, 'PAID');
});
