/** Order administration under /v1/admin/orders. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/authentication.js';
import { registerCommand } from '../../plugins/commands.js';
import { errorResponses } from '../../lib/http-schemas.js';
import * as S from './schemas.js';
import * as admin from './admin-service.js';

const tags = ['admin'];

const orderAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/admin/orders',
    { schema: { operationId: 'adminListOrders', tags, summary: 'List and search orders (newest first)', description: 'Filters combine: `number`, `email` (exact, ignoring case), `customerId`, `createdFrom` (inclusive), `createdTo` (exclusive), `status`; `q` matches the number, the email or the recipient\'s name.', querystring: S.AdminOrderListQuery, response: { 200: S.OrderList, ...errorResponses([]) } } },
    async (request) => admin.listAdminOrders(app.db, storeOf(request), request.query),
  );
  app.get(
    '/v1/admin/orders/:id',
    { schema: { operationId: 'adminGetOrder', tags, summary: 'Get an order', params: S.AdminOrderParams, response: { 200: S.OrderEnvelope, ...errorResponses(['NOT_FOUND']) } } },
    async (request) => admin.getAdminOrder(app.db, storeOf(request), request.params.id),
  );
  registerCommand(app, {
    method: 'PATCH', url: '/v1/admin/orders/:id', operationId: 'adminUpdateOrderStatus', tags, summary: "Change an order's status",
    description:
      'CREATED -> PAID (records a manual payment of the balance) -> FULFILLED; CREATED or PAID -> CANCELLED (returns the stock and the code use, refunds or voids the payments). ' +
      'Anything else: 409 INVALID_TRANSITION.',
    params: S.AdminOrderParams, body: S.UpdateOrderBody, status: 200, response: S.OrderEnvelope, errors: ['NOT_FOUND', 'INVALID_TRANSITION'],
    // Cancelling returns stock.
    changesCatalog: true,
    events: ['order.paid', 'order.fulfilled', 'order.cancelled', 'product.back_in_stock', 'payment.succeeded', 'payment.refunded'],
    run: ({ store, params, body }, { tx, record }) => admin.changeOrderStatus(tx, record, store, params.id, body.status),
    // A cancel owes Stripe refunds and voids: made after its commit, never inside its transaction.
    afterCommit: async ({ store, params, body }) => {
      if (body.status === 'CANCELLED') await app.payments.settleOrder(store, params.id);
    },
  });
};

export default orderAdminRoutes;
