/**
 * `npx tsx bench/checkout-flood.ts`: what one client attacking the public checkout costs a real
 * shopper, and what it can keep. The server runs as deployed (the default per-client limits:
 * CLIENT_RATE_LIMIT_PER_MINUTE 600, HOLDS_PER_CLIENT 3, UNPAID_ORDERS_PER_CLIENT 3,
 * DISCOUNT_ATTEMPTS_PER_MINUTE 10) behind a proxy it trusts (TRUST_PROXY=127.0.0.1), so
 * X-Forwarded-For names the client. A shopper (its own address, one connection) is measured idle,
 * then while an attacker (its own process, 20 connections at --attack-rate requests per second,
 * default 500 (0: unpaced, which measures this machine's CPU more than the service), rotating the left part of
 * X-Forwarded-For) holds and releases its carts, guesses codes and
 * orders from new guest sessions. The shopper's work: catalog reads (the store's cached answers) of
 * a page that shows the attacked product (GET /v1/products?limit=20: it is the newest) and of one
 * that does not (the next page), and checkouts (cart, hold, release). A hold or release refreshes
 * only the cached answers that show its products, so the attack reaches the first kind of read
 * only. Reported: the shopper's mean, median and p99 in both runs, how many of its catalog reads the
 * server computed rather than answered from its cache (its metrics), how the attack was answered,
 * and the units of the attacked product it kept unavailable.
 * Options: --attack-rate 500 --port 4310 --seconds 5 --embedded (PGlite instead of BENCH_DATABASE_URL), --churn (the
 * attacker releases each cart right after holding it, so that every hold and release changes what
 * is held, rather than keeping its carts held). The attacker runs as
 * `--attacker <url> <fixture json> <seconds> <rate> <churn|keep>`.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { freshBenchDatabase } from './fresh-database.js';
import { seedBench } from './seed.js';

const ROOT = new URL('../', import.meta.url).pathname;
/** Real shoppers: each request from an address of its own, so none of them spends its client budget. */
let shoppers = 0;
const shopperAddress = () => {
  const i = shoppers++;
  return `198.51.${(i >> 8) & 255}.${i & 255}`;
};
const ATTACKER = '203.0.113.66';

interface Fixture {
  storefront: string;
  admin: string;
  productId: string;
}

async function call(base: string, token: string, method: string, path: string, client: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'x-forwarded-for': client };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined };
}

function percentile(sorted: number[], p: number) {
  return sorted.length === 0 ? 0 : Math.round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]! * 100) / 100;
}

const METRICS_TOKEN = 'bench-metrics-token-0123456789';

/** Catalog reads the server computed rather than answered from its cache, so far (its metrics). */
async function computedSoFar(base: string): Promise<number> {
  const text = await (await fetch(`${base}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  return Number(/storefront_catalog_cache_total\{outcome="computed"\} (\d+)/.exec(text)?.[1] ?? 0);
}

/**
 * Catalog reads of one URL for `seconds`, one connection, each request from an address of its own;
 * `computed`: how many of them the server computed (the attacker reads no catalog).
 */
async function reads(base: string, path: string, f: Fixture, seconds: number) {
  const before = await computedSoFar(base);
  const r = await autocannon({
    url: base + path,
    connections: 1, duration: seconds,
    requests: [{ setupRequest: (request) => ({ ...request, headers: { ...request.headers, authorization: `Bearer ${f.storefront}`, 'x-forwarded-for': shopperAddress() } }) }],
  });
  return { requests: r.requests.total, computed: (await computedSoFar(base)) - before, mean: r.latency.mean, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx };
}

/**
 * The shopper: catalog reads of the page with the attacked product and of the page without it,
 * `seconds` each, then checkouts (cart, hold, release) for `seconds`.
 */
async function shopper(base: string, f: Fixture, seconds: number) {
  const catalog = await reads(base, '/api/v1/products?limit=20', f, seconds);
  const otherPage = await reads(base, '/api/v1/products?limit=20&offset=20', f, seconds);
  const steps: number[] = [];
  const refused: Record<string, number> = {};
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    const t0 = performance.now();
    const SHOPPER = shopperAddress();
    const cart = await call(base, f.storefront, 'POST', '/api/v1/carts', SHOPPER, { products: [{ id: f.productId, quantity: 1 }] });
    const held = cart.status === 201 ? await call(base, f.storefront, 'POST', `/api/v1/carts/${cart.json.cart.id}/hold`, SHOPPER) : cart;
    if (held.status === 200) await call(base, f.storefront, 'DELETE', `/api/v1/carts/${cart.json.cart.id}/hold`, SHOPPER);
    else refused[held.status] = (refused[held.status] ?? 0) + 1;
    steps.push(performance.now() - t0);
  }
  steps.sort((a, b) => a - b);
  return {
    catalog, otherPage,
    checkout: { count: steps.length, p50: percentile(steps, 50), p99: percentile(steps, 99), refused },
  };
}

/** The attacker: its carts held and released over and over, guessed codes, guest orders, at `rate` requests per second. */
async function attacker(base: string, f: Fixture, seconds: number, rate: number, churn: boolean) {
  const rotating = () => `10.${Math.floor(Math.random() * 255)}.${Math.floor(Math.random() * 255)}.1, ${ATTACKER}`;
  const carts: string[] = [];
  for (let i = 0; i < 10; i++) {
    const r = await call(base, f.storefront, 'POST', '/api/v1/carts', rotating(), { products: [{ id: f.productId, quantity: 100_000 }] });
    if (r.status === 201) carts.push(r.json.cart.id);
  }
  const guests: Array<{ customerId: string; secret: string; addressId: string }> = [];
  for (let i = 0; i < 5; i++) {
    const g = await call(base, f.storefront, 'POST', '/api/v1/guest-sessions', rotating());
    if (g.status !== 201) continue;
    const address = { zipcode: '1', street: 's', number: '1', city: 'c', state: 's', country: 'BR' };
    const a = await call(base, g.json.secret, 'POST', `/api/v1/${g.json.customerId}/addresses`, rotating(), { address });
    if (a.status === 201) guests.push({ customerId: g.json.customerId, secret: g.json.secret, addressId: a.json.address.id });
  }
  let n = 0;
  console.log('attacking');
  const result = await autocannon({
    url: base, connections: 20, duration: seconds, ...(rate > 0 ? { overallRate: rate } : {}),
    requests: [{
      setupRequest: (request) => {
        const i = n++;
        const headers = { ...request.headers, 'x-forwarded-for': rotating(), 'content-type': 'application/json', authorization: `Bearer ${f.storefront}` };
        // With `churn`, each group of four holds a cart and then releases that same cart: every
        // hold and release answered 200 changes what is held. Without, most holds renew one of the
        // (at most HOLDS_PER_CLIENT) held carts and most releases find nothing held: it keeps stock.
        const cart = carts[(churn ? Math.floor(i / 4) : i) % Math.max(1, carts.length)];
        switch (i % 4) {
          case 0: return { ...request, method: 'POST', path: `/api/v1/carts/${cart}/hold`, headers, body: undefined };
          case 1: return { ...request, method: 'DELETE', path: `/api/v1/carts/${cart}/hold`, headers, body: undefined };
          case 2: return { ...request, method: 'POST', path: `/api/v1/carts/${cart}/discount`, headers, body: JSON.stringify({ code: `GUESS${i}` }) };
          default: {
            const g = guests[i % Math.max(1, guests.length)]!;
            return {
              ...request, method: 'POST', path: `/api/v1/${g.customerId}/orders`, headers: { ...headers, authorization: `Bearer ${g.secret}` },
              body: JSON.stringify({ address: g.addressId, products: [{ id: f.productId, quantity: 100_000 }] }),
            };
          }
        }
      },
    }],
  });
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, (s as { count: number }).count]));
  console.log(JSON.stringify({ requests: result.requests.total, statusCodes }));
}

async function main() {
  const { values } = parseArgs({ options: { 'attack-rate': { type: 'string', default: '500' }, port: { type: 'string', default: '4310' }, seconds: { type: 'string', default: '5' }, embedded: { type: 'boolean', default: false }, churn: { type: 'boolean', default: false } } });
  const seconds = Number(values.seconds);
  const port = Number(values.port);
  const base = `http://127.0.0.1:${port}`;
  const { database, env, cleanup } = await freshBenchDatabase(values.embedded, 'storefront-checkout-flood-');
  const seeded = await seedBench(database.db, 1000, 10);
  await database.close();

  const server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', SEED_DEMO: 'false', LOG_LEVEL: 'error', TRUST_PROXY: '127.0.0.1',
      RATE_LIMIT_PER_MINUTE: '0', MAINTENANCE_INTERVAL_SECONDS: '0', METRICS_TOKEN, DB_POOL_SIZE: '20', WEBHOOK_POLL_INTERVAL_MS: '0',
    },
  });
  try {
    for (let i = 0; ; i++) {
      if (await fetch(`${base}/api/ready`).then((r) => r.ok, () => false)) break;
      if (i > 600) throw new Error('the server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    // The attacked product: a plentiful stock, no maxPerOrder of its own (lines up to 100000).
    const product = await call(base, seeded.admin, 'POST', '/api/v1/admin/products', '127.0.0.1', {
      name: 'Attacked', slug: 'attacked', sku: 'ATT', price: 100, quantity: 10_000_000, status: 'ACTIVE',
    });
    const f: Fixture = { storefront: seeded.storefront, admin: seeded.admin, productId: product.json.product.id };
    await shopper(base, f, 1); // warm-up
    const idle = await shopper(base, f, seconds);
    let started = () => {};
    const attackStarted = new Promise<void>((resolve) => (started = resolve));
    const attacking = new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/checkout-flood.ts'), '--attacker', base, JSON.stringify(f), String(seconds * 3 + 3), values['attack-rate'], values.churn ? 'churn' : 'keep'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.startsWith('attacking\n')) started();
      });
      child.once('exit', (code) => (code === 0 ? resolve(out.trim().split('\n').at(-1)!) : reject(new Error(`attacker exited ${code}`))));
    });
    // The attacker takes its carts and sessions first (a few seconds on a loaded machine), then says so.
    await Promise.race([attackStarted, attacking]);
    const during = await shopper(base, f, seconds);
    const kept = (await call(base, f.admin, 'GET', `/api/v1/admin/products/${f.productId}`, '127.0.0.1')).json.product;
    const attack = JSON.parse(await attacking);
    console.log(JSON.stringify({
      idle, during,
      catalogMeanRatio: Math.round((during.catalog.mean / Math.max(idle.catalog.mean, 0.001)) * 100) / 100,
      otherPageMeanRatio: Math.round((during.otherPage.mean / Math.max(idle.otherPage.mean, 0.001)) * 100) / 100,
      checkoutP50Ratio: Math.round((during.checkout.p50 / Math.max(idle.checkout.p50, 0.001)) * 100) / 100,
      attack,
      attackedProduct: { stock: 10_000_000, held: kept.held, ordered: 10_000_000 - kept.quantity, unavailable: kept.held + 10_000_000 - kept.quantity },
    }, null, 2));
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    cleanup();
  }
}

if (process.argv[2] === '--attacker') await attacker(process.argv[3]!, JSON.parse(process.argv[4]!) as Fixture, Number(process.argv[5]), Number(process.argv[6]), process.argv[7] === 'churn');
else await main();
