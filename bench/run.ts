/**
 * `npm run bench`: the storefront routes under load, each against the ceiling of this stack on this
 * machine, measured in the same run. Options:
 *   --products 10000        catalog sizes, comma-separated (e.g. 1000,100000)
 *   --embedded              PGlite in a temporary DATA_DIR instead of PostgreSQL (BENCH_DATABASE_URL)
 *   --seconds 10 --warmup 3 --connections 50 --only list-products,order-cart
 * Results: a table on stdout, and bench/results/latest.{json,md} plus a dated JSON.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { openDatabase, type DatabaseHandle } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import type { LoadPlan, LoadResult } from './load.js';
import type { SqlPlan } from './ceiling-sql.js';
import { seedBench, type BenchFixture } from './seed.js';

const ROOT = new URL('../', import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    products: { type: 'string', default: '10000' },
    embedded: { type: 'boolean', default: false },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    only: { type: 'string' },
  },
});
const SIZES = values.products.split(',').map(Number);
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const CONNECTIONS = Number(values.connections);
const POOL = 20;
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/bench';
/** `npm run serve` without its `node`: the benchmark starts the server exactly as deployed. */
const SERVE_ARGS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.serve as string).split(' ').slice(1);

interface Workload {
  name: string;
  kind: 'read' | 'write';
  method: LoadPlan['method'];
  /** Paths and bodies for the service; `sql` names the write ceiling's statements. */
  plan: (f: BenchFixture) => Pick<LoadPlan, 'paths' | 'bodies' | 'sequential'>;
  sql?: SqlPlan['workload'];
}

const order = (f: BenchFixture) => `/api/v1/${f.customerId}/orders`;
const ALL_WORKLOADS: Workload[] = [
  { name: 'list-products', kind: 'read', method: 'GET', plan: () => ({ paths: ['/api/v1/products?limit=50'] }) },
  { name: 'list-collection-products', kind: 'read', method: 'GET', plan: (f) => ({ paths: [`/api/v1/products?collection=${f.collectionSlug}&limit=50`] }) },
  { name: 'product-by-slug', kind: 'read', method: 'GET', plan: (f) => ({ paths: f.slugs.map((s) => `/api/v1/products/${s}`) }) },
  { name: 'list-collections', kind: 'read', method: 'GET', plan: () => ({ paths: ['/api/v1/collections'] }) },
  {
    name: 'cart-create', kind: 'write', method: 'POST', sql: 'cart-create',
    plan: (f) => ({ paths: ['/api/v1/carts'], bodies: f.hotProductIds.map((id) => JSON.stringify({ products: [{ id, quantity: 1 }] })) }),
  },
  {
    name: 'cart-add-line', kind: 'write', method: 'POST', sql: 'cart-add',
    plan: (f) => ({ paths: f.addCartIds.map((id) => `/api/v1/carts/${id}/products`), bodies: f.hotProductIds.map((id) => JSON.stringify({ id, quantity: 1 })) }),
  },
  {
    name: 'order-from-products', kind: 'write', method: 'POST', sql: 'order-products',
    plan: (f) => ({ paths: [order(f)], bodies: f.hotProductIds.map((id) => JSON.stringify({ address: f.addressId, products: [{ id, quantity: 1 }] })) }),
  },
  {
    name: 'order-from-cart', kind: 'write', method: 'POST', sql: 'order-cart',
    plan: (f) => ({ paths: [order(f)], bodies: f.orderCartIds.map((id) => JSON.stringify({ id, address: f.addressId })), sequential: true }),
  },
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
  const cartsPerPool = 40000;
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
    database = await openDatabase({ url: DATABASE_URL, poolSize: 2 });
    await database.db.execute(sql`drop schema if exists public cascade`);
    await database.db.execute(sql`create schema public`);
    env = { DATABASE_URL };
  }
  await migrate(database.db);
  const fixture = await seedBench(database.db, products, values.embedded ? 5000 : cartsPerPool);
  await database.close();
  return { fixture, env, cleanup };
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
}

async function benchSize(products: number): Promise<{ rows: Row[]; peakRss: number }> {
  console.error(`\n== ${products} products: seeding`);
  const { fixture, env, cleanup } = await prepareDatabase(products);
  const port = 3900;
  const base = `http://127.0.0.1:${port}`;
  const server = await startProcess(
    SERVE_ARGS,
    { ...env, PORT: String(port), HOST: '127.0.0.1', SEED_DEMO: 'false', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', ORDER_RATE_LIMIT_PER_MINUTE: '0', MAINTENANCE_INTERVAL_SECONDS: '0', DB_POOL_SIZE: String(POOL) },
    async () => (await fetch(`${base}/api/ready`)).ok,
  );
  const rows: Row[] = [];
  const answers: Record<string, string> = {};
  {
    for (const w of WORKLOADS) {
      const plan = w.plan(fixture);
      if (w.kind === 'read') {
        const first = await fetch(base + plan.paths[0], { headers: { authorization: `Bearer ${fixture.storefront}` } });
        answers[plan.paths[0]!] = await first.text();
        if (!first.ok) throw new Error(`${w.name}: ${first.status} ${answers[plan.paths[0]!]!.slice(0, 200)}`);
      }
      console.error(`   ${w.name}`);
      const result = await runJson<LoadResult>('bench/load.ts', {
        url: base, method: w.method, token: fixture.storefront, connections: CONNECTIONS, warmupSeconds: WARMUP, seconds: SECONDS, ...plan,
      } satisfies LoadPlan);
      rows.push({ workload: w.name, products, ...result, ceiling: null, ratio: null });
    }
  }
  const peakRss = peakRssMb(server.pid!);
  await stopProcess(server);
  const readRows = rows.filter((r) => WORKLOADS.find((w) => w.name === r.workload)?.kind === 'read');
  if (readRows.length > 0) {
    const file = join(tmpdir(), `bench-answers-${process.pid}.json`);
    writeFileSync(file, JSON.stringify(answers));
    const ceilingServer = await startProcess(['--import', 'tsx', 'bench/ceiling-server.ts', String(port + 1), file], {}, async () => (await fetch(`http://127.0.0.1:${port + 1}/`)).ok);
    try {
      for (const row of readRows) {
        console.error(`   ceiling: ${row.workload}`);
        const w = WORKLOADS.find((x) => x.name === row.workload)!;
        row.ceiling = await runJson<LoadResult>('bench/load.ts', {
          url: `http://127.0.0.1:${port + 1}`, method: 'GET', token: 'x', connections: CONNECTIONS, warmupSeconds: WARMUP, seconds: SECONDS, ...w.plan(fixture),
        } satisfies LoadPlan);
      }
    } finally {
      await stopProcess(ceilingServer);
      rmSync(file, { force: true });
    }
  }
  if (!values.embedded) {
    for (const row of rows) {
      const w = WORKLOADS.find((x) => x.name === row.workload)!;
      if (!w.sql) continue;
      console.error(`   ceiling: ${row.workload} (bare SQL)`);
      row.ceiling = await runJson<LoadResult>('bench/ceiling-sql.ts', {
        databaseUrl: DATABASE_URL, workload: w.sql, store: fixture.store, token: fixture.storefront, customerId: fixture.customerId,
        addressId: fixture.addressId, productIds: fixture.hotProductIds, cartIds: w.sql === 'order-cart' ? fixture.ceilingOrderCartIds : fixture.addCartIds,
        concurrency: CONNECTIONS, poolSize: POOL, warmupSeconds: WARMUP, seconds: SECONDS,
      } satisfies SqlPlan);
    }
  }
  for (const row of rows) row.ratio = row.ceiling && row.ceiling.rps > 0 ? Math.round((row.rps / row.ceiling.rps) * 100) / 100 : null;
  cleanup();
  return { rows, peakRss };
}

// The server runs as it would be deployed: compiled to JavaScript (`npm run build`), not through
// tsx, with the node flags of `npm run serve` (they bound its memory).
await runCommand('npx', ['tsc', '-p', 'tsconfig.build.json']);
const runs: Array<{ products: number; rows: Row[]; peakRss: number }> = [];
for (const size of SIZES) runs.push({ products: size, ...(await benchSize(size)) });

const machine = `${cpus().length} cores (${cpus()[0]?.model.trim()}), ${Math.round(totalmem() / 2 ** 30)} GiB (${Math.round(freemem() / 2 ** 30)} free), Node ${process.version}, ${values.embedded ? 'PGlite' : 'PostgreSQL'}`;
const lines = [
  `Machine: ${machine}; ${CONNECTIONS} connections, ${WARMUP} s warm-up, ${SECONDS} s per workload.`,
  '',
  '| products | workload | req/s | p50 ms | p99 ms | errors | ceiling req/s | ratio |',
  '|---:|---|---:|---:|---:|---:|---:|---:|',
];
for (const run of runs) {
  for (const r of run.rows) {
    lines.push(`| ${r.products} | ${r.workload} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.ceiling?.rps ?? 'n/a'} | ${r.ratio ?? 'n/a'} |`);
  }
}
lines.push('', ...runs.map((r) => `Server peak RSS at ${r.products} products: ${r.peakRss} MB.`));
const list = (products: number) => runs.find((r) => r.products === products)?.rows.find((x) => x.workload === 'list-products');
if (runs.length > 1) {
  const small = list(Math.min(...SIZES));
  const large = list(Math.max(...SIZES));
  if (small && large) lines.push(`Growth: list-products p50 ${large.p50} ms at ${Math.max(...SIZES)} products vs ${small.p50} ms at ${Math.min(...SIZES)}: ${(large.p50 / Math.max(small.p50, 1)).toFixed(2)}x.`);
}
const table = lines.join('\n');
console.log(table);
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const results = { machine, connections: CONNECTIONS, seconds: SECONDS, warmup: WARMUP, runs };
writeFileSync(join(ROOT, 'bench/results/latest.json'), JSON.stringify(results, null, 2));
writeFileSync(join(ROOT, `bench/results/${stamp}.json`), JSON.stringify(results, null, 2));
writeFileSync(join(ROOT, 'bench/results/latest.md'), `${table}\n`);
