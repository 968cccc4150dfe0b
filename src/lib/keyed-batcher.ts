/**
 * Combines work on one key: a job that arrives while a batch of its key runs waits, and all the
 * jobs that waited meanwhile run together as the next batch, in arrival order. So a burst on one
 * key (a flash sale on one product) costs one batch per round instead of one per job, while a lone
 * job runs at once. Each job gets its own outcome: `run` answers one per job, in order.
 */
/** One job's result: its value, or the error that refuses it alone. */
export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

interface Waiting<J, R> {
  job: J;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

export class KeyedBatcher<J, R> {
  private readonly queues = new Map<string, Array<Waiting<J, R>>>();

  constructor(
    private readonly run: (jobs: J[]) => Promise<Array<Outcome<R>>>,
    private readonly maxBatch = 200,
  ) {}

  submit(key: string, job: J): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.queues.get(key);
      if (queue) {
        queue.push({ job, resolve, reject });
        return;
      }
      this.queues.set(key, []);
      void this.drain(key, [{ job, resolve, reject }]);
    });
  }

  private async drain(key: string, batch: Array<Waiting<J, R>>): Promise<void> {
    for (;;) {
      let outcomes: Array<Outcome<R>>;
      try {
        outcomes = await this.run(batch.map((w) => w.job));
      } catch (error) {
        outcomes = batch.map(() => ({ ok: false, error }));
      }
      batch.forEach((w, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) w.resolve(outcome.value);
        else w.reject(outcome.error);
      });
      const queue = this.queues.get(key)!;
      if (queue.length === 0) {
        this.queues.delete(key);
        return;
      }
      batch = queue.splice(0, this.maxBatch);
    }
  }
}
