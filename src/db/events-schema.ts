/**
 * Events (the transactional outbox) and webhooks. Kept apart from schema.ts so each file stays
 * readable; drizzle.config.ts lists both. Like every table, keys lead with `store`.
 */
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, customType, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { stores } from './schema.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });
const store = () => text('store').notNull().references(() => stores.slug);
const xid8 = customType<{ data: string }>({ dataType: () => 'xid8' });

/**
 * Every change worth telling, written in the transaction of the change. `seq` orders the feed
 * within a transaction; `txid` (the writing transaction) orders it between transactions, so a
 * reader never pages past an event whose transaction commits later (see events/repository.ts).
 * `webhook.test` events live here too, for their deliveries, but are not in the feed.
 */
export const events = pgTable(
  'events',
  {
    store: store(),
    seq: bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity().notNull(),
    id: uuid('id').notNull().default(sql`uuid_v7()`),
    txid: xid8('txid').notNull().default(sql`pg_current_xact_id()`),
    type: text('type').notNull(),
    data: jsonb('data').notNull(),
    /** Who made the change: `{type: "staff", id, email}`, `{type: "token", id}`, `{type: "customer", id}` or `{type: "system"}`. */
    actor: jsonb('actor').notNull().default(sql`'{"type":"system"}'::jsonb`),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.id] }),
    index('events_store_feed_idx').on(t.store, t.txid, t.seq),
    index('events_created_at_idx').on(t.createdAt),
  ],
);

/** Where a store's events are sent. The secret is kept to sign; the previous one signs until it expires. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    store: store(),
    id: uuid('id').notNull().default(sql`uuid_v7()`),
    url: text('url').notNull(),
    events: text('events').array().notNull(),
    description: text('description').notNull().default(''),
    disabled: boolean('disabled').notNull().default(false),
    secret: text('secret').notNull(),
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: ts('previous_secret_expires_at'),
    /** Since when every attempt has failed (null after a success); drives automatic disabling. */
    failingSince: ts('failing_since'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.store, t.id] })],
);

/**
 * One row per (endpoint, event), created with the event. Claiming an attempt sets `leased_until`
 * to the end of the sender's lease and a fresh `lock_token`: no other process picks it up
 * meanwhile, an attempt of a process that died is due again once the lease has passed, and only
 * the holder of the token may write the attempt's outcome. The lease is its own column, not
 * `next_attempt_at`, so a claim changes no indexed column: it is a HOT update that leaves the due
 * index alone (moving `next_attempt_at` on every claim filled that index with dead entries, and a
 * claim during a backlog drain took 13 ms, one claim at a time).
 * No foreign key to the endpoint: its check would share-lock the endpoint row in every order
 * transaction (a hot row under load); deleting an endpoint deletes its deliveries itself.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    store: store(),
    id: uuid('id').notNull().default(sql`uuid_v7()`),
    endpointId: uuid('endpoint_id').notNull(),
    eventId: uuid('event_id').notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at').notNull().defaultNow(),
    /** The end of the current attempt's lease: no index holds it, so a claim is a HOT update (fillfactor 80, migration 0006). */
    leasedUntil: ts('leased_until'),
    lockToken: uuid('lock_token'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    deliveredAt: ts('delivered_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.id] }),
    foreignKey({ columns: [t.store, t.eventId], foreignColumns: [events.store, events.id] }).onDelete('cascade'),
    // One delivery per event and endpoint; led by the event, it also serves the cascade from a
    // purged event, so no second index on (store, event_id) is written with every delivery.
    uniqueIndex('webhook_deliveries_event_endpoint_key').on(t.store, t.eventId, t.endpointId),
    index('webhook_deliveries_endpoint_created_idx').on(t.store, t.endpointId, t.createdAt.desc()),
    index('webhook_deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    check('webhook_deliveries_status_check', sql`${t.status} in ('pending', 'delivered', 'failed')`),
  ],
);
