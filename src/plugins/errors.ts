/**
 * One error type, one code-to-status map, one handler: every error leaves as RFC 9457
 * application/problem+json `{type, title, status, detail, code, instance, errors?}`.
 * Expected business failures are AppErrors; anything else is mapped here and a 5xx never shows
 * internals.
 */
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { isDatabaseUnavailable, postgresErrorCode } from '../db/errors.js';

import { AppError, ERROR_STATUS, TITLES, type ErrorCode, type ProblemExtra } from '../lib/app-error.js';

export { AppError, ERROR_STATUS, type ErrorCode, type ProblemExtra };

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  instance: string;
  errors?: unknown[];
  reason?: string;
}

export function problemOf(error: AppError, requestId: string): Problem {
  const body: Problem = {
    type: `urn:storefront:problem:${error.code.toLowerCase().replaceAll('_', '-')}`,
    title: TITLES[error.code],
    status: error.status,
    detail: error.detail,
    code: error.code,
    instance: `urn:request:${requestId}`,
  };
  if (error.extra.errors) body.errors = error.extra.errors;
  if (error.extra.reason) body.reason = error.extra.reason;
  return body;
}

declare module 'fastify' {
  interface FastifyReply {
    /** The code of the problem this reply answers, if any (for metrics and logs). */
    problemCode: ErrorCode | null;
  }
}

export function sendProblem(reply: FastifyReply, error: AppError): FastifyReply {
  reply.problemCode = error.code;
  for (const [name, value] of Object.entries(error.extra.headers ?? {})) reply.header(name, value);
  return reply.code(error.status).type('application/problem+json; charset=utf-8').send(problemOf(error, reply.request.id));
}

/** At most this many field problems are listed in a validation problem (docs/api.md, "Errors"). */
export const MAX_LISTED_ERRORS = 20;

/** Maps whatever was thrown to the AppError that describes it to the client. */
export function toAppError(error: unknown, { bodyLimit }: { bodyLimit?: number } = {}): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as Partial<FastifyError> & { validation?: ValidationIssue[]; validationContext?: string };
  if (fastifyError.validation) return validationError(fastifyError.validation, fastifyError.validationContext ?? 'request');
  if (isDatabaseUnavailable(error)) {
    return new AppError('SERVICE_UNAVAILABLE', 'the database is not answering; retry shortly', { headers: { 'retry-after': '1' } });
  }
  switch (postgresErrorCode(error)) {
    case '23505':
      return new AppError('CONFLICT', 'a record with the same unique value already exists');
    case '40001':
    case '40P01':
      return new AppError('SERVICE_UNAVAILABLE', 'the request collided with a concurrent one; retry it', { headers: { 'retry-after': '1' } });
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', `the request body is larger than ${describeBytes(bodyLimit ?? 1024 * 1024)}, the limit of this route`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'send the body as Content-Type: application/json');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('VALIDATION_FAILED', 'the body is not valid JSON, or holds a forbidden key such as __proto__');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('VALIDATION_FAILED', 'the body is empty; send a JSON object');
  }
  const status = fastifyError.statusCode ?? 500;
  if (error instanceof SyntaxError || (status === 400 && /json/i.test(fastifyError.message ?? ''))) {
    return new AppError('VALIDATION_FAILED', 'the body is not valid JSON');
  }
  if (status === 413) return new AppError('PAYLOAD_TOO_LARGE', 'the request is too large');
  if (status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', 'send the body as Content-Type: application/json');
  if (status === 404) return new AppError('NOT_FOUND', 'not found');
  if (status === 429) return new AppError('RATE_LIMITED', 'too many requests');
  if (status === 503) return new AppError('SERVICE_UNAVAILABLE', 'the service is unavailable; retry shortly');
  if (status >= 400 && status < 500) return new AppError('VALIDATION_FAILED', fastifyError.message ?? 'the request is not valid');
  return new AppError('INTERNAL', 'an internal error occurred; it has been logged');
}

interface ValidationIssue {
  instancePath: string;
  schemaPath?: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

function describeBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/**
 * A failed `oneOf` reports every branch's failures: keep only the branch the input came closest to
 * (fewest failures), which is the one the client meant.
 */
function closestBranch(issues: ValidationIssue[]): ValidationIssue[] {
  const branches = new Map<string, ValidationIssue[]>();
  const rest: ValidationIssue[] = [];
  for (const issue of issues) {
    const branch = /^(.*\/oneOf\/\d+)\//.exec(issue.schemaPath ?? '')?.[1];
    if (branch) branches.set(branch, [...(branches.get(branch) ?? []), issue]);
    else if (issue.keyword !== 'oneOf') rest.push(issue);
  }
  if (branches.size === 0) return issues;
  const closest = [...branches.values()].sort((a, b) => a.length - b.length)[0] ?? [];
  return [...rest, ...closest];
}

function validationError(allIssues: ValidationIssue[], context: string): AppError {
  const issues = closestBranch(allIssues);
  const errors = issues.slice(0, MAX_LISTED_ERRORS).map((issue) => {
    let field = `${context}${issue.instancePath.replaceAll('/', '.')}`;
    if (issue.keyword === 'required') field += `.${String(issue.params.missingProperty)}`;
    if (issue.keyword === 'additionalProperties') field += `.${String(issue.params.additionalProperty)}`;
    const message = issue.keyword === 'additionalProperties' ? 'is not a known field' : (issue.message ?? 'is not valid');
    return { field, message };
  });
  const first = errors[0];
  return new AppError('VALIDATION_FAILED', first ? `${first.field} ${first.message}` : 'the request is not valid', { errors });
}

/**
 * A client that went away before its request arrived in full (an aborted upload, a cut
 * connection): its own doing, not the server's nor the database's, whatever the error says.
 */
function clientWentAway(error: unknown, request: FastifyRequest): boolean {
  const raw = request.raw;
  if (raw.complete) return false;
  const code = (error as { code?: unknown } | null)?.code;
  return raw.destroyed || raw.socket?.destroyed === true || code === 'ECONNRESET' || code === 'ECONNABORTED' || code === 'ERR_HTTP_REQUEST_TIMEOUT';
}

function handleError(this: FastifyInstance, error: unknown, request: FastifyRequest, reply: FastifyReply) {
  if (clientWentAway(error, request)) {
    request.log.info({ event: 'client_aborted', received: request.raw.socket?.bytesRead }, 'the client closed the connection before its request arrived in full');
    // Nobody reads this answer; it is sent only so that the request ends as every other does.
    return sendProblem(reply, new AppError('VALIDATION_FAILED', 'the request did not arrive in full'));
  }
  const appError = toAppError(error, { bodyLimit: request.routeOptions.bodyLimit });
  if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
  else request.log.info({ code: appError.code, detail: appError.extra.logDetail ?? appError.detail }, 'request refused');
  return sendProblem(reply, appError);
}

export default fp(
  async (app: FastifyInstance) => {
    app.decorateReply('problemCode', null);
    app.setErrorHandler(handleError);
    app.setNotFoundHandler((request, reply) => {
      const path = request.url.split('?')[0] ?? '';
      return sendProblem(reply, new AppError('NOT_FOUND', `no route ${request.method} ${path.slice(0, 200)}`));
    });
  },
  { name: 'errors' },
);

const REQUEST_TIMEOUT_BODY = JSON.stringify({
  type: 'urn:storefront:problem:request-timeout',
  title: TITLES.REQUEST_TIMEOUT,
  status: 408,
  detail: 'the request did not arrive in full within REQUEST_TIMEOUT_MS',
  code: 'REQUEST_TIMEOUT',
});

/**
 * Errors of the HTTP parser or of a connection, before or outside any request Fastify handles: a
 * request that did not arrive in time is answered 408 problem+json, anything else 400; a connection
 * the client already closed is left alone.
 */
export function clientErrors(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  this.log.info({ event: timedOut ? 'client_timeout' : 'client_error', code: error.code }, timedOut ? 'a request did not arrive in time' : 'a malformed request');
  const body = timedOut
    ? REQUEST_TIMEOUT_BODY
    : JSON.stringify({ type: 'urn:storefront:problem:validation-failed', title: TITLES.VALIDATION_FAILED, status: 400, detail: 'the HTTP request is malformed', code: 'VALIDATION_FAILED' });
  const status = timedOut ? '408 Request Timeout' : '400 Bad Request';
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status}\r\nContent-Type: application/problem+json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Fastify's own early failures (a malformed URL) go through the same format. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const appError = error.code === 'FST_ERR_BAD_URL' ? new AppError('VALIDATION_FAILED', 'the URL is not valid') : toAppError(error);
  // Hooks (and so helmet) do not run for these early failures.
  reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
  sendProblem(reply, appError);
}
