/** Shipping option administration under /v1/admin/shipping-options. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/authentication.js';
import { registerCommand } from '../../plugins/commands.js';
import { errorResponses } from '../../lib/http-schemas.js';
import * as S from './schemas.js';
import * as shipping from './service.js';

const tags = ['admin'];

const shippingAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/admin/shipping-options',
    { schema: { operationId: 'adminListShippingOptions', tags, summary: 'List shipping options (newest first)', querystring: S.ShippingOptionListQuery, response: { 200: S.ShippingOptionList, ...errorResponses([]) } } },
    async (request) => shipping.listShippingOptions(app.db, storeOf(request), request.query),
  );
  app.get(
    '/v1/admin/shipping-options/:id',
    { schema: { operationId: 'adminGetShippingOption', tags, summary: 'Get a shipping option', params: S.ShippingOptionParams, response: { 200: S.ShippingOptionEnvelope, ...errorResponses(['NOT_FOUND']) } } },
    async (request) => shipping.getShippingOption(app.db, storeOf(request), request.params.id),
  );
  registerCommand(app, {
    method: 'POST', url: '/v1/admin/shipping-options', operationId: 'adminCreateShippingOption', tags, summary: 'Create a shipping option',
    description: 'Once a store has an active option, every order needs one (422 SHIPPING_REQUIRED).',
    body: S.CreateShippingOptionBody, status: 201, response: S.ShippingOptionEnvelope, errors: [],
    run: ({ store, body }, { tx }) => shipping.createShippingOption(tx, store, body),
  });
  registerCommand(app, {
    method: 'PATCH', url: '/v1/admin/shipping-options/:id', operationId: 'adminUpdateShippingOption', tags, summary: 'Change a shipping option',
    params: S.ShippingOptionParams, body: S.UpdateShippingOptionBody, status: 200, response: S.ShippingOptionEnvelope, errors: ['NOT_FOUND'],
    run: ({ store, params, body }, { tx }) => shipping.updateShippingOption(tx, store, params.id, body),
  });
  registerCommand(app, {
    method: 'DELETE', url: '/v1/admin/shipping-options/:id', operationId: 'adminDeleteShippingOption', tags, summary: 'Delete a shipping option (soft): it stops applying',
    params: S.ShippingOptionParams, status: 200, response: S.ShippingOptionEnvelope, errors: ['NOT_FOUND'],
    run: ({ store, params }, { tx }) => shipping.deleteShippingOption(tx, store, params.id),
  });
};

export default shippingAdminRoutes;
