/**
 * Against Stripe's real test mode, when STRIPE_TEST_SECRET_KEY (sk_test_...) is set; skipped
 * otherwise (docs/payments.md, "Testing against Stripe"). The service creates the intent, the test
 * confirms it as Stripe.js would with Stripe's test card, and `sync` makes the order PAID.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Stripe from 'stripe';
import { startTestApp } from './support/app.js';
import { createStore } from './support/factories.js';
import { getOrder, orderToPay, pay, SECRETS_KEY, sync } from './support/payments.js';

const secretKey = process.env.STRIPE_TEST_SECRET_KEY;

test('real Stripe test mode: intent, confirmation with a test card, sync, PAID; a cancel refunds it', { skip: !secretKey?.startsWith('sk_test_') && 'set STRIPE_TEST_SECRET_KEY=sk_test_... to run against Stripe' }, async () => {
  const t = await startTestApp({ SECRETS_KEY });
  const s = await createStore(t);
  const saved = await t.request('PUT', '/api/v1/admin/payment-providers/stripe', { token: s.admin, body: { secretKey, publishableKey: 'pk_test_unused00', webhookSecret: 'whsec_unused0000' } });
  assert.equal(saved.status, 200, saved.text);
  const { customer, order } = await orderToPay(t, s);
  const created = await pay(t, s, customer, order.id, 'stripe');
  assert.equal(created.status, 201, created.text);
  const stripe = new Stripe(secretKey!);
  const intentId = (created.json.payment.clientSecret as string).split('_secret_')[0]!;
  await stripe.paymentIntents.confirm(intentId, { payment_method: 'pm_card_visa', return_url: 'https://example.com/return' });
  const synced = await sync(t, s, customer, order.id, created.json.payment.id);
  assert.equal(synced.json.payment.status, 'succeeded');
  assert.equal((await getOrder(t, s, order.id)).status, 'PAID');
  await t.request('PATCH', `/api/v1/admin/orders/${order.id}`, { token: s.admin, body: { status: 'CANCELLED' } });
  const refunds = await stripe.refunds.list({ payment_intent: intentId });
  assert.equal(refunds.data.length, 1);
  assert.equal(refunds.data[0]!.amount, order.total);
});
