/** Cart endpoints of the contract: one read, and the writes as commands of the write pipeline. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/authentication.js';
import { registerCommand } from '../../plugins/commands.js';
import { errorResponses } from '../../lib/http-schemas.js';
import { sumLines } from '../pricing/index.js';
import { DiscountCodeBody } from '../discounts/index.js';
import * as S from './schemas.js';
import * as carts from './service.js';
import { removeCartDiscount, setCartDiscount } from './discount.js';
import { registerHoldCommands } from './hold-routes.js';
import { CartShippingOptions, SetCartShippingBody, ShippingCountryQuery } from '../shipping/index.js';
import { cartShippingOptions, removeCartShipping, setCartShipping } from './shipping.js';

const tags = ['carts'];
const changeErrors = ['NOT_FOUND', 'CART_EXPIRED', 'CART_NOT_PENDING', 'INSUFFICIENT_STOCK', 'PRODUCT_UNAVAILABLE', 'QUANTITY_LIMIT_EXCEEDED'] as const;

const cartRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ttl = app.config.cartTtlSeconds;

  registerCommand(app, {
    method: 'POST', url: '/v1/carts', operationId: 'createCart', tags, summary: 'Create a cart',
    description:
      'Adds each requested product that is visible and in stock (repeated ids summed); the others are listed in `warnings`. None available: 422 PRODUCT_UNAVAILABLE. ' +
      'A line over its product\'s `maxPerOrder` (or over 100000 units after summing) refuses the request: 422 QUANTITY_LIMIT_EXCEEDED.',
    body: S.CreateCartBody, status: 201, response: S.CreatedCartEnvelope, errors: ['PRODUCT_UNAVAILABLE', 'QUANTITY_LIMIT_EXCEEDED'], idempotent: true,
    prepare: ({ body }) => sumLines(body.products),
    runRound: (tx, store, jobs) => carts.createCarts(tx, store, jobs.map((j) => j.job), ttl),
    runStores: (tx, stores) => carts.createCartsOfStores(tx, stores.map((s) => ({ store: s.store, requests: s.jobs.map((j) => j.job) })), ttl),
    writesOnce: true,
  });
  app.get(
    '/v1/carts/:id',
    { schema: { operationId: 'getCart', tags, summary: 'Get a cart', params: S.CartParams, response: { 200: S.CartEnvelope, ...errorResponses(['NOT_FOUND']) } } },
    async (request) => carts.getCart(app.db, storeOf(request), request.params.id),
  );
  registerCommand(app, {
    method: 'POST', url: '/v1/carts/:id/products', operationId: 'addCartLine', tags, summary: 'Add a product to a cart',
    params: S.CartParams, body: S.LineRequest, status: 200, response: S.CartEnvelope, errors: [...changeErrors],
    prepare: ({ params, body }) => carts.additionOf(params.id, body),
    runRound: (tx, store, jobs) => carts.addItemsToCarts(tx, store, jobs.map((j) => j.job), ttl),
    runStores: (tx, stores) => carts.addItemsToCartsOfStores(tx, stores.map((s) => ({ store: s.store, requests: s.jobs.map((j) => j.job) })), ttl),
  });
  registerCommand(app, {
    method: 'PATCH', url: '/v1/carts/:id/products/:pid', operationId: 'updateCartLine', tags, summary: "Change a line's quantity",
    description: 'The same quantity changes nothing; 0 removes the line; removing the last line deletes the cart.',
    params: S.CartLineParams, body: S.PatchLineBody, status: 200, response: S.CartEnvelope, errors: [...changeErrors],
    run: ({ store, params, body }, { tx }) => carts.adjustCartLine(tx, store, params.id, params.pid, body.quantity, ttl),
  });
  registerCommand(app, {
    method: 'DELETE', url: '/v1/carts/:id/products/:pid', operationId: 'removeCartLine', tags, summary: 'Remove a product from a cart',
    description: 'Removing the last line deletes the cart.',
    params: S.CartLineParams, status: 200, response: S.CartEnvelope, errors: [...changeErrors],
    run: ({ store, params }, { tx }) => carts.removeCartLine(tx, store, params.id, params.pid, ttl),
  });
  // Discount codes (docs/discounts.md).
  registerCommand(app, {
    method: 'POST', url: '/v1/carts/:id/discount', operationId: 'setCartDiscount', tags, summary: "Set the cart's discount code",
    description: 'Replaces an earlier code. A code that does not apply to the cart now is 422 DISCOUNT_NOT_APPLICABLE with `reason`.',
    params: S.CartParams, body: DiscountCodeBody, status: 200, response: S.CartEnvelope, errors: ['NOT_FOUND', 'CART_EXPIRED', 'CART_NOT_PENDING', 'DISCOUNT_NOT_APPLICABLE'],
    triesDiscountCode: () => true,
    run: ({ store, params, body, client }, { tx }) => setCartDiscount(tx, store, params.id, body.code, ttl, client !== null),
  });
  registerCommand(app, {
    method: 'DELETE', url: '/v1/carts/:id/discount', operationId: 'removeCartDiscount', tags, summary: "Remove the cart's discount code",
    params: S.CartParams, status: 200, response: S.CartEnvelope, errors: ['NOT_FOUND', 'CART_EXPIRED', 'CART_NOT_PENDING'],
    run: ({ store, params }, { tx }) => removeCartDiscount(tx, store, params.id, ttl),
  });
  // Shipping and taxes (docs/checkout.md).
  app.get(
    '/v1/carts/:id/shipping-options',
    {
      schema: {
        operationId: 'listCartShippingOptions', tags, summary: 'The shipping options for a cart and a country',
        description: 'The active options that apply to the cart (its subtotal after discount) and the country, with their amounts, cheapest first.',
        params: S.CartParams, querystring: ShippingCountryQuery, response: { 200: CartShippingOptions, ...errorResponses(['NOT_FOUND']) },
      },
    },
    async (request) => cartShippingOptions(app.db, storeOf(request), request.params.id, request.query.country),
  );
  registerCommand(app, {
    method: 'PUT', url: '/v1/carts/:id/shipping', operationId: 'setCartShipping', tags, summary: "Set the cart's shipping option and destination",
    description: 'The cart is taxed for this destination. An option that does not apply to the cart and country is 422 SHIPPING_NOT_AVAILABLE. A hold is kept.',
    params: S.CartParams, body: SetCartShippingBody, status: 200, response: S.CartEnvelope, errors: ['NOT_FOUND', 'CART_EXPIRED', 'CART_NOT_PENDING', 'SHIPPING_NOT_AVAILABLE'],
    run: ({ store, params, body }, { tx }) => setCartShipping(tx, store, params.id, body, ttl),
  });
  registerCommand(app, {
    method: 'DELETE', url: '/v1/carts/:id/shipping', operationId: 'removeCartShipping', tags, summary: "Remove the cart's shipping (and its taxes)",
    params: S.CartParams, status: 200, response: S.CartEnvelope, errors: ['NOT_FOUND', 'CART_EXPIRED', 'CART_NOT_PENDING'],
    run: ({ store, params }, { tx }) => removeCartShipping(tx, store, params.id, ttl),
  });
  registerHoldCommands(app);
};

export default cartRoutes;
