/**
 * The typed client as a shop installs it: `npm pack` in clients/typescript (which builds dist/ on
 * its `prepare`), the tarball installed into an empty project outside the repository (so nothing
 * resolves from the repository's node_modules), its types checked by tsc, and an order placed with
 * the installed JavaScript against a listening service.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp } from './support/app.js';
import { ROOT } from './support/database.js';
import { createProduct, createStore } from './support/factories.js';

const CLIENT = join(ROOT, 'clients/typescript');

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 180_000, env: { ...process.env, ...env } });
  assert.equal(r.status, 0, `${command} ${args.join(' ')} in ${cwd}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

// What a shop writes: plain JavaScript on the installed package, configured by the environment.
const PLACE_ORDER = `
import { createStorefrontClient, unwrap } from '@storefront-api/client';
let token = process.env.STOREFRONT_TOKEN;
const api = createStorefrontClient({ baseUrl: process.env.STOREFRONT_API_URL, token: () => token });
const { product } = unwrap(await api.GET('/api/v1/products/{slug}', { params: { path: { slug: 'linen-shirt' } } }));
const session = unwrap(await api.POST('/api/v1/guest-sessions'));
token = session.secret;
const customer = { customer: session.customerId };
const { address } = unwrap(await api.POST('/api/v1/{customer}/addresses', {
  params: { path: customer },
  body: { address: { zipcode: '01001-000', street: 'Rua Augusta', number: '1508', city: 'São Paulo', state: 'SP', country: 'BR' } },
}));
const { order } = unwrap(await api.POST('/api/v1/{customer}/orders', {
  params: { path: customer, header: { 'Idempotency-Key': crypto.randomUUID() } },
  body: { address: address.id, products: [{ id: product.id, quantity: 2 }] },
}));
console.log(JSON.stringify({ status: order.status, price: order.price, lines: order.products.length }));
`;

// What a TypeScript shop writes: the installed declarations must type it, and refuse a wrong call.
const TYPED = `
import { createStorefrontClient, type Order, type Problem } from '@storefront-api/client';
const api = createStorefrontClient({ baseUrl: 'http://127.0.0.1:3000', token: 'sf_demo_x' });
export async function firstPage(): Promise<string[]> {
  const { data } = await api.GET('/api/v1/products', { params: { query: { limit: 12, sort: 'price' } } });
  return (data?.products ?? []).map((p) => p.slug);
}
export const status: Order['status'] = 'CREATED';
export const code: Problem['code'] = 'INSUFFICIENT_STOCK';
// @ts-expect-error: the path does not exist
export const wrong = api.GET('/api/v1/no-such-route');
`;

test('the packed client installs into an empty project, type-checks and places an order', { timeout: 300_000 }, async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'storefront-client-package-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));

  const packed = run('npm', ['pack', '--silent', '--pack-destination', work], CLIENT).trim().split('\n').at(-1)!;
  const tarball = join(work, packed);
  assert.ok(existsSync(tarball), `npm pack wrote ${tarball}`);

  const shop = join(work, 'shop');
  mkdirSync(shop);
  writeFileSync(join(shop, 'package.json'), JSON.stringify({ name: 'a-shop', private: true, type: 'module' }));
  run('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline'], shop);
  const installed = join(shop, 'node_modules/@storefront-api/client');
  assert.ok(existsSync(join(installed, 'dist/index.js')) && existsSync(join(installed, 'dist/index.d.ts')), 'built JavaScript and types');
  assert.ok(existsSync(join(shop, 'node_modules/openapi-fetch')), 'its own dependency came with it');

  writeFileSync(join(shop, 'typed.ts'), TYPED);
  writeFileSync(
    join(shop, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, lib: ['ES2022', 'DOM'], noEmit: true }, files: ['typed.ts'] }),
  );
  run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', '.'], shop);

  const app = await startTestApp();
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const store = await createStore(app);
  await createProduct(app, store, { slug: 'linen-shirt', price: 4990, quantity: 5 });
  writeFileSync(join(shop, 'place-order.mjs'), PLACE_ORDER);
  // Not spawnSync: the service answers from this very process.
  const { stdout: out } = await promisify(execFile)(process.execPath, ['place-order.mjs'], {
    cwd: shop,
    timeout: 60_000,
    env: { ...process.env, STOREFRONT_API_URL: `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`, STOREFRONT_TOKEN: store.storefront },
  });
  assert.deepEqual(JSON.parse(out.trim().split('\n').at(-1)!), { status: 'CREATED', price: 9980, lines: 1 });
});
