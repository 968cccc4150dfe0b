/** Webhook endpoints under /v1/admin/webhooks. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/authentication.js';
import { errorResponses } from '../../lib/http-schemas.js';
import * as S from './schemas.js';
import * as admin from './service.js';

const tags = ['admin'];

const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const policy = { allowPrivateNetworks: app.config.allowPrivateNetworks };
  app.post(
    '/v1/admin/webhooks',
    {
      schema: {
        operationId: 'adminCreateWebhook', tags, summary: 'Create a webhook endpoint', description: 'The answer holds the signing secret, shown only this once.',
        body: S.CreateWebhookBody, response: { 201: S.CreatedWebhook, ...errorResponses(['WEBHOOK_URL_NOT_ALLOWED']) },
      },
    },
    async (request, reply) => reply.code(201).send(await admin.createWebhook(app.db, storeOf(request), request.body, policy)),
  );
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
  app.patch(
    '/v1/admin/webhooks/:id',
    {
      schema: {
        operationId: 'adminUpdateWebhook', tags, summary: 'Change, disable or enable a webhook endpoint', params: S.WebhookParams, body: S.UpdateWebhookBody,
        response: { 200: S.WebhookEnvelope, ...errorResponses(['NOT_FOUND', 'WEBHOOK_URL_NOT_ALLOWED']) },
      },
    },
    async (request) => admin.updateWebhook(app.db, storeOf(request), request.params.id, request.body, policy),
  );
  app.delete(
    '/v1/admin/webhooks/:id',
    { schema: { operationId: 'adminDeleteWebhook', tags, summary: 'Delete a webhook endpoint and its delivery log', params: S.WebhookParams, response: { 200: S.WebhookEnvelope, ...errorResponses(['NOT_FOUND']) } } },
    async (request) => admin.deleteWebhook(app.db, storeOf(request), request.params.id),
  );
  app.post(
    '/v1/admin/webhooks/:id/rotate-secret',
    {
      schema: {
        operationId: 'adminRotateWebhookSecret', tags, summary: 'Rotate the signing secret', description: 'The previous secret also signs for 24 hours (two signatures in `webhook-signature`).',
        params: S.WebhookParams, response: { 200: S.RotatedSecret, ...errorResponses(['NOT_FOUND']) },
      },
    },
    async (request) => admin.rotateWebhookSecret(app.db, storeOf(request), request.params.id),
  );
  app.post(
    '/v1/admin/webhooks/:id/test',
    {
      schema: {
        operationId: 'adminTestWebhook', tags, summary: 'Send a webhook.test event to this endpoint', description: 'Queued (202); it is not in the events feed.',
        params: S.WebhookParams, response: { 202: S.TestEventAccepted, ...errorResponses(['NOT_FOUND']) },
      },
    },
    async (request, reply) => reply.code(202).send(await admin.sendTestEvent(app.db, storeOf(request), request.params.id)),
  );
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
  app.post(
    '/v1/admin/webhooks/:id/deliveries/:deliveryId/retry',
    {
      schema: {
        operationId: 'adminRetryWebhookDelivery', tags, summary: 'Send a failed delivery again', description: 'Queued (202) for one more attempt; only a failed delivery (409 otherwise).',
        params: S.DeliveryParams, response: { 202: S.DeliveryEnvelope, ...errorResponses(['NOT_FOUND', 'CONFLICT']) },
      },
    },
    async (request, reply) => reply.code(202).send(await admin.retryDelivery(app.db, storeOf(request), request.params.id, request.params.deliveryId)),
  );
};

export default webhookRoutes;
