/** Catalog administration under /v1/admin: products, collections and membership. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/authentication.js';
import { registerCommand } from '../../plugins/commands.js';
import { errorResponses } from '../../lib/http-schemas.js';
import * as S from './schemas.js';
import * as admin from './admin-service.js';
import { saveVariants } from './variants-service.js';

const tags = ['admin'];
/** Every change here alters catalog answers: the store's catalog version is bumped before answering. */
const changesCatalog = true;
const productEvents = ['product.created', 'product.updated', 'product.deleted', 'product.out_of_stock', 'product.back_in_stock'] as const;
const collectionEvents = ['collection.created', 'collection.updated', 'collection.deleted'] as const;

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
  registerCommand(app, {
    method: 'POST', url: '/v1/admin/products', operationId: 'adminCreateProduct', tags, summary: 'Create a product (DRAFT unless a status is given)',
    body: S.CreateProductBody, status: 201, response: S.AdminProductEnvelope, errors: ['CONFLICT'], changesCatalog, events: productEvents,
    run: ({ store, body }, { tx, record }) => admin.createProduct(tx, record, store, body),
  });
  registerCommand(app, {
    method: 'PATCH', url: '/v1/admin/products/:id', operationId: 'adminUpdateProduct', tags, summary: 'Change a product',
    params: S.IdParams, body: S.UpdateProductBody, status: 200, response: S.AdminProductEnvelope, errors: ['NOT_FOUND', 'CONFLICT'], changesCatalog, events: productEvents,
    run: ({ store, params, body }, { tx, record }) => admin.updateProduct(tx, record, store, params.id, body),
  });
  registerCommand(app, {
    method: 'POST', url: '/v1/admin/product-groups/:group/variants', operationId: 'adminSaveVariants', tags,
    summary: 'Create and change the products of a group in one request, all or none',
    description: `Up to ${S.MAX_VARIANTS_PER_SAVE} entries: one without \`id\` creates a product of the group, one with \`id\` changes that product and puts it in the group. ` +
      'One transaction: a refused entry saves nothing, and the problem names it (`errors[].field` is `body.variants.<index>.<field>`).',
    params: S.GroupParams, body: S.SaveVariantsBody, status: 200, response: S.SavedVariants, errors: ['NOT_FOUND', 'CONFLICT'],
    idempotent: true, changesCatalog, events: productEvents,
    run: ({ store, params, body }, { tx, record }) => saveVariants(tx, record, store, params.group, body),
  });
  registerCommand(app, {
    method: 'DELETE', url: '/v1/admin/products/:id', operationId: 'adminDeleteProduct', tags, summary: 'Delete a product (soft)',
    params: S.IdParams, status: 200, response: S.AdminProductEnvelope, errors: ['NOT_FOUND'], changesCatalog, events: productEvents,
    run: ({ store, params }, { tx, record }) => admin.deleteProduct(tx, record, store, params.id),
  });

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
  registerCommand(app, {
    method: 'POST', url: '/v1/admin/collections', operationId: 'adminCreateCollection', tags, summary: 'Create a collection',
    body: S.CreateCollectionBody, status: 201, response: S.AdminCollectionEnvelope, errors: ['NOT_FOUND', 'CONFLICT', 'COLLECTION_CYCLE'], changesCatalog, events: collectionEvents,
    run: ({ store, body }, { tx, record }) => admin.createCollection(tx, record, store, body),
  });
  registerCommand(app, {
    method: 'PATCH', url: '/v1/admin/collections/:id', operationId: 'adminUpdateCollection', tags, summary: 'Change, archive or re-parent a collection',
    params: S.IdParams, body: S.UpdateCollectionBody, status: 200, response: S.AdminCollectionEnvelope, errors: ['NOT_FOUND', 'CONFLICT', 'COLLECTION_CYCLE'], changesCatalog, events: collectionEvents,
    run: ({ store, params, body }, { tx, record }) => admin.updateCollection(tx, record, store, params.id, body),
  });
  registerCommand(app, {
    method: 'DELETE', url: '/v1/admin/collections/:id', operationId: 'adminDeleteCollection', tags, summary: 'Delete a collection (soft)',
    params: S.IdParams, status: 200, response: S.AdminCollectionEnvelope, errors: ['NOT_FOUND'], changesCatalog, events: collectionEvents,
    run: ({ store, params }, { tx, record }) => admin.deleteCollection(tx, record, store, params.id),
  });
  registerCommand(app, {
    method: 'POST', url: '/v1/admin/collections/:id/products', operationId: 'adminAddProductToCollection', tags, summary: 'Put a product in a collection',
    params: S.IdParams, body: S.ProductRefBody, status: 200, response: S.AdminCollectionEnvelope, errors: ['NOT_FOUND'], changesCatalog, events: collectionEvents,
    run: ({ store, params, body }, { tx, record }) => admin.addProductToCollection(tx, record, store, params.id, body.id),
  });
  registerCommand(app, {
    method: 'DELETE', url: '/v1/admin/collections/:id/products/:pid', operationId: 'adminRemoveProductFromCollection', tags, summary: 'Take a product out of a collection',
    params: S.CollectionProductParams, status: 200, response: S.AdminCollectionEnvelope, errors: ['NOT_FOUND'], changesCatalog, events: collectionEvents,
    run: ({ store, params }, { tx, record }) => admin.removeProductFromCollection(tx, record, store, params.id, params.pid),
  });
};

export default catalogAdminRoutes;
