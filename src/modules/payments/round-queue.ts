/**
 * A store's intents in rounds, one round of a store at a time, as lib/keyed-batcher.ts combines
 * orders, with one difference: a round that would be smaller than the one before it waits a
 * moment (a few milliseconds at most) for the rest. Under a stream of deliveries the answers of one round come back as the next
 * requests a few milliseconds apart; started at once, the next round would take only the first of
 * them (or a straggler that missed the last round) and the others would wait a whole round for the
 * one after, so rounds would alternate between full and nearly empty. A lone delivery never waits.
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
  /** The size of the last round of each key whose rounds are running. */
  private readonly lastRound = new Map<string, number>();

  constructor(
    private readonly run: (jobs: J[]) => Promise<Array<Outcome<R>>>,
    private readonly maxRound = 200,
  ) {}

  submit(key: string, job: J): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.waiting.get(key);
      if (queue) queue.push({ job, resolve, reject });
      else this.waiting.set(key, [{ job, resolve, reject }]);
      if (!this.lastRound.has(key)) {
        this.lastRound.set(key, 0);
        void this.drain(key);
      }
    });
  }

  private async drain(key: string): Promise<void> {
    for (;;) {
      const queue = this.waiting.get(key) ?? [];
      for (let waited = 0; waited < GATHER_MS && queue.length > 0 && queue.length < this.lastRound.get(key)!; waited++) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      const round = queue.splice(0, this.maxRound);
      if (round.length === 0) {
        this.waiting.delete(key);
        this.lastRound.delete(key);
        return;
      }
      this.lastRound.set(key, round.length);
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
