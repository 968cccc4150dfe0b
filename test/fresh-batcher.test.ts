// Token lookups and catalog bumps of many stores share one statement (FreshBatcher); these tests
// pin down, with lookups the test finishes by hand, that sharing never hands a caller an answer
// read before it asked, and that nothing stays behind once the lookups answered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { FreshBatcher } from '../src/lib/fresh-batcher.js';

function manualLoads() {
  const started: Array<{ keys: string[]; resolve: (values: Map<string, number>) => void; reject: (error: Error) => void }> = [];
  const load = (keys: string[]) => new Promise<Map<string, number>>((resolve, reject) => started.push({ keys, resolve, reject }));
  return { started, load };
}

test('keys asked during a lookup wait for the next one, which takes all of them, each once', async () => {
  const { started, load } = manualLoads();
  const batcher = new FreshBatcher<number | undefined>(load, undefined);
  const first = batcher.get('a');
  await turn();
  assert.deepEqual(started.map((s) => s.keys), [['a']], 'a lone key is looked up at the end of the turn');
  const again = batcher.get('a');
  const b = batcher.get('b');
  const b2 = batcher.get('b');
  await turn();
  assert.equal(started.length, 1, 'the next lookup waits for the running one');
  started[0]!.resolve(new Map([['a', 1]]));
  assert.equal(await first, 1);
  await turn();
  assert.deepEqual(started[1]!.keys, ['a', 'b'], 'the waiting keys make one lookup, each key once');
  started[1]!.resolve(new Map([['a', 2]]));
  assert.deepEqual(await Promise.all([again, b, b2]), [2, undefined, undefined], 'a caller during a lookup gets the newer answer; a key left out is missing');
});

test('keys asked in one turn of the event loop make one lookup', async () => {
  const { started, load } = manualLoads();
  const batcher = new FreshBatcher<number | undefined>(load, undefined);
  const asked = ['a', 'b', 'a', 'c'].map((key) => batcher.get(key));
  assert.equal(started.length, 0, 'nothing starts before the turn ends');
  await turn();
  assert.deepEqual(started.map((s) => s.keys), [['a', 'b', 'c']]);
  started[0]!.resolve(new Map([['a', 1], ['b', 2], ['c', 3]]));
  assert.deepEqual(await Promise.all(asked), [1, 2, 1, 3]);
});

test('a failed lookup fails only its callers; the next lookup runs', async () => {
  const { started, load } = manualLoads();
  const batcher = new FreshBatcher<number | undefined>(load, undefined);
  const a = batcher.get('a');
  await turn();
  const b = batcher.get('b');
  started[0]!.reject(new Error('down'));
  await assert.rejects(a, /down/);
  await turn();
  started[1]!.resolve(new Map([['b', 7]]));
  assert.equal(await b, 7);
  assert.equal(started.length, 2);
});
