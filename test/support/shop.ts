/** Storefront steps shared by the order tests: addresses, carts and orders through the API. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestApp } from './app.js';
import type { TestStore } from './factories.js';

export const ADDRESS = { zipcode: '01001-000', street: 'Rua A', number: '10', city: 'São Paulo', state: 'SP', country: 'BR' };

export async function createAddress(t: TestApp, store: TestStore, customer = randomUUID()) {
  const r = await t.request('POST', `/api/v1/${customer}/addresses`, { token: store.server, body: { address: ADDRESS } });
  assert.equal(r.status, 201, r.text);
  return { customer, address: r.json.address };
}

export async function createCart(t: TestApp, store: TestStore, products: Array<{ id: string; quantity: number }>) {
  const r = await t.request('POST', '/api/v1/carts', { token: store.storefront, body: { products } });
  assert.equal(r.status, 201, r.text);
  return r.json.cart;
}

/** Places an order with the store's server token (or `token`, a customer credential). */
export function placeOrder(t: TestApp, store: TestStore, customer: string, body: Record<string, unknown>, headers: Record<string, string> = {}, token = store.server) {
  return t.request('POST', `/api/v1/${customer}/orders`, { token, body, headers });
}

export async function stockOf(t: TestApp, store: TestStore, productId: string): Promise<number> {
  const r = await t.request('GET', `/api/v1/admin/products/${productId}`, { token: store.admin });
  assert.equal(r.status, 200, r.text);
  return r.json.product.quantity;
}
