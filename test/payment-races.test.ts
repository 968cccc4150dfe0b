/**
 * Money and orders never disagree (docs/payments.md, "Guarantees"): each race is run with real
 * concurrent requests, then checked for exactness in the order, its events and the emulator's
 * record of what Stripe was asked (intents, refunds).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { startTestApp } from './support/app.js';
import { eventsOf, getOrder, orderToPay, pay, SECRETS_KEY, stripeStore, sync, webhookTo, type StripeStore } from './support/payments.js';
import { StripeEmulator } from './support/stripe-emulator.js';
import { stockOf } from './support/shop.js';
import type { TestApp } from './support/app.js';

const emulator = await new StripeEmulator().start();
after(() => emulator.stop());
const t = await startTestApp({ SECRETS_KEY, STRIPE_API_URL: emulator.url, PAYMENT_PROVIDER_TIMEOUT_MS: '2000' });

async function stripePayment(app: TestApp, s: StripeStore, quantity = 2) {
  const { customer, order, product } = await orderToPay(app, s, quantity);
  const r = await pay(app, s, customer, order.id, 'stripe');
  assert.equal(r.status, 201, r.text);
  const intent = [...emulator.intents.values()].find((i) => i.metadata.paymentId === r.json.payment.id)!;
  return { customer, order, product, payment: r.json.payment, intentId: intent.id };
}

const refundsOf = (intentId: string) => emulator.refunds.filter((r) => r.payment_intent === intentId);
const countTypes = (events: Array<{ type: string }>) => events.reduce<Record<string, number>>((n, e) => ({ ...n, [e.type]: (n[e.type] ?? 0) + 1 }), {});

test('the same payment_intent.succeeded delivered 20 times at once plus 20 concurrent syncs: PAID once, one payment.succeeded, no refund', async () => {
  const s = await stripeStore(t, emulator);
  const { customer, order, payment, intentId } = await stripePayment(t, s);
  const event = emulator.event('payment_intent.succeeded', emulator.pay(intentId));
  const send = webhookTo(t, s.slug);
  const answers = await Promise.all([
    ...Array.from({ length: 20 }, () => send(emulator.sign(event, s.webhookSecret))),
    ...Array.from({ length: 20 }, () => sync(t, s, customer, order.id, payment.id)),
  ]);
  assert.deepEqual(answers.map((a) => a.status), Array(40).fill(200));
  const o = await getOrder(t, s, order.id);
  assert.equal(o.status, 'PAID');
  assert.equal(o.paidTotal, order.total);
  assert.equal(o.refundedTotal, 0);
  assert.deepEqual(countTypes(await eventsOf(t, s, ['order.paid', 'payment.succeeded', 'payment.refunded', 'payment.created'])), { 'payment.created': 1, 'order.paid': 1, 'payment.succeeded': 1 });
  assert.equal(refundsOf(intentId).length, 0);
  assert.equal([...emulator.intents.values()].filter((i) => i.metadata.orderId === order.id).length, 1);
});

test('two intents of one order both succeeding: PAID once, the second refunded in full at once (one Stripe refund)', async () => {
  const s = await stripeStore(t, emulator);
  const first = await stripePayment(t, s);
  // The first card is declined; the shopper pays again; then the first intent is retried and succeeds too.
  await emulator.deliver(webhookTo(t, s.slug), [emulator.event('payment_intent.payment_failed', emulator.pay(first.intentId, 'decline'))], s.webhookSecret);
  const second = await pay(t, s, first.customer, first.order.id, 'stripe');
  assert.equal(second.status, 201);
  const secondIntent = [...emulator.intents.values()].find((i) => i.metadata.paymentId === second.json.payment.id)!.id;
  const events = [emulator.event('payment_intent.succeeded', emulator.pay(first.intentId)), emulator.event('payment_intent.succeeded', emulator.pay(secondIntent))];
  const statuses = await emulator.deliver(webhookTo(t, s.slug), events, s.webhookSecret, { repeat: 3, concurrent: true });
  assert.deepEqual(statuses, Array(6).fill(200));
  const o = await getOrder(t, s, first.order.id);
  assert.equal(o.status, 'PAID');
  assert.equal(o.paidTotal, 2 * first.order.total);
  assert.equal(o.refundedTotal, first.order.total, 'the one not needed went back');
  assert.equal(refundsOf(first.intentId).length + refundsOf(secondIntent).length, 1);
  assert.equal([...refundsOf(first.intentId), ...refundsOf(secondIntent)][0]!.amount, first.order.total);
  assert.deepEqual(countTypes(await eventsOf(t, s, ['order.paid', 'payment.succeeded', 'payment.refunded'])), { 'order.paid': 1, 'payment.succeeded': 2, 'payment.refunded': 1 });
});

test('success arriving after the order was cancelled: the void finds it succeeded, refunds it in full once; the late webhook changes nothing', async () => {
  const s = await stripeStore(t, emulator);
  const { order, product, intentId } = await stripePayment(t, s);
  const succeeded = emulator.pay(intentId);
  const cancelled = await t.request('PATCH', `/api/v1/admin/orders/${order.id}`, { token: s.admin, body: { status: 'CANCELLED' } });
  assert.equal(cancelled.status, 200);
  const statuses = await emulator.deliver(webhookTo(t, s.slug), [emulator.event('payment_intent.succeeded', succeeded)], s.webhookSecret, { repeat: 5, concurrent: true });
  assert.deepEqual(statuses, Array(5).fill(200));
  const o = await getOrder(t, s, order.id);
  assert.equal(o.status, 'CANCELLED');
  assert.equal(o.paidTotal, order.total);
  assert.equal(o.refundedTotal, order.total);
  assert.equal(o.paymentStatus, 'refunded');
  assert.equal(refundsOf(intentId).length, 1);
  assert.equal(refundsOf(intentId)[0]!.amount, order.total);
  assert.equal(await stockOf(t, s, product.id), 10, 'stock back');
  assert.deepEqual(countTypes(await eventsOf(t, s, ['order.paid', 'order.cancelled', 'payment.succeeded', 'payment.refunded'])), { 'order.cancelled': 1, 'payment.succeeded': 1, 'payment.refunded': 1 });
});

test('success arriving after the unpaid timeout: the job cancels the order (payment_timeout; stock and code use back), the payment is refunded once', async () => {
  const s = await stripeStore(t, emulator);
  const code = await t.request('POST', '/api/v1/admin/discounts', { token: s.admin, body: { code: 'LATE10', type: 'percentage', value: 10, usageLimit: 1 } });
  assert.equal(code.status, 201, code.text);
  const { createProduct } = await import('./support/factories.js');
  const { createAddress, placeOrder } = await import('./support/shop.js');
  const product = await createProduct(t, s, { price: 1000, quantity: 10 });
  const { customer, address } = await createAddress(t, s);
  const placed = await placeOrder(t, s, customer, { address: address.id, products: [{ id: product.id, quantity: 3 }], discountCode: 'late10' });
  assert.equal(placed.status, 201, placed.text);
  const order = placed.json.order;
  const payment = (await pay(t, s, customer, order.id, 'stripe')).json.payment;
  assert.equal(payment.amount, 2700);
  const intentId = [...emulator.intents.values()].find((i) => i.metadata.paymentId === payment.id)!.id;
  // Another order stays: its store never times out.
  await t.database.db.execute(sql`update stores set unpaid_order_timeout_seconds = 60 where slug = ${s.slug}`);
  await t.database.db.execute(sql`update orders set created_at = now() - interval '61 seconds' where store = ${s.slug} and id = ${order.id}`);
  const succeeded = emulator.pay(intentId);
  await t.app.payments.runMaintenance();
  await emulator.deliver(webhookTo(t, s.slug), [emulator.event('payment_intent.succeeded', succeeded)], s.webhookSecret, { repeat: 3, delayMs: 5 });
  const o = await getOrder(t, s, order.id);
  assert.equal(o.status, 'CANCELLED');
  assert.equal(o.refundedTotal, 2700);
  assert.equal(refundsOf(intentId).length, 1);
  assert.equal(await stockOf(t, s, product.id), 10);
  const discount = (await t.request('GET', `/api/v1/admin/discounts/${code.json.discount.id}`, { token: s.admin })).json.discount;
  assert.equal(discount.usageCount, 0, 'the code use came back');
  const cancels = await eventsOf(t, s, ['order.cancelled']);
  assert.equal(cancels.length, 1);
  assert.equal(cancels[0]!.data.reason, 'payment_timeout');
  await t.app.payments.runMaintenance();
  assert.equal(refundsOf(intentId).length, 1, 'a second run changes nothing');
});

test('an unpaid order past the timeout with an open intent: cancelled, the intent voided at Stripe; a paid order is never cancelled', async () => {
  const s = await stripeStore(t, emulator);
  const open = await stripePayment(t, s);
  const paid = await stripePayment(t, s);
  await emulator.deliver(webhookTo(t, s.slug), [emulator.event('payment_intent.succeeded', emulator.pay(paid.intentId))], s.webhookSecret);
  await t.database.db.execute(sql`update stores set unpaid_order_timeout_seconds = 60 where slug = ${s.slug}`);
  await t.database.db.execute(sql`update orders set created_at = now() - interval '2 minutes' where store = ${s.slug}`);
  await t.app.payments.runMaintenance();
  assert.equal((await getOrder(t, s, open.order.id)).status, 'CANCELLED');
  assert.equal(emulator.intents.get(open.intentId)!.status, 'canceled');
  assert.equal((await getOrder(t, s, open.order.id)).payments[0].status, 'cancelled');
  assert.equal((await getOrder(t, s, paid.order.id)).status, 'PAID');
});

test('payment_failed arriving after succeeded, and deliveries reordered: a succeeded payment never goes back', async () => {
  const s = await stripeStore(t, emulator);
  const { order, intentId } = await stripePayment(t, s);
  const failed = emulator.event('payment_intent.payment_failed', emulator.pay(intentId, 'decline'));
  const succeeded = emulator.event('payment_intent.succeeded', emulator.pay(intentId));
  // Stripe sent failed then succeeded; they arrive reversed, each twice.
  await emulator.deliver(webhookTo(t, s.slug), [failed, succeeded], s.webhookSecret, { reversed: true, repeat: 2 });
  const o = await getOrder(t, s, order.id);
  assert.equal(o.status, 'PAID');
  assert.equal(o.payments[0].status, 'succeeded');
  assert.deepEqual(countTypes(await eventsOf(t, s, ['order.paid', 'payment.succeeded', 'payment.failed'])), { 'order.paid': 1, 'payment.succeeded': 1 });
});

test('charge.refunded from Stripe (a refund made in its dashboard): refundedTotal follows once, whatever the repeats', async () => {
  const s = await stripeStore(t, emulator);
  const { order, intentId } = await stripePayment(t, s);
  await emulator.deliver(webhookTo(t, s.slug), [emulator.event('payment_intent.succeeded', emulator.pay(intentId))], s.webhookSecret);
  emulator.refunds.push({ id: 're_dashboard', object: 'refund', amount: 500, payment_intent: intentId } as (typeof emulator.refunds)[number]);
  await emulator.deliver(webhookTo(t, s.slug), [emulator.chargeRefunded(intentId)], s.webhookSecret, { repeat: 4, concurrent: true });
  const o = await getOrder(t, s, order.id);
  assert.equal(o.refundedTotal, 500);
  assert.equal(o.paymentStatus, 'partially_refunded');
  assert.equal((await eventsOf(t, s, ['payment.refunded'])).length, 1);
});

test('one round of concurrent deliveries keeps each apart: duplicates, an unknown intent, another store\'s intent, a declined card and a delivery that breaks beside good ones', async () => {
  const s = await stripeStore(t, emulator);
  const other = await stripeStore(t, emulator);
  const [a, b, c, d] = [await stripePayment(t, s), await stripePayment(t, s), await stripePayment(t, s), await stripePayment(t, s)];
  const foreign = await stripePayment(t, other);
  const unknownIntent = { ...emulator.pay(a.intentId), id: 'pi_nobody_knows', metadata: {} };
  // Signed and of a handled type, but its amount is not a number: its statement fails, and only it.
  const broken = { ...emulator.pay(d.intentId), amount_received: 'lots' as unknown as number };
  const sign = (e: ReturnType<typeof emulator.event>) => emulator.sign(e, s.webhookSecret);
  const paidA = emulator.event('payment_intent.succeeded', emulator.pay(a.intentId));
  // A wrong signature first: 400, and the store's webhook secret is now in memory, so that the
  // deliveries below reach the store's queue together: the first two start a round each (two run at
  // once), the others make the next (on PostgreSQL; the embedded database runs one transaction at a time, so there each request
  // reaches the queue only after the round before it, and the rounds are of one).
  const forged = await webhookTo(t, s.slug)(emulator.sign(emulator.event('payment_intent.succeeded', emulator.pay(d.intentId)), 'whsec_wrong'));
  assert.equal(forged.status, 400);
  const deliveries = [
    sign(paidA), sign(paidA), sign(paidA),
    sign(emulator.event('payment_intent.succeeded', emulator.pay(b.intentId))),
    sign(emulator.event('payment_intent.payment_failed', emulator.pay(c.intentId, 'decline'))),
    sign(emulator.event('payment_intent.succeeded', emulator.pay(foreign.intentId))),
    sign(emulator.event('payment_intent.succeeded', unknownIntent)),
    sign(emulator.event('payment_intent.succeeded', broken)),
  ];
  const statuses = (await Promise.all(deliveries.map(webhookTo(t, s.slug)))).map((r) => r.status);
  assert.deepEqual(statuses.slice(0, 7), Array(7).fill(200));
  assert.ok(statuses[7]! >= 500, `the broken delivery fails alone (${statuses[7]}), so that Stripe retries it`);

  const [oa, ob, oc, od] = await Promise.all([a, b, c, d].map((p) => getOrder(t, s, p.order.id)));
  assert.equal(oa.status, 'PAID');
  assert.equal(ob.status, 'PAID');
  assert.equal(oc.status, 'CREATED');
  assert.equal(oc.payments[0].status, 'failed');
  assert.equal(od.status, 'CREATED');
  assert.equal(od.payments[0].status, 'pending');
  const of = await getOrder(t, other, foreign.order.id);
  assert.equal(of.status, 'CREATED', "another store's intent is ignored");
  assert.equal(of.payments[0].status, 'pending');
  const events = await eventsOf(t, s, ['order.paid', 'payment.succeeded', 'payment.failed', 'payment.refunded']);
  assert.deepEqual(countTypes(events), { 'order.paid': 2, 'payment.succeeded': 2, 'payment.failed': 1 });
  assert.deepEqual(new Set(events.filter((e) => e.type === 'order.paid').map((e) => e.data.order.id)), new Set([a.order.id, b.order.id]));
  assert.deepEqual(await eventsOf(t, other, ['order.paid', 'payment.succeeded']), []);
  assert.equal(emulator.refunds.filter((r) => [a, b, c, d, foreign].some((p) => p.intentId === r.payment_intent)).length, 0);

  // Stripe's retry of the delivery that broke (a good one this time) pays its order.
  const retried = await webhookTo(t, s.slug)(sign(emulator.event('payment_intent.succeeded', emulator.pay(d.intentId))));
  assert.equal(retried.status, 200);
  assert.equal((await getOrder(t, s, d.order.id)).status, 'PAID');
});
