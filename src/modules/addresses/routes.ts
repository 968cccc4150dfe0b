/** Customer addresses: POST and GET /v1/:customer/addresses. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/authentication.js';
import { registerCommand } from '../../plugins/commands.js';
import { CustomerParams, errorResponses } from '../../lib/http-schemas.js';
import { AddressEnvelope, AddressList, AddressListQuery, CreateAddressBody } from './schemas.js';
import * as addresses from './service.js';

const tags = ['addresses'];

const addressRoutes: FastifyPluginAsyncTypebox = async (app) => {
  registerCommand(app, {
    method: 'POST', url: '/v1/:customer/addresses', operationId: 'createAddress', tags, summary: 'Create an address of the customer',
    description: 'Required: zipcode, street, number, city, state, country; optional (default ""): alias, neightborhood, complement, name (the recipient), phone.',
    params: CustomerParams, body: CreateAddressBody, status: 201, response: AddressEnvelope, errors: [], idempotent: true,
    run: ({ store, params, body }, { tx }) => addresses.createAddress(tx, store, params.customer, body.address),
  });
  app.get(
    '/v1/:customer/addresses',
    {
      schema: {
        operationId: 'listAddresses', tags, summary: "List the customer's addresses (newest first)",
        params: CustomerParams, querystring: AddressListQuery, response: { 200: AddressList, ...errorResponses([]) },
      },
    },
    async (request) => addresses.listAddresses(app.db, storeOf(request), request.params.customer, request.query),
  );
};

export default addressRoutes;
