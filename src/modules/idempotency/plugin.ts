/**
 * Safe retries with `Idempotency-Key` on routes that opt in (`config: { idempotent: true }`).
 * Keys belong to a caller: the path's customer on customer routes; otherwise the customer a
 * customer credential names, or the token. So two customers with one key get two independent
 * answers, and neither learns of the other. Only requests that passed authorization get here.
 * The first completed answer per store, caller and key is kept for 24 hours and replayed with
 * `Idempotent-Replayed: true`; the same key with another request is 422; while the first is still
 * running, 409. Answers below 500 are kept; a 5xx forgets the key so that the retry runs again.
 * Services complete the key inside their own transaction (`completeIdempotencyKey`), so a result
 * that committed is never done twice, even if the process dies before it answers.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Executor } from '../../db/client.js';
import { storePrincipalOf } from '../../plugins/authentication.js';
import { AppError } from '../../plugins/errors.js';
import * as repo from './repository.js';

export type IdempotencyClaim = repo.KeyId;

declare module 'fastify' {
  interface FastifyContextConfig {
    idempotent?: boolean;
  }
  interface FastifyRequest {
    idempotency: IdempotencyClaim | null;
  }
}

/** Keeps `result` as the key's answer, in the transaction that produced it. */
export async function completeIdempotencyKey(tx: Executor, claim: IdempotencyClaim | null | undefined, status: number, result: unknown) {
  if (claim) await repo.completeKey(tx, claim, status, JSON.stringify(result));
}

/** Whose key space a request's key belongs to. */
function callerOf(request: FastifyRequest): string {
  const customer = (request.params as { customer?: string }).customer;
  if (customer) return `customer:${customer.toLowerCase()}`;
  const principal = storePrincipalOf(request);
  return principal.kind === 'customer' ? `customer:${principal.customerId}` : `token:${principal.tokenId}`;
}

function fingerprintOf(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.routeOptions.url} ${JSON.stringify(request.params)} ${JSON.stringify(request.body ?? null)}`)
    .digest('hex');
}

function replay(reply: FastifyReply, row: repo.KeyRow) {
  const status = row.responseStatus ?? 200;
  return reply
    .code(status)
    .header('idempotent-replayed', 'true')
    .type(status >= 400 ? 'application/problem+json; charset=utf-8' : 'application/json; charset=utf-8')
    .serializer((payload: unknown) => String(payload))
    .send(row.responseBody ?? '');
}

export default fp(
  async (app: FastifyInstance) => {
    app.decorateRequest('idempotency', null);

    app.addHook('preHandler', async (request, reply) => {
      if (!request.routeOptions.config.idempotent) return;
      const header = request.headers['idempotency-key'];
      if (header === undefined) return;
      const key = Array.isArray(header) ? header[0] ?? '' : header;
      if (key.length < 1 || key.length > 255) throw new AppError('VALIDATION_FAILED', 'Idempotency-Key must be 1 to 255 characters');
      const claim = { store: storePrincipalOf(request).store, caller: callerOf(request), key };
      const fingerprint = fingerprintOf(request);
      if (await repo.claimKey(app.db, claim, fingerprint)) {
        request.idempotency = claim;
        return;
      }
      const row = await repo.findKey(app.db, claim);
      // The key expired between the two statements: a retry of the client's will claim it.
      if (!row) throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'this Idempotency-Key is being reclaimed; retry');
      if (row.fingerprint !== fingerprint) {
        throw new AppError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with a different request');
      }
      if (row.state === 'done') return replay(reply, row);
      throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'a request with this Idempotency-Key is still running; retry later', {
        headers: { 'retry-after': '1' },
      });
    });

    app.addHook('onSend', async (request, reply, payload) => {
      const claim = request.idempotency;
      if (!claim) return payload;
      request.idempotency = null;
      try {
        if (reply.statusCode >= 500) await repo.releaseKey(app.db, claim);
        else if (typeof payload === 'string') await repo.completeKey(app.db, claim, reply.statusCode, payload);
      } catch (error) {
        // The answer still goes out; the key's lease runs out and a retry runs again (or replays
        // the answer its transaction already kept).
        request.log.warn({ err: error }, 'could not record the idempotent answer');
      }
      return payload;
    });
  },
  { name: 'idempotency', dependencies: ['authorization'] },
);
