/**
 * Looks up many keys with one statement, without ever handing a caller an answer read before it
 * asked. One lookup runs at a time; the keys asked while it runs wait and make the next one (each
 * key once, however many callers), which starts after all of them arrived. So requests of many
 * stores (their tokens, their catalog versions) cost the database one statement per round trip
 * instead of one per request, as FreshCoalescer does for requests of one key. A lookup starts at
 * the end of the event loop's turn (`setImmediate`), not at once: the requests read from the
 * sockets in the same turn join it instead of waiting a round trip for the next one, which a lone
 * request pays only microseconds for. With one store's reads under load that took the requests a
 * lookup serves from about 15 to about 21 and a cached read's CPU down by a tenth
 * (docs/performance.md, "A lookup at the end of the turn").
 * It holds only the keys waiting: nothing is kept after their lookup answers.
 */
interface Waiter<V> {
  resolve: (value: V) => void;
  reject: (error: unknown) => void;
}

export class FreshBatcher<V> {
  private waiting = new Map<string, Array<Waiter<V>>>();
  private running = false;

  /** `load` answers the value of each key it is given (a key it leaves out gets `missing`). */
  constructor(
    private readonly load: (keys: string[]) => Promise<Map<string, V>>,
    private readonly missing: V,
    private readonly maxBatch = 500,
  ) {}

  get(key: string): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      const waiters = this.waiting.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.size > 0) {
      const batch = [...this.waiting].slice(0, this.maxBatch);
      for (const [key] of batch) this.waiting.delete(key);
      try {
        const values = await this.load(batch.map(([key]) => key));
        for (const [key, waiters] of batch) for (const w of waiters) w.resolve(values.has(key) ? values.get(key)! : this.missing);
      } catch (error) {
        for (const [, waiters] of batch) for (const w of waiters) w.reject(error);
      }
      if (this.waiting.size > 0) await new Promise(setImmediate);
    }
    this.running = false;
  }
}
