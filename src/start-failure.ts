/**
 * Why a start failed, in one line that names the setting to change and the cause: an operator
 * reads it in a service log, where a stack trace only hides it.
 */
import { DataDirLockedError } from './db/data-dir-lock.js';
import { isDatabaseUnavailable, postgresErrorCode } from './db/errors.js';
import type { Config } from './plugins/config.js';

/** The database did not answer within DB_START_TIMEOUT_SECONDS. */
export class DatabaseStartTimeout extends Error {
  constructor(readonly seconds: number, override readonly cause: unknown) {
    super(`the database did not answer within ${seconds} s`);
  }
}

/** `host:port` of a PostgreSQL URL, never its password. */
export function databaseAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`;
  } catch {
    return 'the configured server';
  }
}

function errnoOf(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  }
  return undefined;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? '').trim() || 'unknown error';
}

const DATA_DIR_CAUSES: Record<string, string> = {
  EEXIST: 'it is a file, not a directory',
  ENOTDIR: 'a part of its path is a file, not a directory',
  EACCES: 'this process may not write there',
  EPERM: 'this process may not write there',
  EROFS: 'it is on a read-only file system',
  ENOSPC: 'the disk is full',
};

/** One line naming the setting and the cause of a failed start. */
export function describeStartFailure(error: unknown, config: Config): string {
  if (error instanceof DataDirLockedError) return `DATA_DIR=${config.dataDir}: ${error.message}`;
  const errno = errnoOf(error);
  const path = (error as { path?: unknown } | null)?.path;
  if (!config.databaseUrl && errno && typeof path === 'string' && path.startsWith(config.dataDir.replace(/\/+$/, ''))) {
    return `DATA_DIR=${config.dataDir} is not usable: ${DATA_DIR_CAUSES[errno] ?? `${errno} on ${path}`}`;
  }
  const syscall = (error as { syscall?: unknown } | null)?.syscall;
  if (syscall === 'listen') {
    if (errno === 'EADDRINUSE') return `PORT=${config.port}: ${config.host}:${config.port} is already in use by another process`;
    if (errno === 'EACCES') return `PORT=${config.port}: this process may not listen on ${config.host}:${config.port}`;
    if (errno === 'EADDRNOTAVAIL') return `HOST=${config.host}: this machine has no such address to listen on`;
    return `PORT=${config.port}, HOST=${config.host}: cannot listen (${errno ?? firstLine(error)})`;
  }
  if (config.databaseUrl) {
    const where = `PostgreSQL at ${databaseAddress(config.databaseUrl)}`;
    if (error instanceof DatabaseStartTimeout) {
      const cause = errnoOf(error.cause) ?? firstLine(error.cause);
      return `DATABASE_URL: ${where} did not answer within ${error.seconds} s (${cause}); DB_START_TIMEOUT_SECONDS sets how long to wait`;
    }
    if (postgresErrorCode(error) === '28P01' || postgresErrorCode(error) === '28000') return `DATABASE_URL: ${where} refused the login: ${firstLine(error)}`;
    if (postgresErrorCode(error) === '3D000') return `DATABASE_URL: ${where}: ${firstLine(error)}`;
    if (isDatabaseUnavailable(error)) return `DATABASE_URL: ${where} cannot be reached (${errno ?? firstLine(error)})`;
  }
  return `storefront failed to start: ${firstLine(error)}`;
}
