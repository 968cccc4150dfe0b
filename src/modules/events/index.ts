/** The events module's public interface: recording events (the write pipeline does it) and their types. */
import type { Database, Executor } from '../../db/client.js';
import { recordEvents } from './repository.js';
import { SYSTEM_ACTOR, type EventType } from './types.js';

export { recordEvents };
export { recordTestEvent, purgeOldEvents } from './repository.js';
export { eventView } from './service.js';
export { Event } from './schemas.js';
export { EVENT_TYPES, SYSTEM_ACTOR, type Actor, type EventType } from './types.js';

/** Records an event of the current command, in its transaction (the pipeline writes them before commit). */
export type Recorder = (type: EventType, data: unknown) => void;

/**
 * Runs work outside an HTTP request (the demo seed, the CLI) in one transaction that records its
 * events as the write pipeline does for a request.
 */
export async function withRecordedEvents<T>(db: Database, store: string, work: (tx: Executor, record: Recorder) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    const events: Array<{ type: EventType; data: unknown; actor: typeof SYSTEM_ACTOR }> = [];
    // Work outside HTTP has no principal: its changes are the system's.
    const result = await work(tx, (type, data) => events.push({ type, data, actor: SYSTEM_ACTOR }));
    await recordEvents(tx, store, events);
    return result;
  });
}
