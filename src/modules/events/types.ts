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

/**
 * Who made a change (the audit trail): a staff member, a store token, a customer (a customer
 * credential or a guest), or the system (jobs, the CLI, the demo seed, payment providers' webhooks).
 */
export type Actor = { type: 'staff'; id: string; email: string } | { type: 'token'; id: string } | { type: 'customer'; id: string } | { type: 'system' };
export const SYSTEM_ACTOR: Actor = { type: 'system' };
