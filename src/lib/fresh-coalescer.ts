/**
 * Shares one lookup among callers of the same key, without ever handing a caller an answer read
 * before it asked. At most one lookup per key runs at a time; callers that arrive while it runs
 * wait for it to end and then share the next one, which starts after all of them arrived. So each
 * caller still sees everything committed before its request, while a burst of requests with one
 * storefront token costs the database one query per round trip instead of one per request.
 */
export class FreshCoalescer<V> {
  private readonly running = new Map<string, Promise<V>>();
  private readonly queued = new Map<string, Promise<V>>();

  get(key: string, load: () => Promise<V>): Promise<V> {
    const queued = this.queued.get(key);
    if (queued) return queued;
    const running = this.running.get(key);
    if (!running) return this.start(key, load);
    const next = running.then(ignore, ignore).then(() => {
      this.queued.delete(key);
      return this.start(key, load);
    });
    this.queued.set(key, next);
    return next;
  }

  // Called only while no lookup of the key runs, so the one that ends is always the one to forget.
  private start(key: string, load: () => Promise<V>): Promise<V> {
    const lookup = load().finally(() => this.running.delete(key));
    this.running.set(key, lookup);
    return lookup;
  }
}

function ignore() {}
