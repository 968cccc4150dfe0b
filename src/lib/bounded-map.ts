/**
 * A Map that keeps at most `max` entries, forgetting the least recently used first. For what a
 * process remembers per store (a key set, the catalog version it last saw): with thousands of
 * stores, memory stays what the busiest `max` need, and a forgotten entry is only read again.
 */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();
  /**
   * The key last moved to the end. A store's cached reads ask for the same key over and over (twice a
   * read), and moving an entry already at the end changes nothing: the delete and set it skips were
   * a fortieth of a cached read's server CPU in a profile.
   */
  private newest: K | undefined;

  constructor(readonly max: number) {}

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // Map keeps insertion order: moving the entry to the end makes the first one the least recent.
    if (key !== this.newest) {
      this.entries.delete(key);
      this.entries.set(key, value);
      this.newest = key;
    }
    return value;
  }

  set(key: K, value: V): this {
    this.entries.delete(key);
    this.entries.set(key, value);
    this.newest = key;
    while (this.entries.size > this.max) this.delete(this.entries.keys().next().value as K);
    return this;
  }

  delete(key: K): boolean {
    if (key === this.newest) this.newest = undefined;
    return this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
