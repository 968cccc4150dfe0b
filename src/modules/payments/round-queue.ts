/**
 * A store's intents in rounds, as lib/keyed-batcher.ts combines orders, with two differences.
 *
 * Up to `parallel` rounds of a store run at once (two by default): a round spends most of its time
 * waiting for PostgreSQL, and with one at a time the deliveries that arrive meanwhile all wait for
 * it to commit. Two rounds of one store are what two server processes already run: each records
 * its event ids in id order (a copy of an event another round holds waits for its commit, then is
 * answered as applied), then locks its orders in id order and reads their payments again under the
 * locks, so rounds of distinct intents never wait for each other and rounds of one order apply
 * one after the other.
 *
 * A round that would be smaller than the one its runner ran before waits a moment (a few
 * milliseconds at most) for the rest. Under a stream of deliveries the answers of one round come
 * back as the next requests a few milliseconds apart; started at once, the next round would take
 * only the first of them and the others would wait a whole round for the one after, so rounds
 * would alternate between full and nearly empty. A lone delivery never waits.
 *
 * While `yieldMs()` answers more than zero (the process is busy with checkout, runtime.ts), a
 * store's rounds give way: one at a time, each beginning at least that long after the one before
 * began. The deliveries that arrive meanwhile make fewer, larger rounds (fewer statements each), and
 * a stream of them takes less of the CPU and the database that orders need; a delivery waits that
 * much longer for its answer, which no payment provider minds.
 */
import type { Outcome } from '../../lib/keyed-batcher.js';

interface Waiting<J, R> {
  job: J;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

/** How long at most a round smaller than the last one waits for the rest, in steps of a millisecond. */
const GATHER_MS = 5;

export class RoundQueue<J, R> {
  private readonly waiting = new Map<string, Array<Waiting<J, R>>>();
  /** How many rounds of each key are running (or gathering). */
  private readonly runners = new Map<string, number>();

  constructor(
    private readonly run: (jobs: J[]) => Promise<Array<Outcome<R>>>,
    private readonly maxRound = 200,
    private readonly parallel = 2,
    private readonly yieldMs: () => number = () => 0,
  ) {}

  submit(key: string, job: J): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.waiting.get(key);
      if (queue) queue.push({ job, resolve, reject });
      else this.waiting.set(key, [{ job, resolve, reject }]);
      const runners = this.runners.get(key) ?? 0;
      if (runners < this.parallel) {
        this.runners.set(key, runners + 1);
        void this.drain(key);
      }
    });
  }

  private async drain(key: string): Promise<void> {
    let lastRound = 0;
    let lastStart = 0;
    for (;;) {
      const pause = this.yieldMs();
      if (pause > 0) {
        // Giving way: the other runner of this key carries on alone.
        const runners = this.runners.get(key)!;
        if (runners > 1) {
          this.runners.set(key, runners - 1);
          return;
        }
        const wait = lastStart + pause - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
      const queue = this.waiting.get(key) ?? [];
      for (let waited = 0; waited < GATHER_MS && queue.length > 0 && queue.length < lastRound; waited++) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      const round = queue.splice(0, this.maxRound);
      if (round.length === 0) {
        const left = this.runners.get(key)! - 1;
        if (left > 0) this.runners.set(key, left);
        else {
          this.runners.delete(key);
          this.waiting.delete(key);
        }
        return;
      }
      lastRound = round.length;
      lastStart = Date.now();
      let outcomes: Array<Outcome<R>>;
      try {
        outcomes = await this.run(round.map((w) => w.job));
      } catch (error) {
        outcomes = round.map(() => ({ ok: false, error }));
      }
      round.forEach((w, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) w.resolve(outcome.value);
        else w.reject(outcome.error);
      });
    }
  }
}
