/**
 * The traffic matches the document: a driver calls every operation on its happy path and its
 * error paths (validation, auth, not found, conflicts, 304, 413, 415, 429, idempotent replays),
 * and every answer is checked against GET /api/openapi.json by ajv (test/support/openapi-validator.ts).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { ROOT_TOKEN, startAppOn, startTestApp, uniqueSlug, type RequestOptions, type TestApp } from './support/app.js';
import { createStore } from './support/factories.js';
import { ADDRESS } from './support/shop.js';
import { OpenApiValidator } from './support/openapi-validator.js';
import { SECRETS_KEY } from './support/payments.js';
import { StripeEmulator } from './support/stripe-emulator.js';

const t = await startTestApp();
const document = (await t.request('GET', '/api/openapi.json')).json;
const validator = new OpenApiValidator(document);
const violations: string[] = [];
const seen = new Map<string, Set<number>>();

/** One request, checked against the document and counted for its operation. */
async function call(app: TestApp, method: string, url: string, options: RequestOptions = {}) {
  const reply = await app.request(method, url, options);
  violations.push(...validator.check({ method, url, status: reply.status, headers: reply.headers, text: reply.text }));
  const operationId = validator.operationOf(method, url)?.operation.operationId as string | undefined;
  if (operationId) (seen.get(operationId) ?? seen.set(operationId, new Set()).get(operationId)!).add(reply.status);
  return reply;
}

test('every operation answers as the document says, on happy and error paths', async () => {
  const unknown = randomUUID();
  await call(t, 'GET', '/api/health');
  await call(t, 'GET', '/api/ready');

  // Stores and tokens.
  await call(t, 'POST', '/api/v1/admin/stores', { token: ROOT_TOKEN, body: { slug: 'BAD SLUG' } });
  await call(t, 'POST', '/api/v1/admin/stores', { body: { slug: uniqueSlug('s') } });
  await call(t, 'POST', '/api/v1/admin/stores', { token: ROOT_TOKEN, body: { slug: uniqueSlug('s'), name: 'Another shop' } });
  const s = await createStore(t);
  await call(t, 'POST', '/api/v1/admin/stores', { token: ROOT_TOKEN, body: { slug: s.slug } });
  await call(t, 'GET', '/api/v1/admin/tokens', { token: s.admin });
  await call(t, 'GET', '/api/v1/admin/tokens', { token: s.storefront });
  const issued = await call(t, 'POST', '/api/v1/admin/tokens', { token: s.admin, body: { kind: 'server' } });
  await call(t, 'POST', '/api/v1/admin/tokens', { token: s.admin, body: { kind: 'root' } });
  await call(t, 'DELETE', `/api/v1/admin/tokens/${issued.json.token.id}`, { token: s.admin });
  await call(t, 'DELETE', `/api/v1/admin/tokens/${unknown}`, { token: s.admin });

  // Identity-provider settings.
  await call(t, 'GET', '/api/v1/admin/customer-auth', { token: s.admin });
  const jwks = { keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' }] };
  await call(t, 'PUT', '/api/v1/admin/customer-auth', { token: s.admin, body: { issuer: 'https://idp.test/', audience: 'shop', jwks } });
  await call(t, 'PUT', '/api/v1/admin/customer-auth', { token: s.admin, body: { issuer: 'https://idp.test/' } });
  await call(t, 'GET', '/api/v1/admin/customer-auth', { token: s.admin });
  await call(t, 'DELETE', '/api/v1/admin/customer-auth', { token: s.admin });
  await call(t, 'DELETE', '/api/v1/admin/customer-auth', { token: s.storefront });

  // Admin catalog.
  const productBody = (slug: string, quantity = 5) => ({ name: `P ${slug}`, slug, sku: `SKU-${slug}`, price: 1000, originalPrice: 1200, quantity, status: 'ACTIVE' });
  const product = (await call(t, 'POST', '/api/v1/admin/products', { token: s.admin, body: productBody('shirt') })).json.product;
  const scarce = (await call(t, 'POST', '/api/v1/admin/products', { token: s.admin, body: productBody('scarce', 1) })).json.product;
  await call(t, 'POST', '/api/v1/admin/products', { token: s.admin, body: productBody('shirt') });
  await call(t, 'POST', '/api/v1/admin/products', { token: s.admin, body: { name: 'x' } });
  await call(t, 'POST', '/api/v1/admin/products', { token: s.admin, rawBody: 'name=x', headers: { 'content-type': 'text/plain' } });
  await call(t, 'POST', '/api/v1/admin/products', { token: s.admin, rawBody: JSON.stringify({ name: 'x'.repeat(1_100_000) }), headers: { 'content-type': 'application/json' } });
  await call(t, 'GET', '/api/v1/admin/products?status=ACTIVE', { token: s.admin });
  await call(t, 'GET', '/api/v1/admin/products?status=GONE', { token: s.admin });
  await call(t, 'GET', `/api/v1/admin/products/${product.id}`, { token: s.admin });
  await call(t, 'GET', `/api/v1/admin/products/${unknown}`, { token: s.admin });
  await call(t, 'PATCH', `/api/v1/admin/products/${product.id}`, { token: s.admin, body: { description: '<p>linen</p>' } });
  await call(t, 'PATCH', `/api/v1/admin/products/${product.id}`, { token: s.admin, body: {} });
  const variant = { group: 'shirt', options: { Size: 'M', Color: 'Blue' }, images: [{ url: '/api/images/linen-shirt-blue.svg' }] };
  await call(t, 'PATCH', `/api/v1/admin/products/${product.id}`, { token: s.admin, body: variant });
  await call(t, 'POST', '/api/v1/admin/products', { token: s.admin, body: { ...productBody('shirt-m'), ...variant } });
  const doomed = (await call(t, 'POST', '/api/v1/admin/products', { token: s.admin, body: productBody('doomed') })).json.product;
  await call(t, 'DELETE', `/api/v1/admin/products/${doomed.id}`, { token: s.admin });
  await call(t, 'DELETE', `/api/v1/admin/products/${unknown}`, { token: s.admin });
  const hats = [{ ...productBody('hat-s'), options: { Size: 'S' } }, { ...productBody('hat-m'), options: { Size: 'M' } }];
  const savedHats = (await call(t, 'POST', '/api/v1/admin/product-groups/hat/variants', { token: s.admin, body: { variants: hats } })).json.products;
  await call(t, 'POST', '/api/v1/admin/product-groups/hat/variants', { token: s.admin, body: { variants: [{ id: savedHats[0].id, price: 900 }, { ...productBody('hat-l'), options: { Size: 'm' } }] } });
  await call(t, 'POST', '/api/v1/admin/product-groups/hat/variants', { token: s.admin, body: { variants: [{ id: unknown, price: 900 }] } });
  await call(t, 'POST', '/api/v1/admin/product-groups/hat/variants', { token: s.admin, body: { variants: [] } });

  const summer = (await call(t, 'POST', '/api/v1/admin/collections', { token: s.admin, body: { name: 'Summer', slug: 'summer' } })).json.collection;
  const child = (await call(t, 'POST', '/api/v1/admin/collections', { token: s.admin, body: { name: 'Linen', slug: 'linen', parents: [summer.id] } })).json.collection;
  await call(t, 'POST', '/api/v1/admin/collections', { token: s.admin, body: { name: 'Summer', slug: 'summer' } });
  await call(t, 'POST', '/api/v1/admin/collections', { token: s.admin, body: { slug: 'no-name' } });
  await call(t, 'GET', '/api/v1/admin/collections', { token: s.admin });
  await call(t, 'GET', '/api/v1/admin/collections?limit=0', { token: s.admin });
  await call(t, 'GET', `/api/v1/admin/collections/${summer.id}`, { token: s.admin });
  await call(t, 'GET', `/api/v1/admin/collections/${unknown}`, { token: s.admin });
  await call(t, 'PATCH', `/api/v1/admin/collections/${summer.id}`, { token: s.admin, body: { description: '<p>sun</p>' } });
  await call(t, 'PATCH', `/api/v1/admin/collections/${summer.id}`, { token: s.admin, body: { parents: [child.id] } });
  await call(t, 'POST', `/api/v1/admin/collections/${summer.id}/products`, { token: s.admin, body: { id: product.id } });
  await call(t, 'POST', `/api/v1/admin/collections/${summer.id}/products`, { token: s.admin, body: { id: unknown } });
  await call(t, 'POST', `/api/v1/admin/collections/${child.id}/products`, { token: s.admin, body: { id: product.id } });
  await call(t, 'DELETE', `/api/v1/admin/collections/${child.id}/products/${product.id}`, { token: s.admin });
  await call(t, 'DELETE', `/api/v1/admin/collections/${summer.id}/products/${unknown}`, { token: s.admin });
  await call(t, 'DELETE', `/api/v1/admin/collections/${child.id}`, { token: s.admin });
  await call(t, 'DELETE', `/api/v1/admin/collections/${unknown}`, { token: s.admin });

  // Storefront catalog, with conditional GETs.
  for (const url of ['/api/v1/products?collection=summer', '/api/v1/products/shirt', '/api/v1/product-groups/shirt', '/api/v1/products?collapse=group', '/api/v1/collections']) {
    const first = await call(t, 'GET', url, { token: s.storefront });
    await call(t, 'GET', url, { token: s.storefront, headers: { 'if-none-match': String(first.headers.etag) } });
  }
  await call(t, 'GET', '/api/v1/products?limit=0', { token: s.storefront });
  await call(t, 'GET', '/api/v1/products/no-such-product', { token: s.storefront });
  await call(t, 'GET', '/api/v1/product-groups/no-such-group', { token: s.storefront });
  await call(t, 'GET', '/api/v1/collections?offset=-1', { token: s.storefront });
  await call(t, 'GET', '/api/v1/products', {});
  await call(t, 'GET', '/api/v1/products', { token: 'sf_nope_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' });

  // Carts, with an idempotent replay.
  const cartBody = { products: [{ id: product.id, quantity: 1 }, { id: scarce.id, quantity: 5 }] };
  const created = await call(t, 'POST', '/api/v1/carts', { token: s.storefront, body: cartBody, headers: { 'idempotency-key': 'cart-1' } });
  await call(t, 'POST', '/api/v1/carts', { token: s.storefront, body: cartBody, headers: { 'idempotency-key': 'cart-1' } });
  await call(t, 'POST', '/api/v1/carts', { token: s.storefront, body: { products: [] }, headers: { 'idempotency-key': 'cart-1' } });
  await call(t, 'POST', '/api/v1/carts', { token: s.storefront, body: cartBody, headers: { 'idempotency-key': 'k'.repeat(300) } });
  await call(t, 'POST', '/api/v1/carts', { token: s.storefront, body: { products: [{ id: doomed.id, quantity: 1 }] } });
  const cart = created.json.cart;
  await call(t, 'GET', `/api/v1/carts/${cart.id}`, { token: s.storefront });
  await call(t, 'GET', `/api/v1/carts/${unknown}`, { token: s.storefront });
  await call(t, 'POST', `/api/v1/carts/${cart.id}/products`, { token: s.storefront, body: { id: scarce.id, quantity: 1 } });
  await call(t, 'POST', `/api/v1/carts/${cart.id}/products`, { token: s.storefront, body: { id: scarce.id, quantity: 50 } });
  await call(t, 'PATCH', `/api/v1/carts/${cart.id}/products/${product.id}`, { token: s.storefront, body: { quantity: 2 } });
  await call(t, 'PATCH', `/api/v1/carts/${cart.id}/products/${product.id}`, { token: s.storefront, body: { quantity: -1 } });
  await call(t, 'DELETE', `/api/v1/carts/${cart.id}/products/${scarce.id}`, { token: s.storefront });
  await call(t, 'DELETE', `/api/v1/carts/${unknown}/products/${scarce.id}`, { token: s.storefront });

  // Discount codes: the admin API, then the cart's code.
  const welcome = (await call(t, 'POST', '/api/v1/admin/discounts', { token: s.admin, body: { code: 'welcome10', type: 'percentage', value: 10 } })).json.discount;
  await call(t, 'POST', '/api/v1/admin/discounts', { token: s.admin, body: { code: 'WELCOME10', type: 'fixed', value: 100 } });
  await call(t, 'POST', '/api/v1/admin/discounts', { token: s.admin, body: { code: 'x', type: 'percentage', value: 500 } });
  await call(t, 'GET', '/api/v1/admin/discounts', { token: s.admin });
  await call(t, 'GET', '/api/v1/admin/discounts', { token: s.storefront });
  await call(t, 'GET', `/api/v1/admin/discounts/${welcome.id}`, { token: s.admin });
  await call(t, 'GET', `/api/v1/admin/discounts/${unknown}`, { token: s.admin });
  await call(t, 'PATCH', `/api/v1/admin/discounts/${welcome.id}`, { token: s.admin, body: { value: 15 } });
  await call(t, 'PATCH', `/api/v1/admin/discounts/${welcome.id}`, { token: s.admin, body: { code: 'OTHER' } });
  const gone = (await call(t, 'POST', '/api/v1/admin/discounts', { token: s.admin, body: { code: 'gone1', type: 'fixed', value: 100 } })).json.discount;
  await call(t, 'DELETE', `/api/v1/admin/discounts/${gone.id}`, { token: s.admin });
  await call(t, 'DELETE', `/api/v1/admin/discounts/${gone.id}`, { token: s.admin });
  await call(t, 'POST', `/api/v1/carts/${cart.id}/discount`, { token: s.storefront, body: { code: 'gone1' } });
  await call(t, 'POST', `/api/v1/carts/${cart.id}/discount`, { token: s.storefront, body: { code: 'welcome10' } });
  await call(t, 'DELETE', `/api/v1/carts/${cart.id}/discount`, { token: s.storefront });
  await call(t, 'DELETE', `/api/v1/carts/${unknown}/discount`, { token: s.storefront });
  await call(t, 'POST', `/api/v1/carts/${cart.id}/discount`, { token: s.storefront, body: { code: 'welcome10' } });

  // Store settings, tax rates, shipping options and a cart's shipping (all gone again before the order below).
  await call(t, 'GET', '/api/v1/store', { token: s.storefront });
  await call(t, 'GET', '/api/v1/store', {});
  await call(t, 'PATCH', '/api/v1/admin/store', { token: s.admin, body: { currency: 'EUR' } });
  await call(t, 'PATCH', '/api/v1/admin/store', { token: s.admin, body: { currency: 'ZZZ' } });
  const vat = (await call(t, 'POST', '/api/v1/admin/tax-rates', { token: s.admin, body: { country: 'BR', rate: 1700, name: 'ICMS' } })).json.taxRate;
  await call(t, 'POST', '/api/v1/admin/tax-rates', { token: s.admin, body: { country: 'br', rate: 1800, name: 'ICMS' } });
  await call(t, 'GET', '/api/v1/admin/tax-rates', { token: s.admin });
  await call(t, 'GET', '/api/v1/admin/tax-rates', { token: s.storefront });
  await call(t, 'GET', `/api/v1/admin/tax-rates/${vat.id}`, { token: s.admin });
  await call(t, 'GET', `/api/v1/admin/tax-rates/${unknown}`, { token: s.admin });
  await call(t, 'PATCH', `/api/v1/admin/tax-rates/${vat.id}`, { token: s.admin, body: { rate: 1800 } });
  await call(t, 'PATCH', `/api/v1/admin/tax-rates/${vat.id}`, { token: s.admin, body: { rate: 10001 } });
  const option = (await call(t, 'POST', '/api/v1/admin/shipping-options', { token: s.admin, body: { name: 'Standard', price: 500, countries: ['BR'], freeAbove: 100000 } })).json.shippingOption;
  await call(t, 'POST', '/api/v1/admin/shipping-options', { token: s.admin, body: { name: 'Bad', price: -1 } });
  await call(t, 'GET', '/api/v1/admin/shipping-options', { token: s.admin });
  await call(t, 'GET', '/api/v1/admin/shipping-options', { token: s.storefront });
  await call(t, 'GET', `/api/v1/admin/shipping-options/${option.id}`, { token: s.admin });
  await call(t, 'GET', `/api/v1/admin/shipping-options/${unknown}`, { token: s.admin });
  await call(t, 'PATCH', `/api/v1/admin/shipping-options/${option.id}`, { token: s.admin, body: { price: 600 } });
  await call(t, 'PATCH', `/api/v1/admin/shipping-options/${unknown}`, { token: s.admin, body: { price: 600 } });
  await call(t, 'GET', `/api/v1/carts/${cart.id}/shipping-options?country=BR`, { token: s.storefront });
  await call(t, 'GET', `/api/v1/carts/${unknown}/shipping-options?country=BR`, { token: s.storefront });
  await call(t, 'PUT', `/api/v1/carts/${cart.id}/shipping`, { token: s.storefront, body: { optionId: option.id, country: 'BR', region: 'SP' } });
  await call(t, 'PUT', `/api/v1/carts/${cart.id}/shipping`, { token: s.storefront, body: { optionId: option.id, country: 'US' } });
  await call(t, 'DELETE', `/api/v1/carts/${cart.id}/shipping`, { token: s.storefront });
  await call(t, 'DELETE', `/api/v1/carts/${unknown}/shipping`, { token: s.storefront });
  await call(t, 'DELETE', `/api/v1/admin/shipping-options/${option.id}`, { token: s.admin });
  await call(t, 'DELETE', `/api/v1/admin/shipping-options/${option.id}`, { token: s.admin });
  await call(t, 'DELETE', `/api/v1/admin/tax-rates/${vat.id}`, { token: s.admin });
  await call(t, 'DELETE', `/api/v1/admin/tax-rates/${vat.id}`, { token: s.admin });
  await call(t, 'PATCH', '/api/v1/admin/store', { token: s.admin, body: { currency: 'USD' } });

  // Staff accounts and sessions, and a picture upload.
  const invited = (await call(t, 'POST', '/api/v1/admin/staff', { token: s.admin, body: { email: 'owner@traffic.example', role: 'owner' } })).json;
  await call(t, 'POST', '/api/v1/admin/staff', { token: s.admin, body: { email: 'OWNER@traffic.example', role: 'owner' } });
  await call(t, 'GET', '/api/v1/admin/staff', { token: s.admin });
  await call(t, 'GET', '/api/v1/admin/staff', { token: s.storefront });
  const accepted = (await call(t, 'POST', '/api/v1/staff/invitations/accept', { body: { secret: invited.invitation.secret, password: 'a long enough password' } })).json;
  await call(t, 'POST', '/api/v1/staff/invitations/accept', { body: { secret: invited.invitation.secret, password: 'a long enough password' } });
  const signedIn = (await call(t, 'POST', '/api/v1/staff/sessions', { body: { store: s.slug, email: 'owner@traffic.example', password: 'a long enough password' } })).json;
  await call(t, 'POST', '/api/v1/staff/sessions', { body: { store: s.slug, email: 'owner@traffic.example', password: 'wrong password' } });
  await call(t, 'GET', '/api/v1/staff/sessions/current', { token: signedIn.secret });
  await call(t, 'GET', '/api/v1/staff/sessions/current', { token: s.admin });
  await call(t, 'DELETE', '/api/v1/staff/sessions/current', { token: (await call(t, 'POST', '/api/v1/staff/sessions', { body: { store: s.slug, email: 'owner@traffic.example', password: 'a long enough password' } })).json.secret });
  const colleague = (await call(t, 'POST', '/api/v1/admin/staff', { token: signedIn.secret, body: { email: 'staff@traffic.example', role: 'staff' } })).json;
  await call(t, 'PATCH', `/api/v1/admin/staff/${colleague.staff.id}`, { token: s.admin, body: { disabled: true } });
  await call(t, 'PATCH', `/api/v1/admin/staff/${invited.staff.id}`, { token: s.admin, body: { role: 'staff' } });
  await call(t, 'DELETE', `/api/v1/admin/staff/${colleague.staff.id}`, { token: s.admin });
  await call(t, 'DELETE', `/api/v1/admin/staff/${invited.staff.id}`, { token: s.admin });
  await call(t, 'PUT', '/api/v1/staff/password', { token: accepted.secret, body: { current: 'not it at all', password: 'another long password' } });
  await call(t, 'PUT', '/api/v1/staff/password', { token: accepted.secret, body: { current: 'a long enough password', password: 'another long password' } });
  await call(t, 'DELETE', '/api/v1/staff/sessions/current', { token: s.storefront });
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  await call(t, 'POST', '/api/v1/admin/images', { token: s.admin, rawBody: png, headers: { 'content-type': 'image/png' } });
  await call(t, 'POST', '/api/v1/admin/images', { token: s.admin, rawBody: png, headers: { 'content-type': 'image/jpeg' } });

  // Checkout holds: the order below comes from a held cart with a code.
  await call(t, 'POST', `/api/v1/carts/${cart.id}/hold`, { token: s.storefront });
  await call(t, 'POST', `/api/v1/carts/${unknown}/hold`, { token: s.storefront });
  await call(t, 'DELETE', `/api/v1/carts/${cart.id}/hold`, { token: s.storefront });
  await call(t, 'DELETE', `/api/v1/carts/${unknown}/hold`, { token: s.storefront });
  await call(t, 'POST', `/api/v1/carts/${cart.id}/hold`, { token: s.storefront });

  // Customer credentials.
  const guest = await call(t, 'POST', '/api/v1/guest-sessions', { token: s.storefront });
  await call(t, 'POST', '/api/v1/guest-sessions', { token: s.storefront, body: { name: 'x' } });
  const customer = guest.json.customerId as string;
  const customerToken = guest.json.secret as string;
  const minted = await call(t, 'POST', '/api/v1/customer-tokens', { token: s.server, body: { customerId: customer, ttlSeconds: 600 } });
  await call(t, 'POST', '/api/v1/customer-tokens', { token: s.storefront, body: { customerId: customer } });
  await call(t, 'POST', '/api/v1/customer-tokens', { token: s.server, body: { customerId: 'x' } });
  await call(t, 'DELETE', `/api/v1/customer-tokens/${minted.json.token.id}`, { token: s.server });
  await call(t, 'DELETE', `/api/v1/customer-tokens/${unknown}`, { token: s.server });

  // Addresses and orders with the guest's customer token.
  const address = (await call(t, 'POST', `/api/v1/${customer}/addresses`, { token: customerToken, body: { address: ADDRESS }, headers: { 'idempotency-key': 'address-1' } })).json.address;
  await call(t, 'POST', `/api/v1/${customer}/addresses`, { token: customerToken, body: { address: ADDRESS }, headers: { 'idempotency-key': 'address-1' } });
  await call(t, 'POST', `/api/v1/${customer}/addresses`, { token: customerToken, body: { address: { city: 'x' } } });
  await call(t, 'POST', `/api/v1/${unknown}/addresses`, { token: customerToken, body: { address: ADDRESS } });
  await call(t, 'GET', `/api/v1/${customer}/addresses`, { token: customerToken });
  await call(t, 'GET', `/api/v1/${customer}/addresses?limit=1000`, { token: customerToken });

  const ordersUrl = `/api/v1/${customer}/orders`;
  await call(t, 'POST', ordersUrl, { token: customerToken, body: { address: address.id, id: cart.id, products: [{ id: product.id, quantity: 1 }] } });
  await call(t, 'POST', ordersUrl, { token: customerToken, body: { address: address.id, products: [{ id: product.id, quantity: 1 }], coupon: 'X' } });
  await call(t, 'POST', ordersUrl, { token: customerToken, body: { address: unknown, products: [{ id: product.id, quantity: 1 }] } });
  await call(t, 'POST', ordersUrl, { token: customerToken, body: { address: address.id, products: [{ id: scarce.id, quantity: 9 }] } });
  await call(t, 'POST', ordersUrl, { token: customerToken, body: { address: address.id, id: unknown } });
  const order = (await call(t, 'POST', ordersUrl, { token: customerToken, body: { address: address.id, id: cart.id }, headers: { 'idempotency-key': 'order-1' } })).json.order;
  await call(t, 'POST', ordersUrl, { token: customerToken, body: { address: address.id, id: cart.id }, headers: { 'idempotency-key': 'order-1' } });
  await call(t, 'POST', ordersUrl, { token: customerToken, body: { address: address.id, id: cart.id } });
  await call(t, 'POST', `/api/v1/carts/${cart.id}/products`, { token: s.storefront, body: { id: scarce.id, quantity: 1 } });
  await call(t, 'GET', ordersUrl, { token: customerToken });
  await call(t, 'GET', `/api/v1/${unknown}/orders`, { token: customerToken });
  await call(t, 'GET', `${ordersUrl}/${order.id}`, { token: customerToken });
  await call(t, 'GET', `${ordersUrl}/${unknown}`, { token: customerToken });

  await call(t, 'GET', '/api/v1/admin/orders?status=CREATED', { token: s.admin });
  await call(t, 'GET', '/api/v1/admin/orders?status=LOST', { token: s.admin });
  await call(t, 'GET', `/api/v1/admin/orders/${order.id}`, { token: s.admin });
  await call(t, 'GET', `/api/v1/admin/orders/${unknown}`, { token: s.admin });
  await call(t, 'PATCH', `/api/v1/admin/orders/${order.id}`, { token: s.admin, body: { status: 'FULFILLED' } });
  await call(t, 'PATCH', `/api/v1/admin/orders/${order.id}`, { token: s.admin, body: { status: 'PAID' } });
  await call(t, 'GET', '/api/v1/admin/orders?fulfillmentStatus=unfulfilled&paymentStatus=paid', { token: s.admin });
  await call(t, 'POST', `/api/v1/admin/orders/${order.id}/refunds`, { token: s.admin, body: { amount: 1, reason: 'scratched' } });
  await call(t, 'POST', `/api/v1/admin/orders/${order.id}/refunds`, { token: s.admin, body: { amount: 1_000_000_000 } });
  await call(t, 'POST', `/api/v1/admin/orders/${order.id}/fulfillments`, { token: s.admin, body: { trackingNumber: 'T1', trackingUrl: 'https://track.example/T1', carrier: 'Post' } });
  await call(t, 'POST', `/api/v1/admin/orders/${order.id}/fulfillments`, { token: s.admin, body: {} });

  // Payments: the manual provider, and Stripe against the emulator (a second app with those settings).
  const emulator = await new StripeEmulator().start();
  after(() => emulator.stop());
  const pays = await startAppOn(t.database, { SECRETS_KEY, STRIPE_API_URL: emulator.url });
  await call(pays, 'GET', '/api/v1/admin/payment-providers', { token: s.admin });
  await call(pays, 'GET', '/api/v1/admin/payment-providers', { token: s.storefront });
  await call(pays, 'PUT', '/api/v1/admin/payment-providers/manual', { token: s.admin, body: { instructions: 'Pay on delivery' } });
  await call(pays, 'PUT', '/api/v1/admin/payment-providers/manual', { token: s.admin, body: { color: 'red' } });
  const stripeKeys = { secretKey: 'sk_test_traffic000', publishableKey: 'pk_test_traffic0', webhookSecret: 'whsec_traffic000' };
  emulator.keys.add(stripeKeys.secretKey);
  await call(pays, 'PUT', '/api/v1/admin/payment-providers/stripe', { token: s.admin, body: stripeKeys });
  await call(pays, 'PUT', '/api/v1/admin/payment-providers/stripe', { token: s.admin, body: { secretKey: stripeKeys.secretKey } });
  const payable = (await call(t, 'POST', '/api/v1/admin/products', { token: s.admin, body: productBody('payable', 10) })).json.product;
  const newOrder = async () => (await call(pays, 'POST', ordersUrl, { token: customerToken, body: { address: address.id, products: [{ id: payable.id, quantity: 1 }] } })).json.order;
  const toPay = await newOrder();
  const paymentsUrl = `${ordersUrl}/${toPay.id}/payments`;
  await call(pays, 'POST', paymentsUrl, { token: customerToken, body: { provider: 'manual' } });
  await call(pays, 'POST', paymentsUrl, { token: customerToken, body: { provider: 'manual' } });
  const stripePayment = (await call(pays, 'POST', paymentsUrl, { token: customerToken, body: { provider: 'stripe' } })).json.payment;
  await call(pays, 'POST', paymentsUrl, { token: customerToken, body: { provider: 'cash' } });
  await call(pays, 'POST', `${ordersUrl}/${order.id}/payments`, { token: customerToken, body: { provider: 'stripe' } });
  emulator.failNext(/^POST \/v1\/payment_intents$/, 'card_declined');
  await call(pays, 'POST', `${ordersUrl}/${(await newOrder()).id}/payments`, { token: customerToken, body: { provider: 'stripe' } });
  await call(pays, 'POST', `${paymentsUrl}/${stripePayment.id}/sync`, { token: customerToken });
  await call(pays, 'POST', `${paymentsUrl}/${unknown}/sync`, { token: customerToken });
  const intent = [...emulator.intents.values()].find((i) => i.metadata.paymentId === stripePayment.id)!;
  const delivery = emulator.sign(emulator.event('payment_intent.succeeded', emulator.pay(intent.id)), stripeKeys.webhookSecret);
  await call(pays, 'POST', `/api/v1/payment-webhooks/stripe/${s.slug}`, { rawBody: delivery.body, headers: delivery.headers });
  await call(pays, 'POST', `/api/v1/payment-webhooks/stripe/${s.slug}`, { rawBody: delivery.body, headers: { 'content-type': 'application/json' } });
  await call(pays, 'DELETE', '/api/v1/admin/payment-providers/manual', { token: s.admin });
  await call(pays, 'DELETE', '/api/v1/admin/payment-providers/stripe', { token: s.storefront });

  // Signing out.
  await call(t, 'DELETE', '/api/v1/customer-tokens/current', { token: s.server });
  await call(t, 'DELETE', '/api/v1/customer-tokens/current', { token: customerToken });
  await call(t, 'DELETE', `/api/v1/customer-tokens?customerId=${customer}`, { token: s.server });
  await call(t, 'DELETE', '/api/v1/customer-tokens?customerId=x', { token: s.server });
  await call(t, 'GET', ordersUrl, { token: customerToken });

  // Events and webhooks. A second app allows a loopback URL; no app here sends deliveries (the
  // worker is off in tests), so nothing leaves the machine.
  const hooks = await startAppOn(t.database, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  await call(t, 'GET', '/api/v1/admin/events?limit=10&type=order.created', { token: s.admin });
  await call(t, 'GET', '/api/v1/admin/events?after=not-a-cursor', { token: s.admin });
  await call(t, 'POST', '/api/v1/admin/webhooks', { token: s.admin, body: { url: 'https://127.0.0.1/hook', events: ['*'] } });
  const hook = (await call(hooks, 'POST', '/api/v1/admin/webhooks', { token: s.admin, body: { url: 'http://127.0.0.1:9/hook', events: ['order.created'] } })).json.webhook;
  await call(t, 'GET', '/api/v1/admin/webhooks', { token: s.admin });
  await call(t, 'GET', '/api/v1/admin/webhooks', { token: s.server });
  await call(t, 'GET', `/api/v1/admin/webhooks/${hook.id}`, { token: s.admin });
  await call(t, 'GET', `/api/v1/admin/webhooks/${unknown}`, { token: s.admin });
  await call(hooks, 'PATCH', `/api/v1/admin/webhooks/${hook.id}`, { token: s.admin, body: { description: 'ERP' } });
  await call(t, 'PATCH', `/api/v1/admin/webhooks/${hook.id}`, { token: s.admin, body: { color: 'red' } });
  await call(t, 'POST', `/api/v1/admin/webhooks/${hook.id}/rotate-secret`, { token: s.admin });
  await call(t, 'POST', `/api/v1/admin/webhooks/${unknown}/rotate-secret`, { token: s.admin });
  await call(hooks, 'POST', `/api/v1/admin/webhooks/${hook.id}/test`, { token: s.admin });
  await call(t, 'POST', `/api/v1/admin/webhooks/${unknown}/test`, { token: s.admin });
  const deliveries = (await call(t, 'GET', `/api/v1/admin/webhooks/${hook.id}/deliveries`, { token: s.admin })).json.deliveries;
  await call(t, 'GET', `/api/v1/admin/webhooks/${hook.id}/deliveries?status=lost`, { token: s.admin });
  const retryUrl = `/api/v1/admin/webhooks/${hook.id}/deliveries/${deliveries[0].id}/retry`;
  await call(hooks, 'POST', retryUrl, { token: s.admin });
  await t.database.db.execute(sql`update webhook_deliveries set status = 'failed' where id = ${deliveries[0].id}`);
  await call(hooks, 'POST', retryUrl, { token: s.admin });
  await call(t, 'POST', `/api/v1/admin/webhooks/${hook.id}/deliveries/${unknown}/retry`, { token: s.admin });
  await call(t, 'DELETE', `/api/v1/admin/webhooks/${hook.id}`, { token: s.admin });
  await call(t, 'DELETE', `/api/v1/admin/webhooks/${hook.id}`, { token: s.admin });

  // Rate limits: a second app on the same database with a budget of one request a minute.
  const limited = await startAppOn(t.database, { CLIENT_RATE_LIMIT_PER_MINUTE: '1' }, { rateLimitPrefix: `traffic-${randomUUID()}` });
  await call(limited, 'GET', '/api/v1/collections', { token: s.storefront });
  await call(limited, 'GET', '/api/v1/collections', { token: s.storefront });

  assert.deepEqual(violations, []);
});

test('the driver reached every operation, each with a success and (beyond operations) an error', () => {
  const operations = Object.values(document.paths as Record<string, Record<string, { operationId: string }>>).flatMap((item) => Object.values(item).map((o) => o.operationId));
  const missing = operations.filter((id) => {
    const statuses = [...(seen.get(id) ?? [])];
    const ok = statuses.some((s) => s < 400);
    const error = statuses.some((s) => s >= 400) || ['getHealth', 'getReadiness'].includes(id);
    return !ok || !error;
  });
  assert.deepEqual(missing, []);
  const statuses = new Set([...seen.values()].flatMap((s) => [...s]));
  for (const status of [200, 201, 304, 400, 401, 403, 404, 409, 413, 415, 422, 429]) assert.ok(statuses.has(status), `no ${status} was seen`);
});
