/**
 * Customer credentials of the storefront API: customer tokens minted by a shop's back end (server
 * or admin token), guest sessions (the public storefront token may start them), and a customer
 * token revoking itself. Who may call each route is in src/plugins/access-table.ts.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/authentication.js';
import { AppError } from '../../plugins/errors.js';
import { errorResponses } from '../../lib/http-schemas.js';
import * as S from './schemas.js';
import * as customers from './service.js';

const tags = ['customers'];

const customerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/customer-tokens',
    {
      schema: {
        operationId: 'mintCustomerToken', tags, summary: 'Mint a customer token (server or admin token)',
        description: 'A short-lived token bound to one customer of the store: it reaches that customer\'s addresses and orders, the catalog and carts.',
        body: S.MintCustomerTokenBody, response: { 201: S.MintedCustomerToken, ...errorResponses([]) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await customers.mintCustomerToken(app.db, storeOf(request), request.body.customerId, request.body.ttlSeconds ?? 3600)),
  );
  app.delete(
    '/v1/customer-tokens/current',
    {
      schema: {
        operationId: 'revokeCurrentCustomerToken', tags, summary: 'Sign out: the customer token revokes itself',
        response: { 200: S.CustomerTokenEnvelope, ...errorResponses([]) },
      },
    },
    async (request) => {
      const principal = request.principal;
      if (principal?.kind !== 'customer' || principal.tokenId === null) throw new AppError('FORBIDDEN', 'only a customer token can revoke itself');
      return customers.revokeCustomerToken(app.db, principal.store, principal.tokenId);
    },
  );
  app.delete(
    '/v1/customer-tokens/:id',
    {
      schema: {
        operationId: 'revokeCustomerToken', tags, summary: 'Revoke one customer token; it stops working at once',
        params: S.TokenParams, response: { 200: S.CustomerTokenEnvelope, ...errorResponses(['NOT_FOUND']) },
      },
    },
    async (request) => customers.revokeCustomerToken(app.db, storeOf(request), request.params.id),
  );
  app.delete(
    '/v1/customer-tokens',
    {
      schema: {
        operationId: 'revokeAllCustomerTokens', tags, summary: "Revoke every token of a customer (sign out everywhere)",
        querystring: S.RevokeAllQuery, response: { 200: S.RevokedCount, ...errorResponses([]) },
      },
    },
    async (request) => customers.signOutEverywhere(app.db, storeOf(request), request.query.customerId),
  );
  app.post(
    '/v1/guest-sessions',
    {
      config: { extraLimit: 'guest-sessions' },
      schema: {
        operationId: 'createGuestSession', tags, summary: 'Start a guest session (no body)',
        description: 'For a shop with no back end: a new random customer id and a customer token for it, valid GUEST_SESSION_TTL_SECONDS. Limited per store and client address (GUEST_SESSIONS_PER_MINUTE).',
        response: { 201: S.GuestSession, ...errorResponses([]) },
      },
    },
    async (request, reply) => {
      if (request.body !== undefined && (typeof request.body !== 'object' || request.body === null || Object.keys(request.body).length > 0)) {
        throw new AppError('VALIDATION_FAILED', 'POST /v1/guest-sessions takes no body');
      }
      return reply.code(201).send(await customers.startGuestSession(app.db, storeOf(request), app.config.guestSessionTtlSeconds));
    },
  );
};

export default customerRoutes;
