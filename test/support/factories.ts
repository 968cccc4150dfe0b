/** Builds test data through the admin API, as a store operator would. */
import assert from 'node:assert/strict';
import { ROOT_TOKEN, uniqueSlug, type TestApp } from './app.js';

export interface TestStore {
  slug: string;
  admin: string;
  storefront: string;
}

export async function createStore(t: TestApp, slug = uniqueSlug('s')): Promise<TestStore> {
  const r = await t.request('POST', '/api/v1/admin/stores', { token: ROOT_TOKEN, body: { slug } });
  assert.equal(r.status, 201, r.text);
  return { slug, admin: r.json.tokens.admin, storefront: r.json.tokens.storefront };
}

export interface ProductFields {
  name?: string;
  slug?: string;
  sku?: string;
  price?: number;
  quantity?: number;
  description?: string;
  originalPrice?: number | null;
  status?: 'DRAFT' | 'ACTIVE';
}

/** An ACTIVE product (price 100, quantity 10) unless told otherwise. */
export async function createProduct(t: TestApp, store: TestStore, fields: ProductFields = {}) {
  const slug = fields.slug ?? uniqueSlug('p');
  const body = { name: `Product ${slug}`, slug, sku: `SKU-${slug}`, description: '<p>d</p>', price: 100, quantity: 10, status: 'ACTIVE', ...fields };
  const r = await t.request('POST', '/api/v1/admin/products', { token: store.admin, body });
  assert.equal(r.status, 201, r.text);
  return r.json.product;
}

export async function createCollection(t: TestApp, store: TestStore, fields: { slug?: string; name?: string; parents?: string[] } = {}) {
  const slug = fields.slug ?? uniqueSlug('c');
  const r = await t.request('POST', '/api/v1/admin/collections', { token: store.admin, body: { name: `Collection ${slug}`, slug, ...fields } });
  assert.equal(r.status, 201, r.text);
  return r.json.collection;
}

export async function addToCollection(t: TestApp, store: TestStore, collectionId: string, productId: string) {
  const r = await t.request('POST', `/api/v1/admin/collections/${collectionId}/products`, { token: store.admin, body: { id: productId } });
  assert.equal(r.status, 200, r.text);
  return r.json.collection;
}

/** Asserts an RFC 9457 problem answer with the given status and code. */
export function assertProblem(r: { status: number; headers: Record<string, unknown>; json: { code?: string; status?: number; title?: unknown; detail?: unknown; instance?: unknown } }, status: number, code: string) {
  assert.equal(r.status, status, JSON.stringify(r.json));
  assert.match(String(r.headers['content-type']), /^application\/problem\+json/);
  assert.equal(r.json.code, code);
  assert.equal(r.json.status, status);
  assert.equal(typeof r.json.title, 'string');
  assert.equal(typeof r.json.detail, 'string');
  assert.match(String(r.json.instance), /^urn:request:/);
}
