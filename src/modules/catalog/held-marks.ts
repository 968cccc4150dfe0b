/**
 * What this process knows of checkout-hold changes, per store, so that a hold or release refreshes
 * only the cached catalog answers that show its products (cache.ts), not the whole store's.
 *
 * A hold, release or cart change notes its products in its own transaction (catalog_hold_marks),
 * then bumps the store's holds version before answering (modules/stores/catalog-version.ts). Every
 * request reads that version with its token. When it is newer than what this process has caught up
 * to, the process reads the products noted since its last catch-up (one query, shared by the
 * requests that wait for it, and always started after they read their version) and marks each with
 * a new tick. A cached answer carries the tick read before it was computed and the products it
 * shows: it is stale when one of them was marked with a later tick. So a read that starts after a
 * hold was answered, in any process, never gets an answer computed before that hold; answers of
 * other products stay.
 */
import { BoundedMap } from '../../lib/bounded-map.js';
import { FreshCoalescer } from '../../lib/fresh-coalescer.js';

/** The products an answer shows (their holds change it), or `every`: any product's holds may (an `inStock` filter). */
export type Shows = readonly string[] | 'every';

interface StoreMarks {
  /** Every hold change of a holds version up to this one is marked. */
  knownUpTo: number;
  /** The xmin of the last catch-up's snapshot: the transactions it could not see have an xid at or above it. */
  xmin: string;
  /** Per product, the tick at which this process learned that its held units changed. */
  changed: Map<string, number>;
  /** The tick of the latest change of any product. */
  anyAt: number;
  /** Answers filed before this tick are all stale (`changed` was emptied to bound it). */
  clearedAt: number;
  /** When (ms) the latest mark was made: an answer read on a replica is filed only if the replica holds it. */
  markedAt: number;
}

/** One catch-up's read (holds module: holdChangesSince). */
export type ReadChanges = (store: string, xmin: string | null) => Promise<{ xmin: string; productIds: string[] }>;

export class HeldMarks {
  private tick = 0;
  private readonly stores: BoundedMap<string, StoreMarks>;
  private readonly catchUps = new FreshCoalescer<void>();

  constructor(
    private readonly readChanges: ReadChanges,
    /** Products remembered per store; past it, the store's answers are all refreshed once and the memory starts over. */
    private readonly maxProducts = 50_000,
    /** Stores remembered; the least recently read is forgotten, and its answers are refreshed once when it is read again. */
    maxStores = 10_000,
  ) {
    this.stores = new BoundedMap(maxStores);
  }

  /**
   * Catches up with the store's holds up to `version` (read at the request's start) and answers the
   * tick an answer computed from now on is filed with.
   */
  async seen(store: string, version: number): Promise<number> {
    const known = this.stores.get(store);
    if (!known || known.knownUpTo < version) {
      await this.catchUps.get(store, () => this.catchUp(store));
      // Forgotten meanwhile (thousands of other stores read): the next read catches up anew.
      const caughtUp = this.stores.get(store);
      if (caughtUp) caughtUp.knownUpTo = Math.max(caughtUp.knownUpTo, version);
    }
    return this.tick;
  }

  /** Whether an answer filed at `tick` showing `shows` may still be sent. */
  fresh(store: string, tick: number, shows: Shows): boolean {
    const marks = this.stores.get(store);
    if (!marks || marks.anyAt <= tick) return true;
    if (marks.clearedAt > tick || shows === 'every') return false;
    for (const id of shows) if ((marks.changed.get(id) ?? 0) > tick) return false;
    return true;
  }

  /** When (ms) the store's latest mark was made (0: none yet). */
  markedAt(store: string): number {
    return this.stores.get(store)?.markedAt ?? 0;
  }

  private async catchUp(store: string): Promise<void> {
    const marks = this.stores.get(store);
    const read = await this.readChanges(store, marks?.xmin ?? null);
    if (!marks) {
      // The first, or the first since the store was forgotten: it only takes its snapshot, and what
      // was filed before it (nothing, or answers whose changes went unmarked meanwhile) is stale.
      const tick = ++this.tick;
      this.stores.set(store, { knownUpTo: 0, xmin: read.xmin, changed: new Map(), anyAt: tick, clearedAt: tick, markedAt: Date.now() });
      return;
    }
    marks.xmin = read.xmin;
    if (read.productIds.length === 0) return;
    const tick = ++this.tick;
    if (marks.changed.size + read.productIds.length > this.maxProducts) {
      marks.changed.clear();
      marks.clearedAt = tick;
    } else {
      for (const id of read.productIds) marks.changed.set(id, tick);
    }
    marks.anyAt = tick;
    marks.markedAt = Date.now();
  }
}
