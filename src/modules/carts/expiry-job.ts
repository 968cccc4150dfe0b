/**
 * Marks expired carts EXPIRED and purges long-expired ones. Cheap on a large table: it walks store
 * by store through the (store, expires_at) indexes in small batches, each its own short statement,
 * and skips rows that a request holds locked. A completed cart is never purged: an order names it,
 * and only an order completes a cart (state.ts), so this job needs no look at the orders' table.
 */
import { sql } from 'drizzle-orm';
import { queryRows, valueList, type Database } from '../../db/client.js';
import { endHolds } from '../holds/index.js';

export interface ExpiryOptions {
  batchSize?: number;
  /** Expired (or emptied) carts older than this are deleted with their lines. */
  purgeAfterSeconds?: number;
}

export interface ExpiryResult {
  expired: number;
  purged: number;
}

/** One pass of the job over every store. */
export async function expireCarts(db: Database, { batchSize = 500, purgeAfterSeconds = 30 * 86400 }: ExpiryOptions = {}): Promise<ExpiryResult> {
  const result: ExpiryResult = { expired: 0, purged: 0 };
  const stores = await queryRows<{ slug: string }>(db, sql`select slug from stores order by slug`);
  for (const { slug } of stores) {
    for (;;) {
      const marked = await queryRows<{ id: string }>(
        db,
        sql`update carts set status = 'EXPIRED' where store = ${slug} and id in (
              select id from carts where store = ${slug} and status = 'PENDING' and deleted_at is null and expires_at <= now()
              order by expires_at limit ${batchSize} for update skip locked)
            and status = 'PENDING' returning id`,
      );
      result.expired += marked.length;
      if (marked.length < batchSize) break;
    }
    for (;;) {
      const purged = await db.transaction(async (tx) => {
        const victims = await queryRows<{ id: string }>(
          tx,
          sql`select id from carts c where c.store = ${slug} and c.expires_at <= now() - make_interval(secs => ${purgeAfterSeconds})
                and (c.status = 'EXPIRED' or (c.deleted_at is not null and c.status <> 'COMPLETED'))
              order by c.expires_at limit ${batchSize} for update skip locked`,
        );
        if (victims.length === 0) return 0;
        const ids = valueList(victims.map((v) => v.id));
        await endHolds(tx, slug, victims.map((v) => v.id));
        await tx.execute(sql`delete from cart_lines where store = ${slug} and cart_id in (${ids})`);
        await tx.execute(sql`delete from carts where store = ${slug} and id in (${ids})`);
        return victims.length;
      });
      result.purged += purged;
      if (purged < batchSize) break;
    }
  }
  return result;
}
