/** Customer addresses: POST and GET /v1/:customer/addresses. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/authentication.js';
import { CustomerParams, errorResponses } from '../../lib/http-schemas.js';
import { AddressEnvelope, AddressList, AddressListQuery, CreateAddressBody } from './schemas.js';
import * as addresses from './service.js';

const tags = ['addresses'];

const addressRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/:customer/addresses',
    {
      config: { idempotent: true },
      schema: {
        operationId: 'createAddress', tags, summary: 'Create an address of the customer',
        description: 'Required: zipcode, street, number, city, state, country; optional (default ""): alias, neightborhood, complement.',
        params: CustomerParams, body: CreateAddressBody,
        response: { 201: AddressEnvelope, ...errorResponses(['IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_USE']) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await addresses.createAddress(app.db, storeOf(request), request.params.customer, request.body.address, request.idempotency)),
  );
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
