/** `npm run cli -- order ...`: a store with no dashboard lists, fulfils, refunds and cancels orders. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { copyTemplate, TEST_DATABASE_URL } from './support/database.js';
import { call, startServerProcess } from './support/server-process.js';
import { cliInProcess } from './support/cli.js';

const copy = TEST_DATABASE_URL ? undefined : copyTemplate();
const dbEnv: Record<string, string> = copy ? { DATA_DIR: copy.dataDir } : { DATABASE_URL: TEST_DATABASE_URL! };
const cli = (...args: string[]) => cliInProcess(dbEnv, ...args);

test('order list|show|fulfil|refund|cancel on the configured database, with the admin API\'s rules', async (t) => {
  t.after(() => copy?.remove());
  const slug = `ocli-${Date.now().toString(36)}`;
  const created = await cli('store', 'create', slug);
  assert.equal(created.status, 0, created.stderr);
  const { admin } = created.json.tokens;
  const server = await startServerProcess(dbEnv);
  const ids: string[] = [];
  let productId = '';
  try {
    const product = await call(server.base, 'POST', '/v1/admin/products', { token: admin, body: { name: 'Mug', slug: 'mug', sku: 'MUG', description: 'm', price: 1000, quantity: 10, status: 'ACTIVE' } });
    assert.equal(product.status, 201, JSON.stringify(product.json));
    productId = product.json.product.id;
    const customer = randomUUID();
    const address = await call(server.base, 'POST', `/v1/${customer}/addresses`, { token: admin, body: { address: { zipcode: '01001-000', street: 'Rua A', number: '10', city: 'São Paulo', state: 'SP', country: 'BR' } } });
    for (let i = 0; i < 2; i++) {
      const order = await call(server.base, 'POST', `/v1/${customer}/orders`, { token: admin, body: { address: address.json.address.id, products: [{ id: productId, quantity: 3 }] } });
      assert.equal(order.status, 201, JSON.stringify(order.json));
      ids.push(order.json.order.id);
      assert.equal((await call(server.base, 'PATCH', `/v1/admin/orders/${order.json.order.id}`, { token: admin, body: { status: 'PAID' } })).status, 200);
    }
  } finally {
    await server.stop();
  }
  const [first, second] = ids as [string, string];
  assert.equal((await cli('order', 'list', '--store', slug)).json.total, 2);
  assert.equal((await cli('order', 'list', '--store', slug, '--status', 'LOST')).status, 2);
  assert.equal((await cli('order', 'show', '--store', slug, first)).json.order.id, first);
  const part = await cli('order', 'fulfil', '--store', slug, first, '--lines', `${productId}:1`, '--tracking-number', 'TRK1', '--carrier', 'Post');
  assert.equal(part.status, 0, part.stderr);
  assert.equal(part.json.order.fulfillmentStatus, 'partially_fulfilled');
  assert.equal((await cli('order', 'fulfil', '--store', slug, first, '--lines', `${productId}:9`)).status, 1, 'more than is left is refused');
  assert.equal((await cli('order', 'fulfil', '--store', slug, first)).json.order.status, 'FULFILLED');
  assert.equal((await cli('order', 'list', '--store', slug, '--fulfillment-status', 'fulfilled')).json.orders[0].id, first);
  const refund = await cli('order', 'refund', '--store', slug, first, '--amount', '1000', '--reason', 'broken', '--lines', `${productId}:1`, '--restock');
  assert.equal(refund.status, 0, refund.stderr);
  assert.equal(refund.json.order.refundedTotal, 1000);
  assert.equal((await cli('order', 'refund', '--store', slug, first, '--amount', '999999')).status, 1);
  assert.equal((await cli('order', 'refund', '--store', slug, first)).status, 2, '--amount is required');
  assert.equal((await cli('order', 'cancel', '--store', slug, first)).status, 1, 'a fulfilled order is not cancelled');
  const cancelled = await cli('order', 'cancel', '--store', slug, second);
  assert.equal(cancelled.status, 0, cancelled.stderr);
  assert.equal(cancelled.json.order.status, 'CANCELLED');
  assert.deepEqual((await cli('order', 'show', '--store', slug, first)).json.order.refunds.map((r: { reason: string }) => r.reason), ['broken']);
});
