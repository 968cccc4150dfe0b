/**
 * The typed client as a shop installs it: `npm pack` in clients/typescript (which builds dist/ on
 * its `prepare`), then its README's "A new project, as pasted" followed to the letter in an empty
 * folder outside the repository (so nothing resolves from the repository's node_modules): its
 * package.json and tsconfig.json, its install commands (the tools from the registry, as a reader
 * gets them), its shop.ts type-checked and run against a listening service; and an order placed
 * with the installed JavaScript.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp } from './support/app.js';
import { PGLITE_SUITE_ONLY, ROOT } from './support/database.js';
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

/** The blocks of the client README's "A new project, as pasted" section, in order. */
function newProjectSteps() {
  const readme = readFileSync(join(CLIENT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## A new project, as pasted\n');
  assert.ok(start >= 0, 'the client README has the section');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const blocks = [...section.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, text: m[2]! }));
  assert.deepEqual(blocks.map((b) => b.lang), ['json', 'json', 'sh', 'ts', 'sh'], 'package.json, tsconfig.json, install, shop.ts, run');
  return { packageJson: blocks[0]!.text, tsconfig: blocks[1]!.text, install: blocks[2]!.text, shop: blocks[3]!.text, runIt: blocks[4]!.text };
}

test('the packed client, in a new project made as its README says, type-checks and runs; and places an order', { skip: PGLITE_SUITE_ONLY, timeout: 300_000 }, async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'storefront-client-package-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  const steps = newProjectSteps();

  const packed = run('npm', ['pack', '--silent', '--pack-destination', work], CLIENT).trim().split('\n').at(-1)!;
  const tarball = join(work, packed);
  assert.ok(existsSync(tarball), `npm pack wrote ${tarball}`);
  assert.ok(steps.install.includes(`/tmp/${packed}`), `the README installs the tarball npm pack makes (${packed})`);

  // The README's files and commands, as pasted: only the tarball's folder differs.
  const shop = join(work, 'shop');
  mkdirSync(shop);
  writeFileSync(join(shop, 'package.json'), steps.packageJson);
  writeFileSync(join(shop, 'tsconfig.json'), steps.tsconfig);
  writeFileSync(join(shop, 'shop.ts'), steps.shop);
  const quiet = { npm_config_audit: 'false', npm_config_fund: 'false', npm_config_prefer_offline: 'true' };
  run('bash', ['-euc', steps.install.replaceAll(`/tmp/${packed}`, tarball)], shop, quiet);
  const installed = join(shop, 'node_modules/@storefront-api/client');
  assert.ok(existsSync(join(installed, 'dist/index.js')) && existsSync(join(installed, 'dist/index.d.ts')), 'built JavaScript and types');
  assert.ok(existsSync(join(shop, 'node_modules/openapi-fetch')), 'its own dependency came with it');

  // The project's own tsc checks shop.ts, and typed.ts: the declarations must refuse a wrong call.
  writeFileSync(join(shop, 'typed.ts'), TYPED);
  run('npm', ['run', 'typecheck', '--silent'], shop);

  const app = await startTestApp();
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const store = await createStore(app);
  await createProduct(app, store, { slug: 'linen-shirt', name: 'Linen shirt', price: 4990, quantity: 5 });
  await createProduct(app, store, { slug: 'mug', name: 'Mug', price: 1490, quantity: 5 });
  const apiUrl = `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`;

  // The README's last block, with the test store's token where it loads the demo store's.
  const runIt = steps.runIt.replace(/^\. \S+demo-store\.env$/m, '');
  assert.notEqual(runIt, steps.runIt, 'the last block loads the tokens file npm start keeps');
  // Not spawnSync: the service answers from this very process.
  const { stdout } = await promisify(execFile)('bash', ['-euc', runIt], { cwd: shop, timeout: 120_000, env: { ...process.env, SF: store.storefront, STOREFRONT_API_URL: apiUrl } });
  const printed = stdout.split('\n').filter((line) => line && !line.startsWith('>'));
  assert.deepEqual(printed, ['Mug 1490', 'Linen shirt 4990', 'a cart of 1490']);

  writeFileSync(join(shop, 'place-order.mjs'), PLACE_ORDER);
  const { stdout: out } = await promisify(execFile)(process.execPath, ['place-order.mjs'], {
    cwd: shop,
    timeout: 60_000,
    env: { ...process.env, STOREFRONT_API_URL: apiUrl, STOREFRONT_TOKEN: store.storefront },
  });
  assert.deepEqual(JSON.parse(out.trim().split('\n').at(-1)!), { status: 'CREATED', price: 9980, lines: 1 });
});
