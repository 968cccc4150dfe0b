/**
 * One command runs the example storefront against a local service:
 * `npm run storefront` starts the API (a fresh embedded database, CORS open to this page's origin),
 * creates a store with a few products through the admin API, bundles app.ts (with the typed client)
 * and serves the page. Ctrl-C stops both.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');

export interface Storefront {
  url: string;
  apiUrl: string;
  adminToken: string;
  stop: () => Promise<void>;
}

const PRODUCTS = [
  { name: 'Linen shirt', slug: 'linen-shirt', price: 4990, originalPrice: 5990, quantity: 5, collection: 'shirts' },
  { name: 'Oxford shirt', slug: 'oxford-shirt', price: 5490, quantity: 8, collection: 'shirts' },
  { name: 'Flannel shirt', slug: 'flannel-shirt', price: 5990, quantity: 0, collection: 'shirts' },
  { name: 'Canvas tote', slug: 'canvas-tote', price: 1990, quantity: 12, collection: 'accessories' },
  { name: 'Sun hat', slug: 'sun-hat', price: 2490, quantity: 3, collection: 'accessories' },
  { name: 'Ceramic mug', slug: 'ceramic-mug', price: 1490, quantity: 20, collection: 'home' },
];

async function api(apiUrl: string, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** A store with collections and products (one sold out); answers its admin and storefront tokens. */
async function seedShop(apiUrl: string, rootToken: string) {
  const { tokens } = await api(apiUrl, rootToken, 'POST', '/api/v1/admin/stores', { slug: 'example-shop', name: 'Example shop' });
  const collections = new Map<string, string>();
  for (const [slug, name] of [['shirts', 'Shirts'], ['accessories', 'Accessories'], ['home', 'Home']] as const) {
    collections.set(slug, (await api(apiUrl, tokens.admin, 'POST', '/api/v1/admin/collections', { slug, name })).collection.id);
  }
  for (const { collection, ...product } of PRODUCTS) {
    const body = { ...product, sku: product.slug.toUpperCase(), status: 'ACTIVE', description: `<p>${product.name}, made to last.</p>` };
    const { product: created } = await api(apiUrl, tokens.admin, 'POST', '/api/v1/admin/products', body);
    await api(apiUrl, tokens.admin, 'POST', `/api/v1/admin/collections/${collections.get(collection)}/products`, { id: created.id });
  }
  return { admin: tokens.admin as string, storefront: tokens.storefront as string };
}

async function waitForHealth(apiUrl: string, child: ChildProcess, output: () => string) {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`the API exited early:\n${output()}`);
    try {
      if ((await fetch(`${apiUrl}/api/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the API did not start:\n${output()}`);
}

/** Starts the API and the storefront page; `stop()` ends both and removes the database. */
export async function startStorefront({ apiPort = 3000, webPort = 5173 } = {}): Promise<Storefront> {
  const url = `http://127.0.0.1:${webPort}`;
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'storefront-example-'));
  const rootToken = randomBytes(24).toString('base64url');
  // Always the embedded database in a fresh directory, whatever the shell points DATABASE_URL at.
  const { DATABASE_URL: _ignored, ...serviceEnv } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/server.ts')], {
    cwd: ROOT,
    env: {
      ...serviceEnv, PORT: String(apiPort), HOST: '127.0.0.1', DATA_DIR: dataDir, SEED_DEMO: 'false',
      STOREFRONT_ROOT_TOKEN: rootToken, LOG_LEVEL: 'warn', CORS_ORIGINS: `${url},http://localhost:${webPort}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  let web: Server | undefined;
  const stop = async () => {
    await new Promise<void>((resolve) => (web ? web.close(() => resolve()) : resolve()));
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForHealth(apiUrl, child, () => output);
    const tokens = await seedShop(apiUrl, rootToken);
    const bundle = await build({ entryPoints: [join(HERE, 'app.ts')], bundle: true, format: 'esm', target: 'es2022', write: false, sourcemap: 'inline' });
    const files: Record<string, [string, string | Uint8Array]> = {
      '/': ['text/html; charset=utf-8', readFileSync(join(HERE, 'index.html'))],
      '/style.css': ['text/css; charset=utf-8', readFileSync(join(HERE, 'style.css'))],
      '/app.js': ['text/javascript; charset=utf-8', bundle.outputFiles[0]!.contents],
      '/config.json': ['application/json', JSON.stringify({ apiUrl, storefrontToken: tokens.storefront })],
    };
    web = createServer((request, response) => {
      const file = files[(request.url ?? '/').split('?')[0]!];
      if (!file) return response.writeHead(404).end('not found');
      response.writeHead(200, { 'content-type': file[0], 'cache-control': 'no-store' }).end(file[1]);
    });
    await new Promise<void>((resolve) => web!.listen(webPort, '127.0.0.1', resolve));
    return { url, apiUrl, adminToken: tokens.admin, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const storefront = await startStorefront({ apiPort: Number(process.env.API_PORT ?? 3000), webPort: Number(process.env.WEB_PORT ?? 5173) });
  console.log(`storefront: ${storefront.url}  (API ${storefront.apiUrl}, CORS open to the storefront's origin; Ctrl-C stops both)`);
  const shutdown = () => void storefront.stop().then(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
