/** The events module's public interface: recording events (the write pipeline does it) and their types. */
import type { BesideWrite, Database, Executor } from '../../db/client.js';
import { recordEvents, recordStoreEvents } from './repository.js';
import { SYSTEM_ACTOR, type Actor, type EventType } from './types.js';

export { recordEvents, recordStoreEvents };
export { recordTestEvent, purgeOldEvents } from './repository.js';
export { eventView } from './service.js';
export { Event } from './schemas.js';
export { EVENT_TYPES, SYSTEM_ACTOR, type Actor, type EventType } from './types.js';

/** Records an event of the current command, in its transaction (the pipeline writes them before commit). */
export type Recorder = (type: EventType, data: unknown) => void;

/**
 * Hands over a write that depends on no answer, to be made in the statement that records the
 * events (db/client.ts `BesideWrite`): the transaction's last, which carries its COMMIT, so a
 * transaction's final write and its events take one round trip.
 */
export type Alongside = (write: BesideWrite) => void;

/**
 * Runs work in one transaction that records its events as the write pipeline does for a request:
 * work outside an HTTP request (the demo seed, the CLI, jobs, a provider's webhook) as the system's,
 * and a command that opens its own transactions (one that calls a payment provider) as its caller's.
 */
export async function withRecordedEvents<T>(
  db: Database,
  store: string,
  work: (tx: Executor, record: Recorder, alongside: Alongside) => Promise<T>,
  actor: Actor = SYSTEM_ACTOR,
): Promise<T> {
  return db.transaction(async (tx) => {
    const events: Array<{ type: EventType; data: unknown; actor: Actor }> = [];
    const beside: BesideWrite[] = [];
    const result = await work(tx, (type, data) => events.push({ type, data, actor }), (write) => beside.push(write));
    await recordEvents(tx, store, events, { last: true, beside });
    return result;
  });
}
