/** The events feed: oldest first, paged with an opaque cursor over (txid, seq). */
import type { Database } from '../../db/client.js';
import { toIso } from '../../lib/time.js';
import { AppError } from '../../plugins/errors.js';
import * as repo from './repository.js';
import type { EventFeedQuery, EventView } from './schemas.js';
import { EVENT_TYPES } from './types.js';

export function eventView(row: repo.EventRow): EventView {
  return { id: row.id, type: row.type, store: row.store, timestamp: toIso(row.createdAt), actor: row.actor, data: row.data as EventView['data'] };
}

const encodeCursor = (row: { txid: string; seq: number }) => Buffer.from(`${row.txid}.${row.seq}`).toString('base64url');

function decodeCursor(cursor: string): { txid: string; seq: number } {
  const match = /^(\d{1,20})\.(\d{1,19})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) {
    throw new AppError('VALIDATION_FAILED', 'after is not a cursor of this feed', { errors: [{ field: 'after', message: 'malformed cursor' }] });
  }
  return { txid: match[1]!, seq: Number(match[2]) };
}

function parseTypes(type: string | undefined): string[] | undefined {
  if (type === undefined) return undefined;
  const types = [...new Set(type.split(',').map((t) => t.trim()))];
  const unknown = types.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length > 0) {
    throw new AppError('VALIDATION_FAILED', `unknown event type(s): ${unknown.join(', ')}`, {
      errors: [{ field: 'type', message: `one or more of ${EVENT_TYPES.join(', ')}` }],
    });
  }
  return types;
}

/** One page of the store's feed; `nextCursor` continues after it (or stays put when it is empty). */
export async function readEventFeed(db: Database, store: string, query: EventFeedQuery, retentionDays: number) {
  const after = query.after === undefined ? undefined : decodeCursor(query.after);
  const rows = await repo.feedEvents(db, { store, after, types: parseTypes(query.type), limit: query.limit, retentionDays });
  const last = rows.at(-1);
  return { events: rows.map(eventView), nextCursor: last ? encodeCursor(last) : (query.after ?? null) };
}
