/** Customer orders: POST and GET /v1/:customer/orders, GET /v1/:customer/orders/:id. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/authentication.js';
import { registerCommand } from '../../plugins/commands.js';
import { CustomerParams, errorResponses } from '../../lib/http-schemas.js';
import * as S from './schemas.js';
import * as orders from './service.js';
import { assertOneSource, orderRequestOf, placeOrders, placeStoresOrders } from './checkout.js';

const tags = ['orders'];

const orderRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const policy = { unpaidPerClient: app.config.unpaidOrdersPerClient };
  registerCommand(app, {
    method: 'POST', url: '/v1/:customer/orders', operationId: 'placeOrder', tags, summary: 'Place an order',
    description:
      'From exactly one of a PENDING cart (`id`) or a product list (`products`), to an address of the customer. ' +
      'All or nothing: every line visible and in stock, or 422 with one `errors` entry per failing product. ' +
      'A product-list order may take `discountCode`; an order from a cart uses the cart\'s code. A code that does not apply is 422 DISCOUNT_NOT_APPLICABLE with `reason`. ' +
      'A line over its product\'s `maxPerOrder` (or 100000) is 422 QUANTITY_LIMIT_EXCEEDED. One client address may have at most UNPAID_ORDERS_PER_CLIENT unpaid orders placed with public credentials (429 RATE_LIMITED).',
    params: CustomerParams, body: S.CreateOrderBody, status: 201, response: S.OrderEnvelope,
    errors: ['NOT_FOUND', 'CART_EXPIRED', 'CART_NOT_PENDING', 'ADDRESS_NOT_FOUND', 'INSUFFICIENT_STOCK', 'PRODUCT_UNAVAILABLE', 'QUANTITY_LIMIT_EXCEEDED', 'DISCOUNT_NOT_APPLICABLE', 'SHIPPING_REQUIRED', 'SHIPPING_NOT_AVAILABLE'],
    triesDiscountCode: (body) => (body as { discountCode?: string }).discountCode !== undefined,
    idempotent: true, changesCatalog: 'in-transaction', events: ['order.created', 'product.out_of_stock'], counts: 'orders', limit: 'orders',
    // Before the schema's oneOf, whose failure would name a branch rather than the rule.
    preValidation: async (request) => assertOneSource(request.body),
    prepare: ({ params, body, principal, client }) => orderRequestOf(params.customer, body, { guest: principal?.kind === 'customer' && principal.guest, client }),
    runRound: (tx, store, jobs) => placeOrders(tx, store, jobs, policy),
    runStores: (tx, stores) => placeStoresOrders(tx, stores, policy),
    // A round of orders makes eight round trips or so: a second round of other stores fills the
    // process's waits (docs/performance.md, "Two rounds of orders at once").
    roundsAtOnce: 2,
  });
  app.get(
    '/v1/:customer/orders',
    {
      schema: { operationId: 'listOrders', tags, summary: "List the customer's orders (newest first)", params: CustomerParams, querystring: S.OrderListQuery, response: { 200: S.OrderList, ...errorResponses([]) } },
    },
    async (request) => orders.listCustomerOrders(app.db, storeOf(request), request.params.customer, request.query),
  );
  app.get(
    '/v1/:customer/orders/:id',
    {
      schema: { operationId: 'getOrder', tags, summary: 'Get one order of the customer', params: S.CustomerOrderParams, response: { 200: S.OrderEnvelope, ...errorResponses(['NOT_FOUND']) } },
    },
    async (request) => orders.getCustomerOrder(app.db, storeOf(request), request.params.customer, request.params.id),
  );
};

export default orderRoutes;
