// The per-request token lookup is shared among concurrent requests; these tests pin down, with
// lookups the test finishes by hand, that sharing never hands a caller an answer read before it asked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { FreshCoalescer } from '../src/lib/fresh-coalescer.js';

/** A lookup the test settles by hand, counting how many were started. */
function manualLookups() {
  const started: { resolve: (value: number) => void; reject: (error: Error) => void }[] = [];
  const load = () => new Promise<number>((resolve, reject) => started.push({ resolve, reject }));
  return { started, load };
}

test('a caller arriving during a lookup waits for the next one; all that arrived meanwhile share it', async () => {
  const coalescer = new FreshCoalescer<number>();
  const { started, load } = manualLookups();
  const first = coalescer.get('k', load);
  const second = coalescer.get('k', load);
  const third = coalescer.get('k', load);
  await turn();
  assert.equal(started.length, 1, 'the second lookup waits for the first to end');
  started[0]!.resolve(1);
  assert.equal(await first, 1);
  await turn();
  assert.equal(started.length, 2, 'the second and third callers share one new lookup');
  const fourth = coalescer.get('k', load);
  started[1]!.resolve(2);
  assert.deepEqual(await Promise.all([second, third]), [2, 2]);
  await turn();
  assert.equal(started.length, 3, 'a caller arriving during the shared lookup gets a newer one');
  started[2]!.resolve(3);
  assert.equal(await fourth, 3);
});

test('keys do not wait for each other, a failure reaches only its callers, and nothing is kept', async () => {
  const coalescer = new FreshCoalescer<number>();
  const { started, load } = manualLookups();
  const a = coalescer.get('a', load);
  const b = coalescer.get('b', load);
  const aAgain = coalescer.get('a', load);
  await turn();
  assert.equal(started.length, 2, 'another key starts at once');
  started[0]!.reject(new Error('database gone'));
  started[1]!.resolve(20);
  await assert.rejects(a, /database gone/);
  assert.equal(await b, 20);
  await turn();
  assert.equal(started.length, 3, 'the waiting caller of a failed key still gets its own lookup');
  started[2]!.resolve(10);
  assert.equal(await aAgain, 10);
  const later = coalescer.get('a', load);
  await turn();
  assert.equal(started.length, 4, 'once idle, a key starts a new lookup: answers are never cached');
  started[3]!.resolve(11);
  assert.equal(await later, 11);
});
