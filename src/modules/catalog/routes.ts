/** Storefront catalog: GET /v1/products, GET /v1/products/:slug, GET /v1/product-groups/:group, GET /v1/collections. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/authentication.js';
import { errorResponses } from '../../lib/http-schemas.js';
import { CollectionList, NotModified, ListProductsQuery, PageQuery, ProductEnvelope, ProductList, SlugParams } from './schemas.js';
import * as catalog from './service.js';
import { catalogCache, sendCached } from './cache.js';
import { GroupParams, ProductGroupEnvelope } from './groups-schemas.js';
import { getProductGroup } from './groups-service.js';

// Catalog reads a read replica may answer (plugins/replica-reads.ts); they read through the `db` handed to them.
const config = { readsFromReplica: true };

const catalogRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const cache = catalogCache(app.db, app.config.catalogCacheEntries);
  // The products whose checkout holds change an answer: those it shows, or with `inStock`, any (a
  // hold can bring a product into the list or take it out).
  const ids = (products: ReadonlyArray<{ id: string }>) => products.map((p) => p.id);

  app.get(
    '/v1/products',
    {
      config,
      schema: {
        tags: ['catalog'],
        summary: 'List visible products',
        description:
          'Visible products (ACTIVE, not deleted, in no archived collection), optionally of one collection or one group, matching `q` and the price and stock filters. ' +
          'With `q` and no `sort` the order is relevance. `collapse=group` shows each group once, as its first product in that order. ' +
          '`total` counts every entry; pass `nextCursor` as `after` for the next page.',
        operationId: 'listProducts',
        querystring: ListProductsQuery,
        response: { 200: ProductList, 304: NotModified, ...errorResponses([]) },
      },
    },
    async (request, reply) =>
      sendCached(request, reply, cache, (db, held) => catalog.listProducts(db, storeOf(request), request.query, held), (answer) =>
        request.query.inStock === undefined ? ids(answer.products) : 'every'),
  );

  app.get(
    '/v1/products/:slug',
    {
      config,
      schema: {
        tags: ['catalog'],
        summary: 'Get a visible product by slug',
        operationId: 'getProduct',
        params: SlugParams,
        response: { 200: ProductEnvelope, 304: NotModified, ...errorResponses(['NOT_FOUND']) },
      },
    },
    async (request, reply) => sendCached(request, reply, cache, (db, held) => catalog.getProductBySlug(db, storeOf(request), request.params.slug, held), (answer) => [answer.product.id]),
  );

  app.get(
    '/v1/product-groups/:group',
    {
      config,
      schema: {
        tags: ['catalog'],
        summary: 'Get a product group: the variants of one item',
        description: 'The visible products of the group (oldest first) with their options, price range and stock. 404 when none is visible.',
        operationId: 'getProductGroup',
        params: GroupParams,
        response: { 200: ProductGroupEnvelope, 304: NotModified, ...errorResponses(['NOT_FOUND']) },
      },
    },
    async (request, reply) => sendCached(request, reply, cache, (db, held) => getProductGroup(db, storeOf(request), request.params.group, held), (answer) => ids(answer.group.products)),
  );

  app.get(
    '/v1/collections',
    {
      config,
      schema: {
        tags: ['catalog'],
        summary: 'List collections',
        description: 'The store\'s non-deleted, non-archived collections, oldest first.',
        operationId: 'listCollections',
        querystring: PageQuery,
        response: { 200: CollectionList, 304: NotModified, ...errorResponses([]) },
      },
    },
    async (request, reply) => sendCached(request, reply, cache, (db) => catalog.listCollections(db, storeOf(request), request.query)),
  );
};

export default catalogRoutes;
