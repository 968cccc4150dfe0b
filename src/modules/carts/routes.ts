/** Cart endpoints of the contract. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/authentication.js';
import { errorResponses } from '../../lib/http-schemas.js';
import { CombinedCartWrites } from './combined-writes.js';
import * as S from './schemas.js';
import * as carts from './service.js';

const tags = ['carts'];
const changeErrors = errorResponses(['NOT_FOUND', 'CART_EXPIRED', 'CART_NOT_PENDING', 'INSUFFICIENT_STOCK', 'PRODUCT_UNAVAILABLE']);

const cartRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ttl = () => app.config.cartTtlSeconds;
  const combined = new CombinedCartWrites(app.db, app.config.cartTtlSeconds);

  app.post(
    '/v1/carts',
    {
      config: { idempotent: true },
      schema: {
        operationId: 'createCart', tags, summary: 'Create a cart',
        description: 'Adds each requested product that is visible and in stock (repeated ids summed); the others are listed in `warnings`. None available: 422 PRODUCT_UNAVAILABLE.',
        body: S.CreateCartBody,
        response: { 201: S.CreatedCartEnvelope, ...errorResponses(['PRODUCT_UNAVAILABLE', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_USE']) },
      },
    },
    async (request, reply) => reply.code(201).send(await combined.createCart(storeOf(request), request.body, request.idempotency ?? null)),
  );
  app.get(
    '/v1/carts/:id',
    { schema: { operationId: 'getCart', tags, summary: 'Get a cart', params: S.CartParams, response: { 200: S.CartEnvelope, ...errorResponses(['NOT_FOUND']) } } },
    async (request) => carts.getCart(app.db, storeOf(request), request.params.id),
  );
  app.post(
    '/v1/carts/:id/products',
    {
      schema: { operationId: 'addCartLine', tags, summary: 'Add a product to a cart', params: S.CartParams, body: S.LineRequest, response: { 200: S.CartEnvelope, ...changeErrors } },
    },
    async (request) => combined.addItemToCart(storeOf(request), request.params.id, request.body),
  );
  app.patch(
    '/v1/carts/:id/products/:pid',
    {
      schema: {
        operationId: 'updateCartLine', tags, summary: "Change a line's quantity",
        description: 'The same quantity changes nothing; 0 removes the line; removing the last line deletes the cart.',
        params: S.CartLineParams, body: S.PatchLineBody, response: { 200: S.CartEnvelope, ...changeErrors },
      },
    },
    async (request) => carts.adjustCartLine(app.db, storeOf(request), request.params.id, request.params.pid, request.body.quantity, ttl()),
  );
  app.delete(
    '/v1/carts/:id/products/:pid',
    {
      schema: {
        operationId: 'removeCartLine', tags, summary: 'Remove a product from a cart', description: 'Removing the last line deletes the cart.',
        params: S.CartLineParams, response: { 200: S.CartEnvelope, ...changeErrors },
      },
    },
    async (request) => carts.removeCartLine(app.db, storeOf(request), request.params.id, request.params.pid, ttl()),
  );
};

export default cartRoutes;
