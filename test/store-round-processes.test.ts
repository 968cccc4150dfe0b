/**
 * Rounds mixing stores across two server processes on one PostgreSQL: every store sells exactly its
 * stock, no round deadlocks another (they take their stores in one order), and each store's
 * events and idempotency keys stay its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { roundShardCount, roundShardOf } from '../src/plugins/commands.js';
import { ROOT_TOKEN } from './support/app.js';
import { TEST_DATABASE_URL } from './support/database.js';
import { call, startServerProcess } from './support/server-process.js';
import { ADDRESS } from './support/shop.js';

const POOL = 10;

async function setUpStore(base: string, slug: string, stock: number) {
  const created = await call(base, 'POST', '/v1/admin/stores', { token: ROOT_TOKEN, body: { slug } });
  assert.equal(created.status, 201, created.text);
  const { admin } = created.json.tokens as { admin: string };
  const server = (await call(base, 'POST', '/v1/admin/tokens', { token: admin, body: { kind: 'server' } })).json.secret as string;
  const product = await call(base, 'POST', '/v1/admin/products', { token: admin, body: { name: 'P', slug: 'p', sku: 'S', price: 10, quantity: stock, status: 'ACTIVE' } });
  assert.equal(product.status, 201, product.text);
  const customer = randomUUID();
  const address = await call(base, 'POST', `/v1/${customer}/addresses`, { token: server, body: { address: ADDRESS } });
  assert.equal(address.status, 201, address.text);
  return { slug, admin, server, productId: product.json.product.id as string, customer, addressId: address.json.address.id as string };
}

test('two server processes: orders of four stores of one shard, 20 each with 5 in stock, each store sells exactly 5', { skip: !TEST_DATABASE_URL && 'needs TEST_DATABASE_URL (PostgreSQL): PGlite is one process' }, async () => {
  const env = { DATABASE_URL: TEST_DATABASE_URL!, DB_POOL_SIZE: String(POOL), ORDER_RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '0' };
  const [one, two] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  try {
    const shards = roundShardCount(POOL);
    const slugs: string[] = [];
    const shard = roundShardOf(`proc-${randomUUID().slice(0, 8)}`, shards);
    while (slugs.length < 4) {
      const slug = `proc-${randomUUID().slice(0, 8)}`;
      if (roundShardOf(slug, shards) === shard) slugs.push(slug);
    }
    const shops = await Promise.all(slugs.map((slug) => setUpStore(one.base, slug, 5)));
    // Interleaved over the stores and the processes, with the same keys in every store.
    const sent = Array.from({ length: 80 }, (_, i) => ({ shop: shops[i % 4]!, base: i % 2 ? one.base : two.base, key: `k-${Math.floor(i / 4)}` }));
    const answers = await Promise.all(
      sent.map(({ shop, base, key }) =>
        call(base, 'POST', `/v1/${shop.customer}/orders`, { token: shop.server, headers: { 'idempotency-key': key }, body: { address: shop.addressId, products: [{ id: shop.productId, quantity: 1 }] } }),
      ),
    );
    for (const shop of shops) {
      const mine = answers.filter((_, i) => sent[i]!.shop === shop);
      const statuses = mine.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 201).length, 5, statuses.join(','));
      assert.equal(statuses.filter((s) => s === 422).length, 15, statuses.join(','));
      assert.equal((await call(two.base, 'GET', `/v1/admin/products/${shop.productId}`, { token: shop.admin })).json.product.quantity, 0);
      const events = (await call(one.base, 'GET', '/v1/admin/events?limit=100', { token: shop.admin })).json.events as Array<{ type: string; data: { order?: { id: string } } }>;
      const placed = new Set(mine.filter((r) => r.status === 201).map((r) => r.json.order.id as string));
      assert.deepEqual(new Set(events.filter((e) => e.type === 'order.created').map((e) => e.data.order!.id)), placed);
      // A key replays its own store's answer, whichever process answers.
      const first = mine.findIndex((r) => r.status === 201);
      const again = await call(two.base, 'POST', `/v1/${shop.customer}/orders`, {
        token: shop.server, headers: { 'idempotency-key': sent.filter((s) => s.shop === shop)[first]!.key }, body: { address: shop.addressId, products: [{ id: shop.productId, quantity: 1 }] },
      });
      assert.equal(again.status, 201);
      assert.equal(again.json.order.id, mine[first]!.json.order.id);
    }
  } finally {
    await Promise.all([one.stop(), two.stop()]);
  }
});
