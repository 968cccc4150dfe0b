/**
 * What a log line may say about a request and an error: never a value a client or the database
 * was given. Database errors carry the statement's parameters (Drizzle's message and `params`,
 * PGlite's `params`), the row that failed (`detail`: "Failing row contains (...)", "Key (...)=(...)")
 * and sometimes a value in the message itself ('invalid input syntax for type uuid: "..."'), so an
 * error is logged from a list of fields known to hold only names and codes; a request is logged by
 * its path, without the query string.
 */
import type { FastifyRequest } from 'fastify';

/** Fields of an error (node, pg, PGlite) that hold names and codes, never values. */
const SAFE_FIELDS = ['code', 'severity', 'constraint', 'table', 'column', 'schema', 'dataType', 'routine', 'status', 'statusCode', 'syscall', 'errno'] as const;
const MAX_CAUSES = 4;

// A quoted name in a PostgreSQL message follows the kind of object it names; any other quoted text is a value.
const QUOTED = /"(?:[^"\\]|\\.)*"/g;
const NAMES_FOLLOW = /\b(?:constraint|relation|column|table|index|type|function|schema|sequence|database|role|extension|operator|trigger|view|cursor|savepoint|statement) $/i;

/** The message with every parameter list and quoted value taken out. */
export function redactMessage(message: string): string {
  const withoutParams = message.replace(/\n?\s*params: [\s\S]*$/, '');
  return withoutParams.replace(QUOTED, (quoted, offset: number) => (NAMES_FOLLOW.test(withoutParams.slice(Math.max(0, offset - 20), offset)) ? quoted : '"(redacted)"'));
}

/** An error as a log line may show it: its type, a redacted message, safe fields, stack frames and causes. */
export function safeError(error: unknown, depth = 0): { type: string; message: string; stack: string; [field: string]: unknown } {
  if (typeof error !== 'object' || error === null) return { type: typeof error, message: redactMessage(String(error)), stack: '' };
  const e = error as Record<string, unknown>;
  const type = typeof e.name === 'string' ? e.name : (error.constructor?.name ?? 'Error');
  const message = redactMessage(typeof e.message === 'string' ? e.message : '');
  const frames = typeof e.stack === 'string' ? e.stack.split('\n').filter((line) => /^\s+at /.test(line)) : [];
  const out: { type: string; message: string; stack: string; [field: string]: unknown } = { type, message, stack: [`${type}: ${message}`, ...frames].join('\n') };
  for (const field of SAFE_FIELDS) {
    const value = e[field];
    if (typeof value === 'string' || typeof value === 'number') out[field] = value;
  }
  // Our own errors' details are our words; a database error's `detail` is the row's values.
  if (type === 'AppError' && typeof e.detail === 'string') out.detail = e.detail;
  if (typeof e.query === 'string') out.query = e.query.slice(0, 2000);
  if (e.cause !== undefined && depth < MAX_CAUSES) out.cause = safeError(e.cause, depth + 1);
  return out;
}

/** A request as its log lines show it: the path, never the query string (search terms, customer ids). */
export function safeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: request.url.split('?')[0],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

export const logSerializers = { err: safeError, req: safeRequest };
