/**
 * Idempotency keys. A key is taken for the length of the work's own transaction (a transaction-level
 * advisory lock), and its answer is kept in that transaction: so a request that dies, with its
 * process or its connection, frees its key the moment PostgreSQL ends its transaction, and a result
 * that committed always has its answer kept. Only finished answers are stored.
 */
import { sql } from 'drizzle-orm';
import { jsonb, lastInTransaction, prepared, queryRows, type Executor } from '../../db/client.js';

/** A key belongs to one store and one caller: one caller's key never meets another's. */
export interface KeyId {
  store: string;
  caller: string;
  key: string;
}

export interface KeptAnswer {
  fingerprint: string;
  status: number;
  body: string;
}

const KEEP_SECONDS = 24 * 3600;
/** The advisory-lock class of idempotency keys (the two-key form, apart from other advisory locks). */
const LOCK_CLASS = 0x1de0;

/**
 * Takes each key for the rest of the transaction when no other transaction holds it: one statement
 * for them all, answering per key whether it was taken. (A hash collision of two keys only makes one
 * of them wait for the other: it answers 409 and is retried.)
 */
export async function lockKeys(tx: Executor, ids: KeyId[]): Promise<boolean[]> {
  const rows = await queryRows<{ locked: boolean }>(
    tx,
    prepared(sql`select pg_try_advisory_xact_lock(${LOCK_CLASS}, hashtext(x.store || chr(10) || x.caller || chr(10) || x.key)) as locked
        from rows from (jsonb_to_recordset(${jsonb(ids)}) as (store text, caller text, key text)) with ordinality as x(store, caller, key, n) order by x.n`),
  );
  return rows.map((r) => r.locked);
}

/** The kept answers of these keys, in their order (read after `lockKeys`: a new statement sees what committed). */
export async function findAnswers(tx: Executor, ids: KeyId[]): Promise<Array<KeptAnswer | undefined>> {
  const rows = await queryRows<KeptAnswer & { n: number }>(
    tx,
    prepared(sql`select x.n::int as n, k.fingerprint, k.response_status as status, k.response_body as body
        from rows from (jsonb_to_recordset(${jsonb(ids)}) as (store text, caller text, key text)) with ordinality as x(store, caller, key, n)
        join idempotency_keys k on k.store = x.store and k.caller = x.caller and k.key = x.key
        where k.expires_at > now()`),
  );
  const found = new Map(rows.map(({ n, ...answer }) => [n, answer]));
  return ids.map((_, i) => found.get(i + 1));
}

/**
 * Keeps the answers of keys this transaction holds (an expired answer of the same key is replaced).
 * `last`: the statement is its transaction's last (client.ts `lastInTransaction`).
 */
export async function keepAnswers(tx: Executor, answers: Array<KeyId & KeptAnswer>, { last = false } = {}): Promise<void> {
  if (answers.length === 0) return;
  await tx.execute(
    lastInTransaction(last, prepared(sql`insert into idempotency_keys (store, caller, key, fingerprint, response_status, response_body, expires_at)
        select x.store, x.caller, x.key, x.fingerprint, x.status, x.body, now() + make_interval(secs => ${KEEP_SECONDS})
        from jsonb_to_recordset(${jsonb(answers)}) as x(store text, caller text, key text, fingerprint text, status int, body text)
        on conflict (store, caller, key) do update set fingerprint = excluded.fingerprint, response_status = excluded.response_status,
          response_body = excluded.response_body, created_at = now(), expires_at = excluded.expires_at`)),
  );
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
