/** The server process: demo seed printed once, clean shutdown on SIGTERM with a request in flight. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { copyTemplate, TEST_DATABASE_URL } from './support/database.js';
import { ROOT_TOKEN } from './support/app.js';
import { call, startServerProcess } from './support/server-process.js';
import { runCli } from './support/cli.js';
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';

test('on an empty database the demo store is seeded and its tokens printed once and kept in an owner-only file; a restart says where, and the CLI beside it points there', async () => {
  const copy = copyTemplate();
  try {
    const env = { DATA_DIR: copy.dataDir, SEED_DEMO: 'true' };
    const first = await startServerProcess(env);
    const out = first.output();
    const storefront = /^  export API=\S+ ADMIN=\S+ SF=(sf_demo_\S+)$/m.exec(out)?.[1];
    const admin = /^  export API=\S+ ADMIN=(adm_demo_\S+) /m.exec(out)?.[1];
    assert.ok(storefront && admin, out);
    assert.match(out, /\/api\/docs/);
    const products = await call(first.base, 'GET', '/v1/products?limit=250', { token: storefront });
    assert.equal(products.status, 200);
    assert.ok(products.json.total >= 25, `${products.json.total} visible demo products`);
    assert.ok(products.json.products.some((p: { description: string }) => p.description.includes('<')), 'HTML descriptions');
    assert.ok(products.json.products.some((p: { quantity: number }) => p.quantity === 0), 'one sold out');
    // Like a small real shop: a picture for every product, a description that repeats neither the
    // name nor the SKU, compare-at prices a shop would print (49.90, not 68.63).
    type DemoProduct = { name: string; sku: string; description: string; price: number; originalPrice: number | null; images: Array<{ url: string }> };
    for (const p of products.json.products as DemoProduct[]) {
      assert.ok(p.images.length > 0 && p.images.every((i) => i.url.startsWith('/api/images/')), `${p.name} has a picture`);
      assert.ok(!p.description.includes(p.sku) && !p.description.includes('SKU'), `${p.name}: no SKU in the description`);
      assert.ok(!p.description.toLowerCase().includes(p.name.toLowerCase()), `${p.name}: the description does not repeat the name`);
      if (p.originalPrice !== null) assert.ok(p.originalPrice > p.price && p.originalPrice % 100 === 90, `${p.name}: compare-at ${p.originalPrice}`);
    }
    for (const url of new Set((products.json.products as DemoProduct[]).map((p) => p.images[0]!.url))) {
      assert.equal((await fetch(first.base.replace(/\/api$/, '') + url)).status, 200, url);
    }
    const all = await call(first.base, 'GET', '/v1/admin/products?limit=250', { token: admin });
    assert.ok(all.json.products.some((p: { status: string }) => p.status === 'DRAFT'), 'one draft');
    assert.ok(all.json.total > products.json.total + 1, 'a draft and a product of an archived collection are hidden');
    const items = await call(first.base, 'GET', '/v1/products?collapse=group&limit=250', { token: storefront });
    assert.ok(items.json.total < products.json.total - 8, `${items.json.total} items: the variants of an item are one entry`);
    const shirt = await call(first.base, 'GET', '/v1/product-groups/linen-shirt', { token: storefront });
    assert.equal(shirt.status, 200, shirt.text);
    const options = [{ name: 'Color', values: ['White', 'Blue', 'Sand'] }, { name: 'Size', values: ['S', 'M', 'L'] }];
    assert.deepEqual(shirt.json.group.options, options, 'values in the order the variants were made');
    assert.ok(shirt.json.group.products.some((p: { quantity: number }) => p.quantity === 0), 'a sold-out variant');
    const images = shirt.json.group.products.flatMap((p: { images: Array<{ url: string }> }) => p.images.map((i) => i.url));
    assert.ok(images.length > 0 && images.every((url: string) => url.startsWith('/api/images/')), 'pictures the project serves');
    for (const url of new Set<string>(images)) {
      const image = await fetch(first.base.replace(/\/api$/, '') + url);
      assert.equal(image.status, 200, url);
      assert.equal(image.headers.get('content-type'), 'image/svg+xml');
      assert.match(await image.text(), /^<svg /);
    }
    const collections = await call(first.base, 'GET', '/v1/collections', { token: storefront });
    assert.ok(collections.json.collections.some((c: { _count: { parents: number } }) => c._count.parents > 0), 'a nested collection');
    assert.equal(await first.stop(), 0);
    // The tokens are kept in a file of DATA_DIR, the owner's alone; a restart says where, and
    // neither prints them nor loses them.
    const file = join(copy.dataDir, 'demo-store.env');
    assert.equal(statSync(file).mode & 0o777, 0o600, 'owner-only');
    assert.match(out, new RegExp(`tokens are kept in ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(owner-only\\)`));
    const second = await startServerProcess({ ...env, ALLOW_PRIVATE_NETWORKS: 'true' });
    assert.doesNotMatch(second.output(), /ADMIN=|SF=/);
    assert.match(second.output(), new RegExp(`^  \\. ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'), 'where the tokens are, on every start');
    const loaded = spawnSync('bash', ['-c', `. '${file}' && echo "$API $ADMIN $SF"`], { encoding: 'utf8' });
    assert.equal(loaded.stdout.trim(), `${second.base} ${admin} ${storefront}`, 'the file loads the address of this start and the tokens');
    assert.equal(statSync(file).mode & 0o777, 0o600, 'still owner-only after the rewrite');
    assert.equal((await call(second.base, 'GET', '/v1/products', { token: storefront })).status, 200, 'same store after a restart');
    // The CLI cannot open the embedded database beside the server: it says what to do instead.
    const beside = runCli({ DATA_DIR: copy.dataDir }, 'token', 'list');
    assert.equal(beside.status, 1);
    assert.match(beside.stderr, /in use by process \d+/);
    assert.match(beside.stderr, /demo-store\.env/);
    assert.match(beside.stderr, /stop the server/);
    assert.equal(await second.stop(), 0);
  } finally {
    copy.remove();
  }
});

test('SIGTERM lets an in-flight request finish, then exits 0 and releases the database', async () => {
  const copy = TEST_DATABASE_URL ? undefined : copyTemplate();
  try {
    const env: Record<string, string> = copy ? { DATA_DIR: copy.dataDir } : { DATABASE_URL: TEST_DATABASE_URL! };
    const server = await startServerProcess(env);
    // Send the headers and half of a body, signal, then the rest: the request is in flight throughout.
    const body = JSON.stringify({ slug: `sigterm-${Date.now()}` });
    const socket = net.connect(server.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let answer = '';
    socket.on('data', (d) => (answer += d.toString()));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(
      `POST /api/v1/admin/stores HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ROOT_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((r) => setTimeout(r, 300));
    const exit = server.stop('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    socket.write(body.slice(5));
    await ended;
    assert.match(answer, /^HTTP\/1\.1 201/, answer.slice(0, 300));
    assert.equal(await exit, 0, server.output());
    if (copy) {
      const again = await startServerProcess(env);
      assert.equal(await again.stop(), 0, 'the data directory was released');
    }
  } finally {
    copy?.remove();
  }
});
