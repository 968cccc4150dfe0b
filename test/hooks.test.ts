/**
 * lib/hooks.ts: the callback form of a request hook. Work done at once goes on at once, a promise is
 * waited on, a throw or a rejection is the request's error; a reply returned by mistake (it is
 * thenable, and settles only once the answer is sent) is never waited on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { hook } from '../src/lib/hooks.js';

test('a hook answers at once, waits on a promise, and turns a throw or a rejection into the error', async (t) => {
  const app = Fastify();
  t.after(() => app.close());
  const order: string[] = [];
  app.addHook('onRequest', hook((request) => {
    if (request.url === '/throws') throw Object.assign(new Error('refused at once'), { statusCode: 429 });
    order.push('sync');
  }));
  app.addHook('onRequest', hook(async (request) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (request.url === '/rejects') throw Object.assign(new Error('refused later'), { statusCode: 403 });
    order.push('waited');
  }));
  // Returns the reply, which is thenable: waiting on it would never end, as it settles only once sent.
  app.addHook('preHandler', hook((_request, reply) => reply.header('x-seen', 'yes') as unknown as void));
  app.get('/*', async () => {
    order.push('handler');
    return { ok: true };
  });

  const ok = await app.inject({ url: '/fine' });
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.headers['x-seen'], 'yes');
  assert.deepEqual(order, ['sync', 'waited', 'handler'], 'the promise was waited on before the next step');

  order.length = 0;
  const thrown = await app.inject({ url: '/throws' });
  assert.equal(thrown.statusCode, 429);
  assert.equal(thrown.json().message, 'refused at once');
  assert.deepEqual(order, [], 'nothing after a throw runs');

  const rejected = await app.inject({ url: '/rejects' });
  assert.equal(rejected.statusCode, 403);
  assert.equal(rejected.json().message, 'refused later');
  assert.deepEqual(order, ['sync'], 'the handler never ran after a rejection');
});
