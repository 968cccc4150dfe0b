/** Builds test data through the admin API, as a store operator would. */
import assert from 'node:assert/strict';
import { roundShardCount, roundShardOf } from '../../src/plugins/commands.js';
import { ROOT_TOKEN, uniqueSlug, type TestApp } from './app.js';

export interface TestStore {
  slug: string;
  admin: string;
  /** Public: catalog, carts and guest sessions only. */
  storefront: string;
  /** The shop's back end: every storefront route, for any customer. */
  server: string;
}

/**
 * `count` new stores of one shard of rounds: a round command that combines requests per shard
 * (plugins/commands.ts) puts their requests in the same rounds.
 */
export async function storesOfOneShard(t: TestApp, count: number): Promise<TestStore[]> {
  const shards = roundShardCount(t.config.dbPoolSize);
  const slugs: string[] = [];
  const shard = roundShardOf(uniqueSlug('mix'), shards);
  while (slugs.length < count) {
    const slug = uniqueSlug('mix');
    if (roundShardOf(slug, shards) === shard) slugs.push(slug);
  }
  return Promise.all(slugs.map((slug) => createStore(t, slug)));
}

/** A store with its admin and storefront tokens and a server token. */
export async function createStore(t: TestApp, slug = uniqueSlug('s')): Promise<TestStore> {
  const r = await t.request('POST', '/api/v1/admin/stores', { token: ROOT_TOKEN, body: { slug } });
  assert.equal(r.status, 201, r.text);
  const server = await t.request('POST', '/api/v1/admin/tokens', { token: r.json.tokens.admin, body: { kind: 'server' } });
  assert.equal(server.status, 201, server.text);
  return { slug, admin: r.json.tokens.admin, storefront: r.json.tokens.storefront, server: server.json.secret };
}

/** A customer token of the store for `customerId`, minted with its server token. */
export async function mintCustomerToken(t: TestApp, store: TestStore, customerId: string, ttlSeconds?: number): Promise<{ id: string; secret: string }> {
  const r = await t.request('POST', '/api/v1/customer-tokens', { token: store.server, body: { customerId, ttlSeconds } });
  assert.equal(r.status, 201, r.text);
  return { id: r.json.token.id, secret: r.json.secret };
}

export interface ProductFields {
  name?: string;
  slug?: string;
  sku?: string;
  price?: number;
  quantity?: number;
  description?: string;
  originalPrice?: number | null;
  maxPerOrder?: number | null;
  status?: 'DRAFT' | 'ACTIVE';
  group?: string | null;
  options?: Record<string, string>;
  images?: Array<{ url: string; alt?: string }>;
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
