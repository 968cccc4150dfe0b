/**
 * Safe retries with `Idempotency-Key`: the write pipeline (plugins/commands.ts) takes a request's
 * key in the transaction of its work and keeps the answer there. The same key with the same
 * request (its parsed body: JSON key order does not matter, array order does) replays the answer;
 * with another request it is 422; while the first still runs, 409.
 */
import { createHash } from 'node:crypto';
import type { Executor } from '../../db/client.js';
import { findAnswers, keepAnswers, lockKeys, purgeExpiredKeys, type KeptAnswer, type KeyId } from './repository.js';

export { keepAnswers, purgeExpiredKeys, type KeptAnswer, type KeyId };

/** A request's key with the fingerprint of the request it came with. */
export type Claim = KeyId & { fingerprint: string };

/** JSON with every object's keys sorted, so two bodies that parse equal print equal. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** What makes two requests the same request: route, path values and parsed body. */
export function fingerprintOf(method: string, route: string, params: unknown, body: unknown): string {
  return createHash('sha256').update(`${method} ${route} ${canonicalJson(params)} ${canonicalJson(body ?? null)}`).digest('hex');
}

/**
 * Takes the claims' keys for this transaction. Per claim: `free` (this transaction owns the key and
 * no answer is kept), `busy` (another transaction runs with it), or the answer kept earlier.
 */
export async function takeKeys(tx: Executor, claims: Claim[]): Promise<Array<'free' | 'busy' | KeptAnswer>> {
  if (claims.length === 0) return [];
  const ids = claims.map(({ store, caller, key }) => ({ store, caller, key }));
  const locked = await lockKeys(tx, ids);
  const held = ids.filter((_, i) => locked[i]);
  const answers = held.length > 0 ? await findAnswers(tx, held) : [];
  let next = 0;
  return locked.map((taken) => (taken ? (answers[next++] ?? 'free') : 'busy'));
}
