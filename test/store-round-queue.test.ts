// Rounds of many stores may run two at a time (StoreRoundQueue); these tests pin down, with rounds
// the test finishes by hand, that a store's jobs still run one round at a time and in arrival
// order, that a second round takes only stores the running one does not hold and starts only with
// half as many jobs as it, and that a failed round fails only its own jobs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import type { Outcome } from '../src/lib/keyed-batcher.js';
import { StoreRoundQueue } from '../src/lib/store-round-queue.js';

type Job = { store: string; n: number };

function manualRounds() {
  const started: Array<{ jobs: Job[]; finish: () => void; fail: (error: Error) => void }> = [];
  const run = (jobs: Job[]) =>
    new Promise<Array<Outcome<string>>>((resolve, reject) =>
      started.push({ jobs, finish: () => resolve(jobs.map((j) => ({ ok: true, value: `${j.store}${j.n}` }))), fail: reject }),
    );
  return { started, run, seen: (i: number) => started[i]!.jobs.map((j) => `${j.store}${j.n}`) };
}

test('a lone job runs at once; a second round starts beside it once enough jobs of other stores wait, and no third', async () => {
  const { started, run, seen } = manualRounds();
  const queue = new StoreRoundQueue<Job, string>(run, 2);
  const a1 = queue.submit({ store: 'a', n: 1 });
  await turn();
  assert.deepEqual(seen(0), ['a1']);
  const b1 = queue.submit({ store: 'b', n: 1 });
  await turn();
  assert.equal(started.length, 1, 'a round beside another takes at least two jobs');
  const c1 = queue.submit({ store: 'c', n: 1 });
  await turn();
  assert.deepEqual(seen(1), ['b1', 'c1'], 'stores the running round does not hold start a round beside it');
  const rest = [queue.submit({ store: 'd', n: 1 }), queue.submit({ store: 'e', n: 1 }), queue.submit({ store: 'f', n: 1 })];
  await turn();
  assert.equal(started.length, 2, 'two rounds at most run at once');
  started[1]!.finish();
  assert.deepEqual(await Promise.all([b1, c1]), ['b1', 'c1']);
  await turn();
  assert.deepEqual(seen(2), ['d1', 'e1', 'f1'], 'the waiting jobs make the next round together');
  started[0]!.finish();
  started[2]!.finish();
  assert.deepEqual(await Promise.all([a1, ...rest]), ['a1', 'd1', 'e1', 'f1']);
});

test('a round beside a running one waits until it would hold half as many jobs', async () => {
  const { started, run, seen } = manualRounds();
  const queue = new StoreRoundQueue<Job, string>(run, 2, 200);
  const first = [queue.submit({ store: 'x', n: 0 })];
  await turn();
  first.push(...[1, 2, 3, 4, 5, 6].map((n) => queue.submit({ store: 'x', n })));
  started[0]!.finish();
  await turn();
  assert.deepEqual(seen(1), ['x1', 'x2', 'x3', 'x4', 'x5', 'x6']);
  const later = ['g', 'h'].map((store) => queue.submit({ store, n: 1 }));
  await turn();
  assert.equal(started.length, 2, 'two jobs do not start a round beside one of six');
  later.push(queue.submit({ store: 'i', n: 1 }));
  await turn();
  assert.deepEqual(seen(2), ['g1', 'h1', 'i1'], 'three do');
  started[1]!.finish();
  started[2]!.finish();
  assert.deepEqual(await Promise.all([...first, ...later]), ['x0', 'x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'g1', 'h1', 'i1']);
});

test('a store\'s jobs wait for the round that holds it and keep their arrival order', async () => {
  const { started, run, seen } = manualRounds();
  const queue = new StoreRoundQueue<Job, string>(run, 2);
  const answers = [queue.submit({ store: 'a', n: 1 })];
  await turn();
  answers.push(queue.submit({ store: 'a', n: 2 }), queue.submit({ store: 'b', n: 1 }), queue.submit({ store: 'a', n: 3 }), queue.submit({ store: 'c', n: 1 }));
  await turn();
  assert.deepEqual(seen(1), ['b1', 'c1'], 'the second round leaves the held store\'s jobs waiting');
  answers.push(queue.submit({ store: 'b', n: 2 }));
  await turn();
  started[0]!.finish();
  await turn();
  assert.deepEqual(seen(2), ['a2', 'a3'], 'the held store\'s jobs run after its round, in arrival order; b2 waits for b1');
  started[1]!.finish();
  await turn();
  assert.equal(started.length, 3, 'b2 alone does not start a round beside one of two');
  started[2]!.finish();
  await turn();
  assert.deepEqual(seen(3), ['b2']);
  started[3]!.finish();
  assert.deepEqual(await Promise.all(answers), ['a1', 'a2', 'b1', 'a3', 'c1', 'b2']);
});

test('a round takes at most its maximum; the jobs left wait for the next in arrival order', async () => {
  const { started, run, seen } = manualRounds();
  const queue = new StoreRoundQueue<Job, string>(run, 1, 2);
  const answers = [queue.submit({ store: 'x', n: 0 })];
  await turn();
  answers.push(...[['a', 1], ['b', 1], ['c', 1], ['a', 2]].map(([store, n]) => queue.submit({ store: store as string, n: n as number })));
  started[0]!.finish();
  await turn();
  assert.deepEqual(seen(1), ['a1', 'b1'], 'a round takes at most its maximum');
  started[1]!.finish();
  await turn();
  assert.deepEqual(seen(2), ['c1', 'a2']);
  started[2]!.finish();
  assert.deepEqual(await Promise.all(answers), ['x0', 'a1', 'b1', 'c1', 'a2']);
});

test('a failed round fails only its jobs; the rounds after it run', async () => {
  const { started, run, seen } = manualRounds();
  const queue = new StoreRoundQueue<Job, string>(run, 2);
  const a1 = queue.submit({ store: 'a', n: 1 });
  await turn();
  const b1 = queue.submit({ store: 'b', n: 1 });
  const a2 = queue.submit({ store: 'a', n: 2 });
  await turn();
  started[0]!.fail(new Error('down'));
  await assert.rejects(a1, /down/);
  await turn();
  assert.deepEqual(seen(1), ['b1', 'a2']);
  started[1]!.finish();
  assert.deepEqual(await Promise.all([b1, a2]), ['b1', 'a2']);
});

test('a queue of 150,000 waiting jobs (a flash sale) hands its rounds out 200 at a time', async () => {
  const { started, run, seen } = manualRounds();
  const queue = new StoreRoundQueue<Job, string>(run, 2);
  void queue.submit({ store: 'hot', n: 0 });
  const waiting = Array.from({ length: 150_000 }, (_, n) => queue.submit({ store: 'hot', n: n + 1 }));
  await turn();
  assert.equal(started.length, 1, 'the held store\'s jobs wait');
  started[0]!.finish();
  await turn();
  assert.deepEqual(seen(1).slice(0, 2), ['hot1', 'hot2']);
  assert.equal(seen(1).length, 200);
  started[1]!.finish();
  assert.equal(await waiting[199], 'hot200');
});
