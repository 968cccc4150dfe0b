/**
 * The write pipeline. Every write route under /api/v1 is a command: it declares once its route,
 * schemas, success status, the error codes it may answer, whether it takes an `Idempotency-Key`,
 * whether it changes the catalog and which events it may record, and its work. The pipeline does
 * the duties, so that no write can forget one:
 *   1. opens the transaction (or, for a command that combines requests, the round's transaction);
 *   2. takes the request's idempotency key in that transaction (a replay or a 409 ends here);
 *   3. runs the work, which records its events through its context;
 *   4. writes the events, and keeps the idempotent answer, in the same transaction; commits;
 *   5. bumps the store's catalog version (or, for a change of checkout holds only, its holds
 *      version) after the commit and before the answer (see modules/stores/catalog-version.ts),
 *      then answers.
 * A write route registered any other way makes the app refuse to start.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { ErrorCode } from '../lib/app-error.js';
import { FreshBatcher } from '../lib/fresh-batcher.js';
import { errorResponses } from '../lib/http-schemas.js';
import { KeyedBatcher } from '../lib/keyed-batcher.js';
import { StoreRoundQueue } from '../lib/store-round-queue.js';
import { markCatalogsChanged, markHoldsChanged } from '../modules/stores/index.js';
import type { Claim } from '../modules/idempotency/index.js';
import { storePrincipalOf } from './authentication.js';
import { actorOf, claimOf, runInTransaction, runRoundOfStores, type Answer, type Entry } from './command-runners.js';
import type { Command, Input, ProviderCommand, RoundCommand } from './command-types.js';
import { toAppError } from './errors.js';

export type { Command, CommandContext, CommandFacts, CommandInput, ProviderCommand, ProviderContext, RoundCommand, RoundJob, StoreJobs, TransactionCommand, WriteMethod } from './command-types.js';

const WRITE_METHODS = new Set<string>(['POST', 'PUT', 'PATCH', 'DELETE']);

function isRound<P extends TSchema, B extends TSchema, Q extends TSchema, R extends TSchema, J>(command: Command<P, B, Q, R, J>): command is RoundCommand<P, B, Q, R, J> {
  return 'runRound' in command;
}

function isProvider<P extends TSchema, B extends TSchema, Q extends TSchema, R extends TSchema, J>(command: Command<P, B, Q, R, J>): command is ProviderCommand<P, B, Q, R> {
  return 'perform' in command;
}

/** Registers a command as its route: the only way a write route under /api/v1 registers. */
export function registerCommand<P extends TSchema, B extends TSchema, Q extends TSchema, R extends TSchema, J = never>(app: FastifyInstance, command: Command<P, B, Q, R, J>): void {
  const declared = command.events ?? [];
  const errors: ErrorCode[] = [...command.errors, ...(command.idempotent ? (['IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_USE'] as const) : [])];
  const inputOf = (request: FastifyRequest): Input<P, B, Q> => {
    // Null on a public route (a provider's webhook, a sign-in, an invitation's acceptance).
    const principal = request.principal ?? null;
    return {
      params: request.params as Static<P>,
      body: request.body as Static<B>,
      query: request.query as Static<Q>,
      headers: request.headers,
      principal,
      client: principal?.kind === 'storefront' || principal?.kind === 'customer' ? request.ip : null,
      get store() {
        return storePrincipalOf(request).store;
      },
    };
  };

  let runOne: (request: FastifyRequest, reply: FastifyReply, input: Input<P, B, Q>, claim: Claim | null) => Promise<Answer>;
  if (isProvider(command)) {
    runOne = async (request, reply, input) => {
      return { value: await command.perform(input, { db: app.db, log: request.log, actor: actorOf(input.principal), answerWith: (status) => reply.code(status) }) };
    };
  } else if (isRound(command)) {
    type Queued = Entry<J> & { store: string };
    const runEntries = (entries: Queued[]) => runRoundOfStores(app, command, declared, entries);
    let submit: (entry: Queued) => Promise<Answer>;
    if (command.runStores) {
      // A command that decides a round of many stores with the statements of one (`runStores`)
      // keeps one round queue for every store, as one busy store has: shards would only make its
      // rounds smaller, each paying its statements for fewer requests. With `roundsAtOnce`, a
      // second round may run beside the first with the stores the first does not hold.
      const queue = new StoreRoundQueue<Queued, Answer>(runEntries, command.roundsAtOnce ?? 1);
      submit = (entry) => queue.submit(entry);
    } else {
      const batcher = new KeyedBatcher<Queued, Answer>(runEntries);
      const shardOf = roundShards(app);
      submit = (entry) => batcher.submit(shardOf(entry.store), entry);
    }
    runOne = (request, reply, input, claim) =>
      submit({ job: command.prepare(input), claim, store: input.store, serialize: (v) => String(reply.serialize(v)), requestId: request.id, actor: actorOf(input.principal) });
  } else {
    runOne = async (request, reply, input, claim) => {
      const answer = await runInTransaction(app, command, declared, request, reply, input, claim);
      if (command.afterCommit && 'value' in answer) {
        await command.afterCommit(input, answer.value as Static<R>).catch((error: unknown) => request.log.warn({ err: error }, 'work after the commit failed; the maintenance job finishes it'));
      }
      return answer;
    };
  }

  const bumpsAfterCommit = command.changesCatalog === true || (command.changesCatalog === 'in-transaction' && app.replicaReads !== null);
  const route: RouteOptions = {
    method: command.method,
    url: command.url,
    config: {
      command: { operationId: command.operationId, changesCatalog: Boolean(command.changesCatalog), counts: command.counts },
      idempotent: command.idempotent === true, extraLimit: command.limit, triesDiscountCode: command.triesDiscountCode,
    },
    // Only the parts the command has: Fastify warns of a schema part that is present but undefined.
    schema: Object.fromEntries(
      Object.entries({
        operationId: command.operationId, tags: command.tags, summary: command.summary, description: command.description,
        params: command.params, body: command.body, querystring: command.querystring,
        response: { [command.status]: command.response, ...(isProvider(command) ? { 200: command.response } : {}), ...errorResponses(errors) },
      }).filter(([, part]) => part !== undefined),
    ),
    preValidation: command.preValidation,
    preHandler: command.before,
    bodyLimit: command.bodyLimit,
    handler: async (request, reply) => {
      const input = inputOf(request);
      // A public command (a provider's webhook, a sign-in, an invitation's acceptance) and the root's have no store of their own.
      const store = !input.principal || input.principal.kind === 'root' ? null : input.store;
      const claim = command.idempotent && store ? claimOf(request, store) : null;
      reply.code(command.status);
      let answer: Answer;
      try {
        answer = await runOne(request, reply, input, claim);
        if ('refusal' in answer) throw answer.refusal;
      } catch (error) {
        // A 5xx may have failed after its commit: the bump is cheap, a stale cache is not.
        if (store && toAppError(error).status >= 500) await bump(app, request, store, command.changesCatalog ? 'catalog' : 'holds');
        throw error;
      }
      const replayed = 'replayed' in answer && answer.replayed;
      if ((bumpsAfterCommit || changedCatalog(answer)) && store && !replayed) await bump(app, request, store, 'catalog');
      else if (changedHolds(answer) && store && !replayed) await bump(app, request, store, 'holds');
      if ('value' in answer) return reply.send(answer.value);
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply
        .code(answer.status)
        .type(answer.status >= 400 ? 'application/problem+json; charset=utf-8' : 'application/json; charset=utf-8')
        .serializer((payload: unknown) => String(payload))
        .send(answer.body);
    },
  };
  app.route(route);
}

/**
 * Which round a store's request joins. Requests are combined per shard of stores, not per store:
 * a busy store's requests all fall in one shard (one round at a time, as before), and requests
 * spread over thousands of quiet stores still share rounds, so each does not pay a transaction,
 * its keys, its events and its answers alone. Half the pool's connections: rounds of the other
 * shards, token lookups and catalog bumps keep the rest.
 */
function roundShards(app: FastifyInstance): (store: string) => string {
  const count = roundShardCount(app.config.dbPoolSize);
  return (store) => String(roundShardOf(store, count));
}

/** How many shards a process's rounds are keyed by, for a database pool of this size. */
export const roundShardCount = (poolSize: number) => Math.max(1, Math.ceil(poolSize / 2));

/** The shard of a store's rounds: a hash of its slug, the same in every process. */
export function roundShardOf(store: string, count: number): number {
  let hash = 0;
  for (let i = 0; i < store.length; i++) hash = (Math.imul(hash, 31) + store.charCodeAt(i)) | 0;
  return (hash >>> 0) % count;
}

/**
 * Marks a success of a command that does not declare `changesCatalog` as one that changed catalog
 * answers all the same: the version is bumped for it (a change of checkout holds only marks
 * HOLDS_CHANGED instead). Only for answers that are not kept (no `Idempotency-Key`): the mark is
 * not serialized.
 */
export const CATALOG_CHANGED: unique symbol = Symbol('catalogChanged');

const changedCatalog = (answer: Answer) =>
  'value' in answer && typeof answer.value === 'object' && answer.value !== null && (answer.value as { [CATALOG_CHANGED]?: boolean })[CATALOG_CHANGED] === true;

/**
 * Marks a success that took or ended checkout holds (their products noted in its transaction, see
 * modules/holds): the store's holds version is bumped for it, which refreshes only the cached
 * answers that show those products. Not serialized, like CATALOG_CHANGED.
 */
export const HOLDS_CHANGED: unique symbol = Symbol('holdsChanged');

const changedHolds = (answer: Answer) =>
  'value' in answer && typeof answer.value === 'object' && answer.value !== null && (answer.value as { [HOLDS_CHANGED]?: boolean })[HOLDS_CHANGED] === true;

/**
 * Bumps the store's catalog version, or its holds version (a change of checkout holds only). With
 * read replicas, the primary's WAL position after the bump is noted: a catalog read of this store
 * goes to a replica only once it has replayed that far.
 */
async function bump(app: FastifyInstance, request: FastifyRequest, store: string, version: 'catalog' | 'holds'): Promise<void> {
  try {
    const position = await (version === 'catalog' ? app.catalogBumps : app.holdsBumps).get(store);
    if (position) app.replicaReads?.noteCatalogChange(store, position);
  } catch (error) {
    request.log.error({ err: error }, `could not bump the ${version} version: cached catalog answers may lag until the next change`);
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Bumps asked while one runs make the next one, one statement for all their stores (each once),
     * started after all of them committed: requests spread over many stores cost one round trip per
     * round trip, not one per request. Answers the WAL position after it when there are replicas.
     */
    catalogBumps: FreshBatcher<string | undefined>;
    /** The same for the stores' holds versions (checkout holds changed). */
    holdsBumps: FreshBatcher<string | undefined>;
  }
}

export default fp(
  async (app: FastifyInstance) => {
    // One statement bumps the version of every store asked meanwhile; all share its WAL position.
    const bumps = (mark: typeof markCatalogsChanged) =>
      new FreshBatcher<string | undefined>(async (stores) => {
        const position = await mark(app.db, stores, { position: app.replicaReads !== null });
        return new Map(stores.map((store) => [store, position]));
      }, undefined);
    app.decorate('catalogBumps', bumps(markCatalogsChanged));
    app.decorate('holdsBumps', bumps(markHoldsChanged));
    app.addHook('onRoute', (route) => {
      const methods = (Array.isArray(route.method) ? route.method : [route.method]).map(String);
      if (!route.url.startsWith('/api/v1/') || !methods.some((m) => WRITE_METHODS.has(m))) return;
      if (!route.config?.command) {
        throw new Error(`write route ${methods.join(',')} ${route.url} is not a command: register it with registerCommand (src/plugins/commands.ts)`);
      }
    });
  },
  { name: 'commands', dependencies: ['authentication', 'replica-reads'] },
);
