/**
 * The write ceiling: a bare `pg` client running the SQL statements of a write workload's path
 * (the token lookup, then the service's statements, as one transaction) from `concurrency`
 * concurrent loops over a pool as large as the service's, with no HTTP in between. It leaves out
 * what only the service's caches need (reading and bumping the store's catalog version): the
 * ceiling is what the order itself costs the database.
 * `node --import tsx bench/ceiling-sql.ts <plan.json>` prints one JSON result line.
 */
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { PRODUCT_COLUMN_NAMES, visibleProductText } from '../src/modules/catalog/visibility.js';
import type { LoadResult } from './load.js';
import { benchOrderNumber, createBenchOrderNumbers } from './order-numbers.js';

export interface SqlPlan {
  databaseUrl: string;
  workload: 'cart-create' | 'cart-add' | 'order-cart';
  store: string;
  token: string;
  customerId: string;
  addressId: string;
  productIds: string[];
  cartIds: string[];
  concurrency: number;
  poolSize: number;
  warmupSeconds: number;
  seconds: number;
}

const PRODUCT = Object.values(PRODUCT_COLUMN_NAMES).map((column) => `p.${column}`).join(', ');
const CART = `id, store, case when status = 'PENDING' and expires_at <= now() then 'EXPIRED' else status end as status, customer_id, address_id, created_at, updated_at, deleted_at, expires_at`;

const plan = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as SqlPlan;
const pool = new pg.Pool({ connectionString: plan.databaseUrl, max: plan.poolSize });
const tokenHash = createHash('sha256').update(plan.token).digest('hex');
const random = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;
let cartTurn = 0;

async function transaction(client: pg.PoolClient, s: string): Promise<void> {
  await client.query('select id, kind from tokens where store = $1 and secret_hash = $2 and revoked_at is null', [s, tokenHash]);
  const step = STEPS[plan.workload];
  const inTransaction = await step.before?.(client, s);
  if (!step.transaction) return;
  await client.query('begin');
  try {
    await step.transaction(client, s, inTransaction);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  }
}

const productRead = `select ${PRODUCT}, ${visibleProductText('p')} as visible from products p where p.store = $1 and p.id in ($2)`;

/** A workload's statements: some before its transaction (reads that lock nothing), then the transaction's. */
interface Step {
  before?: (c: pg.PoolClient, s: string) => Promise<string | undefined>;
  transaction?: (c: pg.PoolClient, s: string, from: string | undefined) => Promise<void>;
}

const STEPS: Record<SqlPlan['workload'], Step> = {
  'cart-create': {
    // A new cart without an idempotency key is one statement, its own transaction.
    before: async (c, s) => {
      const product = random(plan.productIds);
      await c.query(productRead, [s, product]);
      await c.query(
        `with cart as (insert into carts (store, expires_at) values ($1, now() + make_interval(secs => $2)) returning *),
          lines as (insert into cart_lines (store, cart_id, product_id, quantity)
            select $1, cart.id, (e.line->>0)::uuid, (e.line->>1)::int from cart, jsonb_array_elements($3::jsonb) with ordinality as e(line, n) order by e.n)
          select ${CART} from cart`,
        [s, 604800, JSON.stringify([[product, 1]])],
      );
      return undefined;
    },
  },
  'cart-add': {
    before: async (c, s) => {
      const product = random(plan.productIds);
      await c.query(productRead, [s, product]);
      return product;
    },
    transaction: async (c, s, product) => {
      const cart = random(plan.cartIds);
      await c.query(`select ${CART}, coalesce((select l.quantity from cart_lines l where l.store = carts.store and l.cart_id = carts.id and l.product_id = $3), 0) as line
        from carts where store = $1 and id = $2 and deleted_at is null for update`, [s, cart, product]);
      await c.query(`with line as (insert into cart_lines (store, cart_id, product_id, quantity) values ($1, $2, $3, 1)
          on conflict (store, cart_id, product_id) do update set quantity = cart_lines.quantity + excluded.quantity, updated_at = now())
        update carts set updated_at = now(), expires_at = now() + make_interval(secs => $4) where store = $1 and id = $2 returning ${CART}`, [s, cart, product, 604800]);
      await c.query(`select ${PRODUCT}, l.quantity as line from cart_lines l join products p on p.store = l.store and p.id = l.product_id where l.store = $1 and l.cart_id = $2 order by l.position`, [s, cart]);
    },
  },
  'order-cart': {
    transaction: async (c, s) => {
      const cart = plan.cartIds[cartTurn++ % plan.cartIds.length]!;
      await c.query(`select ${CART} from carts where store = $1 and id = $2 and deleted_at is null for update`, [s, cart]);
      const lines = await c.query(`select p.id, l.quantity as line from cart_lines l join products p on p.store = l.store and p.id = l.product_id where l.store = $1 and l.cart_id = $2 order by l.position`, [s, cart]);
      await order(c, s, lines.rows.map((r: { id: string }) => r.id), cart);
    },
  },
};

/** An order from a cart, statement by statement. */
async function order(c: pg.PoolClient, s: string, products: string[], cart: string): Promise<void> {
  await c.query('select id from addresses where store = $1 and id = $2 and customer_id = $3 and deleted_at is null', [s, plan.addressId, plan.customerId]);
  await c.query(`select ${PRODUCT}, ${visibleProductText('p')} as visible from products p where p.store = $1 and p.id = any($2::uuid[]) order by p.id for no key update of p`, [s, products]);
  const taken = [];
  for (const id of [...products].sort()) {
    taken.push((await c.query(`update products p set quantity = p.quantity - 1 where p.store = $1 and p.id = $2 and p.quantity >= 1 returning ${PRODUCT}`, [s, id])).rows[0]);
  }
  const o = await c.query(`insert into orders (store, customer_id, address_id, cart_id, price, original_price, number) values ($1, $2, $3, $4, $5, null, ${benchOrderNumber('$1')}) returning id`, [s, plan.customerId, plan.addressId, cart, 100]);
  for (const p of taken) {
    await c.query(`insert into order_lines (store, order_id, product_id, quantity, unit_price, line_price, product) values ($1, $2, $3, 1, $4, $5, $6::jsonb)`, [s, o.rows[0].id, p.id, p.price, p.price, JSON.stringify(p)]);
  }
  await c.query(`update carts set status = 'COMPLETED', customer_id = $3, address_id = $4, updated_at = now() where store = $1 and id = $2 and status = 'PENDING' and deleted_at is null returning id`, [s, cart, plan.customerId, plan.addressId]);
}

async function measure(seconds: number): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: plan.concurrency }, async () => {
      while (Date.now() < until) {
        const started = performance.now();
        const client = await pool.connect();
        try {
          await transaction(client, plan.store);
          latencies.push(performance.now() - started);
        } catch {
          errors++;
        } finally {
          client.release();
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  return { requests: latencies.length, rps: Math.round(latencies.length / seconds), p50: at(0.5), p99: at(0.99), errors, statusCodes: {} };
}

await createBenchOrderNumbers(plan.databaseUrl, [plan.store]);
if (plan.warmupSeconds > 0) await measure(plan.warmupSeconds);
console.log(JSON.stringify(await measure(plan.seconds)));
await pool.end();
