/**
 * `npm run bench`: the storefront routes under load, each against the ceiling of this stack on this
 * machine, measured in the same run. Options:
 *   --products 10000        catalog sizes, comma-separated (e.g. 1000,100000)
 *   --embedded              PGlite in a temporary DATA_DIR instead of PostgreSQL (BENCH_DATABASE_URL)
 *   --seconds 10 --warmup 3 --connections 50 --only list-products,order-cart
 *   --port 3900             the server's port (the ceiling server uses the next one, the spread servers the
 *                           ones after it, the receiver +50)
 *   --no-webhooks           skip the webhook runs (order-spread with an endpoint, backlog drain)
 *   --cpu-prof DIR          write the server's CPU profile (node --cpu-prof) to DIR
 *   --stores 1,2000         the spread workloads (bench/spread.ts: cart-create, cart-add-line, order-spread,
 *                           order-from-cart, cart-hold, list-products) on N stores each, every request for a
 *                           store drawn at random, each count on a server of its own (its peak RSS), beside
 *                           the bare-SQL ceiling spread the same way; --stores 0 skips them, --spread-only runs
 *                           only them; the chart of them is bench/results/latest-spread.svg; PostgreSQL only
 *   --spread-passes 5       how many times the spread runs are made, the counts taking turns: each ratio
 *                           is the median of the passes' own
 *   --read-passes 3         how many times each read workload and its ceiling (the bare server) run, taking
 *                           turns: each read's ratio is the median of the passes' own
 *   --write-passes 3        how many times order-spread-discount, order-spread-shipped and the *-held
 *                           orders each run right after their baseline (order-spread, or order-hot), and
 *                           order-spread without and with a webhook endpoint, taking turns: each one's
 *                           ratio to its baseline is the median of the passes'
 *   --payment-passes 2      how many times orders alone and orders beside each stream of payment webhooks
 *                           are measured, taking turns: each ratio is the median of the passes' own
 *   --replica URL           the read workloads again on a server with DATABASE_READ_URL=URL (a replica
 *                           of BENCH_DATABASE_URL, e.g. scripts/ha/cluster.sh's ports), compared with
 *                           the primary alone; the catalog cache is off in both, or it would answer
 * Results: a table on stdout, and bench/results/latest.{json,md} (the last run only, with the commit
 * it measured; git keeps the history).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import type { LoadPlan, LoadResult } from './load.js';
import type { SqlPlan } from './ceiling-sql.js';
import type { OrderCeilingPlan } from './ceiling-orders.js';
import { seedBench, type BenchFixture } from './seed.js';
import { measureDrain, setDisabled, startBenchReceiver, subscribe, waitForDeliveries, type DrainResult } from './webhooks.js';
import { enableBenchStripe, paidCounts, pendingPaymentDeliveries, type SignedDeliveries } from './payments.js';
import { holdCarts, prepareActiveHolds, prepareHoldCarts, releaseActiveHolds, selloutWithHolds, type HeldSelloutResult } from './holds.js';
import { ceilingRows, seedSpread, SPREAD_WORKLOADS, type SpreadStore, type Target } from './spread.js';
import { spreadChart } from './spread-chart.js';
import { cpuMs, POOL, serverEnvOf as benchServerEnv, statFields } from './processes.js';

const ROOT = new URL('../', import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    products: { type: 'string', default: '10000' },
    embedded: { type: 'boolean', default: false },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    only: { type: 'string' },
    // The catalog cache answers a repeated read from memory; without it every read asks the database.
    'no-cache': { type: 'boolean', default: false },
    webhooks: { type: 'boolean', default: true },
    port: { type: 'string', default: '3900' },
    // A V8 CPU profile of the server (node --cpu-prof), written to this directory when it stops.
    'cpu-prof': { type: 'string' },
    replica: { type: 'string' },
    stores: { type: 'string', default: '1,2000' },
    'spread-only': { type: 'boolean', default: false },
    // The spread runs are made this many times, alternating the counts' order (see benchSpread).
    // One pass's ratio moves by a sixth either way on a shared VM (the same code read 0.68 and 0.96):
    // the median of five is a figure of the code, where three left it to the machine.
    'spread-passes': { type: 'string', default: '5' },
    'payment-passes': { type: 'string', default: '2' },
    'read-passes': { type: 'string', default: '3' },
    'write-passes': { type: 'string', default: '3' },
  },
  allowNegative: true,
});
const SIZES = values.products.split(',').map(Number);
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const CONNECTIONS = Number(values.connections);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/bench';
// A replica run compares database reads: the catalog cache would answer them from memory instead.
const CACHE_OFF = values['no-cache'] || values.replica !== undefined;
/** `npm run serve` without its `node`: the benchmark starts the server exactly as deployed. */
// The node arguments of `npm run serve` ("exec node <args>": exec makes npm's signals reach node).
const SERVE_ARGS = [
  ...(values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : []),
  ...(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.serve as string).replace(/^exec /, '').split(' ').slice(1),
];

interface Workload {
  name: string;
  kind: 'read' | 'write';
  method: LoadPlan['method'];
  /** Paths and bodies for the service. */
  plan: (f: BenchFixture) => Pick<LoadPlan, 'paths' | 'bodies' | 'sequential'>;
  /** Connections, when not the run's. */
  connections?: number;
  /** Writes: the physical ceiling (the minimal order transaction of this shape, bare PostgreSQL). */
  ceiling?: OrderCeilingPlan['shape'];
  /** Writes: the service's own statements as bare SQL (the older, second ceiling). */
  sql?: SqlPlan['workload'];
  /** Made through the API before the workload runs (carts to hold, active holds). */
  prepare?: (base: string, f: BenchFixture) => Promise<void>;
  /** Undone through the API after it ran (what `prepare` made that other workloads must not see). */
  finish?: (base: string, f: BenchFixture) => Promise<void>;
  /**
   * Its target is a share of another workload's rate (`baseline`, order-spread when not given): it
   * runs in turns with it (`--write-passes`), each pass the baseline then this, and its ratio to the
   * baseline is the median of the passes' own.
   */
  besideOrders?: true;
  baseline?: string;
}

const order = (f: BenchFixture) => `/api/v1/${f.customerId}/orders`;
const SPREAD_CODE = 'BENCH10';
const LIMITED_CODE = 'LIMITED2000';
function hotOrders(f: BenchFixture) {
  return { paths: [order(f)], bodies: [JSON.stringify({ address: f.addressId, products: [{ id: f.hotProductIds[0], quantity: 1 }] })] };
}
/** Orders go with the customer's own token; everything else with the public storefront token. */
const tokenOf = (w: { name: string }, f: BenchFixture) => (w.name.startsWith('order-') ? f.customer : f.storefront);
const spreadOrders = (f: BenchFixture) => ({ paths: [order(f)], bodies: f.hotProductIds.map((id) => JSON.stringify({ address: f.addressId, products: [{ id, quantity: 1 }] })) });
// Checkout holds (bench/holds.ts): the two order workloads with 1,000 active holds in the store,
// each in turns with the same workload without them, run just before (the holds made for the one
// and released after it: one pass compared a single pair, and on this machine a pair moves by a
// tenth from run to run), catalog reads while the holds last, then holding a 1-3 line cart (a
// renewal after the first).
const HOLD_WORKLOADS: Workload[] = [
  { name: 'order-spread-held', kind: 'write', method: 'POST', ceiling: 'spread', prepare: prepareActiveHolds, finish: releaseActiveHolds, besideOrders: true, plan: spreadOrders },
  { name: 'order-hot-held', kind: 'write', method: 'POST', ceiling: 'hot-cte', prepare: prepareActiveHolds, finish: releaseActiveHolds, besideOrders: true, baseline: 'order-hot', plan: hotOrders },
  // Catalog reads while those 1,000 holds last: quantities are the stock less what is held.
  { name: 'list-products-held', kind: 'read', method: 'GET', prepare: prepareActiveHolds, plan: () => ({ paths: ['/api/v1/products?limit=50'] }) },
  { name: 'product-by-slug-held', kind: 'read', method: 'GET', prepare: prepareActiveHolds, plan: (f) => ({ paths: f.slugs.map((s) => `/api/v1/products/${s}`) }) },
  { name: 'list-filtered-held', kind: 'read', method: 'GET', prepare: prepareActiveHolds, plan: () => ({ paths: ['/api/v1/products?minPrice=1000&maxPrice=5000&inStock=true&limit=50'] }) },
  { name: 'cart-hold', kind: 'write', method: 'POST', ceiling: 'spread', prepare: prepareHoldCarts, plan: (f) => ({ paths: holdCarts(f).map((id) => `/api/v1/carts/${id}/hold`) }) },
];
const ALL_WORKLOADS: Workload[] = [
  { name: 'list-products', kind: 'read', method: 'GET', plan: () => ({ paths: ['/api/v1/products?limit=50'] }) },
  { name: 'list-collection-products', kind: 'read', method: 'GET', plan: (f) => ({ paths: [`/api/v1/products?collection=${f.collectionSlug}&limit=50`] }) },
  { name: 'product-by-slug', kind: 'read', method: 'GET', plan: (f) => ({ paths: f.slugs.map((s) => `/api/v1/products/${s}`) }) },
  { name: 'list-collections', kind: 'read', method: 'GET', plan: () => ({ paths: ['/api/v1/collections'] }) },
  { name: 'search', kind: 'read', method: 'GET', plan: () => ({ paths: ['/api/v1/products?q=linen%20shi&limit=50'] }) },
  { name: 'search-typo', kind: 'read', method: 'GET', plan: () => ({ paths: ['/api/v1/products?q=linnen%20sweater&limit=50'] }) },
  { name: 'list-filtered', kind: 'read', method: 'GET', plan: () => ({ paths: ['/api/v1/products?minPrice=1000&maxPrice=5000&inStock=true&limit=50'] }) },
  { name: 'list-deep', kind: 'read', method: 'GET', plan: (f) => ({ paths: [`/api/v1/products?limit=50&after=${f.deepCursor}`] }) },
  // Each group once: a storefront's grid of items.
  { name: 'list-collapsed', kind: 'read', method: 'GET', plan: () => ({ paths: ['/api/v1/products?collapse=group&limit=50'] }) },
  // A product page: the item's variants and their options.
  { name: 'product-group', kind: 'read', method: 'GET', plan: (f) => ({ paths: f.groups.map((g) => `/api/v1/product-groups/${g}`) }) },
  {
    name: 'cart-create', kind: 'write', method: 'POST', ceiling: 'spread', sql: 'cart-create',
    plan: (f) => ({ paths: ['/api/v1/carts'], bodies: f.hotProductIds.map((id) => JSON.stringify({ products: [{ id, quantity: 1 }] })) }),
  },
  {
    name: 'cart-add-line', kind: 'write', method: 'POST', ceiling: 'spread', sql: 'cart-add',
    plan: (f) => ({ paths: f.addCartIds.map((id) => `/api/v1/carts/${id}/products`), bodies: f.hotProductIds.map((id) => JSON.stringify({ id, quantity: 1 })) }),
  },
  {
    // A random one of 1000 products per order: a big store's checkout.
    name: 'order-spread', kind: 'write', method: 'POST', ceiling: 'spread', plan: spreadOrders,
  },
  {
    // order-spread, every order with an unlimited percentage code (made by `createBenchDiscounts`).
    name: 'order-spread-discount', kind: 'write', method: 'POST', ceiling: 'spread', besideOrders: true,
    plan: (f) => ({ paths: [order(f)], bodies: f.hotProductIds.map((id) => JSON.stringify({ address: f.addressId, products: [{ id, quantity: 1 }], discountCode: SPREAD_CODE })) }),
  },
  // Every order on one product: a flash sale.
  { name: 'order-hot', kind: 'write', method: 'POST', ceiling: 'hot-cte', plan: hotOrders },
  { name: 'order-hot-200', kind: 'write', method: 'POST', ceiling: 'hot-cte', connections: 200, plan: hotOrders },
  {
    // order-spread, every order with a shipping option and taxed by two rates (a country rate and a
    // region rate over it); the option exists only during this run (`prepareShipping`), since once a
    // store has one every order needs one.
    name: 'order-spread-shipped', kind: 'write', method: 'POST', ceiling: 'spread', prepare: prepareShipping, finish: finishShipping, besideOrders: true,
    plan: (f) => ({ paths: [order(f)], bodies: f.hotProductIds.map((id) => JSON.stringify({ address: f.addressId, products: [{ id, quantity: 1 }], shippingOption: shippingOptionId })) }),
  },
  {
    name: 'order-from-cart', kind: 'write', method: 'POST', ceiling: 'spread', sql: 'order-cart',
    plan: (f) => ({ paths: [order(f)], bodies: f.orderCartIds.map((id) => JSON.stringify({ id, address: f.addressId })), sequential: true }),
  },
  ...HOLD_WORKLOADS,
];
const WORKLOADS = ALL_WORKLOADS.filter((w) => !values.only || values.only.split(',').includes(w.name));

function runCommand(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit' });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}`))));
  });
}

function runNode(script: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, script), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${script} exited ${code}`))));
  });
}

async function runJson<T>(script: string, plan: object): Promise<T> {
  const file = join(tmpdir(), `bench-plan-${process.pid}-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(plan));
  try {
    const lines = (await runNode(script, [file])).trim().split('\n');
    return JSON.parse(lines[lines.length - 1]!) as T;
  } finally {
    rmSync(file, { force: true });
  }
}

async function startProcess(args: string[], env: Record<string, string>, ready: () => Promise<boolean>): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited ${child.exitCode}`);
    if (await ready().catch(() => false)) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${args.join(' ')} did not start`);
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
  await exited;
  clearTimeout(timer);
}

/** Peak resident memory of a process so far, in MB. */
function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

async function prepareDatabase(products: number): Promise<{ fixture: BenchFixture; env: Record<string, string>; cleanup: () => void }> {
  // Each cart is ordered once: enough for a warm-up and a measured run at 7,500 orders a second (a
  // fast VM made 3,600 and ran out of 40,000).
  const cartsPerPool = 100000;
  const { database, env, cleanup } = await freshDatabase();
  const fixture = await seedBench(database.db, products, values.embedded ? 5000 : cartsPerPool);
  await database.close();
  return { fixture, env, cleanup };
}

/**
 * One upkeep statement on the benchmark database, from a connection of its own; nothing on the
 * embedded database, whose one connection the server holds.
 */
async function maintain(statement: string): Promise<void> {
  if (values.embedded) return;
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** `analyze cart_holds`: see its callers. */
const analyzeHolds = () => maintain('analyze cart_holds');

/**
 * `vacuum (analyze)` of the whole benchmark database before a write workload or a ceiling, as pgbench
 * vacuums before each of its runs: this machine's PostgreSQL runs without autovacuum, so each
 * workload otherwise met the dead rows of all those before it (in one run, 24,000 dead holds beside
 * 5,500 live ones, and 36,000 dead carts), where a server with autovacuum clears them as it goes.
 */
const vacuumBetween = () => maintain('vacuum (analyze)');

/** An empty, migrated benchmark database: PGlite in a temporary directory, or BENCH_DATABASE_URL emptied. */
async function freshDatabase(): Promise<{ database: DatabaseHandle; env: Record<string, string>; cleanup: () => void }> {
  let database: DatabaseHandle;
  let env: Record<string, string>;
  let cleanup = () => {};
  if (values.embedded) {
    const dataDir = mkdtempSync(join(tmpdir(), 'storefront-bench-'));
    database = await openDatabase({ dataDir });
    env = { DATA_DIR: dataDir };
    cleanup = () => rmSync(dataDir, { recursive: true, force: true });
  } else {
    await createDatabaseIfMissing(DATABASE_URL);
    // Seeding 100000 products (with their search column) can outlast the service's 15 s statement limit on a busy machine.
    database = await openDatabase({ url: DATABASE_URL, poolSize: 2, statementTimeoutMs: 600_000 });
    await database.db.execute(sql`drop schema if exists public cascade`);
    await database.db.execute(sql`create schema public`);
    env = { DATABASE_URL };
  }
  await migrate(database.db);
  return { database, env, cleanup };
}

/** The benchmark's database is its own: made on first use, through the server's `postgres` database. */
async function createDatabaseIfMissing(url: string): Promise<void> {
  const { default: pg } = await import('pg');
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const client = new pg.Client({ connectionString: maintenance.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await client.query(`create database "${name.replaceAll('"', '""')}"`);
  } finally {
    await client.end();
  }
}

interface Row extends LoadResult {
  workload: string;
  products: number;
  ceiling: LoadResult | null;
  ratio: number | null;
  /** Writes: the service's own statements as bare SQL, and the ratio to it. */
  pathCeiling?: LoadResult | null;
  pathRatio?: number | null;
  /** Reads: each pass's own ratio to the bare server, in the order run (the row's ratio is their median). */
  passes?: { ratio: Array<number | null> };
  /** A `besideOrders` workload: its baseline's median req/s in the same passes, and each pass's ratio to it. */
  besideOrders?: { rps: number; ratios: Array<number | null>; ratio: number | null };
}

interface SelloutResult {
  orders: number;
  refused: number;
  other: number;
  quantityLeft: number;
  rps: number;
  p99: number;
  passed: boolean;
}

const ratio = (a: LoadResult, b: LoadResult | null | undefined) => (b && b.rps > 0 ? Math.round((a.rps / b.rps) * 100) / 100 : null);

/**
 * The flash-sale check: 6000 orders of one unit from 200 connections on a product with 2000 in
 * stock must make exactly 2000 orders, refuse the rest with 422 and leave 0: the run fails otherwise.
 */
async function sellout(base: string, fixture: BenchFixture): Promise<SelloutResult> {
  console.error('   sellout');
  const result = await runJson<LoadResult>('bench/load.ts', {
    url: base, method: 'POST', token: fixture.customer, connections: 200, warmupSeconds: 0, seconds: 0, amount: 6000,
    paths: [`/api/v1/${fixture.customerId}/orders`],
    bodies: [JSON.stringify({ address: fixture.addressId, products: [{ id: fixture.selloutProductId, quantity: 1 }] })],
  } satisfies LoadPlan);
  const product = await fetch(`${base}/api/v1/admin/products/${fixture.selloutProductId}`, { headers: { authorization: `Bearer ${fixture.admin}` } });
  const quantityLeft = ((await product.json()) as { product: { quantity: number } }).product.quantity;
  const orders = result.statusCodes['201'] ?? 0;
  const refused = result.statusCodes['422'] ?? 0;
  const other = result.requests - orders - refused;
  return { orders, refused, other, quantityLeft, rps: result.rps, p99: result.p99, passed: orders === 2000 && refused === 4000 && other === 0 && quantityLeft === 0 };
}

/** The discount codes of the discount workloads, through the admin API: an unlimited percentage, and one limited to 2000 uses. */
// The bench address's country and state (bench/seed.ts).
const [BENCH_COUNTRY, BENCH_REGION] = ['BR', 'SP'];
let shippingOptionId = '';
let taxRateIds: string[] = [];
async function adminCall(base: string, f: BenchFixture, method: string, path: string, body: object | undefined, status: number) {
  const headers = { authorization: `Bearer ${f.admin}`, ...(body ? { 'content-type': 'application/json' } : {}) };
  const r = await fetch(`${base}/api/v1/admin/${path}`, { method, headers, body: body && JSON.stringify(body) });
  if (r.status !== status) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return r.json() as Promise<Record<string, { id: string }>>;
}
/** A shipping option free above 100.00 and two tax rates of the bench address's country, for `order-spread-shipped`. */
async function prepareShipping(base: string, f: BenchFixture): Promise<void> {
  shippingOptionId = (await adminCall(base, f, 'POST', 'shipping-options', { name: 'Standard', price: 499, freeAbove: 10000 }, 201)).shippingOption!.id;
  taxRateIds = [
    (await adminCall(base, f, 'POST', 'tax-rates', { country: BENCH_COUNTRY, rate: 1700, name: 'VAT' }, 201)).taxRate!.id,
    (await adminCall(base, f, 'POST', 'tax-rates', { country: BENCH_COUNTRY, region: BENCH_REGION, rate: 1800, name: 'VAT' }, 201)).taxRate!.id,
  ];
}
/** The option and rates go, so the order workloads that follow run as before. */
async function finishShipping(base: string, f: BenchFixture): Promise<void> {
  await adminCall(base, f, 'DELETE', `shipping-options/${shippingOptionId}`, undefined, 200);
  for (const id of taxRateIds) await adminCall(base, f, 'DELETE', `tax-rates/${id}`, undefined, 200);
}

async function createBenchDiscounts(base: string, fixture: BenchFixture): Promise<string> {
  const create = async (body: object) => {
    const r = await fetch(`${base}/api/v1/admin/discounts`, { method: 'POST', headers: { authorization: `Bearer ${fixture.admin}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (r.status !== 201) throw new Error(`creating a discount: ${r.status} ${await r.text()}`);
    return ((await r.json()) as { discount: { id: string } }).discount.id;
  };
  await create({ code: SPREAD_CODE, type: 'percentage', value: 10 });
  return create({ code: LIMITED_CODE, type: 'percentage', value: 20, usageLimit: 2000 });
}

interface LimitedCodeResult {
  orders: number;
  refused: number;
  other: number;
  usageCount: number;
  rps: number;
  p99: number;
  passed: boolean;
}

/**
 * The limited-code check, like the sellout: 6000 orders (spread over the hot products) from 200
 * connections with a code limited to 2000 uses must make exactly 2000 orders, refuse the rest with
 * 422 and count 2000 uses: the run fails otherwise.
 */
async function limitedCode(base: string, fixture: BenchFixture, discountId: string): Promise<LimitedCodeResult> {
  console.error('   order-limited-code');
  const result = await runJson<LoadResult>('bench/load.ts', {
    url: base, method: 'POST', token: fixture.customer, connections: 200, warmupSeconds: 0, seconds: 0, amount: 6000,
    paths: [`/api/v1/${fixture.customerId}/orders`],
    bodies: fixture.hotProductIds.map((id) => JSON.stringify({ address: fixture.addressId, products: [{ id, quantity: 1 }], discountCode: LIMITED_CODE })),
  } satisfies LoadPlan);
  const discount = await fetch(`${base}/api/v1/admin/discounts/${discountId}`, { headers: { authorization: `Bearer ${fixture.admin}` } });
  const usageCount = ((await discount.json()) as { discount: { usageCount: number } }).discount.usageCount;
  const orders = result.statusCodes['201'] ?? 0;
  const refused = result.statusCodes['422'] ?? 0;
  const other = result.requests - orders - refused;
  return { orders, refused, other, usageCount, rps: result.rps, p99: result.p99, passed: orders === 2000 && refused === 4000 && other === 0 && usageCount === 2000 };
}

interface StormResult {
  /** CPU ms of the server and of the database per delivery (payment-webhook) and per order (order-spread alone). */
  cpuPerDelivery: { server: number; database: number };
  cpuPerOrder: { server: number; database: number };
  /** Orders beside each stream against orders alone right before, one ratio per pass. */
  besideOrders: { full: Array<number | null>; paced: Array<number | null> };
  orders: number;
  deliveries: number;
  paid: number;
  paidEvents: number;
  other: number;
  rps: number;
  p99: number;
  passed: boolean;
}

/**
 * The pace of the second stream of deliveries beside orders, a second. A store is sent about one
 * `payment_intent.succeeded` per paid order: 300 a second is a store paid 1,080,000 orders an hour,
 * more than any one shop takes at its peak. The first stream is as fast as the server answers (50
 * connections), which no payment provider sends to one store: that is what the service gives at
 * most, not what a shop meets.
 */
const PAYMENT_STREAM_PACE = 300;

/**
 * The delivery target's pace: 1,000 distinct deliveries a second, sent at that pace over the same
 * 50 connections, and their p99. As fast as answered, 50 connections in flight make the average
 * answer 50 / (deliveries a second) by Little's law, whatever the service does: at 1,000/s exactly
 * 50 ms, so a p99 under 50 ms there would need some 2,000/s. At a stated pace the p99 is the time a
 * delivery takes while the service carries that rate, which is what a payment provider meets.
 */
const PAYMENT_TARGET_PACE = 1000;

/** How long deliveries are sent one at a time (`payment-webhook alone`). */
const LONE_DELIVERY_SECONDS = 5;

/** How many times orders alone and orders beside each stream of deliveries are measured, taking turns. */
const PAYMENT_PASSES = Math.max(1, Number(values['payment-passes']));

/**
 * `payment-webhook`: signed deliveries for distinct orders, as fast as answered and then at
 * PAYMENT_TARGET_PACE; a duplicate storm (1,000 orders, each
 * event 10 times) that must leave exactly one order.paid per order, or the run fails; order-spread
 * just before, then while deliveries stream as fast as answered, then while they stream at
 * PAYMENT_STREAM_PACE (each compared with order-spread just before).
 */
/**
 * CPU milliseconds the server process and PostgreSQL have used so far: a workload's difference over
 * its requests is what one costs, whatever else the machine runs (its throughput on a shared machine
 * is not). PostgreSQL's is its postmaster's children's: the live ones (backends, and the checkpointer
 * and WAL writer the writes keep busy) and those that ended, which the kernel adds to the
 * postmaster's own count when it reaps them, so a connection the pool closes mid-run still counts.
 */
let postmasterPid: number | undefined;
async function serviceCpuMs(serverPid: number): Promise<{ server: number; database: number }> {
  if (postmasterPid === undefined) {
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    try {
      // Read while the backend lives: its parent is the postmaster.
      postmasterPid = Number(statFields((await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid)[1]);
    } finally {
      await client.end();
    }
  }
  const postmaster = postmasterPid;
  const reaped = statFields(postmaster);
  let database = (Number(reaped[13]) + Number(reaped[14])) * 10;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(statFields(Number(entry))[1]) === postmaster) database += cpuMs(Number(entry));
    } catch {
      // A process that ended meanwhile.
    }
  }
  return { server: cpuMs(serverPid), database };
}

/** CPU ms per request of a workload between two `serviceCpuMs` readings (its warm-up counted in). */
const cpuPerRequest = (before: { server: number; database: number }, after: { server: number; database: number }, result: LoadResult, warmup: number) => {
  const served = Math.max(1, result.requests * (1 + warmup / SECONDS));
  return { server: Math.round(((after.server - before.server) / served) * 100) / 100, database: Math.round(((after.database - before.database) / served) * 100) / 100 };
};

async function paymentWebhooks(base: string, fixture: BenchFixture, products: number, rows: Row[], serverPid: number): Promise<StormResult> {
  await enableBenchStripe(base, fixture);
  const load = (plan: Pick<LoadPlan, 'paths' | 'bodies' | 'bodyHeaders' | 'sequential' | 'amount' | 'rate'> & Partial<Pick<LoadPlan, 'connections'>>, token: string, seconds = SECONDS, warmup = 0) =>
    runJson<LoadResult>('bench/load.ts', { url: base, method: 'POST', token, connections: CONNECTIONS, warmupSeconds: warmup, seconds, ...plan } satisfies LoadPlan);
  console.error('   payment-webhook');
  const distinct = await pendingPaymentDeliveries(DATABASE_URL, fixture, 30000);
  // Warmed up as every other workload is (the first deliveries after the server starts meet a cold
  // JIT), with deliveries of their own, so that the CPU counted is the measured run's alone.
  if (WARMUP > 0) {
    const warm = await pendingPaymentDeliveries(DATABASE_URL, fixture, 2000 * WARMUP);
    await load({ ...warm, bodyHeaders: warm.headers, sequential: true }, 'none', WARMUP);
  }
  const cpuBeforeDeliveries = await serviceCpuMs(serverPid);
  const deliveries = await load({ ...distinct, bodyHeaders: distinct.headers, sequential: true }, 'none', SECONDS);
  const cpuPerDelivery = cpuPerRequest(cpuBeforeDeliveries, await serviceCpuMs(serverPid), deliveries, 0);
  rows.push({ workload: 'payment-webhook', products, ...deliveries, ceiling: null, ratio: null });
  // Warmed up at its pace, as every other workload is: it starts right after the stream as fast as
  // answered and the writing of its rows, and unwarmed its first two seconds held most of its tail
  // (docs/payments.md, "The paced stream's first seconds").
  const atTarget = await pendingPaymentDeliveries(DATABASE_URL, fixture, PAYMENT_TARGET_PACE * (SECONDS + WARMUP + 2));
  const targetRun = await load({ ...atTarget, bodyHeaders: atTarget.headers, sequential: true, rate: PAYMENT_TARGET_PACE }, 'none', SECONDS, WARMUP);
  rows.push({ workload: `payment-webhook at ${PAYMENT_TARGET_PACE}/s`, products, ...targetRun, ceiling: null, ratio: null });
  // One at a time, as a quiet store's deliveries come: each a round of its own, so its time is the
  // round's round trips and its COMMIT, with nothing to share them.
  const oneByOne = await pendingPaymentDeliveries(DATABASE_URL, fixture, 1000 * LONE_DELIVERY_SECONDS);
  const oneByOneRun = await load({ ...oneByOne, bodyHeaders: oneByOne.headers, sequential: true, connections: 1 }, 'none', LONE_DELIVERY_SECONDS);
  rows.push({ workload: 'payment-webhook alone', products, ...oneByOneRun, ceiling: null, ratio: null });
  console.error('   payment-webhook storm');
  const storm = await pendingPaymentDeliveries(DATABASE_URL, fixture, 1000, 10);
  const stormRun = await load({ ...storm, bodyHeaders: storm.headers, sequential: true, amount: storm.bodies.length }, 'none', 0);
  const counts = await paidCounts(DATABASE_URL, fixture.store, storm.orderIds);
  const other = stormRun.requests - (stormRun.statusCodes['200'] ?? 0);
  // Orders beside each stream are compared with orders alone measured right before (a minute or
  // less apart, the database grown by the same runs), in passes: each ratio is the median of the
  // passes' own, as the spread runs are, since this machine's speed drifts by more than the effect.
  const spread = spreadOrders(fixture);
  const alones: LoadResult[] = [];
  let cpuPerOrder = { server: 0, database: 0 };
  const ordersAlone = async () => {
    const cpuBefore = await serviceCpuMs(serverPid);
    const alone = await load(spread, fixture.customer, SECONDS, WARMUP);
    if (alones.length === 0) cpuPerOrder = cpuPerRequest(cpuBefore, await serviceCpuMs(serverPid), alone, WARMUP);
    alones.push(alone);
    return alone;
  };
  // Orders alone, then the deliveries written, then orders beside them (as fast as answered, or at `rate`).
  const besideStream = async (deliveries: () => Promise<SignedDeliveries>, rate?: number) => {
    const before = await ordersAlone();
    const stream = await deliveries();
    const [orders, hooks] = await Promise.all([
      load(spread, fixture.customer, SECONDS, WARMUP),
      load({ ...stream, bodyHeaders: stream.headers, sequential: true, rate }, 'none', SECONDS + WARMUP),
    ]);
    return { orders, hooks, ratio: ratio(orders, before) };
  };
  const full: Array<Awaited<ReturnType<typeof besideStream>>> = [];
  const paced: typeof full = [];
  for (let pass = 0; pass < PAYMENT_PASSES; pass++) {
    console.error(`   order-spread, then with payment webhooks streaming (pass ${pass + 1} of ${PAYMENT_PASSES})`);
    full.push(await besideStream(() => pendingPaymentDeliveries(DATABASE_URL, fixture, 30000)));
    paced.push(await besideStream(() => pendingPaymentDeliveries(DATABASE_URL, fixture, PAYMENT_STREAM_PACE * (SECONDS + WARMUP + 2)), PAYMENT_STREAM_PACE));
  }
  const ratios = { full: full.map((x) => x.ratio), paced: paced.map((x) => x.ratio) };
  const alone = overPasses(alones);
  rows.push({ workload: 'order-spread, before payment webhooks', products, ...alone, ceiling: null, ratio: null });
  rows.push({ workload: 'order-spread+payment-webhooks', products, ...overPasses(full.map((x) => x.orders)), ceiling: alone, ratio: medianRatio(ratios.full) });
  rows.push({ workload: 'payment-webhook (with orders)', products, ...overPasses(full.map((x) => x.hooks)), ceiling: null, ratio: null });
  rows.push({ workload: `order-spread+payment-webhooks at ${PAYMENT_STREAM_PACE}/s`, products, ...overPasses(paced.map((x) => x.orders)), ceiling: alone, ratio: medianRatio(ratios.paced) });
  rows.push({ workload: `payment-webhook at ${PAYMENT_STREAM_PACE}/s (with orders)`, products, ...overPasses(paced.map((x) => x.hooks)), ceiling: null, ratio: null });
  return {
    orders: storm.orderIds.length, deliveries: storm.bodies.length, ...counts, other, rps: stormRun.rps, p99: stormRun.p99, cpuPerDelivery, cpuPerOrder, besideOrders: ratios,
    passed: counts.paid === 1000 && counts.paidEvents === 1000 && counts.ordersWithOneEvent === 1000 && other === 0,
  };
}

/** The benchmark's server settings (processes.ts), with the catalog cache off when the run asks. */
const serverEnvOf = (env: Record<string, string>, port: number) => benchServerEnv(env, port, CACHE_OFF ? { CATALOG_CACHE_ENTRIES: '0' } : {});

const READ_PASSES = Math.max(1, Number(values['read-passes']));

/**
 * A read workload and its ceiling (the bare server answering the same body), run in turns
 * READ_PASSES times. On a shared VM the bare server's own rate moved by a third between runs
 * minutes apart, and by as much between runs seconds apart: a pair run back to back meets the same
 * machine, and the median of the pairs' ratios is what the row shows (its req/s are the medians).
 */
async function readPasses(w: Workload, plan: ReturnType<Workload['plan']>, answer: string, port: number, run: () => Promise<LoadResult>): Promise<Pick<Row, keyof LoadResult | 'ceiling' | 'ratio' | 'passes'>> {
  const file = join(tmpdir(), `bench-answers-${process.pid}.json`);
  writeFileSync(file, JSON.stringify({ [plan.paths[0]!]: answer }));
  const ceilingServer = await startProcess(['--import', 'tsx', 'bench/ceiling-server.ts', String(port), file], {}, async () => (await fetch(`http://127.0.0.1:${port}/`)).ok);
  const results: LoadResult[] = [];
  const ceilings: LoadResult[] = [];
  try {
    for (let pass = 0; pass < READ_PASSES; pass++) {
      if (pass > 0) console.error(`   ${w.name} (pass ${pass + 1} of ${READ_PASSES})`);
      results.push(await run());
      console.error(`   ceiling: ${w.name}`);
      ceilings.push(await runJson<LoadResult>('bench/load.ts', {
        url: `http://127.0.0.1:${port}`, method: 'GET', token: 'x', connections: CONNECTIONS, warmupSeconds: WARMUP, seconds: SECONDS, ...plan,
      } satisfies LoadPlan));
    }
  } finally {
    await stopProcess(ceilingServer);
    rmSync(file, { force: true });
  }
  const ratios = results.map((x, i) => ratio(x, ceilings[i]));
  return { ...overPasses(results), ceiling: overPasses(ceilings), ratio: medianRatio(ratios), passes: { ratio: ratios } };
}

const WRITE_PASSES = Math.max(1, Number(values['write-passes']));

/**
 * A workload whose target is a share of its baseline's rate (order-spread unless it names another),
 * measured in turns with it: each pass runs the baseline, then the workload (its `prepare` and
 * `finish` around it alone: a store with a shipping option needs one on every order, and one with
 * active holds is what is compared). Compared with the first order-spread row instead, it
 * met a database that had grown by every workload between them, and a machine minutes older
 * (0.71 and 0.77 in one run where order-spread itself made 1,436 to 1,848 req/s at different times).
 */
async function besideOrderPasses(
  w: Workload, base: string, fixture: BenchFixture, load: (w: Workload, plan: ReturnType<Workload['plan']>) => Promise<LoadResult>,
): Promise<Pick<Row, keyof LoadResult | 'ceiling' | 'ratio' | 'besideOrders'>> {
  const orders = ALL_WORKLOADS.find((x) => x.name === (w.baseline ?? 'order-spread'))!;
  const befores: LoadResult[] = [];
  const results: LoadResult[] = [];
  for (let pass = 0; pass < WRITE_PASSES; pass++) {
    await vacuumBetween();
    console.error(`   ${orders.name}, before ${w.name} (pass ${pass + 1} of ${WRITE_PASSES})`);
    befores.push(await load(orders, orders.plan(fixture)));
    await w.prepare?.(base, fixture);
    await vacuumBetween();
    console.error(`   ${w.name} (pass ${pass + 1} of ${WRITE_PASSES})`);
    results.push(await load(w, w.plan(fixture)));
    await w.finish?.(base, fixture);
  }
  const ratios = results.map((x, i) => ratio(x, befores[i]));
  return { ...overPasses(results), ceiling: null, ratio: null, besideOrders: { rps: overPasses(befores).rps, ratios, ratio: medianRatio(ratios) } };
}

async function benchSize(products: number): Promise<{ rows: Row[]; peakRss: number; sellout: SelloutResult | null; heldSellout: HeldSelloutResult | null; limitedCode: LimitedCodeResult | null; storm: StormResult | null; ceilings: Partial<Record<OrderCeilingPlan['shape'], LoadResult>>; drain: DrainResult | null; replicaReads: Record<string, number> | null }> {
  console.error(`\n== ${products} products: seeding`);
  const { fixture, env, cleanup } = await prepareDatabase(products);
  const port = Number(values.port);
  const base = `http://127.0.0.1:${port}`;
  const serverEnv = serverEnvOf(env, port);
  const server = await startProcess(SERVE_ARGS, serverEnv, async () => (await fetch(`${base}/api/ready`)).ok);
  const rows: Row[] = [];
  const answers: Record<string, string> = {};
  const limitedDiscountId = await createBenchDiscounts(base, fixture);
  const load = async (w: Workload, plan: ReturnType<Workload['plan']>) => {
    // The stand-in for autovacuum that benchSpread's warm-ups have (see there): the holds workloads
    // run in this one server after workloads that read held units while cart_holds was empty, and
    // without an analyze its connections kept those plans as the table filled (cart-hold at 0.08 of
    // its ceiling in one run, 0.29-0.36 in the runs beside it).
    const analyzed = setTimeout(() => void analyzeHolds().catch(() => undefined), WARMUP * 800);
    try {
      return await runJson<LoadResult>('bench/load.ts', {
        url: base, method: w.method, token: tokenOf(w, fixture), connections: w.connections ?? CONNECTIONS, warmupSeconds: WARMUP, seconds: SECONDS, ...plan,
      } satisfies LoadPlan);
    } finally {
      clearTimeout(analyzed);
    }
  };
  for (const w of WORKLOADS) {
    if (w.besideOrders) {
      rows.push({ workload: w.name, products, ...(await besideOrderPasses(w, base, fixture, load)) });
      continue;
    }
    await w.prepare?.(base, fixture);
    const plan = w.plan(fixture);
    if (w.kind === 'read') {
      const first = await fetch(base + plan.paths[0], { headers: { authorization: `Bearer ${fixture.storefront}` } });
      answers[plan.paths[0]!] = await first.text();
      if (!first.ok) throw new Error(`${w.name}: ${first.status} ${answers[plan.paths[0]!]!.slice(0, 200)}`);
    }
    if (w.kind === 'write') await vacuumBetween();
    console.error(`   ${w.name}`);
    const run = () => load(w, plan);
    if (w.kind === 'read') rows.push({ workload: w.name, products, ...(await readPasses(w, plan, answers[plan.paths[0]!]!, port + 1, run)) });
    else rows.push({ workload: w.name, products, ...(await run()), ceiling: null, ratio: null });
    await w.finish?.(base, fixture);
  }
  const soldOut = values.only && !values.only.split(',').includes('sellout') ? null : await sellout(base, fixture);
  const limited = values.only && !values.only.split(',').includes('order-limited-code') ? null : await limitedCode(base, fixture, limitedDiscountId);
  if (soldOut) console.error('   sellout with holds');
  const heldSellout = soldOut ? await selloutWithHolds(base, fixture) : null;
  const runPayments = !values.embedded && (!values.only || values.only.split(',').includes('payment-webhook'));
  const storm = runPayments ? await paymentWebhooks(base, fixture, products, rows, server.pid!) : null;
  // The same order workload again, without and with one endpoint subscribed to order.created (its
  // worker runs in the server, as deployed), in turns like every comparison of the service with
  // itself (`besideOrderPasses`): the endpoint is enabled for the runs with it and disabled once their
  // deliveries are sent, so that the runs without it do not pay for the ones before. Each pass's pair
  // is compared, not either with the first order-spread run, which ran on a smaller database. Then a
  // backlog of 10,000 deliveries drained by that server.
  let drain: DrainResult | null = null;
  if (values.webhooks && !values.embedded && WORKLOADS.some((x) => x.name === 'order-spread')) {
    const receiver = await startBenchReceiver(port + 50).catch(async (error: unknown) => {
      await stopProcess(server);
      throw error;
    });
    let endpointId: string | undefined;
    const hooked: Workload = {
      name: 'order-spread+webhook', kind: 'write', method: 'POST', besideOrders: true, plan: spreadOrders,
      prepare: async (b, f) => {
        if (endpointId) await setDisabled(b, f.admin, endpointId, false);
        else endpointId = await subscribe(b, f.admin, receiver.url);
      },
      finish: async (b, f) => {
        await waitForDeliveries(DATABASE_URL, f.store, endpointId!);
        await setDisabled(b, f.admin, endpointId!, true);
      },
    };
    try {
      rows.push({ workload: hooked.name, products, ...(await besideOrderPasses(hooked, base, fixture, load)) });
      await setDisabled(base, fixture.admin, endpointId!, false);
    } catch (error) {
      await Promise.all([stopProcess(server), receiver.close()]);
      throw error;
    }
    console.error('   webhook backlog drain');
    drain = await measureDrain(DATABASE_URL, receiver, fixture.store, endpointId!, 10000);
    await receiver.close();
  }
  const peakRss = peakRssMb(server.pid!);
  await stopProcess(server);
  const replicaReads = values.replica ? await benchReplica(values.replica, serverEnv, fixture, rows) : null;
  const ceilings: Partial<Record<OrderCeilingPlan['shape'], LoadResult>> = {};
  if (!values.embedded) {
    // The physical ceilings, each measured once: every shape the workloads compare with, and the
    // two-statement hot one for the record.
    const shapes = new Set(WORKLOADS.flatMap((w) => (w.ceiling ? [w.ceiling] : [])));
    if (shapes.has('hot-cte')) shapes.add('hot');
    for (const shape of shapes) {
      console.error(`   ceiling: minimal order transaction, ${shape}`);
      await vacuumBetween();
      ceilings[shape] = await runJson<LoadResult>('bench/ceiling-orders.ts', {
        databaseUrl: DATABASE_URL, shape, store: fixture.store, customerId: fixture.customerId, addressId: fixture.addressId,
        productIds: fixture.hotProductIds, concurrency: CONNECTIONS, warmupSeconds: WARMUP, seconds: SECONDS,
      } satisfies OrderCeilingPlan);
    }
    for (const row of rows) {
      const w = WORKLOADS.find((x) => x.name === row.workload);
      if (w?.ceiling) row.ceiling = ceilings[w.ceiling] ?? null;
      if (!w?.sql) continue;
      console.error(`   ceiling: ${row.workload} (the service's statements as bare SQL)`);
      await vacuumBetween();
      row.pathCeiling = await runJson<LoadResult>('bench/ceiling-sql.ts', {
        databaseUrl: DATABASE_URL, workload: w.sql, store: fixture.store, token: tokenOf(w, fixture), customerId: fixture.customerId,
        addressId: fixture.addressId, productIds: fixture.hotProductIds, cartIds: w.sql === 'order-cart' ? fixture.ceilingOrderCartIds : fixture.addCartIds,
        concurrency: CONNECTIONS, poolSize: POOL, warmupSeconds: WARMUP, seconds: SECONDS,
      } satisfies SqlPlan);
    }
  }
  for (const row of rows) {
    // A ratio already set is the median of its passes' own (orders beside payment webhooks).
    row.ratio ??= ratio(row, row.ceiling);
    if (row.pathCeiling) row.pathRatio = ratio(row, row.pathCeiling);
  }
  cleanup();
  return { rows, peakRss, sellout: soldOut, heldSellout, limitedCode: limited, storm, ceilings, drain, replicaReads };
}

/**
 * The read workloads on a server whose catalog reads go to `replicaUrl`, each compared with its run
 * on the primary alone (its row's ratio). Answers where the reads went (/api/metrics).
 */
async function benchReplica(replicaUrl: string, env: Record<string, string>, fixture: BenchFixture, rows: Row[]): Promise<Record<string, number>> {
  const base = `http://127.0.0.1:${env.PORT}`;
  const server = await startProcess(SERVE_ARGS, { ...env, DATABASE_READ_URL: replicaUrl }, async () => (await fetch(`${base}/api/ready`)).ok);
  try {
    for (const w of WORKLOADS.filter((x) => x.kind === 'read')) {
      console.error(`   ${w.name} (replica)`);
      const result = await runJson<LoadResult>('bench/load.ts', {
        url: base, method: w.method, token: tokenOf(w, fixture), connections: CONNECTIONS, warmupSeconds: WARMUP, seconds: SECONDS, ...w.plan(fixture),
      } satisfies LoadPlan);
      const primary = rows.find((r) => r.workload === w.name) ?? null;
      rows.push({ workload: `${w.name} (replica)`, products: primary?.products ?? 0, ...result, ceiling: primary, ratio: null });
    }
    const metrics = await (await fetch(`${base}/api/metrics`)).text();
    return Object.fromEntries([...metrics.matchAll(/^storefront_catalog_reads_total\{outcome="([a-z-]+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
  } finally {
    await stopProcess(server);
  }
}

/** A ratio over the passes: their median, and each pass's own in the order run. */
type PassRatios = { median: number | null; passes: Array<number | null> };

interface SpreadRow extends LoadResult {
  workload: string;
  stores: number;
  /** Writes: the minimal order transaction with its rows spread over the same stores; reads: the bare server. */
  ceiling: LoadResult | null;
  /** The median over the passes of this row's req/s to its ceiling's in the same pass. */
  ratio: number | null;
  /** The same workload on one store (the `--stores 1` rows): its req/s, and the median over the passes of this row's ratio to it. */
  oneStore: number | null;
  toOneStore: number | null;
  /** Each pass's own ratios, in the order run: what the medians are of. */
  passes?: { ratio: Array<number | null>; toOneStore: Array<number | null> };
  /** The server's round trips to the database per request (approximate: the warm-up's requests are estimated). */
  queriesPerRequest?: number;
  /** The server's CPU time (user and system) per request, in ms, measured the same way. */
  cpuPerRequest?: number;
  /** Likewise, PostgreSQL's (serviceCpuMs). */
  databaseCpuPerRequest?: number;
}


const readFileSyncSafe = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

/** Each target once, 20 at a time (a read workload's stores before it is measured). */
async function warm(base: string, targets: Array<{ token: string; path: string }>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 20 }, async () => {
    while (next < targets.length) {
      const target = targets[next++]!;
      await (await fetch(base + target.path, { headers: { authorization: `Bearer ${target.token}` } })).arrayBuffer();
    }
  }));
}

const STORE_COUNTS = values.stores.split(',').map(Number).filter((n) => n > 0);
const SPREAD_NAMES = Object.keys(SPREAD_WORKLOADS).filter((name) => !values.only || values.only.split(',').includes(name));
const SPREAD_PASSES = Math.max(1, Number(values['spread-passes']));

function median(numbers: number[]): number {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
const medianRatio = (ratios: Array<number | null>) => {
  const known = ratios.filter((r): r is number => r !== null);
  return known.length > 0 ? Math.round(median(known) * 100) / 100 : null;
};

/** The runs of the passes as one: their requests, errors and answers summed, req/s, p50 and p99 their medians. */
function overPasses(results: LoadResult[]): LoadResult {
  return {
    requests: results.reduce((sum, x) => sum + x.requests, 0),
    rps: Math.round(median(results.map((x) => x.rps))),
    p50: median(results.map((x) => x.p50)),
    p99: median(results.map((x) => x.p99)),
    errors: results.reduce((sum, x) => sum + x.errors, 0),
    statusCodes: results.reduce<Record<string, number>>((all, x) => {
      for (const [code, n] of Object.entries(x.statusCodes)) all[code] = (all[code] ?? 0) + n;
      return all;
    }, {}),
  };
}

/** One workload's runs on one store count, one per pass, and what the server and PostgreSQL spent on them. */
interface SpreadRuns {
  results: LoadResult[];
  ceilings: Array<LoadResult | null>;
  queries: number;
  cpu: number;
  databaseCpu: number;
  served: number;
}

/**
 * The spread workloads (bench/spread.ts) for each store count, in passes. Every count's stores are
 * seeded first, into one database; then each pass starts one server per count (so a server's peak
 * RSS is its count's) and runs each workload on every count back to back, the counts' order
 * reversed from one pass to the next, then the ceilings spread the same way. A ratio compares runs
 * of the same pass (made a minute or less apart) and the table gives its median over the passes:
 * on a shared machine whose speed drifts by a third from one minute to the next, figures measured
 * in one block each (every one-store run, then every spread run, minutes later) swung from 0.58 to
 * 1.11 for the same code (docs/performance.md).
 */
async function benchSpread(products: number): Promise<{ rows: SpreadRow[]; peakRss: Record<number, number>; ceilingToOneStore: Record<number, PassRatios> }> {
  const peakRss: Record<number, number> = {};
  const { database, env, cleanup } = await freshDatabase();
  const port = Number(values.port);
  const runs = new Map<string, SpreadRuns>();
  const runsOf = (name: string, count: number) => {
    const key = `${name}\u0000${count}`;
    if (!runs.has(key)) runs.set(key, { results: [], ceilings: [], queries: 0, cpu: 0, databaseCpu: 0, served: 0 });
    return runs.get(key)!;
  };
  try {
    const storesOf = new Map<number, SpreadStore[]>();
    for (const count of STORE_COUNTS) {
      console.error(`\n== spread over ${count} stores (${Math.max(10, Math.floor(products / count))} products each): seeding`);
      const started = performance.now();
      storesOf.set(count, await seedSpread(database.db, `s${count}`, count, products));
      console.error(`   seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    // Each workload's requests are drawn once for the whole run, so that a sequential plan (carts to
    // order, each once) goes on in the next pass from where it stopped.
    const drawn = new Map<string, Target[]>();
    const targetsOf = (name: string, count: number) => {
      const key = `${name}\u0000${count}`;
      if (!drawn.has(key)) drawn.set(key, SPREAD_WORKLOADS[name]!.targets(storesOf.get(count)!));
      return drawn.get(key)!;
    };
    const nextTurn = new Map<string, number>();
    for (let pass = 0; pass < SPREAD_PASSES; pass++) {
      const counts = pass % 2 === 0 ? STORE_COUNTS : [...STORE_COUNTS].reverse();
      console.error(`\n== spread, pass ${pass + 1} of ${SPREAD_PASSES}`);
      // The server counts its round trips to the database (bench/count-queries.mjs): per request, per workload.
      const servers = new Map<number, { process: ChildProcess; base: string; countFile: string }>();
      const answers = new Map<number, Record<string, string>>();
      try {
        for (const [i, count] of STORE_COUNTS.entries()) {
          const base = `http://127.0.0.1:${port + 2 + i}`;
          const countFile = join(tmpdir(), `bench-queries-${process.pid}-${count}`);
          const server = await startProcess(['--import', join(ROOT, 'bench/count-queries.mjs'), ...SERVE_ARGS], { ...serverEnvOf(env, port + 2 + i), QUERY_COUNT_FILE: countFile }, async () => (await fetch(`${base}/api/ready`)).ok);
          servers.set(count, { process: server, base, countFile });
          answers.set(count, {});
        }
        for (const name of SPREAD_NAMES) {
          const w = SPREAD_WORKLOADS[name]!;
          for (const count of counts) {
            const { process: server, base, countFile } = servers.get(count)!;
            const targets = targetsOf(name, count);
            if (w.kind === 'read') {
              const first = await fetch(base + targets[0]!.path, { headers: { authorization: `Bearer ${targets[0]!.token}` } });
              answers.get(count)![targets[0]!.path] = await first.text();
              if (!first.ok) throw new Error(`${name}: ${first.status}`);
              // Every store's page once first, as the one-store run's first request does for its one
              // store: both then measure warm caches, not 2,000 first reads in a 10 s run.
              await warm(base, targets);
            }
            if (w.kind === 'write') await vacuumBetween();
            console.error(`   ${name} over ${count} stores`);
            const queries = () => Number(readFileSyncSafe(countFile) ?? 0);
            await new Promise((r) => setTimeout(r, 300));
            const before = queries();
            const cpuBefore = await serviceCpuMs(server.pid!);
            const start = nextTurn.get(`${name}\u0000${count}`) ?? 0;
            // This machine's PostgreSQL runs without autovacuum, which on a live server analyzes a
            // table within a minute of its first few dozen rows. cart_holds starts empty and fills
            // under cart-hold: statements a connection planned on the empty table kept a sequential
            // scan (45 ms a round at 8,000 holds, 0.2 ms by the indexes), and the first pass met it
            // on one side or the other. An analyze late in the warm-up stands in for autovacuum's.
            // (Its statistics, one busy store among 2,000 quiet ones, once made the reads of held
            // units walk a store's every hold by the table's key; drizzle/0020 ended that.)
            const analyzed = setTimeout(() => void analyzeHolds().catch(() => undefined), WARMUP * 800);
            const result = await runJson<LoadResult>('bench/load.ts', {
              url: base, method: w.kind === 'read' ? 'GET' : 'POST', token: '', paths: [], targets, sequential: w.sequential, start, connections: CONNECTIONS, warmupSeconds: WARMUP, seconds: SECONDS,
            } satisfies LoadPlan);
            clearTimeout(analyzed);
            if (w.sequential) {
              nextTurn.set(`${name}\u0000${count}`, result.next ?? 0);
              if ((result.next ?? 0) > targets.length) console.error(`   ${name} over ${count} stores: its ${targets.length} targets ran out and were used again`);
            }
            await new Promise((r) => setTimeout(r, 300));
            const into = runsOf(name, count);
            into.results.push(result);
            // Over the warm-up and the run: the load generator reports the run's requests only.
            const served = Math.max(1, result.requests * (1 + WARMUP / SECONDS));
            into.queries += queries() - before;
            const cpuAfter = await serviceCpuMs(server.pid!);
            into.cpu += cpuAfter.server - cpuBefore.server;
            into.databaseCpu += cpuAfter.database - cpuBefore.database;
            into.served += served;
          }
        }
        for (const [count, { process: server }] of servers) peakRss[count] = Math.max(peakRss[count] ?? 0, peakRssMb(server.pid!));
      } finally {
        for (const { process: server } of servers.values()) await stopProcess(server);
      }
      for (const count of counts) {
        const stores = storesOf.get(count)!;
        const reads = SPREAD_NAMES.filter((name) => SPREAD_WORKLOADS[name]!.kind === 'read');
        if (reads.length > 0) {
          const file = join(tmpdir(), `bench-spread-answers-${process.pid}.json`);
          writeFileSync(file, JSON.stringify(answers.get(count)));
          const ceilingServer = await startProcess(['--import', 'tsx', 'bench/ceiling-server.ts', String(port + 1), file], {}, async () => (await fetch(`http://127.0.0.1:${port + 1}/`)).ok);
          try {
            for (const name of reads) {
              console.error(`   ceiling: ${name} over ${count} stores`);
              runsOf(name, count).ceilings.push(await runJson<LoadResult>('bench/load.ts', {
                url: `http://127.0.0.1:${port + 1}`, method: 'GET', token: 'x', paths: [], targets: targetsOf(name, count), connections: CONNECTIONS, warmupSeconds: WARMUP, seconds: SECONDS,
              } satisfies LoadPlan));
            }
          } finally {
            await stopProcess(ceilingServer);
            rmSync(file, { force: true });
          }
        }
        const writes = SPREAD_NAMES.filter((name) => SPREAD_WORKLOADS[name]!.kind === 'write');
        if (writes.length > 0) {
          console.error(`   ceiling: minimal order transaction spread over ${count} stores`);
          await vacuumBetween();
          const ceiling = await runJson<LoadResult>('bench/ceiling-orders.ts', {
            databaseUrl: DATABASE_URL, shape: 'spread', store: stores[0]!.store, customerId: stores[0]!.customers[0]!.id, addressId: stores[0]!.customers[0]!.addressId,
            productIds: [], rows: ceilingRows(stores), concurrency: CONNECTIONS, warmupSeconds: WARMUP, seconds: SECONDS,
          } satisfies OrderCeilingPlan);
          for (const name of writes) runsOf(name, count).ceilings.push(ceiling);
        }
      }
    }
  } finally {
    await database.close();
    cleanup();
  }
  const rows: SpreadRow[] = [];
  // What the database itself keeps of its one-store rate when the rows spread: the writes' ceiling
  // is one run per pass and count, shared by every write, so any write's runs hold it.
  const ceilingToOneStore: Record<number, PassRatios> = {};
  const aWrite = SPREAD_NAMES.find((name) => SPREAD_WORKLOADS[name]!.kind === 'write');
  for (const count of STORE_COUNTS) {
    if (!aWrite || count === 1 || !STORE_COUNTS.includes(1)) continue;
    const one = runsOf(aWrite, 1).ceilings;
    const passes = runsOf(aWrite, count).ceilings.map((c, i) => (c ? ratio(c, one[i]) : null));
    ceilingToOneStore[count] = { median: medianRatio(passes), passes };
  }
  for (const count of STORE_COUNTS) {
    for (const name of SPREAD_NAMES) {
      const r = runsOf(name, count);
      const one = runsOf(name, 1);
      const known = r.ceilings.filter((c): c is LoadResult => c !== null);
      const passRatios = r.results.map((x, i) => ratio(x, r.ceilings[i]));
      const passToOne = count === 1 || one.results.length === 0 ? [] : r.results.map((x, i) => ratio(x, one.results[i]));
      rows.push({
        workload: name, stores: count, ...overPasses(r.results),
        ceiling: known.length > 0 ? overPasses(known) : null,
        ratio: medianRatio(passRatios),
        oneStore: one.results.length > 0 ? overPasses(one.results).rps : null,
        toOneStore: medianRatio(passToOne),
        passes: { ratio: passRatios, toOneStore: passToOne },
        queriesPerRequest: Math.round((r.queries / Math.max(1, r.served)) * 10) / 10,
        cpuPerRequest: Math.round((r.cpu / Math.max(1, r.served)) * 100) / 100,
        databaseCpuPerRequest: Math.round((r.databaseCpu / Math.max(1, r.served)) * 100) / 100,
      });
    }
  }
  return { rows, peakRss, ceilingToOneStore };
}

// The server runs as it would be deployed: compiled to JavaScript (`npm run build`), not through
// tsx, with the node flags of `npm run serve` (they bound its memory).
await runCommand('npx', ['tsc', '-p', 'tsconfig.build.json']);
const runs: Array<{ products: number } & Awaited<ReturnType<typeof benchSize>>> = [];
if (!values['spread-only']) for (const size of SIZES) runs.push({ products: size, ...(await benchSize(size)) });
// A server per store count at once: the embedded database serves one process, so spread runs need PostgreSQL.
if (values.embedded && STORE_COUNTS.length > 0 && SPREAD_NAMES.length > 0) console.error('the spread runs need PostgreSQL (BENCH_DATABASE_URL): skipped');
const spread = !values.embedded && STORE_COUNTS.length > 0 && SPREAD_NAMES.length > 0 ? await benchSpread(SIZES[0]!) : null;

/** The commit this run measured, marked when the work tree had changes outside bench/results. */
function measuredCommit(): string {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  const head = git('rev-parse', '--short=12', 'HEAD');
  if (head.status !== 0) return 'unknown (not a git checkout)';
  const changed = git('status', '--porcelain', '--', '.', ':!bench/results').stdout.trim() !== '';
  return `${head.stdout.trim()}${changed ? ' with uncommitted changes' : ''}`;
}

const machine = `${cpus().length} cores (${cpus()[0]?.model.trim()}), ${Math.round(totalmem() / 2 ** 30)} GiB (${Math.round(freemem() / 2 ** 30)} free), Node ${process.version}, ${values.embedded ? 'PGlite' : 'PostgreSQL'}${CACHE_OFF ? ', catalog cache off' : ''}${values.replica ? `, replica ${values.replica.replace(/:[^:@/]*@/, ':***@')}` : ''}`;
const commit = measuredCommit();
const lines = [
  `Machine: ${machine}; ${CONNECTIONS} connections, ${WARMUP} s warm-up, ${SECONDS} s per workload. Commit ${commit}.`,
  '',
  '| products | workload | req/s | p50 ms | p99 ms | errors | ceiling req/s | ratio | service SQL ceiling | ratio |',
  '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
];
for (const run of runs) {
  for (const r of run.rows) {
    const path = r.pathCeiling ? `${r.pathCeiling.rps} | ${r.pathRatio ?? 'n/a'}` : '|';
    lines.push(`| ${r.products} | ${r.workload} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.ceiling?.rps ?? 'n/a'} | ${r.ratio ?? 'n/a'} | ${path} |`);
  }
}
lines.push('', ...runs.map((r) => `Server peak RSS at ${r.products} products: ${r.peakRss} MB.`));
for (const run of runs) {
  const reads = run.rows.filter((r) => r.passes);
  if (reads.length === 0) continue;
  lines.push(`Reads at ${run.products} products, each run ${READ_PASSES} times in turns with the bare server; the ratio is the median of the passes': ` +
    reads.map((r) => `${r.workload} ${r.passes!.ratio.map((x) => x ?? 'n/a').join(' / ')}`).join(', ') + '.');
}
for (const run of runs) {
  const c = run.ceilings;
  if (Object.keys(c).length > 0) {
    lines.push(`Physical ceilings at ${run.products} products (minimal order transaction, bare PostgreSQL, ${CONNECTIONS} connections): ` +
      Object.entries(c).map(([shape, r]) => `${shape} ${r.rps} tx/s`).join(', ') + '.');
  }
  if (run.sellout) {
    const s = run.sellout;
    lines.push(`Sellout at ${run.products} products (2000 in stock, 6000 orders, 200 connections): ${s.orders} orders, ${s.refused} refused (422), ` +
      `${s.other} other, ${s.quantityLeft} left, ${s.rps} req/s, p99 ${s.p99} ms: ${s.passed ? 'pass' : 'FAIL'}.`);
  }
  if (run.limitedCode) {
    const l = run.limitedCode;
    lines.push(`Limited code at ${run.products} products (usageLimit 2000, 6000 orders, 200 connections): ${l.orders} orders, ${l.refused} refused (422), ` +
      `${l.other} other, usageCount ${l.usageCount}, ${l.rps} req/s, p99 ${l.p99} ms: ${l.passed ? 'pass' : 'FAIL'}.`);
  }
  const besideOrders = (what: string, name: string) => {
    const row = run.rows.find((r) => r.workload === name);
    const beside = row?.besideOrders;
    if (row && beside) {
      const baseline = ALL_WORKLOADS.find((w) => w.name === name)?.baseline ?? 'order-spread';
      lines.push(`${what} at ${run.products} products: ${name} ${row.rps} req/s vs ${baseline} right before it ${beside.rps}: ${beside.ratio} ` +
        `(median of ${beside.ratios.length} passes: ${beside.ratios.join(', ')}) (target >= 0.9).`);
    }
  };
  besideOrders('Discount', 'order-spread-discount');
  besideOrders('Shipping and taxes', 'order-spread-shipped');
  if (run.heldSellout) {
    const h = run.heldSellout;
    lines.push(`Sellout with holds at ${run.products} products (${h.stock} in stock, ${h.buyers} buyers, half hold first): ${h.orders} orders ` +
      `(${h.heldThenOrdered} from held carts), ${h.refused} refused, ${h.heldButRefused} held but refused, ${h.other} other, ${h.quantityLeft} left, ` +
      `${h.held} held, ${h.seconds} s: ${h.passed ? 'pass' : 'FAIL'}.`);
  }
  besideOrders('Holds (1,000 active)', 'order-spread-held');
  besideOrders('Holds (1,000 active)', 'order-hot-held');
  if (run.storm) {
    const p = run.storm;
    lines.push(`Payment webhook storm at ${run.products} products (${p.orders} orders, each event ${p.deliveries / p.orders} times, ${CONNECTIONS} connections): ` +
      `${p.paid} PAID, ${p.paidEvents} order.paid events, ${p.other} answers not 200, ${p.rps} req/s, p99 ${p.p99} ms: ${p.passed ? 'pass' : 'FAIL'}.`);
    lines.push(`CPU per request at ${run.products} products (ms, the server + PostgreSQL, all of its processes): a delivery ` +
      `${p.cpuPerDelivery.server} + ${p.cpuPerDelivery.database}, an order (order-spread alone) ${p.cpuPerOrder.server} + ${p.cpuPerOrder.database}.`);
    const fastest = run.rows.find((r) => r.workload === 'payment-webhook');
    const atPace = run.rows.find((r) => r.workload === `payment-webhook at ${PAYMENT_TARGET_PACE}/s`);
    if (fastest && atPace) {
      const met = fastest.rps >= PAYMENT_TARGET_PACE && atPace.rps >= PAYMENT_TARGET_PACE * 0.98 && atPace.p99 < 50;
      lines.push(`Distinct deliveries at ${run.products} products: ${fastest.rps}/s as fast as answered; sent at ${PAYMENT_TARGET_PACE}/s, ${atPace.rps}/s answered ` +
        `with p50 ${atPace.p50} ms, p99 ${atPace.p99} ms (target: at least ${PAYMENT_TARGET_PACE}/s with p99 under 50 ms): ${met ? 'met' : 'not met'}; ` +
        `the load generator's own CPU a delivery ${fastest.cpuMs ?? 'n/a'} ms as fast as answered, ${atPace.cpuMs ?? 'n/a'} ms at ${PAYMENT_TARGET_PACE}/s.`);
    }
    const alone = run.rows.find((r) => r.workload === 'payment-webhook alone');
    // With one connection the average delivery takes 1 / rate: finer than the whole milliseconds of p50.
    if (alone) lines.push(`A delivery alone at ${run.products} products (one at a time): ${alone.rps}/s, ${(1000 / alone.rps).toFixed(1)} ms on average, p50 ${alone.p50} ms, p99 ${alone.p99} ms.`);
    const during = run.rows.find((r) => r.workload === 'order-spread+payment-webhooks');
    const besideLine = (what: string, row: Row | undefined, passes: Array<number | null>) =>
      row && lines.push(`Orders while payment webhooks stream ${what} at ${run.products} products: ${row.rps} req/s, ` +
        `${row.ratio} of orders alone right before (median of ${passes.length} passes: ${passes.map((x) => x ?? 'n/a').join(', ')}) (target >= 0.8).`);
    besideLine('as fast as answered', during, p.besideOrders.full);
    const pacedHooks = run.rows.find((r) => r.workload === `payment-webhook at ${PAYMENT_STREAM_PACE}/s (with orders)`);
    besideLine(`at ${PAYMENT_STREAM_PACE}/s (${pacedHooks?.rps ?? 'n/a'} delivered/s, p99 ${pacedHooks?.p99 ?? 'n/a'} ms)`,
      run.rows.find((r) => r.workload === `order-spread+payment-webhooks at ${PAYMENT_STREAM_PACE}/s`), p.besideOrders.paced);
  }
  if (run.replicaReads) {
    lines.push(`Replica runs at ${run.products} products: the ratio is to the same workload on the primary alone; catalog reads by outcome: ${JSON.stringify(run.replicaReads)}.`);
  }
  besideOrders('A webhook endpoint subscribed to order.created', 'order-spread+webhook');
  if (run.drain) {
    lines.push(`Webhook backlog at ${run.products} products: ${run.drain.backlog} deliveries, the first sent ${run.drain.firstAfterMs} ms after ` +
      `they were due, drained in ${run.drain.seconds} s from then (${run.drain.perSecond}/s).`);
  }
}
const find = (products: number, workload: string) => runs.find((r) => r.products === products)?.rows.find((x) => x.workload === workload);
const growth = (label: string, large: Row | undefined, small: Row | undefined, what: string) => {
  if (large && small) lines.push(`Growth: ${label} p50 ${large.p50} ms vs ${small.p50} ms ${what}: ${(large.p50 / Math.max(small.p50, 1)).toFixed(2)}x.`);
};
const [fewest, most] = [Math.min(...SIZES), Math.max(...SIZES)];
if (runs.length > 1) {
  growth('list-products', find(most, 'list-products'), find(fewest, 'list-products'), `at ${most} vs ${fewest} products`);
  growth('search', find(most, 'search'), find(fewest, 'search'), `at ${most} vs ${fewest} products`);
  growth('list-collapsed', find(most, 'list-collapsed'), find(fewest, 'list-collapsed'), `at ${most} vs ${fewest} products`);
}
growth('list-deep', find(most, 'list-deep'), find(most, 'list-products'), `(first page) at ${most} products`);
if (spread) {
  const withPasses = (median: number | null, passes: Array<number | null> | undefined) =>
    median === null ? 'n/a' : passes && passes.length > 1 ? `${median} (${passes.map((x) => x ?? 'n/a').join(', ')})` : String(median);
  lines.push(
    '',
    `Spread over stores (--products ${SIZES[0]}, each store max(10, products / stores) products; ${SPREAD_PASSES} passes, each with ` +
      'a fresh server per count, the counts taking turns; ceiling: writes the minimal order transaction, reads the bare server, ' +
      'with rows spread over the same stores; req/s, p50 and p99 are medians over the passes, and a ratio is the median of the ' +
      "passes' own ratios, given in brackets in the order run):",
    '',
    '| workload | stores | req/s | p50 ms | p99 ms | errors | queries per request | server CPU ms per request | database CPU ms per request | one store req/s | vs one store | ceiling req/s | ratio |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...spread.rows.map((r) => `| ${r.workload} | ${r.stores} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.queriesPerRequest ?? 'n/a'} | ${r.cpuPerRequest ?? 'n/a'} | ${r.databaseCpuPerRequest ?? 'n/a'} | ${r.oneStore ?? 'n/a'} | ${withPasses(r.toOneStore, r.passes?.toOneStore)} | ${r.ceiling?.rps ?? 'n/a'} | ${withPasses(r.ratio, r.passes?.ratio)} |`),
    '',
    ...Object.entries(spread.ceilingToOneStore).map(([count, c]) =>
      `The writes' ceiling itself (the minimal order transaction, bare PostgreSQL) over ${count} stores against one store: ` +
        `${withPasses(c.median, c.passes)}: what the database keeps of its one-store rate when the rows spread, beside the writes' "vs one store".`),
    `Server peak RSS by store count: ${Object.entries(spread.peakRss).map(([n, mb]) => `${n} stores ${mb} MB`).join(', ')}` +
      (spread.peakRss[1] && STORE_COUNTS.length > 1 ? ` (${(spread.peakRss[Math.max(...STORE_COUNTS)]! / spread.peakRss[1]).toFixed(2)}x).` : '.'),
    'Chart: bench/results/latest-spread.svg.',
  );
}
const table = lines.join('\n');
console.log(table);
const results = { commit, date: new Date().toISOString(), machine, connections: CONNECTIONS, seconds: SECONDS, warmup: WARMUP, runs, spread };
writeFileSync(join(ROOT, 'bench/results/latest.json'), JSON.stringify(results, null, 2));
writeFileSync(join(ROOT, 'bench/results/latest.md'), `${table}\n`);
if (spread) writeFileSync(join(ROOT, 'bench/results/latest-spread.svg'), spreadChart(spread.rows, machine));
if (runs.some((r) => r.limitedCode && !r.limitedCode.passed)) {
  console.error('the limited-code check failed: the code was used more or fewer times than its limit');
  process.exitCode = 1;
}
if (runs.some((r) => r.heldSellout && !r.heldSellout.passed)) {
  console.error('the sellout with holds failed: held + ordered did not add up to the stock');
  process.exitCode = 1;
}
if (runs.some((r) => r.storm && !r.storm.passed)) {
  console.error('the payment webhook storm failed: an order was not PAID exactly once');
  process.exitCode = 1;
}
if (runs.some((r) => r.sellout && !r.sellout.passed)) {
  console.error('the sellout check failed: the service sold more or fewer than it had');
  process.exitCode = 1;
}
// A workload whose requests failed measured something else (a pool of carts used up, a fixture of another size).
for (const row of spread?.rows.filter((x) => x.errors > 0) ?? []) {
  console.error(`${row.workload} over ${row.stores} stores: ${row.errors} answers were not the expected 2xx`);
  process.exitCode = 1;
}
for (const row of runs.flatMap((r) => r.rows).filter((x) => x.errors > 0)) {
  console.error(`${row.workload} at ${row.products} products: ${row.errors} answers were not the expected 2xx`);
  process.exitCode = 1;
}
