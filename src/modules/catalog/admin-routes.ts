/** Catalog administration under /v1/admin: products, collections and membership. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/authentication.js';
import { errorResponses } from '../../lib/http-schemas.js';
import * as S from './schemas.js';
import * as admin from './admin-service.js';

const tags = ['admin'];
/** Every change here alters catalog answers: the store's catalog version is bumped before answering. */
const config = { changesCatalog: true };

const catalogAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/admin/products',
    { schema: { operationId: 'adminListProducts', tags, summary: 'List or search products of any status', querystring: S.AdminListProductsQuery, response: { 200: S.AdminProductList, ...errorResponses([]) } } },
    async (request) => admin.listAdminProducts(app.db, storeOf(request), request.query),
  );
  app.get(
    '/v1/admin/products/:id',
    { schema: { operationId: 'adminGetProduct', tags, summary: 'Get a product', params: S.IdParams, response: { 200: S.AdminProductEnvelope, ...errorResponses(['NOT_FOUND']) } } },
    async (request) => admin.getAdminProduct(app.db, storeOf(request), request.params.id),
  );
  app.post(
    '/v1/admin/products',
    {
      config,
      schema: { operationId: 'adminCreateProduct', tags, summary: 'Create a product (DRAFT unless a status is given)', body: S.CreateProductBody, response: { 201: S.AdminProductEnvelope, ...errorResponses(['CONFLICT']) } },
    },
    async (request, reply) => reply.code(201).send(await admin.createProduct(app.db, storeOf(request), request.body)),
  );
  app.patch(
    '/v1/admin/products/:id',
    {
      config,
      schema: { operationId: 'adminUpdateProduct', tags, summary: 'Change a product', params: S.IdParams, body: S.UpdateProductBody, response: { 200: S.AdminProductEnvelope, ...errorResponses(['NOT_FOUND', 'CONFLICT']) } },
    },
    async (request) => admin.updateProduct(app.db, storeOf(request), request.params.id, request.body),
  );
  app.delete(
    '/v1/admin/products/:id',
    { config, schema: { operationId: 'adminDeleteProduct', tags, summary: 'Delete a product (soft)', params: S.IdParams, response: { 200: S.AdminProductEnvelope, ...errorResponses(['NOT_FOUND']) } } },
    async (request) => admin.deleteProduct(app.db, storeOf(request), request.params.id),
  );

  app.get(
    '/v1/admin/collections',
    { schema: { operationId: 'adminListCollections', tags, summary: 'List collections, archived ones included', querystring: S.PageQuery, response: { 200: S.AdminCollectionList, ...errorResponses([]) } } },
    async (request) => admin.listAdminCollections(app.db, storeOf(request), request.query),
  );
  app.get(
    '/v1/admin/collections/:id',
    { schema: { operationId: 'adminGetCollection', tags, summary: 'Get a collection', params: S.IdParams, response: { 200: S.AdminCollectionEnvelope, ...errorResponses(['NOT_FOUND']) } } },
    async (request) => admin.getAdminCollection(app.db, storeOf(request), request.params.id),
  );
  app.post(
    '/v1/admin/collections',
    {
      config,
      schema: {
        operationId: 'adminCreateCollection', tags, summary: 'Create a collection', body: S.CreateCollectionBody,
        response: { 201: S.AdminCollectionEnvelope, ...errorResponses(['NOT_FOUND', 'CONFLICT', 'COLLECTION_CYCLE']) },
      },
    },
    async (request, reply) => reply.code(201).send(await admin.createCollection(app.db, storeOf(request), request.body)),
  );
  app.patch(
    '/v1/admin/collections/:id',
    {
      config,
      schema: {
        operationId: 'adminUpdateCollection', tags, summary: 'Change, archive or re-parent a collection', params: S.IdParams, body: S.UpdateCollectionBody,
        response: { 200: S.AdminCollectionEnvelope, ...errorResponses(['NOT_FOUND', 'CONFLICT', 'COLLECTION_CYCLE']) },
      },
    },
    async (request) => admin.updateCollection(app.db, storeOf(request), request.params.id, request.body),
  );
  app.delete(
    '/v1/admin/collections/:id',
    { config, schema: { operationId: 'adminDeleteCollection', tags, summary: 'Delete a collection (soft)', params: S.IdParams, response: { 200: S.AdminCollectionEnvelope, ...errorResponses(['NOT_FOUND']) } } },
    async (request) => admin.deleteCollection(app.db, storeOf(request), request.params.id),
  );
  app.post(
    '/v1/admin/collections/:id/products',
    {
      config,
      schema: { operationId: 'adminAddProductToCollection', tags, summary: 'Put a product in a collection', params: S.IdParams, body: S.ProductRefBody, response: { 200: S.AdminCollectionEnvelope, ...errorResponses(['NOT_FOUND']) } },
    },
    async (request) => admin.addProductToCollection(app.db, storeOf(request), request.params.id, request.body.id),
  );
  app.delete(
    '/v1/admin/collections/:id/products/:pid',
    {
      config,
      schema: { operationId: 'adminRemoveProductFromCollection', tags, summary: 'Take a product out of a collection', params: S.CollectionProductParams, response: { 200: S.AdminCollectionEnvelope, ...errorResponses(['NOT_FOUND']) } },
    },
    async (request) => admin.removeProductFromCollection(app.db, storeOf(request), request.params.id, request.params.pid),
  );
};

export default catalogAdminRoutes;
