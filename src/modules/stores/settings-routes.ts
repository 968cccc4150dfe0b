/** Store settings: GET /v1/store (every token of the store) and PATCH /v1/admin/store. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/authentication.js';
import { registerCommand } from '../../plugins/commands.js';
import { errorResponses } from '../../lib/http-schemas.js';
import * as settings from './settings.js';

const storeSettingsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/store',
    {
      schema: {
        operationId: 'getStore', tags: ['store'], summary: "The store's settings: currency, tax, payment providers",
        response: { 200: settings.StoreSettingsEnvelope, ...errorResponses([]) },
      },
    },
    async (request) => settings.getStoreSettings(app.db, storeOf(request)),
  );
  registerCommand(app, {
    method: 'PATCH', url: '/v1/admin/store', operationId: 'adminUpdateStore', tags: ['admin'], summary: "Change the store's settings",
    description: '`currency` an ISO 4217 code the runtime knows (else 400); prices stay integers in its smallest unit.',
    body: settings.UpdateStoreBody, status: 200, response: settings.StoreSettingsEnvelope, errors: [],
    run: ({ store, body }, { tx }) => settings.updateStoreSettings(tx, store, body),
  });
};

export default storeSettingsRoutes;
