/**
 * Event SQL: the outbox write (with its webhook deliveries) and the ordered feed.
 *
 * Feed order. `seq` (an identity) is handed out when a row is inserted, not when its transaction
 * commits, so a reader that pages by `seq` alone could step past an event whose transaction
 * commits later with a smaller `seq`. The feed is therefore ordered by (txid, seq), where `txid`
 * is the writing transaction's id, and serves only events of transactions older than the oldest
 * transaction still running (`pg_snapshot_xmin`). Every transaction that has not finished has a
 * txid at or above that horizon, so whatever it commits later sorts after every event already
 * served: a cursor never skips an event. The cost is a short delay while a write is in flight.
 */
import { sql, type SQL } from 'drizzle-orm';
import { besideCounts, besideCtes, checkBeside, jsonb, lastInTransaction, prepared, queryRows, type BesideWrite, type Executor } from '../../db/client.js';
import { SYSTEM_ACTOR, TEST_EVENT_TYPE, type Actor, type EventType } from './types.js';

export interface EventRow {
  id: string;
  type: string;
  store: string;
  createdAt: Date;
  data: unknown;
  actor: Actor;
  txid: string;
  seq: number;
}

/**
 * Records an event in the caller's transaction and, in the same statement, one pending delivery
 * per enabled endpoint of the store subscribed to its type. Answers the event id.
 */
export async function recordEvent(tx: Executor, store: string, type: EventType, data: unknown, actor: Actor = SYSTEM_ACTOR): Promise<string> {
  return (await recordEvents(tx, store, [{ type, data, actor }]))[0]!;
}

/**
 * Records several events in one statement (a transaction of combined orders writes one
 * `order.created` each), in the given order, each with its deliveries. Answers their ids. `last`:
 * the statement is its transaction's last (client.ts `lastInTransaction`). `beside`: the
 * transaction's other writes that depend on no answer (client.ts `BesideWrite`), made in the same
 * statement, even with no event to record.
 */
export async function recordEvents(
  tx: Executor,
  store: string,
  list: Array<{ type: EventType; data: unknown; actor: Actor }>,
  { last = false, beside = [] as BesideWrite[] } = {},
): Promise<string[]> {
  if (list.length === 0 && beside.length === 0) return [];
  const rows = await queryRows<{ id: string | null } & Record<string, unknown>>(
    tx,
    lastInTransaction(last, prepared(sql`with ${besideCtes(beside)}e as (
          insert into events (store, type, data, actor)
          select ${store}, x.type, x.data, x.actor
          from rows from (jsonb_to_recordset(${jsonb(list)}) as (type text, data jsonb, actor jsonb)) with ordinality as x(type, data, actor, n)
          order by x.n
          returning id, type),
        d as (insert into webhook_deliveries (store, endpoint_id, event_id)
              select ${store}, w.id, e.id from e join webhook_endpoints w
                on w.store = ${store} and not w.disabled and (e.type = any(w.events) or '*' = any(w.events)))
        select e.id${besideCounts(beside)} from (values (1)) as statement left join e on true`)),
  );
  // One row at least (with no event, its id is null), to carry the other writes' counts.
  checkBeside(beside, rows[0]!);
  return rows.flatMap((r) => (r.id === null ? [] : [r.id]));
}

/**
 * `recordEvents` for the events of several stores (a round of requests of many stores), with one
 * statement: each store's events in their order, each delivered to its own store's endpoints.
 */
export async function recordStoreEvents(tx: Executor, list: Array<{ store: string; type: EventType; data: unknown; actor: Actor }>, { last = false } = {}): Promise<void> {
  if (list.length === 0) return;
  await tx.execute(
    lastInTransaction(last, prepared(sql`with e as (
          insert into events (store, type, data, actor)
          select x.store, x.type, x.data, x.actor
          from rows from (jsonb_to_recordset(${jsonb(list)}) as (store text, type text, data jsonb, actor jsonb)) with ordinality as x(store, type, data, actor, n)
          order by x.n
          returning id, type, store)
        insert into webhook_deliveries (store, endpoint_id, event_id)
        select e.store, w.id, e.id from e join webhook_endpoints w
          on w.store = e.store and not w.disabled and (e.type = any(w.events) or '*' = any(w.events))`)),
  );
}

/** A `webhook.test` event with one delivery, to that endpoint only. */
export async function recordTestEvent(tx: Executor, store: string, endpointId: string, data: unknown, actor: Actor = SYSTEM_ACTOR): Promise<EventRow> {
  const [row] = await queryRows<EventRow>(
    tx,
    sql`with e as (insert into events (store, type, data, actor) values (${store}, ${TEST_EVENT_TYPE}, ${jsonb(data)}, ${jsonb(actor)})
                   returning id, type, store, created_at as "createdAt", data, actor, txid::text as txid, seq),
        d as (insert into webhook_deliveries (store, endpoint_id, event_id) select ${store}, ${endpointId}, e.id from e)
        select * from e`,
  );
  return row!;
}

export interface FeedQuery {
  store: string;
  after?: { txid: string; seq: number };
  types?: string[];
  limit: number;
  retentionDays: number;
}

/** The next events of the feed, oldest first, only from finished transactions (see above). */
export async function feedEvents(db: Executor, query: FeedQuery): Promise<EventRow[]> {
  const where: SQL[] = [
    sql`store = ${query.store}`,
    sql`type <> ${TEST_EVENT_TYPE}`,
    sql`created_at > now() - make_interval(days => ${query.retentionDays})`,
    sql`txid < pg_snapshot_xmin(pg_current_snapshot())`,
  ];
  if (query.after) where.push(sql`(txid, seq) > (${query.after.txid}::xid8, ${query.after.seq})`);
  if (query.types?.length) where.push(sql`type in (${sql.join(query.types.map((t) => sql`${t}`), sql`, `)})`);
  return queryRows<EventRow>(
    db,
    sql`select id, type, store, created_at as "createdAt", data, actor, txid::text as txid, seq from events
        where ${sql.join(where, sql` and `)} order by txid, seq limit ${query.limit}`,
  );
}

/** Deletes events past the retention (their deliveries go with them); answers how many. */
export async function purgeOldEvents(db: Executor, retentionDays: number): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    db,
    sql`with gone as (delete from events where created_at < now() - make_interval(days => ${retentionDays}) returning 1) select count(*)::int as n from gone`,
  );
  return rows[0]?.n ?? 0;
}
