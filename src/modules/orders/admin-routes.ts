/** Order administration under /v1/admin/orders. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/authentication.js';
import { registerCommand } from '../../plugins/commands.js';
import { errorResponses } from '../../lib/http-schemas.js';
import { withRecordedEvents } from '../events/index.js';
import * as S from './schemas.js';
import * as admin from './admin-service.js';

const tags = ['admin'];

const orderAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/admin/orders',
    { schema: { operationId: 'adminListOrders', tags, summary: 'List and search orders (newest first)', description: 'Filters combine: `number`, `email` (exact, ignoring case), `customerId`, `createdFrom` (inclusive), `createdTo` (exclusive), `status`, `fulfillmentStatus`, `paymentStatus`; `q` matches the number, the email or the recipient\'s name.', querystring: S.AdminOrderListQuery, response: { 200: S.OrderList, ...errorResponses([]) } } },
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
      'CREATED -> PAID (records a manual payment of the balance) -> FULFILLED (fulfils every remaining unit, capturing a manual-capture payment first); ' +
      'CREATED or PAID with nothing fulfilled -> CANCELLED (returns the stock and the code use, refunds or voids the payments). Anything else: 409 INVALID_TRANSITION.',
    params: S.AdminOrderParams, body: S.UpdateOrderBody, status: 200, response: S.OrderEnvelope, errors: ['NOT_FOUND', 'INVALID_TRANSITION', 'PAYMENT_PROVIDER_ERROR'],
    // Cancelling returns stock.
    changesCatalog: true,
    events: ['order.paid', 'order.fulfilled', 'order.cancelled', 'fulfillment.created', 'product.back_in_stock', 'payment.succeeded', 'payment.refunded'],
    // FULFILLED may capture at Stripe, and a cancel owes Stripe refunds and voids: provider calls
    // are made outside the order's transaction.
    perform: async ({ store, params, body }, { db, log, actor }) => {
      if (body.status === 'FULFILLED') await capturing(store, params.id, {});
      const changed = await withRecordedEvents(db, store, (tx, record) => admin.changeOrderStatus(tx, record, store, params.id, body.status), actor);
      if (body.status === 'CANCELLED') {
        await app.payments.settleOrder(store, params.id).catch((error: unknown) => log.warn({ err: error }, 'work after the commit failed; the maintenance job finishes it'));
      }
      return changed;
    },
  });
  registerCommand(app, {
    method: 'POST', url: '/v1/admin/orders/:id/fulfillments', operationId: 'adminCreateFulfillment', tags, summary: 'Ship some or all of an order',
    description:
      'Without `lines`, every unit not yet fulfilled. Only a PAID order (409 INVALID_TRANSITION); more units than are left: 422 FULFILLMENT_EXCEEDS_ORDER. ' +
      'The first fulfilment of a manual-capture Stripe payment captures it (refused: 502 and nothing is fulfilled). The order becomes FULFILLED when every unit has shipped.',
    params: S.AdminOrderParams, body: S.CreateFulfillmentBody, status: 201, response: S.FulfillmentEnvelope,
    errors: ['NOT_FOUND', 'INVALID_TRANSITION', 'FULFILLMENT_EXCEEDS_ORDER', 'PAYMENT_PROVIDER_ERROR'],
    events: ['fulfillment.created', 'order.fulfilled', 'order.paid', 'payment.succeeded', 'payment.refunded'],
    perform: async ({ store, params, body }, { db, actor }) => {
      await capturing(store, params.id, body);
      return withRecordedEvents(db, store, (tx, record) => admin.fulfilOrder(tx, record, store, params.id, body), actor);
    },
  });
  registerCommand(app, {
    method: 'POST', url: '/v1/admin/orders/:id/refunds', operationId: 'adminCreateRefund', tags, summary: 'Give money back (and take units back)',
    description:
      'The amount goes back through the order\'s captured payments, newest first; more than paidTotal - refundedTotal is 422 REFUND_EXCEEDS_PAYMENT. ' +
      '`restock: true` puts the listed units back in stock (a return); more units than the order has left to return: 422 RETURN_EXCEEDS_ORDER. ' +
      'A Stripe refund is made right after the commit (`status` `pending` until it is; the service retries).',
    params: S.AdminOrderParams, body: S.CreateRefundBody, status: 201, response: S.RefundEnvelope, idempotent: true,
    errors: ['NOT_FOUND', 'REFUND_EXCEEDS_PAYMENT', 'RETURN_EXCEEDS_ORDER'],
    changesCatalog: true,
    events: ['order.refunded', 'payment.refunded', 'product.back_in_stock'],
    run: ({ store, params, body }, { tx, record }) => admin.refundOrder(tx, record, store, params.id, body),
    afterCommit: async ({ store }, value) => {
      if (value.refund.status === 'pending') await app.payments.settleRefund(store, value.refund.id);
    },
  });

  /** Checks a fulfilment (nothing written), then captures what manual capture left authorized. */
  async function capturing(store: string, id: string, body: S.CreateFulfillmentBody) {
    await admin.checkFulfillment(app.db, store, id, body);
    await app.payments.captureOrder(store, id);
  }
};

export default orderAdminRoutes;
