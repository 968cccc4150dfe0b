/**
 * The physical write ceiling: the minimal order transaction (a guarded stock update and an order
 * insert, nothing else: no token lookup, no catalog-version bump, no HTTP) run straight against
 * PostgreSQL at the benchmark's concurrency. With pgbench installed it runs there (prepared
 * statements, its own C client); otherwise the `pg` driver loops do it. Three shapes:
 *   spread   - a random one of the hot products per transaction, two statements;
 *   hot      - always the same product, two statements;
 *   hot-cte  - always the same product, one statement (a CTE), the fewest round trips possible.
 * `node --import tsx bench/ceiling-orders.ts <plan.json>` prints one JSON result line.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { LoadResult } from './load.js';
import { benchOrderNumber, createBenchOrderNumbers } from './order-numbers.js';

export interface OrderCeilingPlan {
  databaseUrl: string;
  shape: 'spread' | 'hot' | 'hot-cte';
  store: string;
  customerId: string;
  addressId: string;
  productIds: string[];
  /**
   * Spread over many stores (bench/spread.ts): each transaction takes a random one of these rows,
   * its store, product, customer and address, instead of `store` and `productIds`.
   */
  rows?: Array<{ store: string; productId: string; customerId: string; addressId: string }>;
  concurrency: number;
  warmupSeconds: number;
  seconds: number;
}

const plan = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as OrderCeilingPlan;
const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;
const [store, customer, address, hot] = [plan.store, plan.customerId, plan.addressId, plan.productIds[0] ?? plan.rows?.[0]?.productId ?? ''].map(literal) as [string, string, string, string];

/** The spread transaction over many stores: every value from the drawn row of `bench_spread`. */
function spreadStatements(row: string): string[] {
  const pick = (column: string) => `(select ${column} from bench_spread where n = ${row})`;
  return [
    'begin',
    `update products set quantity = quantity - 1 where store = ${pick('store')} and id = ${pick('id')} and quantity >= 1`,
    `insert into orders (store, customer_id, address_id, price, number) select store, customer, address, 100, ${benchOrderNumber('store')} from bench_spread where n = ${row}`,
    'commit',
  ];
}

/** The transaction of each shape, for the product `product` (an SQL expression). */
function statements(product: string): string[] {
  const take = `update products set quantity = quantity - 1 where store = ${store} and id = ${product} and quantity >= 1`;
  const number = benchOrderNumber(store);
  const insert = `insert into orders (store, customer_id, address_id, price, number) values (${store}, ${customer}, ${address}, 100, ${number})`;
  if (plan.shape === 'hot-cte') {
    return [`with t as (${take} returning price) insert into orders (store, customer_id, address_id, price, number) select ${store}, ${customer}, ${address}, price, ${number} from t`];
  }
  return ['begin', take, insert, 'commit'];
}

function hasPgbench(): boolean {
  return spawnSync('pgbench', ['--version'], { stdio: 'ignore' }).status === 0;
}

function withPgbench(): LoadResult {
  if (plan.rows) {
    execFileSync('psql', [plan.databaseUrl, '-qc', 'set client_min_messages = warning; create table if not exists bench_spread (n int primary key, store text not null, id uuid not null, customer uuid not null, address uuid not null); truncate bench_spread']);
    for (let i = 0; i < plan.rows.length; i += 500) {
      // psql takes the statement as one argument, and an argument is at most 128 KiB.
      const values = plan.rows.slice(i, i + 500).map((r, j) => `(${i + j + 1}, ${literal(r.store)}, ${literal(r.productId)}, ${literal(r.customerId)}, ${literal(r.addressId)})`).join(',');
      execFileSync('psql', [plan.databaseUrl, '-qc', `insert into bench_spread values ${values}`]);
    }
    execFileSync('psql', [plan.databaseUrl, '-qc', 'analyze bench_spread']);
  } else {
    // pgbench variables are numbers: a small table maps 1..n to the products.
    execFileSync('psql', [plan.databaseUrl, '-qc', 'set client_min_messages = warning; create table if not exists bench_hot (n int primary key, id uuid not null); truncate bench_hot']);
    const values = plan.productIds.map((id, i) => `(${i + 1}, ${literal(id)})`).join(',');
    execFileSync('psql', [plan.databaseUrl, '-qc', `insert into bench_hot values ${values}; analyze bench_hot`]);
  }
  const product = plan.shape === 'spread' ? '(select id from bench_hot where n = :n)' : hot;
  const dir = mkdtempSync(join(tmpdir(), 'bench-pgbench-'));
  const script = join(dir, 'order.sql');
  const lines = plan.shape === 'spread' ? [`\\set n random(1, ${plan.rows?.length ?? plan.productIds.length})`] : [];
  writeFileSync(script, [...lines, ...(plan.rows ? spreadStatements(':n') : statements(product)).map((s) => `${s};`)].join('\n') + '\n');
  const run = (seconds: number) =>
    execFileSync('pgbench', ['-n', '-M', 'prepared', '-c', String(plan.concurrency), '-j', '2', '-T', String(seconds), '-f', script, plan.databaseUrl], { encoding: 'utf8' });
  try {
    if (plan.warmupSeconds > 0) run(plan.warmupSeconds);
    const out = run(plan.seconds);
    const tps = Number(/tps = ([\d.]+)/.exec(out)?.[1] ?? 0);
    const latency = Number(/latency average = ([\d.]+) ms/.exec(out)?.[1] ?? 0);
    const failed = Number(/number of failed transactions: (\d+)/.exec(out)?.[1] ?? 0);
    return { requests: Math.round(tps * plan.seconds), rps: Math.round(tps), p50: Math.round(latency), p99: 0, errors: failed, statusCodes: {} };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function withDriver(): Promise<LoadResult> {
  const pool = new pg.Pool({ connectionString: plan.databaseUrl, max: plan.concurrency });
  const measure = async (seconds: number) => {
    const latencies: number[] = [];
    let errors = 0;
    const until = Date.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: plan.concurrency }, async () => {
        const client = await pool.connect();
        try {
          while (Date.now() < until) {
            const started = performance.now();
            const id = plan.shape === 'spread' ? literal(plan.productIds[Math.floor(Math.random() * plan.productIds.length)]!) : hot;
            try {
              const transaction = plan.rows ? spreadStatements(String(1 + Math.floor(Math.random() * plan.rows.length))) : statements(id);
              for (const statement of transaction) await client.query(statement);
              latencies.push(performance.now() - started);
            } catch {
              errors++;
              await client.query('rollback').catch(() => {});
            }
          }
        } finally {
          client.release();
        }
      }),
    );
    latencies.sort((a, b) => a - b);
    const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
    return { requests: latencies.length, rps: Math.round(latencies.length / seconds), p50: at(0.5), p99: at(0.99), errors, statusCodes: {} };
  };
  try {
    if (plan.warmupSeconds > 0) await measure(plan.warmupSeconds);
    return await measure(plan.seconds);
  } finally {
    await pool.end();
  }
}

await createBenchOrderNumbers(plan.databaseUrl, plan.rows ? plan.rows.map((r) => r.store) : [plan.store]);
console.log(JSON.stringify(hasPgbench() ? withPgbench() : await withDriver()));
