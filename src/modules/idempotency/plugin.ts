/**
 * Safe retries with `Idempotency-Key` on routes that opt in (`config: { idempotent: true }`).
 * The first completed answer per store and key is kept for 24 hours and replayed with
 * `Idempotent-Replayed: true`; the same key with another request is 422; while the first is still
 * running, 409. Answers below 500 are kept; a 5xx forgets the key so that the retry runs again.
 * Services complete the key inside their own transaction (`completeIdempotencyKey`), so a result
 * that committed is never done twice, even if the process dies before it answers.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Executor } from '../../db/client.js';
import { storeOf } from '../../plugins/auth.js';
import { AppError } from '../../plugins/errors.js';
import * as repo from './repository.js';

export interface IdempotencyClaim {
  store: string;
  key: string;
}

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
  if (claim) await repo.completeKey(tx, claim.store, claim.key, status, JSON.stringify(result));
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
      const store = storeOf(request);
      const fingerprint = fingerprintOf(request);
      if (await repo.claimKey(app.db, store, key, fingerprint)) {
        request.idempotency = { store, key };
        return;
      }
      const row = await repo.findKey(app.db, store, key);
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
        if (reply.statusCode >= 500) await repo.releaseKey(app.db, claim.store, claim.key);
        else if (typeof payload === 'string') await repo.completeKey(app.db, claim.store, claim.key, reply.statusCode, payload);
      } catch (error) {
        // The answer still goes out; the key's lease runs out and a retry runs again (or replays
        // the answer its transaction already kept).
        request.log.warn({ err: error }, 'could not record the idempotent answer');
      }
      return payload;
    });
  },
  { name: 'idempotency', dependencies: ['auth'] },
);
