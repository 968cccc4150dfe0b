/**
 * Serialized catalog answers, kept in memory per process and keyed by (store, catalog version,
 * URL). The version is read with the token at the start of each request and bumped after any change
 * commits and before it is answered (modules/stores/catalog-version.ts), so an entry can only be as
 * old as the version it is filed under: correct across processes with no invalidation messages.
 * Checkout holds do not bump it: an entry also names the products it shows, and a hold or release
 * makes stale only the entries that show its products (held-marks.ts). Bounded by entries and
 * bytes (LRU).
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { storePrincipalOf } from '../../plugins/authentication.js';
import { readCatalog } from '../../plugins/replica-reads.js';
import type { Database } from '../../db/client.js';
import { holdChangesSince, nextHoldExpiry } from '../holds/index.js';
import { HeldMarks, type Shows } from './held-marks.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** How a catalog read was answered: a cached answer, or computed (plugins/metrics.ts counts both). */
    catalogCache?: 'hit' | 'computed';
  }
}

interface Entry {
  /** The serialized answer, kept as UTF-8 bytes: each hit then writes them as they are, with no encoding. */
  body: Buffer;
  etag: string;
  /** The answer counted checkout holds and is stale from this time (ms), when the next one expires. */
  validUntil?: number;
  /** The products it shows and the hold tick it was computed at (held-marks.ts); absent: holds change nothing in it. */
  held?: { store: string; tick: number; shows: Shows };
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  /** The key last moved to the end of `entries`. */
  private newest: string | undefined;
  private bytes = 0;
  /** What this process knows of hold changes; tests that use the cache alone need none. */
  holds: HeldMarks | null = null;

  constructor(
    private readonly maxEntries = 5000,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {}

  get(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    const held = entry?.held;
    if ((entry?.validUntil !== undefined && Date.now() >= entry.validUntil) || (held && this.holds && !this.holds.fresh(held.store, held.tick, held.shows))) {
      this.delete(key);
      return undefined;
    }
    if (entry && key !== this.newest) {
      // Refresh its place: the Map's order is the LRU order (an entry already last stays).
      this.entries.delete(key);
      this.entries.set(key, entry);
      this.newest = key;
    }
    return entry;
  }

  set(key: string, body: string, { file = true, validUntil, held }: { file?: boolean; validUntil?: number; held?: Entry['held'] } = {}): Entry {
    const bytes = Buffer.from(body);
    const entry: Entry = { body: bytes, etag: `"${createHash('sha1').update(bytes).digest('base64url')}"` };
    if (validUntil !== undefined) entry.validUntil = validUntil;
    if (held !== undefined) entry.held = held;
    if (!file || this.maxEntries === 0 || bytes.length > this.maxBytes / 4) return entry;
    this.delete(key);
    this.entries.set(key, entry);
    this.newest = key;
    this.bytes += bytes.length;
    for (const [oldest] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.delete(oldest);
    }
    return entry;
  }

  private delete(key: string) {
    const entry = this.entries.get(key);
    if (!entry) return;
    if (key === this.newest) this.newest = undefined;
    this.bytes -= entry.body.length;
    this.entries.delete(key);
  }
}

/**
 * Answers a catalog GET from the cache, or computes (on a read replica when the route allows it,
 * see plugins/replica-reads.ts), serializes (with the route's response schema) and files it. Sends a
 * strong ETag and answers 304 to a matching If-None-Match.
 *
 * Checkout holds: `shows` names the products whose holds change the answer (none for an answer
 * that does not count holds); taking or ending a hold makes stale the answers that show its
 * products (held-marks.ts). A hold also ends by itself when its time passes, with no write. So the
 * compute first reads when the store's next unexpired hold ends (before the answer's own reads: a
 * hold that expires in between only makes the entry stale sooner) and files the answer until then;
 * `held` tells it whether to subtract holds at all.
 */
export async function sendCached<T>(
  request: FastifyRequest, reply: FastifyReply, cache: ResponseCache,
  compute: (db: Database, held: boolean) => Promise<T>, shows?: (answer: T) => Shows,
) {
  const principal = storePrincipalOf(request);
  const key = `${principal.store}\u0000${principal.catalogVersion}\u0000${request.url}`;
  const tick = shows && cache.holds ? await cache.holds.seen(principal.store, principal.holdsVersion) : undefined;
  let entry = cache.get(key);
  request.catalogCache = entry ? 'hit' : 'computed';
  if (!entry) {
    // A replica's answer is filed only once the replica holds the hold changes marked so far.
    const since = tick === undefined ? undefined : cache.holds!.markedAt(principal.store);
    const read = await readCatalog(request, async (db) => {
      const next = await nextHoldExpiry(db, principal.store);
      return { value: await compute(db, next !== null), validUntil: next?.getTime() };
    }, since);
    const held = tick === undefined ? undefined : { store: principal.store, tick, shows: shows!(read.value.value) };
    // A replica's answer may predate the version it would be filed under: then it is only sent.
    entry = cache.set(key, String(reply.serialize(read.value.value)), { file: read.fileable, validUntil: read.value.validUntil, held });
  }
  reply.header('etag', entry.etag).header('cache-control', 'private, no-cache');
  if (request.headers['if-none-match'] === entry.etag) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(entry.body);
}

/** The cache of a server: its hold marks read the server's primary database. */
export function catalogCache(db: Database, maxEntries: number): ResponseCache {
  const cache = new ResponseCache(maxEntries);
  cache.holds = new HeldMarks((store, xmin) => holdChangesSince(db, store, xmin));
  return cache;
}
