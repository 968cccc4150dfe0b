/** Tax rate administration under /v1/admin/tax-rates. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/authentication.js';
import { registerCommand } from '../../plugins/commands.js';
import { errorResponses } from '../../lib/http-schemas.js';
import * as S from './schemas.js';
import * as taxes from './service.js';

const tags = ['admin'];

const taxRateAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/admin/tax-rates',
    { schema: { operationId: 'adminListTaxRates', tags, summary: 'List tax rates (by country, region, category)', querystring: S.TaxRateListQuery, response: { 200: S.TaxRateList, ...errorResponses([]) } } },
    async (request) => taxes.listTaxRates(app.db, storeOf(request), request.query),
  );
  app.get(
    '/v1/admin/tax-rates/:id',
    { schema: { operationId: 'adminGetTaxRate', tags, summary: 'Get a tax rate', params: S.TaxRateParams, response: { 200: S.TaxRateEnvelope, ...errorResponses(['NOT_FOUND']) } } },
    async (request) => taxes.getTaxRate(app.db, storeOf(request), request.params.id),
  );
  registerCommand(app, {
    method: 'POST', url: '/v1/admin/tax-rates', operationId: 'adminCreateTaxRate', tags, summary: 'Create a tax rate',
    description: 'One rate per (country, region, category): 409 otherwise. `rate` in basis points (825 = 8.25 %).',
    body: S.CreateTaxRateBody, status: 201, response: S.TaxRateEnvelope, errors: ['CONFLICT'],
    run: ({ store, body }, { tx }) => taxes.createTaxRate(tx, store, body),
  });
  registerCommand(app, {
    method: 'PATCH', url: '/v1/admin/tax-rates/:id', operationId: 'adminUpdateTaxRate', tags, summary: 'Change a tax rate',
    description: 'Orders keep the taxes they were placed with; carts follow at once.',
    params: S.TaxRateParams, body: S.UpdateTaxRateBody, status: 200, response: S.TaxRateEnvelope, errors: ['NOT_FOUND', 'CONFLICT'],
    run: ({ store, params, body }, { tx }) => taxes.updateTaxRate(tx, store, params.id, body),
  });
  registerCommand(app, {
    method: 'DELETE', url: '/v1/admin/tax-rates/:id', operationId: 'adminDeleteTaxRate', tags, summary: 'Delete a tax rate',
    params: S.TaxRateParams, status: 200, response: S.TaxRateEnvelope, errors: ['NOT_FOUND'],
    run: ({ store, params }, { tx }) => taxes.deleteTaxRate(tx, store, params.id),
  });
};

export default taxRateAdminRoutes;
