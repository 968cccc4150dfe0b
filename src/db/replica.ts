/**
 * Reads on a read replica (DATABASE_READ_URL), never on one too far behind the primary.
 *
 * How far behind is measured with WAL positions, not clocks: the primary's insert position is
 * sampled every `sampleMs`, with the time each sample was asked for, and a replica connection tells
 * the position it has replayed (`pg_last_wal_replay_lsn()`, looked at again after `sampleMs`). A
 * replica holds everything the primary had when the newest sample it has replayed was asked for,
 * so its lag is that sample's age. `now() - pg_last_xact_replay_timestamp()` would be simpler and
 * wrong: it grows on a replica that has replayed everything of an idle primary, and it trusts two
 * machines' clocks. Lag is per connection, since a router (HAProxy) may spread one pool's
 * connections over replicas at different positions. Samples are taken only while reads come.
 */
import type { Database, DatabaseOptions } from './client.js';
import { isDatabaseUnavailable, postgresErrorCode } from './errors.js';
import { drizzleOver, openPool, type Pool, type PoolClient } from './postgres-pool.js';

/** A WAL position (`pg_lsn`) as a number of bytes. */
export type Lsn = bigint;

export function parseLsn(text: string): Lsn {
  const [high = '0', low = '0'] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

/** Why a read went where it went: on the replica, or to the primary for one of the other reasons. */
export type ReadOutcome = 'replica' | 'lagging' | 'behind-write' | 'unavailable' | 'busy' | 'not-a-replica' | 'warming-up';

export interface ReplicaOptions extends DatabaseOptions {
  url: string;
  maxLagMs: number;
  /** The primary's current WAL insert position, as text (`pg_current_wal_insert_lsn()`). */
  primaryPosition: () => Promise<string>;
}

interface Sample {
  askedAt: number;
  lsn: Lsn;
}

interface Replayed {
  /** null on a server that is not in recovery: not a replica. */
  lsn: Lsn | null;
  at: number;
}

const IDLE_STOP_MS = 10_000;
const MAX_BACKOFF_MS = 5000;

export class ReplicaRouter {
  readonly sampleMs: number;
  private samples: Sample[] = [];
  private sampling: NodeJS.Timeout | undefined;
  private sampleInFlight = false;
  private lastReadAt = 0;
  private readonly replayed = new WeakMap<PoolClient, Replayed>();
  private readonly databases = new WeakMap<PoolClient, Database>();
  /** While the replica is failing: no read tries it before this time. */
  private retryAt = 0;
  private failures = 0;
  readonly outcomes = new Map<ReadOutcome, number>();
  readonly maxLagMs: number;

  private constructor(
    private readonly pool: Pool,
    private readonly options: ReplicaOptions,
  ) {
    // Ten looks per allowed lag: a replica that keeps up always shows a lag well inside it.
    this.maxLagMs = options.maxLagMs;
    this.sampleMs = Math.min(250, Math.max(10, Math.floor(options.maxLagMs / 10)));
  }

  static async open(options: ReplicaOptions): Promise<ReplicaRouter> {
    // A replica that does not answer is skipped quickly: the primary can serve the read instead.
    const pool = await openPool(options.url, { ...options, connectTimeoutMs: Math.min(options.connectTimeoutMs ?? 1000, 1000) });
    return new ReplicaRouter(pool, options);
  }

  /**
   * Runs `work` on a replica that lags at most `maxLagMs` and has replayed `atLeast`; otherwise
   * answers why not, and the caller reads on the primary. Errors of `work` that are not the
   * database's (a 404 of the service) are thrown as they are.
   */
  async read<T>(work: (db: Database) => Promise<T>, atLeast: Lsn): Promise<{ value: T; replayed: Lsn } | { skipped: ReadOutcome }> {
    this.lastReadAt = Date.now();
    this.startSampling();
    if (Date.now() < this.retryAt) return this.skip('unavailable');
    if (this.samples.length === 0) return this.skip('warming-up');
    let client: PoolClient;
    // Every replica connection in use: a wait that times out says the replica is busy, not gone.
    const saturated = this.pool.idleCount === 0 && this.pool.totalCount >= (this.options.poolSize ?? 10);
    try {
      client = await this.pool.connect();
    } catch {
      if (saturated) return this.skip('busy');
      this.failed();
      return this.skip('unavailable');
    }
    let broken: unknown;
    try {
      let replayed = await this.replayedBy(client, false);
      // A position looked at a moment ago may predate the write this read must see: look again.
      if (replayed !== null && replayed < atLeast) replayed = await this.replayedBy(client, true);
      if (replayed === null) {
        broken = new Error('not a replica');
        this.failed();
        return this.skip('not-a-replica');
      }
      if (replayed < atLeast) return this.skip('behind-write');
      if (this.lagOf(replayed) > this.maxLagMs) return this.skip('lagging');
      const value = await work(this.databaseOf(client));
      this.failures = 0;
      this.count('replica');
      return { value, replayed };
    } catch (error) {
      if (postgresErrorCode(error) === undefined && !isDatabaseUnavailable(error)) throw error;
      // A query the replica cancelled (a conflict with replay) or a replica gone: the primary answers.
      broken = error;
      if (isDatabaseUnavailable(error)) this.failed();
      return this.skip('unavailable');
    } finally {
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  /** The primary's position at the first sample asked for at or after `time`, once there is one. */
  positionAfter(time: number): Lsn | undefined {
    return this.samples.find((sample) => sample.askedAt >= time)?.lsn;
  }

  /** How long ago the primary was where the replica now is (0 when it is as far as the newest sample). */
  lagOf(replayed: Lsn): number {
    const now = Date.now();
    for (let i = this.samples.length - 1; i >= 0; i--) {
      const sample = this.samples[i]!;
      if (sample.lsn <= replayed) return now - sample.askedAt;
    }
    return Number.POSITIVE_INFINITY;
  }

  async close(): Promise<void> {
    clearInterval(this.sampling);
    this.sampling = undefined;
    await this.pool.end();
  }

  private skip(outcome: ReadOutcome): { skipped: ReadOutcome } {
    this.count(outcome);
    return { skipped: outcome };
  }

  private count(outcome: ReadOutcome) {
    this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1);
  }

  /** The replica failed: reads skip it for a while, longer after each failure in a row. */
  private failed() {
    this.retryAt = Date.now() + Math.min(MAX_BACKOFF_MS, 250 * 2 ** this.failures);
    this.failures = Math.min(this.failures + 1, 10);
  }

  private async replayedBy(client: PoolClient, fresh: boolean): Promise<Lsn | null> {
    const known = this.replayed.get(client);
    if (known && !fresh && Date.now() - known.at < this.sampleMs) return known.lsn;
    const at = Date.now();
    const { rows } = await client.query<{ lsn: string | null }>('select pg_last_wal_replay_lsn()::text as lsn');
    const lsn = rows[0]?.lsn ? parseLsn(rows[0].lsn) : null;
    this.replayed.set(client, { lsn, at });
    return lsn;
  }

  private databaseOf(client: PoolClient): Database {
    let db = this.databases.get(client);
    if (!db) this.databases.set(client, (db = drizzleOver(client)));
    return db;
  }

  private startSampling() {
    if (this.sampling) return;
    this.sampling = setInterval(() => void this.sample(), this.sampleMs);
    this.sampling.unref();
    void this.sample();
  }

  private async sample() {
    if (Date.now() - this.lastReadAt > IDLE_STOP_MS) {
      clearInterval(this.sampling);
      this.sampling = undefined;
      this.samples = [];
      return;
    }
    if (this.sampleInFlight) return;
    this.sampleInFlight = true;
    const askedAt = Date.now();
    try {
      const lsn = parseLsn(await this.options.primaryPosition());
      // Older samples than the allowed lag (and a little) can never make a replica fresh enough.
      const keepFrom = askedAt - this.maxLagMs - 4 * this.sampleMs;
      this.samples = this.samples.filter((s) => s.askedAt >= keepFrom);
      this.samples.push({ askedAt, lsn });
    } catch {
      // The primary does not answer: the samples age, replicas count as lagging, reads go to the
      // primary and get its 503 until it is back. Nothing is known to be fresh.
    } finally {
      this.sampleInFlight = false;
    }
  }
}
