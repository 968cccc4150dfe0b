// What a process remembers per store (BoundedMap) and its cached catalog answers (ResponseCache)
// forget the least recently used first. Both skip moving an entry that is already the most recent:
// these tests pin down that the order stays exact around that shortcut.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoundedMap } from '../src/lib/bounded-map.js';
import { ResponseCache } from '../src/modules/catalog/cache.js';

test('a BoundedMap forgets the least recently used entry, however often the most recent one is read', () => {
  const map = new BoundedMap<string, number>(2);
  map.set('a', 1).set('b', 2);
  assert.equal(map.get('a'), 1);
  assert.equal(map.get('a'), 1, 'read again while it is the most recent');
  map.set('c', 3);
  assert.equal(map.get('b'), undefined, 'b was the least recent');
  assert.deepEqual([map.get('a'), map.get('c')], [1, 3]);

  // The most recent entry deleted, then another read: the order is still that of the reads.
  map.delete('c');
  map.set('d', 4);
  assert.equal(map.get('a'), 1);
  map.set('e', 5);
  assert.equal(map.get('d'), undefined, 'd was the least recent once a was read');
  assert.deepEqual([map.get('a'), map.get('e'), map.size], [1, 5, 2]);

  const none = new BoundedMap<string, number>(0);
  none.set('a', 1);
  assert.equal(none.get('a'), undefined, 'a bound of 0 keeps nothing');
});

test('the catalog cache evicts the least recently read answer, however often the most recent one is read', () => {
  const cache = new ResponseCache(2);
  cache.set('one', '{"n":1}');
  cache.set('two', '{"n":2}');
  assert.ok(cache.get('one'));
  assert.ok(cache.get('one'));
  cache.set('three', '{"n":3}');
  assert.equal(cache.get('two'), undefined, 'two was the least recently read');
  assert.ok(cache.get('one'));
  assert.ok(cache.get('three'));
  assert.ok(cache.get('three'));
  cache.set('four', '{"n":4}');
  assert.equal(cache.get('one'), undefined, 'one was read before three');
  assert.equal(String(cache.get('four')!.body), '{"n":4}');
});
