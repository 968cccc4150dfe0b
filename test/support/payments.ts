/** Shared steps of the payment tests: a store with a provider, an order to pay, Stripe's webhooks. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { TestApp } from './app.js';
import { createProduct, createStore, type TestStore } from './factories.js';
import { createAddress, placeOrder } from './shop.js';
import type { Delivery, StripeEmulator } from './stripe-emulator.js';

export const SECRETS_KEY = randomBytes(32).toString('base64');

export interface StripeStore extends TestStore {
  secretKey: string;
  webhookSecret: string;
}

export async function stripeStore(t: TestApp, emulator: StripeEmulator, captureMethod: 'automatic' | 'manual' = 'automatic'): Promise<StripeStore> {
  const s = await createStore(t);
  const secretKey = `sk_test_${randomBytes(16).toString('hex')}`;
  const webhookSecret = `whsec_${randomBytes(16).toString('hex')}`;
  emulator.keys.add(secretKey);
  const r = await t.request('PUT', '/api/v1/admin/payment-providers/stripe', { token: s.admin, body: { secretKey, publishableKey: 'pk_test_123456789', webhookSecret, captureMethod } });
  assert.equal(r.status, 200, r.text);
  return { ...s, secretKey, webhookSecret };
}

/** An order of `quantity` units of a new product priced 1000 (stock 10). */
export async function orderToPay(t: TestApp, s: TestStore, quantity = 2) {
  const product = await createProduct(t, s, { price: 1000, quantity: 10 });
  const { customer, address } = await createAddress(t, s);
  const r = await placeOrder(t, s, customer, { address: address.id, products: [{ id: product.id, quantity }] });
  assert.equal(r.status, 201, r.text);
  return { customer, order: r.json.order, product };
}

export const pay = (t: TestApp, s: TestStore, customer: string, orderId: string, provider: 'manual' | 'stripe') =>
  t.request('POST', `/api/v1/${customer}/orders/${orderId}/payments`, { token: s.server, body: { provider } });

export const sync = (t: TestApp, s: TestStore, customer: string, orderId: string, paymentId: string) =>
  t.request('POST', `/api/v1/${customer}/orders/${orderId}/payments/${paymentId}/sync`, { token: s.server });

export const getOrder = async (t: TestApp, s: TestStore, orderId: string) => (await t.request('GET', `/api/v1/admin/orders/${orderId}`, { token: s.admin })).json.order;

/** Sends one signed delivery to the store's webhook URL. */
export const webhookTo = (t: TestApp, slug: string) => (d: Delivery) =>
  t.request('POST', `/api/v1/payment-webhooks/stripe/${slug}`, { rawBody: d.body, headers: d.headers });

/** The store's events of these types, oldest first. */
export async function eventsOf(t: TestApp, s: TestStore, types: string[]) {
  const r = await t.request('GET', `/api/v1/admin/events?limit=500&type=${types.join(',')}`, { token: s.admin });
  assert.equal(r.status, 200, r.text);
  return r.json.events as Array<{ type: string; data: { order: { id: string; status: string }; payment?: { id: string }; reason?: string } }>;
}
