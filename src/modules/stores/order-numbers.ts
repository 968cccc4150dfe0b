/**
 * Order numbers: what a shopper quotes ("order 1042"), unique within a store, from 1001. A store's
 * last number given is a column of its row in store_versions (made with the store), and a round of
 * orders takes its numbers in the statement that writes them: each store's counter moves by its
 * orders of the round, once. The row stays locked until the round commits, so the rounds of two
 * processes placing orders in one store take their numbers one after the other, in commit order; a
 * process never runs two rounds of one store at once (StoreRoundQueue), so its own never wait on
 * each other. A rolled-back round gives its numbers back; a committed one never does (numbers may
 * skip; they never repeat).
 *
 * It was a sequence per store: a connection that numbers the orders of 2,000 stores opens 2,000
 * relations, each built into its cache (memory that grew with the stores) and its file opened on
 * first use, measured at a third to a half of what a spread order costs the database more than one
 * of a single store (docs/performance.md).
 */
import { sql, type SQL } from 'drizzle-orm';

/**
 * The CTEs that number a round's orders, for the statement that writes them (so numbering costs
 * no round trip of its own). `counts` names a CTE of `(store, c)`: how many orders each store places.
 * They define `numbers (store, n, rank)`: a store's `rank`-th order of the round is numbered `n`.
 * The stores' rows are locked in store order, as the catalog bumps lock them, so rounds of several
 * processes over overlapping stores wait for each other instead of deadlocking.
 *
 * The same update bumps each store's catalog version (orders take stock, which catalog answers
 * show): the row is locked to the commit here anyway, so the version moves with the commit, and the
 * order command (`changesCatalog: 'in-transaction'`) needs no bump of its own after it, which used
 * to be one more statement per round and one that waited for the next round's lock on these rows.
 */
export const orderNumbersCtes = (counts: SQL): SQL => sql`
  numbered_stores as (
    select v.store from store_versions v where v.store = any(array(select store from ${counts})) order by v.store for no key update),
  numbered as (
    update store_versions v set last_order_number = v.last_order_number + w.c, catalog = v.catalog + 1 from ${counts} w
    where v.store = w.store and v.store = any(array(select store from numbered_stores))
    returning v.store, v.last_order_number - w.c as before, w.c),
  numbers as (select x.store, x.before + g.rank as n, g.rank from numbered x, generate_series(1, x.c) g(rank))`;
