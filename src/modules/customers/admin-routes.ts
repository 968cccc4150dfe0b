/** The store's identity provider for customer JWTs: PUT, GET and DELETE /v1/admin/customer-auth. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/authentication.js';
import { registerCommand } from '../../plugins/commands.js';
import { errorResponses } from '../../lib/http-schemas.js';
import * as S from './schemas.js';
import * as customers from './service.js';

const tags = ['admin'];

const customerAuthAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const policy = { allowPrivateNetworks: app.config.allowPrivateNetworks, sharedJwtIssuers: app.config.sharedJwtIssuers };
  // Said at start: registrations that stopped working when each issuer got one owner.
  app.addHook('onReady', async () => {
    const conflicts = await customers.issuersOfSeveralStores(app.db, policy).catch(() => []);
    for (const line of conflicts) app.log.warn({ event: 'jwt_issuer_of_several_stores' }, line);
  });
  registerCommand(app, {
    method: 'PUT', url: '/v1/admin/customer-auth', operationId: 'adminSetCustomerAuth', tags, summary: "Accept JWTs of the store's own identity provider",
    description: 'Bearer JWTs with this `iss` and `aud` are verified with the JWK Set (RS256, ES256 or EdDSA; `exp` required; `sub` a UUID, the customer id). Exactly one of jwksUrl and jwks. An issuer belongs to one store: 409 if another store registered it (for an issuer listed in SHARED_JWT_ISSUERS, if another store registered it with this audience).',
    body: S.CustomerAuthBody, status: 200, response: S.CustomerAuthEnvelope, errors: ['CONFLICT'],
    run: ({ store, body }, { tx }) => customers.configureCustomerAuth(tx, store, body, policy),
  });
  app.get(
    '/v1/admin/customer-auth',
    { schema: { operationId: 'adminGetCustomerAuth', tags, summary: 'Read the identity-provider settings', response: { 200: S.CustomerAuthEnvelope, ...errorResponses(['NOT_FOUND']) } } },
    async (request) => customers.readCustomerAuth(app.db, storeOf(request)),
  );
  registerCommand(app, {
    method: 'DELETE', url: '/v1/admin/customer-auth', operationId: 'adminDeleteCustomerAuth', tags, summary: 'Stop accepting identity-provider JWTs',
    status: 200, response: S.CustomerAuthEnvelope, errors: ['NOT_FOUND'],
    run: ({ store }, { tx }) => customers.removeCustomerAuth(tx, store),
  });
};

export default customerAuthAdminRoutes;
