/**
 * Opaque list cursors: base64url of JSON holding the position after the last product of a page
 * (its sort keys and id) and a short hash of the filters and sort it was made for. A cursor is only
 * valid for the list it came from; anything else is 400.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../../plugins/errors.js';

/** How a sort key is carried in a cursor, so that a decoded cursor can be checked before SQL sees it. */
export type KeyKind = 'timestamp' | 'integer' | 'text';

export interface CursorPosition {
  keys: Array<string | number>;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A short hash naming the list (filters and sort, not the page size) a cursor belongs to. */
export function listBinding(parts: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 16);
}

export function encodeCursor(position: CursorPosition, binding: string): string {
  return Buffer.from(JSON.stringify({ k: position.keys, i: position.id, b: binding })).toString('base64url');
}

function invalid(detail: string): never {
  throw new AppError('VALIDATION_FAILED', detail, { errors: [{ field: 'after', message: detail }] });
}

function validKey(value: unknown, kind: KeyKind): boolean {
  if (kind === 'integer') return Number.isSafeInteger(value);
  if (typeof value !== 'string' || value.length > 1000) return false;
  return kind === 'text' || (ISO.test(value) && !Number.isNaN(Date.parse(value)));
}

/** The position a cursor names, or 400 when it is malformed or made for another list. */
export function decodeCursor(text: string, binding: string, kinds: KeyKind[]): CursorPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    invalid('after is not a cursor from this API');
  }
  const { k, i, b } = (parsed ?? {}) as { k?: unknown; i?: unknown; b?: unknown };
  if (!Array.isArray(k) || typeof i !== 'string' || !UUID.test(i) || typeof b !== 'string') invalid('after is not a cursor from this API');
  if (b !== binding) invalid('after is a cursor of another list: keep collection, group, collapse, q, the filters and sort as they were');
  if (k.length !== kinds.length || !k.every((value, n) => validKey(value, kinds[n]!))) invalid('after is not a cursor from this API');
  return { keys: k as Array<string | number>, id: i };
}
