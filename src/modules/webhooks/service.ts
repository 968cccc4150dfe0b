/** Webhook endpoint administration (HTTP and CLI): create, read, change, delete, rotate, test, the delivery log. */
import type { Executor } from '../../db/client.js';
import { toIso, toIsoOrNull } from '../../lib/time.js';
import { AppError } from '../../plugins/errors.js';
import { eventView, recordTestEvent, type Actor } from '../events/index.js';
import * as deliveries from './deliveries-repository.js';
import * as repo from './repository.js';
import type { CreateWebhookBody, DeliveryListQuery, DeliveryView, UpdateWebhookBody, WebhookView } from './schemas.js';
import { newWebhookSecret } from './signing.js';
import { resolveWebhookTarget } from './url-policy.js';

/** How long a rotated-out secret still signs, so receivers can switch without losing a delivery. */
export const SECRET_OVERLAP_SECONDS = 24 * 3600;

export interface WebhookPolicy {
  allowPrivateNetworks: boolean;
}

function webhookView(row: repo.EndpointRow): WebhookView {
  return { id: row.id, url: row.url, events: row.events, description: row.description, disabled: row.disabled, createdAt: toIso(row.createdAt), updatedAt: toIso(row.updatedAt) };
}

function deliveryView(row: deliveries.DeliveryRow): DeliveryView {
  return {
    id: row.id, eventId: row.eventId, type: row.type, status: row.status, attempts: row.attempts, lastStatusCode: row.lastStatusCode, lastError: row.lastError,
    nextAttemptAt: row.status === 'pending' ? toIso(row.nextAttemptAt) : null, deliveredAt: toIsoOrNull(row.deliveredAt), createdAt: toIso(row.createdAt),
  };
}

const normalizeEvents = (events: string[]) => (events.includes('*') ? ['*'] : [...new Set(events)]);

async function endpointOr404(db: Executor, store: string, id: string) {
  const row = await repo.findEndpoint(db, store, id);
  if (!row) throw new AppError('NOT_FOUND', `webhook ${id} not found`);
  return row;
}

/** Creates an endpoint; the answer holds its secret, shown this once. */
export async function createWebhook(db: Executor, store: string, body: CreateWebhookBody, policy: WebhookPolicy) {
  await resolveWebhookTarget(body.url, policy.allowPrivateNetworks);
  const secret = newWebhookSecret();
  const row = await repo.insertEndpoint(db, store, { url: body.url, events: normalizeEvents(body.events), description: body.description ?? '', secret });
  return { webhook: webhookView(row), secret };
}

export async function listWebhooks(db: Executor, store: string) {
  const rows = await repo.listEndpoints(db, store);
  return { webhooks: rows.map(webhookView), total: rows.length };
}

export async function getWebhook(db: Executor, store: string, id: string) {
  return { webhook: webhookView(await endpointOr404(db, store, id)) };
}

export async function updateWebhook(db: Executor, store: string, id: string, body: UpdateWebhookBody, policy: WebhookPolicy) {
  if (body.url !== undefined) await resolveWebhookTarget(body.url, policy.allowPrivateNetworks);
  const row = await repo.updateEndpoint(db, store, id, { ...body, events: body.events && normalizeEvents(body.events) });
  if (!row) throw new AppError('NOT_FOUND', `webhook ${id} not found`);
  return { webhook: webhookView(row) };
}

/** Deletes the endpoint and its delivery log; nothing more is sent to it. */
export async function deleteWebhook(db: Executor, store: string, id: string) {
  const row = await repo.deleteEndpoint(db, store, id);
  if (!row) throw new AppError('NOT_FOUND', `webhook ${id} not found`);
  return { webhook: webhookView(row) };
}

/** A new secret; the previous one also signs for 24 hours. */
export async function rotateWebhookSecret(db: Executor, store: string, id: string) {
  const secret = newWebhookSecret();
  if (!(await repo.rotateSecret(db, store, id, secret, SECRET_OVERLAP_SECONDS))) throw new AppError('NOT_FOUND', `webhook ${id} not found`);
  return { secret };
}

/** Queues a `webhook.test` event for this endpoint only (not in the feed). */
export async function sendTestEvent(db: Executor, store: string, id: string, actor?: Actor) {
  const endpoint = await endpointOr404(db, store, id);
  const row = await recordTestEvent(db, store, endpoint.id, { webhook: webhookView(endpoint) }, actor);
  return { event: eventView(row) };
}

export async function listWebhookDeliveries(db: Executor, store: string, id: string, query: DeliveryListQuery) {
  await endpointOr404(db, store, id);
  const { rows, total } = await deliveries.listDeliveries(db, store, id, { status: query.status, limit: query.limit ?? 50, offset: query.offset ?? 0 });
  return { deliveries: rows.map(deliveryView), total };
}

/** Sends a failed delivery once more (an attempt of its own; if it fails, it is failed again). */
export async function retryDelivery(db: Executor, store: string, id: string, deliveryId: string) {
  await endpointOr404(db, store, id);
  const found = await deliveries.findDelivery(db, store, id, deliveryId);
  if (!found) throw new AppError('NOT_FOUND', `delivery ${deliveryId} not found`);
  if (!(await deliveries.requeueFailedDelivery(db, store, id, deliveryId))) {
    throw new AppError('CONFLICT', `delivery ${deliveryId} is ${found.status}; only a failed delivery can be retried`);
  }
  return { delivery: deliveryView((await deliveries.findDelivery(db, store, id, deliveryId))!) };
}
