/** Recognizes database errors through the wrappers that drivers and Drizzle put around them. */

function* chain(error: unknown): Generator<Record<string, unknown>> {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    yield current as Record<string, unknown>;
    current = (current as { cause?: unknown }).cause;
  }
}

/** The SQLSTATE of a PostgreSQL error, if the error (or its cause) is one. */
export function postgresErrorCode(error: unknown): string | undefined {
  for (const e of chain(error)) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  }
  return undefined;
}

/** The constraint (or unique index) a PostgreSQL error names, if any. */
export function postgresConstraint(error: unknown): string | undefined {
  for (const e of chain(error)) {
    if (typeof e.constraint === 'string') return e.constraint;
  }
  return undefined;
}

const UNAVAILABLE_SYSCALL_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH']);
const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection terminated unexpectedly|database did not answer|Cannot use a pool after calling end|PGlite is closed|Query read timeout/i;

/** SQLSTATE of a write sent to a server in recovery: a primary that became a replica in a failover. */
export const READ_ONLY_TRANSACTION = '25006';

/** True when the database could not be reached or dropped the connection: a 503, not a 500. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const e of chain(error)) {
    if (typeof e.code === 'string' && UNAVAILABLE_SYSCALL_CODES.has(e.code)) return true;
    // 08: connection exception; 57P01..57P03: server shutting down or starting; 57014: statement timeout.
    // 25006: a write reached a node that is (now) a replica; the primary is elsewhere, or not yet elected.
    if (typeof e.code === 'string' && (/^08/.test(e.code) || /^57P0[1-3]$/.test(e.code) || e.code === '57014' || e.code === '53300' || e.code === READ_ONLY_TRANSACTION)) return true;
    if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)) return true;
  }
  return false;
}
