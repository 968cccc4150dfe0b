/**
 * How the write pipeline runs a command: in a transaction of its own, or in a round of a store's
 * combined requests; either way the idempotency key is taken, the events written and the answer
 * kept in the transaction of the work.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Executor } from '../db/client.js';
import { AppError } from '../lib/app-error.js';
import type { Outcome } from '../lib/keyed-batcher.js';
import { fingerprintOf, keepAnswers, takeKeys, type Claim, type KeptAnswer } from '../modules/idempotency/index.js';
import { recordEvents, recordStoreEvents, SYSTEM_ACTOR, type Actor, type EventType, type Recorder } from '../modules/events/index.js';
import type { Principal } from './authentication.js';
import { storePrincipalOf } from './authentication.js';
import type { Input, RoundCommand, TransactionCommand } from './command-types.js';
import { problemOf, toAppError } from './errors.js';

/**
 * What a request's work ends in: its value (serialized when sent, after the commit), the serialized
 * answer (a kept one, replayed or just kept), or a refusal (thrown after the commit).
 */
export type Answer = { value: unknown } | { status: number; body: string; replayed: boolean } | { refusal: AppError };

/** A round's entry: the request's job, its claim and how to serialize its answer. */
export interface Entry<J> {
  job: J;
  claim: Claim | null;
  serialize: (value: unknown) => string;
  requestId: string;
  actor: Actor;
}

/**
 * Who a request's events name as their actor: the one place it is decided, from the request's
 * principal, so every command's events carry it. A public route (no principal) is the system's.
 */
export function actorOf(principal: Principal | null): Actor {
  switch (principal?.kind) {
    case 'staff':
      return { type: 'staff', id: principal.staffId, email: principal.email };
    case 'customer':
      return { type: 'customer', id: principal.customerId };
    case 'admin':
    case 'server':
    case 'storefront':
      return { type: 'token', id: principal.tokenId };
    default:
      return SYSTEM_ACTOR;
  }
}

export function claimOf(request: FastifyRequest, store: string): Claim | null {
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
  if (principal.kind === 'staff') return `staff:${principal.staffId}`;
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
  // A 5xx is never kept: the retry runs again; nor a 429 (a per-client limit of the work, such as
  // unpaid orders): once a place is free the retry must run. Anything else is the key's answer.
  if (refusal.status >= 500 || refusal.status === 429 || !entry.claim) return { answer: { refusal } };
  return { answer: { refusal }, kept: { fingerprint: entry.claim.fingerprint, status: refusal.status, body: JSON.stringify(problemOf(refusal, entry.requestId)) } };
}

type RecordedEvent = { type: EventType; data: unknown; actor: Actor };

/** Collects a request's events; an event type the command did not declare is a programming error. */
function recorderFor(declared: readonly EventType[], events: RecordedEvent[], actor: Actor): Recorder {
  return (type, data) => {
    if (!declared.includes(type)) throw new Error(`this command does not declare the event ${type}`);
    events.push({ type, data, actor });
  };
}

export async function runInTransaction<P extends TSchema, B extends TSchema, Q extends TSchema, R extends TSchema>(
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
    const events: RecordedEvent[] = [];
    const actor = actorOf(input.principal);
    const context = { tx, record: recorderFor(declared, events, actor), log: request.log, actor };
    if (!claim) {
      const value = await command.run(input, context);
      if (events.length > 0) await recordEvents(tx, input.store, events, { last: true });
      return { value };
    }
    let body: string;
    // A refusal below 500 is the key's answer: its work is undone (the savepoint), the answer kept.
    try {
      body = String(reply.serialize(await tx.transaction((savepoint) => command.run(input, { ...context, tx: savepoint }))));
    } catch (error) {
      const { answer, kept } = refusalAnswer(error, { claim, requestId: request.id });
      if (!kept) throw error;
      await keepAnswers(tx, [{ ...claim, ...kept }], { last: true });
      return answer;
    }
    if (events.length > 0) await recordEvents(tx, input.store, events);
    await keepAnswers(tx, [{ ...claim, status: command.status, body }], { last: true });
    return { status: command.status, body, replayed: false };
  });
}

/**
 * One round of a round command: the keys, the work, the events and the kept answers, in one
 * transaction, for requests of one store or of several. The work runs store by store, the stores
 * in one global order (their slugs sorted) and each store's requests in arrival order: every round
 * takes its locks store by store in that order, and a store's own in its work's order, so rounds
 * that share stores (in one process or two) never wait on each other in a cycle. Each request is
 * still decided on its own; the keys, events and answers of all the stores go in one statement each.
 */
export async function runRound<P extends TSchema, B extends TSchema, Q extends TSchema, R extends TSchema, J>(
  app: FastifyInstance,
  command: RoundCommand<P, B, Q, R, J>,
  declared: readonly EventType[],
  entries: Array<Entry<J> & { store: string }>,
): Promise<Array<Outcome<Answer>>> {
  const needsTransaction = !command.writesOnce || declared.length > 0 || entries.some((e) => e.claim);
  const round = async (tx: Executor) => {
    const answers: Array<Answer | undefined> = entries.map(() => undefined);
    const claimed = entries.flatMap((e, i) => (e.claim ? [{ claim: e.claim, i }] : []));
    const taken = await takeKeys(tx, claimed.map((c) => c.claim));
    // Two requests of one round with one key: the round's transaction holds it for both, so the later one waits.
    const seen = new Set<string>();
    claimed.forEach(({ claim, i }, n) => {
      const id = `${claim.store}\n${claim.caller}\n${claim.key}`;
      const state = seen.has(id) ? 'busy' : taken[n]!;
      seen.add(id);
      if (state === 'busy') answers[i] = { refusal: keyInUse() };
      else if (state !== 'free') answers[i] = keptAnswer(state, claim);
    });
    const events: Array<RecordedEvent & { store: string }> = [];
    const running = entries.flatMap((entry, i) => (answers[i] ? [] : [{ entry, i }]));
    const perJob = running.map(() => [] as RecordedEvent[]);
    const outcomes: Array<Outcome<Static<R>>> = [];
    // Each store's requests in arrival order, in one pass (a spread round has as many stores as requests).
    const byStore = new Map<string, number[]>();
    running.forEach((r, n) => {
      const mine = byStore.get(r.entry.store);
      if (mine) mine.push(n);
      else byStore.set(r.entry.store, [n]);
    });
    const groups = [...byStore.keys()].sort().map((store) => {
      const mine = byStore.get(store)!;
      return { store, mine, jobs: mine.map((n) => ({ job: running[n]!.entry.job, record: recorderFor(declared, perJob[n]!, running[n]!.entry.actor) })) };
    });
    const failed = (mine: number[], error: unknown) => {
      // Without a transaction each statement stands alone: a failure is its own stores' only. In
      // one, it ends the transaction: the caller runs each store's requests again on their own.
      if (needsTransaction) throw error;
      return mine.map((): Outcome<Static<R>> => ({ ok: false, error }));
    };
    const storeByStore = async () => {
      for (const { store, mine, jobs } of groups) {
        const decided = await command.runRound(tx, store, jobs).catch((error: unknown) => failed(mine, error));
        mine.forEach((n, k) => (outcomes[n] = decided[k]!));
      }
    };
    if (command.runStores && groups.length > 1) {
      try {
        const decided = await command.runStores(tx, groups);
        groups.forEach((g, s) => g.mine.forEach((n, k) => (outcomes[n] = decided[s]![k]!)));
      } catch (error) {
        if (needsTransaction) throw error;
        // Without a transaction the round's one write is its last statement, so a failure wrote
        // nothing: each store's requests run again with statements of their own, and a store's
        // failure stays its own.
        await storeByStore();
      }
    } else await storeByStore();
    const kept: Parameters<typeof keepAnswers>[1] = [];
    running.forEach(({ entry, i }, n) => {
      const outcome = outcomes[n]!;
      if (outcome.ok) {
        events.push(...perJob[n]!.map((e) => ({ ...e, store: entry.store })));
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
    // Whichever writes last carries the COMMIT (client.ts `lastInTransaction`).
    await recordStoreEvents(tx, events, { last: needsTransaction && kept.length === 0 });
    await keepAnswers(tx, kept, { last: needsTransaction });
    return answers.map((answer): Outcome<Answer> => ({ ok: true, value: answer! }));
  };
  return needsTransaction ? app.db.transaction(round) : round(app.db);
}

/**
 * Runs a round of requests of several stores, and when it fails (rolled back, nothing written)
 * runs each store's requests again in a round of their own: a failure of one store's work never
 * answers another store's requests.
 */
export async function runRoundOfStores<P extends TSchema, B extends TSchema, Q extends TSchema, R extends TSchema, J>(
  app: FastifyInstance,
  command: RoundCommand<P, B, Q, R, J>,
  declared: readonly EventType[],
  entries: Array<Entry<J> & { store: string }>,
): Promise<Array<Outcome<Answer>>> {
  const stores = [...new Set(entries.map((e) => e.store))];
  try {
    return await runRound(app, command, declared, entries);
  } catch (error) {
    if (stores.length < 2) throw error;
  }
  const outcomes: Array<Outcome<Answer>> = [];
  await Promise.all(
    stores.map(async (store) => {
      const mine = entries.flatMap((e, i) => (e.store === store ? [i] : []));
      const decided = await runRound(app, command, declared, mine.map((i) => entries[i]!)).catch((error: unknown) => mine.map((): Outcome<Answer> => ({ ok: false, error })));
      mine.forEach((i, k) => (outcomes[i] = decided[k]!));
    }),
  );
  return outcomes;
}
