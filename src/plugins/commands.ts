/**
 * The write pipeline. Every write route under /api/v1 is a command: it declares once its route,
 * schemas, success status, the error codes it may answer, whether it takes an `Idempotency-Key`,
 * whether it changes the catalog and which events it may record, and its work. The pipeline does
 * the duties, so that no write can forget one:
 *   1. opens the transaction (or, for a command that combines requests, the round's transaction);
 *   2. takes the request's idempotency key in that transaction (a replay or a 409 ends here);
 *   3. runs the work, which records its events through its context;
 *   4. writes the events, and keeps the idempotent answer, in the same transaction; commits;
 *   5. bumps the store's catalog version after the commit and before the answer (see
 *      modules/stores/catalog-version.ts), then answers.
 * A write route registered any other way makes the app refuse to start.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { Executor } from '../db/client.js';
import { AppError, type ErrorCode } from '../lib/app-error.js';
import { FreshCoalescer } from '../lib/fresh-coalescer.js';
import { errorResponses } from '../lib/http-schemas.js';
import { KeyedBatcher, type Outcome } from '../lib/keyed-batcher.js';
import { fingerprintOf, keepAnswers, takeKeys, type Claim, type KeptAnswer } from '../modules/idempotency/index.js';
import { recordEvents, type EventType, type Recorder } from '../modules/events/index.js';
import { markCatalogChanged } from '../modules/stores/index.js';
import { storePrincipalOf, type Principal } from './authentication.js';
import { problemOf, toAppError } from './errors.js';

export type WriteMethod = 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const WRITE_METHODS = new Set<string>(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What a command receives of its request, validated by its schemas. */
export interface CommandInput<P, B, Q> {
  params: P;
  body: B;
  query: Q;
  principal: Principal;
  /** The caller's store; a root caller (POST /v1/admin/stores) has none, and asking throws. */
  store: string;
}

/** What the pipeline gives a command's work: its transaction and its event recorder. */
export interface CommandContext {
  tx: Executor;
  record: Recorder;
  log: FastifyBaseLogger;
}

/** One request of a round, as the round's work sees it. */
export interface RoundJob<J> {
  job: J;
  record: Recorder;
}

interface Declaration<P extends TSchema, B extends TSchema, Q extends TSchema, R extends TSchema> {
  method: WriteMethod;
  /** Under the plugin's prefix (`/api`), e.g. `/v1/carts`; its access is the access table's entry for it. */
  url: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  params?: P;
  body?: B;
  querystring?: Q;
  status: 200 | 201 | 202;
  response: R;
  /** The refusals it may answer, besides those every route may (400, 401, 403, 429, 503). */
  errors: ErrorCode[];
  idempotent?: boolean;
  /** A success alters catalog answers: the store's catalog version is bumped before answering. */
  changesCatalog?: boolean;
  /** The only event types its work may record. */
  events?: readonly EventType[];
  /** A success counts in this business metric (plugins/metrics.ts). */
  counts?: 'orders';
  /** A second rate limit of its own (plugins/rate-limit.ts). */
  limit?: 'orders' | 'guest-sessions';
  /** Checks that must answer before schema validation does (a clearer detail than the schema's). */
  preValidation?: (request: FastifyRequest) => Promise<void>;
}

type Input<P extends TSchema, B extends TSchema, Q extends TSchema> = CommandInput<Static<P>, Static<B>, Static<Q>>;

/** A command whose work runs in a transaction of its own. */
export interface TransactionCommand<P extends TSchema, B extends TSchema, Q extends TSchema, R extends TSchema> extends Declaration<P, B, Q, R> {
  run: (input: Input<P, B, Q>, context: CommandContext) => Promise<Static<R>>;
}

/**
 * A command whose requests are combined per store: those that arrive while a round of their store
 * runs make the next round, one transaction for them all, each still decided on its own.
 */
export interface RoundCommand<P extends TSchema, B extends TSchema, Q extends TSchema, R extends TSchema, J> extends Declaration<P, B, Q, R> {
  /** What the round needs of one request, read before it joins a round. */
  prepare: (input: Input<P, B, Q>) => J;
  /**
   * Decides and writes the round's requests (all of one store), in arrival order: one outcome each.
   * A refused request must have written nothing; the round records events per request.
   */
  runRound: (tx: Executor, store: string, jobs: Array<RoundJob<J>>) => Promise<Array<Outcome<Static<R>>>>;
  /**
   * The round writes with one statement (atomic on its own) and records no events: a round with no
   * key to keep then runs without an explicit transaction, two round trips fewer.
   */
  writesOnce?: boolean;
}

export type Command<P extends TSchema, B extends TSchema, Q extends TSchema, R extends TSchema, J = never> =
  | TransactionCommand<P, B, Q, R>
  | RoundCommand<P, B, Q, R, J>;

/** The declaration as other plugins read it from the route's config. */
export interface CommandFacts {
  operationId: string;
  changesCatalog: boolean;
  counts?: 'orders';
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set only by `registerCommand`: a write route without it does not register. */
    command?: CommandFacts;
    idempotent?: boolean;
  }
}

/**
 * What a request's work ends in: its value (serialized when sent, after the commit), the serialized
 * answer (a kept one, replayed or just kept), or a refusal (thrown after the commit).
 */
type Answer = { value: unknown } | { status: number; body: string; replayed: boolean } | { refusal: AppError };

/** A round's entry: the request's job, its claim and how to serialize its answer. */
interface Entry<J> {
  job: J;
  claim: Claim | null;
  serialize: (value: unknown) => string;
  requestId: string;
}

/** Concurrent bumps of one store share one nextval, started after all of them committed. */
const bumps = new FreshCoalescer<void>();

function claimOf(request: FastifyRequest, store: string): Claim | null {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return null;
  const key = Array.isArray(header) ? (header[0] ?? '') : header;
  if (key.length < 1 || key.length > 255) throw new AppError('VALIDATION_FAILED', 'Idempotency-Key must be 1 to 255 characters');
  return { store, caller: callerOf(request), key, fingerprint: fingerprintOf(request.method, request.routeOptions.url ?? '', request.params, request.body) };
}

/** Whose key space a request's key belongs to: the path's customer, else the credential's subject or token. */
function callerOf(request: FastifyRequest): string {
  const customer = (request.params as { customer?: string }).customer;
  if (customer) return `customer:${customer.toLowerCase()}`;
  const principal = storePrincipalOf(request);
  return principal.kind === 'customer' ? `customer:${principal.customerId}` : `token:${principal.tokenId}`;
}

/** The answer a key already holds: a replay of it, or 422 when it was used with another request. */
function keptAnswer(kept: KeptAnswer, claim: Claim): Answer {
  if (kept.fingerprint !== claim.fingerprint) return { refusal: new AppError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with a different request') };
  return { status: kept.status, body: kept.body, replayed: true };
}

const keyInUse = () => new AppError('IDEMPOTENCY_KEY_IN_USE', 'a request with this Idempotency-Key is still running; retry later', { headers: { 'retry-after': '1' } });

function refusalAnswer(error: unknown, entry: { claim: Claim | null; requestId: string }): { answer: Answer; kept?: KeptAnswer } {
  const refusal = toAppError(error);
  // A 5xx is never kept: the retry runs again. Anything else is the key's answer.
  if (refusal.status >= 500 || !entry.claim) return { answer: { refusal } };
  return { answer: { refusal }, kept: { fingerprint: entry.claim.fingerprint, status: refusal.status, body: JSON.stringify(problemOf(refusal, entry.requestId)) } };
}

/** Collects a request's events; an event type the command did not declare is a programming error. */
function recorderFor(declared: readonly EventType[], events: Array<{ type: EventType; data: unknown }>): Recorder {
  return (type, data) => {
    if (!declared.includes(type)) throw new Error(`this command does not declare the event ${type}`);
    events.push({ type, data });
  };
}

function isRound<P extends TSchema, B extends TSchema, Q extends TSchema, R extends TSchema, J>(command: Command<P, B, Q, R, J>): command is RoundCommand<P, B, Q, R, J> {
  return 'runRound' in command;
}

/** Registers a command as its route: the only way a write route under /api/v1 registers. */
export function registerCommand<P extends TSchema, B extends TSchema, Q extends TSchema, R extends TSchema, J = never>(app: FastifyInstance, command: Command<P, B, Q, R, J>): void {
  const declared = command.events ?? [];
  const errors: ErrorCode[] = [...command.errors, ...(command.idempotent ? (['IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_USE'] as const) : [])];
  const inputOf = (request: FastifyRequest): Input<P, B, Q> => {
    const principal = request.principal!;
    return {
      params: request.params as Static<P>,
      body: request.body as Static<B>,
      query: request.query as Static<Q>,
      principal,
      get store() {
        return storePrincipalOf(request).store;
      },
    };
  };

  let runOne: (request: FastifyRequest, reply: FastifyReply, input: Input<P, B, Q>, claim: Claim | null) => Promise<Answer>;
  if (isRound(command)) {
    const batcher = new KeyedBatcher<Entry<J> & { store: string }, Answer>((entries) => runRound(app, command, declared, entries));
    runOne = (request, reply, input, claim) =>
      batcher.submit(input.store, { job: command.prepare(input), claim, store: input.store, serialize: (v) => String(reply.serialize(v)), requestId: request.id });
  } else {
    runOne = (request, reply, input, claim) => runInTransaction(app, command, declared, request, reply, input, claim);
  }

  const route: RouteOptions = {
    method: command.method,
    url: command.url,
    config: { command: { operationId: command.operationId, changesCatalog: command.changesCatalog === true, counts: command.counts }, idempotent: command.idempotent === true, extraLimit: command.limit },
    // Only the parts the command has: Fastify warns of a schema part that is present but undefined.
    schema: Object.fromEntries(
      Object.entries({
        operationId: command.operationId, tags: command.tags, summary: command.summary, description: command.description,
        params: command.params, body: command.body, querystring: command.querystring,
        response: { [command.status]: command.response, ...errorResponses(errors) },
      }).filter(([, part]) => part !== undefined),
    ),
    preValidation: command.preValidation,
    handler: async (request, reply) => {
      const input = inputOf(request);
      const store = input.principal.kind === 'root' ? null : input.store;
      const claim = command.idempotent && store ? claimOf(request, store) : null;
      reply.code(command.status);
      let answer: Answer;
      try {
        answer = await runOne(request, reply, input, claim);
        if ('refusal' in answer) throw answer.refusal;
      } catch (error) {
        // A 5xx may have failed after its commit: the bump is cheap, a stale cache is not.
        if (command.changesCatalog && store && toAppError(error).status >= 500) await bumpCatalog(app, request, store);
        throw error;
      }
      const replayed = 'replayed' in answer && answer.replayed;
      if (command.changesCatalog && store && !replayed) await bumpCatalog(app, request, store);
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

async function bumpCatalog(app: FastifyInstance, request: FastifyRequest, store: string): Promise<void> {
  try {
    await bumps.get(store, () => markCatalogChanged(app.db, store));
  } catch (error) {
    request.log.error({ err: error }, 'could not bump the catalog version: cached catalog answers may lag until the next change');
  }
}

async function runInTransaction<P extends TSchema, B extends TSchema, Q extends TSchema, R extends TSchema>(
  app: FastifyInstance,
  command: TransactionCommand<P, B, Q, R>,
  declared: readonly EventType[],
  request: FastifyRequest,
  reply: FastifyReply,
  input: Input<P, B, Q>,
  claim: Claim | null,
): Promise<Answer> {
  return app.db.transaction(async (tx) => {
    if (claim) {
      const [taken] = await takeKeys(tx, [claim]);
      if (taken === 'busy') return { refusal: keyInUse() };
      if (taken !== 'free') return keptAnswer(taken!, claim);
    }
    const events: Array<{ type: EventType; data: unknown }> = [];
    const context = { tx, record: recorderFor(declared, events), log: request.log };
    if (!claim) {
      const value = await command.run(input, context);
      if (events.length > 0) await recordEvents(tx, input.store, events);
      return { value };
    }
    let body: string;
    // A refusal below 500 is the key's answer: its work is undone (the savepoint), the answer kept.
    try {
      body = String(reply.serialize(await tx.transaction((savepoint) => command.run(input, { ...context, tx: savepoint }))));
    } catch (error) {
      const { answer, kept } = refusalAnswer(error, { claim, requestId: request.id });
      if (!kept) throw error;
      await keepAnswers(tx, [{ ...claim, ...kept }]);
      return answer;
    }
    if (events.length > 0) await recordEvents(tx, input.store, events);
    await keepAnswers(tx, [{ ...claim, status: command.status, body }]);
    return { status: command.status, body, replayed: false };
  });
}

/** One round of a round command: the keys, the work, the events and the kept answers, in one transaction. */
async function runRound<P extends TSchema, B extends TSchema, Q extends TSchema, R extends TSchema, J>(
  app: FastifyInstance,
  command: RoundCommand<P, B, Q, R, J>,
  declared: readonly EventType[],
  entries: Array<Entry<J> & { store: string }>,
): Promise<Array<Outcome<Answer>>> {
  const store = entries[0]!.store;
  const needsTransaction = !command.writesOnce || declared.length > 0 || entries.some((e) => e.claim);
  const round = async (tx: Executor) => {
    const answers: Array<Answer | undefined> = entries.map(() => undefined);
    const claimed = entries.flatMap((e, i) => (e.claim ? [{ claim: e.claim, i }] : []));
    const taken = await takeKeys(tx, claimed.map((c) => c.claim));
    // Two requests of one round with one key: the round's transaction holds it for both, so the later one waits.
    const seen = new Set<string>();
    claimed.forEach(({ claim, i }, n) => {
      const id = `${claim.caller}\n${claim.key}`;
      const state = seen.has(id) ? 'busy' : taken[n]!;
      seen.add(id);
      if (state === 'busy') answers[i] = { refusal: keyInUse() };
      else if (state !== 'free') answers[i] = keptAnswer(state, claim);
    });
    const events: Array<{ type: EventType; data: unknown }> = [];
    const running = entries.flatMap((entry, i) => (answers[i] ? [] : [{ entry, i }]));
    const perJob = running.map(() => [] as Array<{ type: EventType; data: unknown }>);
    const outcomes = running.length > 0 ? await command.runRound(tx, store, running.map(({ entry }, n) => ({ job: entry.job, record: recorderFor(declared, perJob[n]!) }))) : [];
    const kept: Parameters<typeof keepAnswers>[1] = [];
    running.forEach(({ entry, i }, n) => {
      const outcome = outcomes[n]!;
      if (outcome.ok) {
        events.push(...perJob[n]!);
        // Only a kept answer is serialized here; the others after the commit, off the round's critical path.
        if (!entry.claim) answers[i] = { value: outcome.value };
        else {
          const body = entry.serialize(outcome.value);
          answers[i] = { status: command.status, body, replayed: false };
          kept.push({ ...entry.claim, status: command.status, body });
        }
      } else {
        const refused = refusalAnswer(outcome.error, entry);
        answers[i] = refused.answer;
        if (refused.kept && entry.claim) kept.push({ ...entry.claim, ...refused.kept });
      }
    });
    if (events.length > 0) await recordEvents(tx, store, events);
    await keepAnswers(tx, kept);
    return answers.map((answer): Outcome<Answer> => ({ ok: true, value: answer! }));
  };
  return needsTransaction ? app.db.transaction(round) : round(app.db);
}

export default fp(
  async (app: FastifyInstance) => {
    app.addHook('onRoute', (route) => {
      const methods = (Array.isArray(route.method) ? route.method : [route.method]).map(String);
      if (!route.url.startsWith('/api/v1/') || !methods.some((m) => WRITE_METHODS.has(m))) return;
      if (!route.config?.command) {
        throw new Error(`write route ${methods.join(',')} ${route.url} is not a command: register it with registerCommand (src/plugins/commands.ts)`);
      }
    });
  },
  { name: 'commands', dependencies: ['authentication'] },
);
