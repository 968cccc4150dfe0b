/**
 * The typed client (clients/typescript) drives a whole purchase against a listening service, as a
 * shop's front end would: catalog, cart, guest session, address, order, order history.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { startTestApp } from './support/app.js';
import { addToCollection, createCollection, createProduct, createStore } from './support/factories.js';
import { createStorefrontClient, StorefrontError, unwrap } from '../clients/typescript/src/index.js';

const t = await startTestApp();
await t.app.listen({ port: 0, host: '127.0.0.1' });
const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;

test('a purchase through the typed client: catalog, cart, guest session, address, order, history', async () => {
  const s = await createStore(t);
  const shirt = await createProduct(t, s, { slug: 'linen-shirt', price: 4990, quantity: 5 });
  const summer = await createCollection(t, s, { slug: 'summer' });
  await addToCollection(t, s, summer.id, shirt.id);

  let token = s.storefront;
  const api = createStorefrontClient({ baseUrl, token: () => token });

  const { collections } = unwrap(await api.GET('/api/v1/collections'));
  assert.deepEqual(collections.map((c) => c.slug), ['summer']);
  const listed = await api.GET('/api/v1/products', { params: { query: { collection: 'summer' } } });
  assert.equal(unwrap(listed).products[0]?.id, shirt.id);
  const etag = listed.response.headers.get('etag') ?? '';
  const again = await api.GET('/api/v1/products', { params: { query: { collection: 'summer' }, header: { 'If-None-Match': etag } } });
  assert.equal(again.response.status, 304);
  const { product } = unwrap(await api.GET('/api/v1/products/{slug}', { params: { path: { slug: 'linen-shirt' } } }));
  assert.equal(product.quantity, 5);

  const created = unwrap(await api.POST('/api/v1/carts', {
    params: { header: { 'Idempotency-Key': randomUUID() } },
    body: { products: [{ id: product.id, quantity: 1 }] },
  }));
  const { cart } = unwrap(await api.POST('/api/v1/carts/{id}/products', { params: { path: { id: created.cart.id } }, body: { id: product.id, quantity: 1 } }));
  assert.equal(cart.products[0]?.order.quantity, 2);

  const session = unwrap(await api.POST('/api/v1/guest-sessions'));
  token = session.secret;
  const customer = { customer: session.customerId };
  const { address } = unwrap(await api.POST('/api/v1/{customer}/addresses', {
    params: { path: customer, header: { 'Idempotency-Key': randomUUID() } },
    body: { address: { zipcode: '01001-000', street: 'Rua Augusta', number: '1508', city: 'São Paulo', state: 'SP', country: 'BR' } },
  }));

  const tooMany = await api.POST('/api/v1/{customer}/orders', { params: { path: customer }, body: { address: address.id, products: [{ id: product.id, quantity: 50 }] } });
  assert.equal(tooMany.error?.code, 'INSUFFICIENT_STOCK');
  assert.throws(() => unwrap(tooMany), (error) => error instanceof StorefrontError && error.status === 422);

  const { order } = unwrap(await api.POST('/api/v1/{customer}/orders', {
    params: { path: customer, header: { 'Idempotency-Key': randomUUID() } },
    body: { id: cart.id, address: address.id },
  }));
  assert.equal(order.price, 2 * 4990);
  assert.equal(order.status, 'CREATED');

  const history = unwrap(await api.GET('/api/v1/{customer}/orders', { params: { path: customer } }));
  assert.deepEqual(history.orders.map((o) => o.id), [order.id]);
  const one = unwrap(await api.GET('/api/v1/{customer}/orders/{id}', { params: { path: { ...customer, id: order.id } } }));
  assert.equal(one.order.address.street, 'Rua Augusta');

  token = s.storefront;
  const after = unwrap(await api.GET('/api/v1/products/{slug}', { params: { path: { slug: 'linen-shirt' } } }));
  assert.equal(after.product.quantity, 3);
});
