/**
 * Delivery SQL: the delivery log, and the claim and outcome of attempts. A claim takes due rows
 * with FOR UPDATE SKIP LOCKED, so processes never wait on or take each other's rows, and leases
 * them with a fresh token (see events-schema.ts).
 */
import { sql } from 'drizzle-orm';
import { jsonb, queryRows, type Database, type Executor } from '../../db/client.js';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRow {
  id: string;
  eventId: string;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: Date;
  deliveredAt: Date | null;
  createdAt: Date;
}

const logColumns = sql.raw(
  `d.id, d.event_id as "eventId", e.type, d.status, d.attempts, d.last_status_code as "lastStatusCode", d.last_error as "lastError", ` +
    `greatest(d.next_attempt_at, d.leased_until) as "nextAttemptAt", d.delivered_at as "deliveredAt", d.created_at as "createdAt"`,
);

export async function listDeliveries(db: Executor, store: string, endpointId: string, page: { status?: DeliveryStatus; limit: number; offset: number }) {
  const status = page.status ? sql`and d.status = ${page.status}` : sql``;
  const [rows, [count]] = await Promise.all([
    queryRows<DeliveryRow>(
      db,
      sql`select ${logColumns} from webhook_deliveries d join events e on e.store = d.store and e.id = d.event_id
          where d.store = ${store} and d.endpoint_id = ${endpointId} ${status}
          order by d.created_at desc, d.id desc limit ${page.limit} offset ${page.offset}`,
    ),
    queryRows<{ n: number }>(db, sql`select count(*)::int as n from webhook_deliveries d where d.store = ${store} and d.endpoint_id = ${endpointId} ${status}`),
  ]);
  return { rows, total: count?.n ?? 0 };
}

export async function findDelivery(db: Executor, store: string, endpointId: string, id: string): Promise<DeliveryRow | undefined> {
  const [row] = await queryRows<DeliveryRow>(
    db,
    sql`select ${logColumns} from webhook_deliveries d join events e on e.store = d.store and e.id = d.event_id
        where d.store = ${store} and d.endpoint_id = ${endpointId} and d.id = ${id}`,
  );
  return row;
}

/** A failed delivery becomes due now for one more attempt; false if it is not failed. */
export async function requeueFailedDelivery(db: Executor, store: string, endpointId: string, id: string): Promise<boolean> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`update webhook_deliveries set status = 'pending', next_attempt_at = now()
        where store = ${store} and endpoint_id = ${endpointId} and id = ${id} and status = 'failed' returning id`,
  );
  return rows.length > 0;
}

/** What an attempt needs: the delivery, its event and its endpoint's URL and valid secrets. */
export interface ClaimedDelivery {
  store: string;
  id: string;
  endpointId: string;
  attempts: number;
  lockToken: string;
  eventId: string;
  type: string;
  eventCreatedAt: Date;
  /** The event's data as JSON text, put into the payload as it is (no parse and re-serialization per attempt). */
  dataJson: string;
  actorJson: string;
  url: string;
  secrets: string[];
}

/**
 * Claims up to `limit` due deliveries of enabled endpoints for `leaseSeconds`, oldest due first.
 * The claim walks the due index in order and stops after `limit` rows, so its cost does not grow
 * with the backlog. The planner is told so (bitmap scans and sorts off for this transaction): its
 * statistics lag a table that grows and churns by thousands of rows a second, and from them it
 * chose to read and sort every due row of a 10,000-row backlog (17 ms a claim) instead. The enabled
 * endpoints are an id list, not a join, for the same reason: joined, it walked every delivery of
 * each endpoint. The claim commits without waiting for its WAL flush (`synchronous_commit` off): a
 * database crash may forget the last claims, and those deliveries are attempted once more, which
 * at-least-once delivery allows; the delivery rows themselves are written durably with their events.
 */
export async function claimDueDeliveries(db: Database, limit: number, leaseSeconds: number): Promise<ClaimedDelivery[]> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true), set_config('synchronous_commit', 'off', true)`);
    return queryRows<ClaimedDelivery>(
      tx,
      sql`with due as (
            select d.store, d.id from webhook_deliveries d
            where d.status = 'pending' and d.next_attempt_at <= now() and (d.leased_until is null or d.leased_until <= now())
              and d.endpoint_id = any(array(select id from webhook_endpoints where not disabled))
            order by d.next_attempt_at limit ${limit}
            for update of d skip locked)
          update webhook_deliveries d set leased_until = now() + make_interval(secs => ${leaseSeconds}), lock_token = gen_random_uuid()
          from due, events e, webhook_endpoints w
          where d.store = due.store and d.id = due.id and e.store = d.store and e.id = d.event_id and w.store = d.store and w.id = d.endpoint_id
          returning d.store, d.id, d.endpoint_id as "endpointId", d.attempts, d.lock_token as "lockToken", e.id as "eventId", e.type,
            e.created_at as "eventCreatedAt", e.data::text as "dataJson", e.actor::text as "actorJson", w.url,
            case when w.previous_secret is not null and w.previous_secret_expires_at > now()
                 then array[w.secret, w.previous_secret] else array[w.secret] end as secrets`,
    );
  });
}

/** Delivered attempts, and the end of their endpoints' failure windows: one statement for all. */
export async function recordDelivered(db: Executor, delivered: Array<{ delivery: ClaimedDelivery; statusCode: number }>): Promise<void> {
  const rows = delivered.map(({ delivery: d, statusCode }) => ({ store: d.store, id: d.id, lock_token: d.lockToken, status_code: statusCode }));
  await db.execute(
    sql`with x as (select * from jsonb_to_recordset(${jsonb(rows)}) as x(store text, id uuid, lock_token uuid, status_code int)),
        done as (
          update webhook_deliveries d set status = 'delivered', attempts = d.attempts + 1, delivered_at = now(), last_status_code = x.status_code,
            last_error = null, lock_token = null, leased_until = null
          from x where d.store = x.store and d.id = x.id and d.lock_token = x.lock_token returning d.store, d.endpoint_id)
        update webhook_endpoints w set failing_since = null
        where w.failing_since is not null and (w.store, w.id) in (select store, endpoint_id from done)`,
  );
}

/**
 * A failed attempt: due again after `retryInSeconds`, or `failed` when there is none left. The
 * endpoint is disabled once every attempt has failed for `disableAfterHours`. One statement.
 */
export async function recordAttemptFailed(
  db: Executor,
  d: ClaimedDelivery,
  outcome: { statusCode: number | null; error: string; retryInSeconds: number | null; disableAfterHours: number },
): Promise<void> {
  const next = outcome.retryInSeconds === null
    ? sql`status = 'failed', next_attempt_at = now()`
    : sql`next_attempt_at = now() + make_interval(secs => ${outcome.retryInSeconds})`;
  // An endpoint already failing is written again only when it is due to be disabled: no row churn
  // on every attempt while a receiver is down.
  await db.execute(
    sql`with attempt as (
          update webhook_deliveries set ${next}, attempts = attempts + 1, last_status_code = ${outcome.statusCode},
            last_error = ${outcome.error.slice(0, 500)}, lock_token = null, leased_until = null
          where store = ${d.store} and id = ${d.id} and lock_token = ${d.lockToken} returning endpoint_id)
        update webhook_endpoints set failing_since = coalesce(failing_since, now()),
          disabled = disabled or coalesce(failing_since < now() - make_interval(hours => ${outcome.disableAfterHours}), false)
        where store = ${d.store} and id in (select endpoint_id from attempt)
          and (failing_since is null or failing_since < now() - make_interval(hours => ${outcome.disableAfterHours}))`,
  );
}
