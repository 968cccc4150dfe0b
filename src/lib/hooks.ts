/**
 * Request hooks whose work is usually done at once. Fastify runs an async hook by waiting on its
 * promise, a promise and a turn of the microtask queue per hook and request; a cached catalog read
 * passes a dozen hooks, most of which have nothing to wait for. `hook(work)` gives Fastify the
 * callback form instead: the work runs at once, and only a promise it returns is waited on (only a
 * real Promise: a reply is thenable, and waiting on it would wait for the answer). A throw or a
 * rejection is the request's error, as with an async hook.
 */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

export type HookWork = (request: FastifyRequest, reply: FastifyReply) => void | Promise<unknown>;

export function hook(work: HookWork): (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void {
  return (request, reply, done) => {
    let pending: void | Promise<unknown>;
    try {
      pending = work(request, reply);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (pending instanceof Promise) pending.then(() => done(), done);
    else done();
  };
}
