/** What a write command declares (see commands.ts): its route, schemas, duties and work. */
import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Database, Executor } from '../db/client.js';
import type { ErrorCode } from '../lib/app-error.js';
import type { Outcome } from '../lib/keyed-batcher.js';
import type { Actor, EventType, Recorder } from '../modules/events/index.js';
import type { Principal } from './authentication.js';

export type WriteMethod = 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a command receives of its request, validated by its schemas. */
export interface CommandInput<P, B, Q> {
  params: P;
  body: B;
  query: Q;
  /** The request's headers (a provider's webhook reads its signature). */
  headers: FastifyRequest['headers'];
  /** Null on a public route (a sign-in, accepting an invitation). */
  principal: Principal | null;
  /** The caller's store; a root caller (POST /v1/admin/stores) has none, and asking throws. */
  store: string;
  /**
   * The client address of a public caller (the storefront token, a customer credential), as the
   * rate limits see it; null for secret tokens, which per-client limits do not count.
   */
  client: string | null;
}

/** What the pipeline gives a command's work: its transaction and its event recorder. */
export interface CommandContext {
  tx: Executor;
  record: Recorder;
  log: FastifyBaseLogger;
  /** Who this request's events name (the recorder adds it; for an event written another way). */
  actor: Actor;
}

/** One request of a round, as the round's work sees it. */
export interface RoundJob<J> {
  job: J;
  record: Recorder;
}

/** A store's requests in a round of several stores. */
export interface StoreJobs<J> {
  store: string;
  jobs: Array<RoundJob<J>>;
}

export interface Declaration<P extends TSchema, B extends TSchema, Q extends TSchema, R extends TSchema> {
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
  /**
   * A success alters catalog answers: the store's catalog version is bumped before answering. `true`:
   * the pipeline bumps it after the commit. `'in-transaction'`: the command's own transaction bumps
   * it, under a lock of the version's row it holds to the commit anyway (orders, with their numbers),
   * which saves the pipeline's statement and its wait for that lock; with read replicas the pipeline
   * still bumps after the commit, since that statement's WAL position is what a replica must reach.
   */
  changesCatalog?: boolean | 'in-transaction';
  /** The only event types its work may record. */
  events?: readonly EventType[];
  /** A success counts in this business metric (plugins/metrics.ts). */
  counts?: 'orders';
  /** A second rate limit of its own (plugins/rate-limit.ts). */
  limit?: 'orders' | 'guest-sessions';
  /**
   * Whether a request tries a discount code (DISCOUNT_ATTEMPTS_PER_MINUTE counts the codes that do
   * not apply, per store and client address); a refusal for a code counts even without it.
   */
  triesDiscountCode?: (body: unknown) => boolean;
  /** Checks that must answer before schema validation does (a clearer detail than the schema's). */
  preValidation?: (request: FastifyRequest) => Promise<void>;
  /**
   * Work of its own after validation and authorization and before the transaction, so that slow
   * work holds no transaction: a sign-in checks a password and counts failures (and names
   * `request.principal`), an upload decodes its image (and replaces `request.body` with it).
   */
  before?: (request: FastifyRequest) => Promise<void>;
  /** A body limit of its own (an upload's), instead of its audience's. */
  bodyLimit?: number;
}

export type Input<P extends TSchema, B extends TSchema, Q extends TSchema> = CommandInput<Static<P>, Static<B>, Static<Q>>;

/** A command whose work runs in a transaction of its own. */
export interface TransactionCommand<P extends TSchema, B extends TSchema, Q extends TSchema, R extends TSchema> extends Declaration<P, B, Q, R> {
  run: (input: Input<P, B, Q>, context: CommandContext) => Promise<Static<R>>;
  /**
   * Work owed after the commit, before the answer (a refund its work decided): it may call a
   * provider. A failure is logged, not answered: what it owes is in the database for the next try.
   */
  afterCommit?: (input: Input<P, B, Q>, value: Static<R>) => Promise<void>;
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
   * The same work for a round of several stores at once, when the command has it: each step one
   * statement over every store of the round (not one per store), so requests spread over many quiet
   * stores cost what those of one busy store do. The stores come sorted; a statement that locks rows
   * of several stores locks them in (store, id) order, the one global order that every round keeps.
   * One outcome per job, per store, as `runRound` answers them. With `writesOnce`, the one write is
   * the last statement: a round that fails wrote nothing and runs again store by store.
   */
  runStores?: (tx: Executor, stores: Array<StoreJobs<J>>) => Promise<Array<Array<Outcome<Static<R>>>>>;
  /**
   * With `runStores`: how many rounds of the command a process may run at once (1 unless given),
   * never two with a store in common (StoreRoundQueue). For a round of many round trips, whose
   * process would otherwise wait idle while each travels; a round of one or two statements only
   * splits into smaller rounds.
   */
  roundsAtOnce?: number;
  /**
   * The round writes with one statement (atomic on its own) and records no events: a round with no
   * key to keep then runs without an explicit transaction, two round trips fewer.
   */
  writesOnce?: boolean;
}

/**
 * What a command that calls a payment provider gets: no open transaction (a provider call never
 * waits inside one), but transactions of its own to open, each writing its recorded events.
 */
export interface ProviderContext {
  db: Database;
  log: FastifyBaseLogger;
  /** Who asked (the pipeline's recorder does this for the other commands): record its events as theirs. */
  actor: Actor;
  /** Answers with this status instead of the declared one (200 for a payment answered again). */
  answerWith: (status: 200 | 201 | 202) => void;
}

/**
 * A command whose work calls a payment provider: it writes what it is about to ask, commits, asks,
 * then applies the answer in a new transaction (modules/payments). Takes no `Idempotency-Key`: its
 * provider calls carry their own.
 */
export interface ProviderCommand<P extends TSchema, B extends TSchema, Q extends TSchema, R extends TSchema> extends Declaration<P, B, Q, R> {
  perform: (input: Input<P, B, Q>, context: ProviderContext) => Promise<Static<R>>;
}

export type Command<P extends TSchema, B extends TSchema, Q extends TSchema, R extends TSchema, J = never> =
  | TransactionCommand<P, B, Q, R>
  | RoundCommand<P, B, Q, R, J>
  | ProviderCommand<P, B, Q, R>;

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

