import { Type, type Static } from '@sinclair/typebox';
import { Limit, Nullable, NullableTimestamp, Offset, StringEnum, Timestamp, Uuid } from '../../lib/http-schemas.js';
import { Event, EVENT_TYPES } from '../events/index.js';

const EventSelector = StringEnum([...EVENT_TYPES, '*'] as const, { description: 'an event type, or `*` for every type' });
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'https URL that receives the events', examples: ['https://example.com/hooks/storefront'] });
const Events = Type.Array(EventSelector, { minItems: 1, maxItems: 20, description: 'the event types to send, or `["*"]`' });
const Description = Type.String({ maxLength: 500, description: 'free text for the operator' });

export const Webhook = Type.Object({
  id: Uuid('webhook endpoint id'),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Type.String(),
  disabled: Type.Boolean({ description: 'true: nothing is sent (set by hand, or after WEBHOOK_DISABLE_AFTER_HOURS of failures)' }),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
});
export type WebhookView = Static<typeof Webhook>;

const Secret = Type.String({ description: 'Standard Webhooks secret `whsec_<base64>`, shown only here', examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] });

export const CreateWebhookBody = Type.Object({ url: Url, events: Events, description: Type.Optional(Description) }, { additionalProperties: false });
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;
export const UpdateWebhookBody = Type.Object(
  { url: Type.Optional(Url), events: Type.Optional(Events), description: Type.Optional(Description), disabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;

export const WebhookParams = Type.Object({ id: Uuid('webhook endpoint id') });
export const DeliveryParams = Type.Object({ id: Uuid('webhook endpoint id'), deliveryId: Uuid('delivery id') });

export const WebhookEnvelope = Type.Object({ webhook: Webhook });
export const CreatedWebhook = Type.Object({ webhook: Webhook, secret: Secret });
export const WebhookList = Type.Object({ webhooks: Type.Array(Webhook), total: Type.Integer() });
export const RotatedSecret = Type.Object({ secret: Secret });
export const TestEventAccepted = Type.Object({ event: Event });

const DeliveryStatus = StringEnum(['pending', 'delivered', 'failed'] as const);
export const Delivery = Type.Object({
  id: Uuid('delivery id'),
  eventId: Uuid('the event, and the `webhook-id` header'),
  type: Type.String(),
  status: DeliveryStatus,
  attempts: Type.Integer({ description: 'attempts made so far' }),
  lastStatusCode: Nullable('integer', { description: "the receiver's last HTTP status, null if it did not answer" }),
  lastError: Nullable('string'),
  nextAttemptAt: NullableTimestamp('when the next attempt is due (pending only)'),
  deliveredAt: NullableTimestamp(),
  createdAt: Timestamp(),
});
export type DeliveryView = Static<typeof Delivery>;
export const DeliveryList = Type.Object({ deliveries: Type.Array(Delivery), total: Type.Integer() });
export const DeliveryEnvelope = Type.Object({ delivery: Delivery });
export const DeliveryListQuery = Type.Object({ status: Type.Optional(DeliveryStatus), limit: Limit, offset: Offset }, { additionalProperties: false });
export type DeliveryListQuery = Static<typeof DeliveryListQuery>;
