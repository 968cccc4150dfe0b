/** Idempotency keys: claimed before the work, completed in the work's own transaction. */
import { sql, type SQL } from 'drizzle-orm';
import { jsonb, queryRows, type Executor } from '../../db/client.js';

export interface KeyRow {
  fingerprint: string;
  state: 'running' | 'done';
  responseStatus: number | null;
  responseBody: string | null;
  leaseActive: boolean;
}

/** A key belongs to one store and one caller (see the plugin): one caller's key never meets another's. */
export interface KeyId {
  store: string;
  caller: string;
  key: string;
}

const LEASE_SECONDS = 60;
const KEEP_SECONDS = 24 * 3600;

/**
 * Claims the key for a new request: a fresh key, an expired one, or one whose running request
 * died (its lease ran out). Answers true when this request now owns the key.
 */
export async function claimKey(db: Executor, { store, caller, key }: KeyId, fingerprint: string): Promise<boolean> {
  const rows = await queryRows<{ key: string }>(
    db,
    sql`insert into idempotency_keys (store, caller, key, fingerprint, state, lease_until, expires_at)
        values (${store}, ${caller}, ${key}, ${fingerprint}, 'running', now() + make_interval(secs => ${LEASE_SECONDS}), now() + make_interval(secs => ${KEEP_SECONDS}))
        on conflict (store, caller, key) do update set fingerprint = excluded.fingerprint, state = 'running', response_status = null,
          response_body = null, created_at = now(), lease_until = excluded.lease_until, expires_at = excluded.expires_at
        where idempotency_keys.expires_at <= now()
           or (idempotency_keys.state = 'running' and idempotency_keys.lease_until <= now() and idempotency_keys.fingerprint = excluded.fingerprint)
        returning key`,
  );
  return rows.length > 0;
}

export async function findKey(db: Executor, { store, caller, key }: KeyId): Promise<KeyRow | undefined> {
  const [row] = await queryRows<KeyRow>(
    db,
    sql`select fingerprint, state, response_status as "responseStatus", response_body as "responseBody", lease_until > now() as "leaseActive"
        from idempotency_keys where store = ${store} and caller = ${caller} and key = ${key} and expires_at > now()`,
  );
  return row;
}

/** Stores the answer; inside the work's transaction, a committed result always has its answer kept. */
export async function completeKey(db: Executor, { store, caller, key }: KeyId, status: number, body: string): Promise<void> {
  await db.execute(
    sql`update idempotency_keys set state = 'done', response_status = ${status}, response_body = ${body}
        where store = ${store} and caller = ${caller} and key = ${key}`,
  );
}

/**
 * The same for several keys, as two steps of a `with` that writes their work in one statement
 * (named `answers` and `answered`): a combined write keeps every answer with its result.
 */
export function completeKeysStep(store: string, keys: Array<{ caller: string; key: string; body: string }>, status: number): SQL {
  return sql`answers as (select * from jsonb_to_recordset(${jsonb(keys)}) as x(caller text, key text, body text)),
    answered as (
      update idempotency_keys k set state = 'done', response_status = ${status}, response_body = x.body from answers x
      where k.store = ${store} and k.caller = any(array(select caller from answers)) and k.key = any(array(select key from answers))
        and k.caller = x.caller and k.key = x.key returning k.key)`;
}

/** Forgets a key whose request failed with a 5xx, unless its work already committed. */
export async function releaseKey(db: Executor, { store, caller, key }: KeyId): Promise<void> {
  await db.execute(sql`delete from idempotency_keys where store = ${store} and caller = ${caller} and key = ${key} and state = 'running'`);
}

/** Deletes expired keys, store by store in batches; answers how many. */
export async function purgeExpiredKeys(db: Executor, batchSize = 1000): Promise<number> {
  let total = 0;
  const stores = await queryRows<{ slug: string }>(db, sql`select slug from stores order by slug`);
  for (const { slug } of stores) {
    for (;;) {
      const rows = await queryRows<{ key: string }>(
        db,
        sql`delete from idempotency_keys where store = ${slug} and (caller, key) in (
              select caller, key from idempotency_keys where store = ${slug} and expires_at <= now() order by expires_at limit ${batchSize})
            returning key`,
      );
      total += rows.length;
      if (rows.length < batchSize) break;
    }
  }
  return total;
}
