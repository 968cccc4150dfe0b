// A store's payment intents go in rounds (payments/round-queue.ts): these tests pin down, with
// rounds the test finishes by hand, that two rounds of a store run at once and no more, that every
// job is answered once, and that while checkout keeps the process busy a store's rounds go one at a
// time and at least the given pause apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as turn, setTimeout as sleep } from 'node:timers/promises';
import type { Outcome } from '../src/lib/keyed-batcher.js';
import { RoundQueue } from '../src/modules/payments/round-queue.js';

function manualRounds() {
  const started: Array<{ jobs: number[]; at: number; finish: () => void }> = [];
  const run = (jobs: number[]) =>
    new Promise<Array<Outcome<number>>>((resolve) => started.push({ jobs, at: Date.now(), finish: () => resolve(jobs.map((j) => ({ ok: true, value: j * 10 }))) }));
  return { started, run };
}

test('two rounds of a store run at once; what arrives meanwhile waits for the first to finish, and every job is answered once', async () => {
  const { started, run } = manualRounds();
  const queue = new RoundQueue<number, number>(run);
  const answers = [1, 2, 3, 4, 5].map((j) => queue.submit('s', j));
  await turn();
  assert.deepEqual(started.map((s) => s.jobs), [[1], [2]], 'the first two start at once, each a round of its own');
  const other = queue.submit('t', 9);
  await turn();
  assert.deepEqual(started[2]!.jobs, [9], "another store's job does not wait for this store's rounds");
  started[0]!.finish();
  await sleep(10);
  assert.deepEqual(started[3]!.jobs, [3, 4, 5], 'the jobs that waited make the next round');
  started[1]!.finish();
  started[2]!.finish();
  started[3]!.finish();
  assert.deepEqual(await Promise.all(answers), [10, 20, 30, 40, 50]);
  assert.equal(await other, 90);
});

test('while busy, a store runs one round at a time, each at least the pause after the one before began', async () => {
  const { started, run } = manualRounds();
  let busy = true;
  const queue = new RoundQueue<number, number>(run, 200, 2, () => (busy ? 60 : 0));
  const first = queue.submit('s', 1);
  await turn();
  const more = [2, 3].map((j) => queue.submit('s', j));
  await turn();
  assert.equal(started.length, 1, 'no second round while busy');
  started[0]!.finish();
  await first;
  while (started.length < 2) await sleep(5);
  assert.ok(started[1]!.at - started[0]!.at >= 55, `the next round began ${started[1]!.at - started[0]!.at} ms after the first`);
  assert.deepEqual(started[1]!.jobs, [2, 3]);
  busy = false;
  started[1]!.finish();
  assert.deepEqual(await Promise.all(more), [20, 30]);
});
