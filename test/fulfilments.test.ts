/**
 * After the sale (docs/orders.md): fulfilments with tracking, cancellation, refunds and returns,
 * with real concurrent requests where money or stock is limited, checked to add up.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from './support/app.js';
import { createProduct, createStore, type TestStore } from './support/factories.js';
import { eventsOf, getOrder, orderToPay, pay, SECRETS_KEY, stripeStore, webhookTo } from './support/payments.js';
import { createAddress, placeOrder, stockOf } from './support/shop.js';
import { StripeEmulator } from './support/stripe-emulator.js';

const emulator = await new StripeEmulator().start();
after(() => emulator.stop());
const t = await startTestApp({ SECRETS_KEY, STRIPE_API_URL: emulator.url, PAYMENT_PROVIDER_TIMEOUT_MS: '2000' });

const patch = (s: TestStore, id: string, status: string) => t.request('PATCH', `/api/v1/admin/orders/${id}`, { token: s.admin, body: { status } });
const fulfil = (s: TestStore, id: string, body: Record<string, unknown> = {}) => t.request('POST', `/api/v1/admin/orders/${id}/fulfillments`, { token: s.admin, body });
const refund = (s: TestStore, id: string, body: Record<string, unknown>) => t.request('POST', `/api/v1/admin/orders/${id}/refunds`, { token: s.admin, body });
const countTypes = (events: Array<{ type: string }>) => events.reduce<Record<string, number>>((n, e) => ({ ...n, [e.type]: (n[e.type] ?? 0) + 1 }), {});

/** A PAID order (manual payment) of 6 units of one product and 2 of another, both priced 1000. */
async function paidOrder(app: TestApp, s: TestStore) {
  const a = await createProduct(app, s, { price: 1000, quantity: 10 });
  const b = await createProduct(app, s, { price: 1000, quantity: 10 });
  const { customer, address } = await createAddress(app, s);
  const r = await placeOrder(app, s, customer, { address: address.id, products: [{ id: a.id, quantity: 6 }, { id: b.id, quantity: 2 }] });
  assert.equal(r.status, 201, r.text);
  assert.equal((await patch(s, r.json.order.id, 'PAID')).status, 200);
  return { customer, order: r.json.order, a, b };
}

test('partial fulfilment in three parts, with tracking; FULFILLED at the last unit; the customer sees the tracking; events', async () => {
  const s = await createStore(t);
  const { customer, order, a, b } = await paidOrder(t, s);
  const first = await fulfil(s, order.id, { lines: [{ productId: a.id, quantity: 2 }], trackingNumber: 'TRK1', trackingUrl: 'https://track.example/TRK1', carrier: 'Correios' });
  assert.equal(first.status, 201, first.text);
  assert.equal(first.json.order.status, 'PAID');
  assert.equal(first.json.order.fulfillmentStatus, 'partially_fulfilled');
  assert.deepEqual(first.json.fulfillment.lines, [{ productId: a.id, quantity: 2 }]);
  assert.equal(first.json.fulfillment.trackingUrl, 'https://track.example/TRK1');
  const tooMany = await fulfil(s, order.id, { lines: [{ productId: a.id, quantity: 5 }] });
  assert.equal(tooMany.status, 422);
  assert.equal(tooMany.json.code, 'FULFILLMENT_EXCEEDS_ORDER');
  const stranger = await fulfil(s, order.id, { lines: [{ productId: '00000000-0000-4000-8000-000000000000', quantity: 1 }] });
  assert.equal(stranger.json.code, 'FULFILLMENT_EXCEEDS_ORDER');
  const second = await fulfil(s, order.id, { lines: [{ productId: a.id, quantity: 3 }, { productId: b.id, quantity: 1 }], trackingNumber: 'TRK2' });
  assert.equal(second.status, 201);
  assert.equal(second.json.order.status, 'PAID');
  const third = await fulfil(s, order.id, { trackingNumber: 'TRK3' });
  assert.equal(third.status, 201);
  assert.deepEqual(third.json.fulfillment.lines.sort((x: { productId: string }, y: { productId: string }) => x.productId.localeCompare(y.productId)),
    [{ productId: a.id, quantity: 1 }, { productId: b.id, quantity: 1 }].sort((x, y) => x.productId.localeCompare(y.productId)));
  assert.equal(third.json.order.status, 'FULFILLED');
  assert.equal(third.json.order.fulfillmentStatus, 'fulfilled');
  assert.equal((await fulfil(s, order.id)).json.code, 'INVALID_TRANSITION');
  const seen = await t.request('GET', `/api/v1/${customer}/orders/${order.id}`, { token: s.server });
  assert.equal(seen.status, 200);
  assert.deepEqual(seen.json.order.fulfillments.map((f: { trackingNumber: string }) => f.trackingNumber), ['TRK1', 'TRK2', 'TRK3']);
  assert.deepEqual(countTypes(await eventsOf(t, s, ['fulfillment.created', 'order.fulfilled'])), { 'fulfillment.created': 3, 'order.fulfilled': 1 });
  // A fulfilled order is not cancelled.
  assert.equal((await patch(s, order.id, 'CANCELLED')).json.code, 'INVALID_TRANSITION');
});

test('fulfilment rules: only PAID; PATCH FULFILLED fulfils the rest; nothing cancels once a unit shipped; search filters agree with the orders', async () => {
  const s = await createStore(t);
  const { order: created } = await orderToPay(t, s, 1);
  assert.equal((await fulfil(s, created.id)).json.code, 'INVALID_TRANSITION');
  const { order, a } = await paidOrder(t, s);
  assert.equal((await fulfil(s, order.id, { lines: [{ productId: a.id, quantity: 1 }] })).status, 201);
  assert.equal((await patch(s, order.id, 'CANCELLED')).json.code, 'INVALID_TRANSITION');
  const { order: other } = await paidOrder(t, s);
  const rest = await patch(s, order.id, 'FULFILLED');
  assert.equal(rest.status, 200, rest.text);
  assert.equal(rest.json.order.fulfillments.length, 2);
  assert.equal(rest.json.order.fulfillments[1].lines.reduce((n: number, l: { quantity: number }) => n + l.quantity, 0), 7);
  const search = async (q: string) => (await t.request('GET', `/api/v1/admin/orders?${q}`, { token: s.admin })).json.orders.map((o: { id: string }) => o.id);
  assert.deepEqual(await search('fulfillmentStatus=fulfilled'), [order.id]);
  assert.deepEqual(await search('fulfillmentStatus=unfulfilled'), [other.id, created.id]);
  assert.equal((await fulfil(s, other.id, { lines: [{ productId: (await getOrder(t, s, other.id)).products[0].id, quantity: 1 }] })).status, 201);
  assert.deepEqual(await search('fulfillmentStatus=partially_fulfilled'), [other.id]);
  assert.deepEqual(await search('paymentStatus=unpaid'), [created.id]);
  assert.deepEqual(await search('paymentStatus=paid'), [other.id, order.id]);
  assert.equal((await refund(s, other.id, { amount: 500 })).status, 201);
  assert.deepEqual(await search('paymentStatus=partially_refunded'), [other.id]);
  assert.equal((await refund(s, order.id, { amount: 8000 })).status, 201);
  assert.deepEqual(await search('paymentStatus=refunded'), [order.id]);
  for (const id of [order.id, other.id, created.id]) {
    const o = await getOrder(t, s, id);
    assert.ok((await search(`paymentStatus=${o.paymentStatus}`)).includes(id));
    assert.ok((await search(`fulfillmentStatus=${o.fulfillmentStatus}`)).includes(id));
  }
});

test('refunds: REFUND_EXCEEDS_PAYMENT, restock puts units back (never twice, even by a later cancel), RETURN_EXCEEDS_ORDER; events', async () => {
  const s = await createStore(t);
  const { customer, order, a } = await paidOrder(t, s);
  assert.equal(await stockOf(t, s, a.id), 4);
  assert.equal((await refund(s, order.id, { amount: 8001 })).json.code, 'REFUND_EXCEEDS_PAYMENT');
  const r = await refund(s, order.id, { amount: 2000, reason: 'broken mugs', lines: [{ productId: a.id, quantity: 2 }], restock: true });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(r.json.refund.lines, [{ productId: a.id, quantity: 2 }]);
  assert.equal(r.json.refund.status, 'succeeded');
  assert.equal(r.json.order.refundedTotal, 2000);
  assert.equal(r.json.order.paymentStatus, 'partially_refunded');
  assert.equal(await stockOf(t, s, a.id), 6);
  assert.equal((await refund(s, order.id, { amount: 1, lines: [{ productId: a.id, quantity: 5 }], restock: true })).json.code, 'RETURN_EXCEEDS_ORDER');
  assert.equal(await stockOf(t, s, a.id), 6, 'a refused refund changes nothing');
  // A cancel of the order gives back only what the return did not.
  const c = await patch(s, order.id, 'CANCELLED');
  assert.equal(c.status, 200, c.text);
  assert.equal(await stockOf(t, s, a.id), 10);
  assert.equal(c.json.order.refundedTotal, 8000);
  const seen = await t.request('GET', `/api/v1/${customer}/orders/${order.id}`, { token: s.server });
  assert.equal(seen.json.order.refunds[0].reason, 'broken mugs');
  assert.deepEqual(countTypes(await eventsOf(t, s, ['order.refunded', 'payment.refunded', 'order.cancelled'])), { 'order.refunded': 1, 'payment.refunded': 2, 'order.cancelled': 1 });
});

test('refunds racing each other: 25 concurrent refunds of 1000 against 8000 captured refund exactly 8000; restocks exact', async () => {
  const s = await createStore(t);
  const { order, a } = await paidOrder(t, s);
  const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => refund(s, order.id, i < 6 ? { amount: 1000, lines: [{ productId: a.id, quantity: 1 }], restock: true } : { amount: 1000 })));
  assert.equal(answers.filter((x) => x.status === 201).length, 8);
  assert.ok(answers.filter((x) => x.status !== 201).every((x) => x.json.code === 'REFUND_EXCEEDS_PAYMENT'));
  const o = await getOrder(t, s, order.id);
  assert.equal(o.refundedTotal, 8000);
  assert.equal(o.refunds.length, 8);
  const restocked = o.refunds.filter((x: { restock: boolean }) => x.restock).length;
  assert.equal(await stockOf(t, s, a.id), 4 + restocked);
});

test('a refund racing a cancellation: money back exactly once in all, stock exact', async () => {
  const s = await createStore(t);
  for (let round = 0; round < 3; round++) {
    const { order, a, b } = await paidOrder(t, s);
    const [r, c] = await Promise.all([refund(s, order.id, { amount: 3000, lines: [{ productId: a.id, quantity: 3 }], restock: true }), patch(s, order.id, 'CANCELLED')]);
    assert.equal(c.status, 200, c.text);
    assert.ok(r.status === 201 || r.json.code === 'REFUND_EXCEEDS_PAYMENT', r.text);
    const o = await getOrder(t, s, order.id);
    assert.equal(o.refundedTotal, 8000);
    assert.equal(await stockOf(t, s, a.id), 10);
    assert.equal(await stockOf(t, s, b.id), 10);
  }
});

test('Stripe manual capture: the first fulfilment captures; a refused capture is 502 and fulfils nothing; a refund goes to Stripe with a key; a dashboard refund shows', async () => {
  const s = await stripeStore(t, emulator, 'manual');
  const { customer, order, product } = await orderToPay(t, s, 2);
  const p = await pay(t, s, customer, order.id, 'stripe');
  assert.equal(p.status, 201, p.text);
  const intentId = [...emulator.intents.values()].find((i) => i.metadata.paymentId === p.json.payment.id)!.id;
  await emulator.deliver(webhookTo(t, s.slug), [emulator.event('payment_intent.amount_capturable_updated', emulator.pay(intentId))], s.webhookSecret);
  assert.equal((await getOrder(t, s, order.id)).status, 'PAID');
  emulator.failNext(/capture/, 'card_declined' as never);
  const refused = await fulfil(s, order.id, { lines: [{ productId: product.id, quantity: 1 }] });
  assert.equal(refused.status, 502, refused.text);
  assert.equal((await getOrder(t, s, order.id)).fulfillments.length, 0);
  const first = await fulfil(s, order.id, { lines: [{ productId: product.id, quantity: 1 }], trackingNumber: 'T1' });
  assert.equal(first.status, 201, first.text);
  assert.equal(first.json.order.paidTotal, order.total);
  assert.equal(emulator.captures.filter((c) => c === intentId).length, 1);
  const r = await refund(s, order.id, { amount: 300, reason: 'late' });
  assert.equal(r.status, 201, r.text);
  const o = await getOrder(t, s, order.id);
  assert.equal(o.refunds[0].status, 'succeeded');
  assert.deepEqual(emulator.refunds.filter((x) => x.payment_intent === intentId).map((x) => x.amount), [300]);
  // Our own refund's charge.refunded changes nothing; one made in Stripe's dashboard shows.
  await emulator.deliver(webhookTo(t, s.slug), [emulator.chargeRefunded(intentId)], s.webhookSecret);
  assert.equal((await getOrder(t, s, order.id)).refunds.length, 1);
  emulator.refunds.push({ id: 're_dashboard', amount: 200, payment_intent: intentId } as never);
  await emulator.deliver(webhookTo(t, s.slug), [emulator.chargeRefunded(intentId)], s.webhookSecret);
  const after2 = await getOrder(t, s, order.id);
  assert.equal(after2.refundedTotal, 500);
  assert.deepEqual(after2.refunds.map((x: { amount: number }) => x.amount), [300, 200]);
});

test('a cancellation racing a payment webhook: the money is PAID-and-kept or given back, never both', async () => {
  const s = await stripeStore(t, emulator);
  const { customer, order } = await orderToPay(t, s, 1);
  const p = await pay(t, s, customer, order.id, 'stripe');
  const intentId = [...emulator.intents.values()].find((i) => i.metadata.paymentId === p.json.payment.id)!.id;
  const event = emulator.event('payment_intent.succeeded', emulator.pay(intentId));
  const [c] = await Promise.all([patch(s, order.id, 'CANCELLED'), webhookTo(t, s.slug)(emulator.sign(event, s.webhookSecret))]);
  const o = await getOrder(t, s, order.id);
  if (c.status === 200) {
    assert.equal(o.status, 'CANCELLED');
    assert.equal(o.refundedTotal, o.paidTotal);
    assert.equal(emulator.refunds.filter((x) => x.payment_intent === intentId).reduce((n, x) => n + x.amount, 0), o.paidTotal);
  } else {
    assert.equal(o.status, 'PAID');
    assert.equal(o.refundedTotal, 0);
  }
});

test('a refund retried with its Idempotency-Key gives money back once', async () => {
  const s = await createStore(t);
  const { order } = await paidOrder(t, s);
  const send = () => t.request('POST', `/api/v1/admin/orders/${order.id}/refunds`, { token: s.admin, body: { amount: 700 }, headers: { 'idempotency-key': 'refund-once' } });
  const [one, two] = [await send(), await send()];
  assert.equal(one.status, 201);
  assert.equal(two.status, 201);
  assert.equal(two.json.refund.id, one.json.refund.id);
  assert.equal((await getOrder(t, s, order.id)).refundedTotal, 700);
});
