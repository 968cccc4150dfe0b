/** Storefront catalog: GET /v1/products, GET /v1/products/:slug, GET /v1/collections. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/auth.js';
import { errorResponses } from '../../lib/http-schemas.js';
import { CollectionList, ListProductsQuery, PageQuery, ProductEnvelope, ProductList, SlugParams } from './schemas.js';
import * as catalog from './service.js';
import { ResponseCache, sendCached } from './cache.js';

const security = [{ bearer: [] }];

const catalogRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const cache = new ResponseCache();

  app.get(
    '/v1/products',
    {
      config: { auth: 'storefront' },
      schema: {
        tags: ['catalog'],
        summary: 'List visible products',
        description: 'Visible products (ACTIVE, not deleted, in no archived collection), optionally of one collection.',
        security,
        querystring: ListProductsQuery,
        response: { 200: ProductList, ...errorResponses([]) },
      },
    },
    async (request, reply) => sendCached(request, reply, cache, () => catalog.listProducts(app.db, storeOf(request), request.query)),
  );

  app.get(
    '/v1/products/:slug',
    {
      config: { auth: 'storefront' },
      schema: {
        tags: ['catalog'],
        summary: 'Get a visible product by slug',
        security,
        params: SlugParams,
        response: { 200: ProductEnvelope, ...errorResponses(['NOT_FOUND']) },
      },
    },
    async (request, reply) => sendCached(request, reply, cache, () => catalog.getProductBySlug(app.db, storeOf(request), request.params.slug)),
  );

  app.get(
    '/v1/collections',
    {
      config: { auth: 'storefront' },
      schema: {
        tags: ['catalog'],
        summary: 'List collections',
        description: 'The store\'s non-deleted, non-archived collections, oldest first.',
        security,
        querystring: PageQuery,
        response: { 200: CollectionList, ...errorResponses([]) },
      },
    },
    async (request, reply) => sendCached(request, reply, cache, () => catalog.listCollections(app.db, storeOf(request), request.query)),
  );
};

export default catalogRoutes;
