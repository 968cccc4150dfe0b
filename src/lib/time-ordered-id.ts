/**
 * Row ids that sort by creation time (UUID version 7: 48 bits of Unix milliseconds, then random
 * bits), made here for the rows the service names before it writes them (carts, orders) and by
 * `uuid_v7()` in the database for the rest (migration 0022).
 *
 * Why not random ids: a table's primary key is `(store, id)`. A random id puts each new row's index
 * entry on a random page of the index, so every insert dirties a page of its own, and after each
 * checkpoint the first change of a page writes the whole page to the WAL. A time-ordered id puts the
 * rows a store makes in a second on a few pages at the end of its range. After a checkpoint an
 * event cost 3.8 KB of WAL with random ids and 2.2 KB with these (docs/performance.md, "Ids in time
 * order"). A cart's id is what lets the public token reach that cart: its 74 random bits, from the
 * system's secure generator, keep it unguessable; what it gives away is the millisecond it was made.
 * A guest's customer id stays random (customers/service.ts).
 */
import { randomFillSync } from 'node:crypto';

const bytes = Buffer.alloc(16);

/**
 * The random bits of the next ids, drawn from the secure generator for many ids at once, as
 * `crypto.randomUUID` does: a draw per id cost 5-12 microseconds of an order's server CPU in a
 * profile (docs/performance.md, "The checks of the store's row"), one per 256 ids almost nothing.
 */
const RANDOM_BYTES = 10;
const POOLED_IDS = 256;
const pool = Buffer.alloc(RANDOM_BYTES * POOLED_IDS);
let pooled = 0;

/** A new version 7 UUID, in the usual lower-case form. */
export function timeOrderedId(now = Date.now()): string {
  if (pooled === 0) {
    randomFillSync(pool);
    pooled = POOLED_IDS;
  }
  pooled--;
  // Each id's bits are used once: the pool is read from its end as the count goes down.
  pool.copy(bytes, 6, pooled * RANDOM_BYTES, (pooled + 1) * RANDOM_BYTES);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
