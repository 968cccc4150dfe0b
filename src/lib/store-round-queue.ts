/**
 * Combines work of many stores into rounds, as KeyedBatcher combines work on one key, with one
 * difference: while a round runs, a second may start with the waiting jobs of the stores that the
 * running round does not hold. A store's jobs still run one round at a time and in arrival order
 * (a job waits while a round holds its store, and joins the first round after it), so one busy
 * store's rounds follow each other exactly as before. Requests spread over many quiet stores, whose
 * rounds share no store, no longer wait for the round before theirs: that round's round trips to
 * the database are time the process would otherwise spend idle. Rounds of different stores take no
 * row in common, and any two rounds take their locks in one global order (two processes run rounds
 * side by side the same way), so they cannot deadlock.
 */
import type { Outcome } from './keyed-batcher.js';

interface Waiting<J, R> {
  job: J;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

export class StoreRoundQueue<J extends { store: string }, R> {
  private waiting: Array<Waiting<J, R>> = [];
  /** The stores of the running rounds. */
  private readonly held = new Set<string>();
  /**
   * The waiting jobs whose store no running round holds: those a round could take now. Counted when
   * a round starts or ends, so that a request that joins a long queue (a flash sale) does not scan it.
   */
  private free = 0;
  private running = 0;
  /** The jobs of the running rounds. */
  private runningJobs = 0;

  constructor(
    private readonly run: (jobs: J[]) => Promise<Array<Outcome<R>>>,
    private readonly maxRunning: number,
    private readonly maxBatch = 200,
  ) {}

  submit(job: J): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ job, resolve, reject });
      if (!this.held.has(job.store)) this.free++;
      this.start();
    });
  }

  /**
   * Starts rounds while there is room. The first takes whatever waits; one beside it waits until
   * it would hold at least half as many jobs as the running one, so that a round still shares its
   * statements among enough requests to pay for them: the rounds of requests spread over many
   * stores grow with the load instead of splitting into rounds of one request each.
   */
  private start(): void {
    while (this.running < this.maxRunning && this.free >= (this.running === 0 ? 1 : Math.max(2, Math.ceil(this.runningJobs / 2)))) {
      void this.round(this.take());
    }
  }

  /**
   * The next round's jobs: the waiting ones, in arrival order, of stores that no running round
   * holds, up to the round's maximum; their stores are held from here. A store's later jobs cannot
   * pass its earlier ones: a job stays behind only when its store is held (and so is the store's
   * every later job) or when the round is full (and so is every later job).
   */
  private take(): Array<Waiting<J, R>> {
    const batch: Array<Waiting<J, R>> = [];
    const left: Array<Waiting<J, R>> = [];
    for (const w of this.waiting) {
      if (batch.length < this.maxBatch && !this.held.has(w.job.store)) batch.push(w);
      else left.push(w);
    }
    for (const w of batch) this.held.add(w.job.store);
    this.waiting = left;
    this.countFree();
    return batch;
  }

  private countFree(): void {
    this.free = 0;
    for (const w of this.waiting) if (!this.held.has(w.job.store)) this.free++;
  }

  private async round(batch: Array<Waiting<J, R>>): Promise<void> {
    this.running++;
    this.runningJobs += batch.length;
    let outcomes: Array<Outcome<R>>;
    try {
      outcomes = await this.run(batch.map((w) => w.job));
    } catch (error) {
      outcomes = batch.map(() => ({ ok: false, error }));
    }
    for (const w of batch) this.held.delete(w.job.store);
    this.running--;
    this.runningJobs -= batch.length;
    this.countFree();
    batch.forEach((w, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) w.resolve(outcome.value);
      else w.reject(outcome.error);
    });
    this.start();
  }
}
