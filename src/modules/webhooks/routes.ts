/** Webhook endpoints under /v1/admin/webhooks. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/authentication.js';
import { registerCommand } from '../../plugins/commands.js';
import { errorResponses } from '../../lib/http-schemas.js';
import * as S from './schemas.js';
import * as admin from './service.js';

const tags = ['admin'];

const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const policy = { allowPrivateNetworks: app.config.allowPrivateNetworks };
  registerCommand(app, {
    method: 'POST', url: '/v1/admin/webhooks', operationId: 'adminCreateWebhook', tags, summary: 'Create a webhook endpoint',
    description: 'The answer holds the signing secret, shown only this once.',
    body: S.CreateWebhookBody, status: 201, response: S.CreatedWebhook, errors: ['WEBHOOK_URL_NOT_ALLOWED'],
    run: ({ store, body }, { tx }) => admin.createWebhook(tx, store, body, policy),
  });
  app.get(
    '/v1/admin/webhooks',
    { schema: { operationId: 'adminListWebhooks', tags, summary: 'List webhook endpoints', response: { 200: S.WebhookList, ...errorResponses([]) } } },
    async (request) => admin.listWebhooks(app.db, storeOf(request)),
  );
  app.get(
    '/v1/admin/webhooks/:id',
    { schema: { operationId: 'adminGetWebhook', tags, summary: 'Get a webhook endpoint', params: S.WebhookParams, response: { 200: S.WebhookEnvelope, ...errorResponses(['NOT_FOUND']) } } },
    async (request) => admin.getWebhook(app.db, storeOf(request), request.params.id),
  );
  registerCommand(app, {
    method: 'PATCH', url: '/v1/admin/webhooks/:id', operationId: 'adminUpdateWebhook', tags, summary: 'Change, disable or enable a webhook endpoint',
    params: S.WebhookParams, body: S.UpdateWebhookBody, status: 200, response: S.WebhookEnvelope, errors: ['NOT_FOUND', 'WEBHOOK_URL_NOT_ALLOWED'],
    run: ({ store, params, body }, { tx }) => admin.updateWebhook(tx, store, params.id, body, policy),
  });
  registerCommand(app, {
    method: 'DELETE', url: '/v1/admin/webhooks/:id', operationId: 'adminDeleteWebhook', tags, summary: 'Delete a webhook endpoint and its delivery log',
    params: S.WebhookParams, status: 200, response: S.WebhookEnvelope, errors: ['NOT_FOUND'],
    run: ({ store, params }, { tx }) => admin.deleteWebhook(tx, store, params.id),
  });
  registerCommand(app, {
    method: 'POST', url: '/v1/admin/webhooks/:id/rotate-secret', operationId: 'adminRotateWebhookSecret', tags, summary: 'Rotate the signing secret',
    description: 'The previous secret also signs for 24 hours (two signatures in `webhook-signature`).',
    params: S.WebhookParams, status: 200, response: S.RotatedSecret, errors: ['NOT_FOUND'],
    run: ({ store, params }, { tx }) => admin.rotateWebhookSecret(tx, store, params.id),
  });
  registerCommand(app, {
    method: 'POST', url: '/v1/admin/webhooks/:id/test', operationId: 'adminTestWebhook', tags, summary: 'Send a webhook.test event to this endpoint',
    description: 'Queued (202); it is not in the events feed.',
    params: S.WebhookParams, status: 202, response: S.TestEventAccepted, errors: ['NOT_FOUND'],
    run: ({ store, params }, { tx, actor }) => admin.sendTestEvent(tx, store, params.id, actor),
  });
  app.get(
    '/v1/admin/webhooks/:id/deliveries',
    {
      schema: {
        operationId: 'adminListWebhookDeliveries', tags, summary: 'The delivery log of an endpoint (newest first)', params: S.WebhookParams, querystring: S.DeliveryListQuery,
        response: { 200: S.DeliveryList, ...errorResponses(['NOT_FOUND']) },
      },
    },
    async (request) => admin.listWebhookDeliveries(app.db, storeOf(request), request.params.id, request.query),
  );
  registerCommand(app, {
    method: 'POST', url: '/v1/admin/webhooks/:id/deliveries/:deliveryId/retry', operationId: 'adminRetryWebhookDelivery', tags, summary: 'Send a failed delivery again',
    description: 'Queued (202) for one more attempt; only a failed delivery (409 otherwise).',
    params: S.DeliveryParams, status: 202, response: S.DeliveryEnvelope, errors: ['NOT_FOUND', 'CONFLICT'],
    run: ({ store, params }, { tx }) => admin.retryDelivery(tx, store, params.id, params.deliveryId),
  });
};

export default webhookRoutes;
