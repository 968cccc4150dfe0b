/** Discount administration under /v1/admin/discounts. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/authentication.js';
import { registerCommand } from '../../plugins/commands.js';
import { errorResponses } from '../../lib/http-schemas.js';
import * as S from './schemas.js';
import * as discounts from './service.js';

const tags = ['admin'];

const discountAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/admin/discounts',
    { schema: { operationId: 'adminListDiscounts', tags, summary: 'List discount codes (newest first)', querystring: S.DiscountListQuery, response: { 200: S.DiscountList, ...errorResponses([]) } } },
    async (request) => discounts.listDiscounts(app.db, storeOf(request), request.query),
  );
  app.get(
    '/v1/admin/discounts/:id',
    { schema: { operationId: 'adminGetDiscount', tags, summary: 'Get a discount code', params: S.DiscountParams, response: { 200: S.DiscountEnvelope, ...errorResponses(['NOT_FOUND']) } } },
    async (request) => discounts.getDiscount(app.db, storeOf(request), request.params.id),
  );
  registerCommand(app, {
    method: 'POST', url: '/v1/admin/discounts', operationId: 'adminCreateDiscount', tags, summary: 'Create a discount code',
    description: '`code` is stored upper-case and unique per store among non-deleted discounts (409).',
    body: S.CreateDiscountBody, status: 201, response: S.DiscountEnvelope, errors: ['CONFLICT'],
    run: ({ store, body }, { tx }) => discounts.createDiscount(tx, store, body),
  });
  registerCommand(app, {
    method: 'PATCH', url: '/v1/admin/discounts/:id', operationId: 'adminUpdateDiscount', tags, summary: 'Change a discount code (any field but code and usageCount)',
    params: S.DiscountParams, body: S.UpdateDiscountBody, status: 200, response: S.DiscountEnvelope, errors: ['NOT_FOUND'],
    run: ({ store, params, body }, { tx }) => discounts.updateDiscount(tx, store, params.id, body),
  });
  registerCommand(app, {
    method: 'DELETE', url: '/v1/admin/discounts/:id', operationId: 'adminDeleteDiscount', tags, summary: 'Delete a discount code (soft): it stops applying',
    params: S.DiscountParams, status: 200, response: S.DiscountEnvelope, errors: ['NOT_FOUND'],
    run: ({ store, params }, { tx }) => discounts.deleteDiscount(tx, store, params.id),
  });
};

export default discountAdminRoutes;
