/** The event types of docs/api.md ("Events and webhooks"); `webhook.test` is only ever sent, never in the feed. */
export const EVENT_TYPES = [
  'order.created',
  'order.paid',
  'order.fulfilled',
  'order.cancelled',
  'order.refunded',
  'fulfillment.created',
  'payment.created',
  'payment.succeeded',
  'payment.failed',
  'payment.refunded',
  'product.created',
  'product.updated',
  'product.deleted',
  'product.out_of_stock',
  'product.back_in_stock',
  'collection.created',
  'collection.updated',
  'collection.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const TEST_EVENT_TYPE = 'webhook.test';
