/**
 * Customer credentials of the storefront API: customer tokens minted by a shop's back end (server
 * or admin token), guest sessions (the public storefront token may start them), and a customer
 * token revoking itself. Who may call each route is in src/plugins/access-table.ts.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { registerCommand } from '../../plugins/commands.js';
import { AppError } from '../../plugins/errors.js';
import { errorResponses } from '../../lib/http-schemas.js';
import * as S from './schemas.js';
import * as customers from './service.js';

const tags = ['customers'];

const customerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  registerCommand(app, {
    method: 'POST', url: '/v1/customer-tokens', operationId: 'mintCustomerToken', tags, summary: 'Mint a customer token (server or admin token)',
    description: 'A short-lived token bound to one customer of the store: it reaches that customer\'s addresses and orders, the catalog and carts.',
    body: S.MintCustomerTokenBody, status: 201, response: S.MintedCustomerToken, errors: [],
    run: ({ store, body }, { tx }) => customers.mintCustomerToken(tx, store, body.customerId, body.ttlSeconds ?? 3600),
  });
  registerCommand(app, {
    method: 'DELETE', url: '/v1/customer-tokens/current', operationId: 'revokeCurrentCustomerToken', tags, summary: 'Sign out: the customer token revokes itself',
    status: 200, response: S.CustomerTokenEnvelope, errors: [],
    run: ({ principal }, { tx }) => {
      if (principal?.kind !== 'customer' || principal.tokenId === null) throw new AppError('FORBIDDEN', 'only a customer token can revoke itself');
      return customers.revokeCustomerToken(tx, principal.store, principal.tokenId);
    },
  });
  registerCommand(app, {
    method: 'DELETE', url: '/v1/customer-tokens/:id', operationId: 'revokeCustomerToken', tags, summary: 'Revoke one customer token; it stops working at once',
    params: S.TokenParams, status: 200, response: S.CustomerTokenEnvelope, errors: ['NOT_FOUND'],
    run: ({ store, params }, { tx }) => customers.revokeCustomerToken(tx, store, params.id),
  });
  registerCommand(app, {
    method: 'DELETE', url: '/v1/customer-tokens', operationId: 'revokeAllCustomerTokens', tags, summary: 'Revoke every token of a customer (sign out everywhere)',
    querystring: S.RevokeAllQuery, status: 200, response: S.RevokedCount, errors: [],
    run: ({ store, query }, { tx }) => customers.signOutEverywhere(tx, store, query.customerId),
  });
  registerCommand(app, {
    method: 'POST', url: '/v1/guest-sessions', operationId: 'createGuestSession', tags, summary: 'Start a guest session (no body)',
    description: 'For a shop with no back end: a new random customer id and a customer token for it, valid GUEST_SESSION_TTL_SECONDS. Limited per store and client address (GUEST_SESSIONS_PER_MINUTE).',
    status: 201, response: S.GuestSession, errors: [], limit: 'guest-sessions',
    run: ({ store, body }, { tx }) => {
      if (body !== undefined && (typeof body !== 'object' || body === null || Object.keys(body).length > 0)) {
        throw new AppError('VALIDATION_FAILED', 'POST /v1/guest-sessions takes no body');
      }
      return customers.startGuestSession(tx, store, app.config.guestSessionTtlSeconds);
    },
  });
};

export default customerRoutes;
