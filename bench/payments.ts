/**
 * The `payment-webhook` workloads: signed `payment_intent.succeeded` deliveries (signed with the
 * Stripe SDK, as Stripe signs them) for distinct orders; a duplicate storm (each event 10 times)
 * that must leave exactly one `order.paid` per order, or the run fails; and order-spread while the
 * webhooks stream, compared with order-spread just before. The orders and their pending Stripe
 * payments are written straight in SQL: the workload measures the webhook, not checkout, and no
 * Stripe is called (a webhook that makes an order PAID calls nobody).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import Stripe from 'stripe';
import type { BenchFixture } from './seed.js';

export const BENCH_SECRETS_KEY = randomBytes(32).toString('base64');
const WEBHOOK_SECRET = `whsec_${randomBytes(24).toString('hex')}`;

export interface SignedDeliveries {
  paths: string[];
  bodies: string[];
  headers: Array<Record<string, string>>;
  orderIds: string[];
}

/** Stripe enabled on the bench store, with the secret the deliveries are signed with. */
export async function enableBenchStripe(base: string, f: BenchFixture): Promise<void> {
  const r = await fetch(`${base}/api/v1/admin/payment-providers/stripe`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${f.admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ secretKey: `sk_test_${randomBytes(12).toString('hex')}`, publishableKey: 'pk_test_bench000', webhookSecret: WEBHOOK_SECRET }),
  });
  if (r.status !== 200) throw new Error(`enabling stripe: ${r.status} ${await r.text()}`);
}

/** `n` CREATED orders, each with a pending Stripe payment, and one signed delivery each repeated `times` (adjacent: the copies race). */
export async function pendingPaymentDeliveries(databaseUrl: string, f: BenchFixture, n: number, times = 1): Promise<SignedDeliveries> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let rows: Array<{ order_id: string; payment_id: string; intent_id: string; amount: string }>;
  try {
    ({ rows } = await client.query(
      `with counter as (update store_versions set last_order_number = last_order_number + $4 where store = $1 returning last_order_number - $4 as before),
       o as (
         insert into orders (store, id, customer_id, address_id, price, number, created_at)
         select $1, uuid_v7(), $2, $3, 1000, counter.before + k, now() from counter, generate_series(1, $4) k returning store, id)
       insert into payments (store, order_id, provider, status, amount, currency, intent_id)
       select store, id, 'stripe', 'pending', 1000, 'USD', 'pi_bench_' || replace(id::text, '-', '') from o
       returning order_id, id as payment_id, intent_id, amount`,
      [f.store, f.customerId, f.addressId, n],
    ));
    // A store does not gain 30,000 unpaid orders between two runs of autovacuum's ANALYZE (and this
    // server may run none): with statistics from before them, the planner reads every payment of
    // the store for a round's handful (the `store` column alone as the index condition).
    await client.query('analyze orders, payments');
    // Flushed to disk now, by a checkpoint: otherwise the kernel writes these rows back some 30 s
    // later, in the middle of the measured stream, in one of the bursts of 40-160 MB that a slow
    // VM's disk took, and the stream's commits wait behind it (docs/payments.md, "The kernel's
    // write-back").
    await client.query('checkpoint');
  } finally {
    await client.end();
  }
  const path = `/api/v1/payment-webhooks/stripe/${f.store}`;
  const out: SignedDeliveries = { paths: [path], bodies: [], headers: [], orderIds: rows.map((r) => r.order_id) };
  for (const row of rows) {
    const intent = {
      id: row.intent_id, object: 'payment_intent', amount: Number(row.amount), amount_received: Number(row.amount), currency: 'usd', status: 'succeeded',
      capture_method: 'automatic', client_secret: null, last_payment_error: null, metadata: { store: f.store, orderId: row.order_id, paymentId: row.payment_id },
    };
    const body = JSON.stringify({ id: `evt_${randomBytes(12).toString('hex')}`, object: 'event', type: 'payment_intent.succeeded', created: Math.floor(Date.now() / 1000), data: { object: intent } });
    const signature = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: WEBHOOK_SECRET });
    for (let i = 0; i < times; i++) {
      out.bodies.push(body);
      out.headers.push({ 'stripe-signature': signature });
    }
  }
  return out;
}

/** After a storm: how many of these orders are PAID, and how many `order.paid` events they have (each must be 1). */
export async function paidCounts(databaseUrl: string, store: string, orderIds: string[]): Promise<{ paid: number; paidEvents: number; ordersWithOneEvent: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const paid = await client.query(`select count(*)::int as n from orders where store = $1 and id = any($2::uuid[]) and status = 'PAID'`, [store, orderIds]);
    const events = await client.query(
      `select count(*)::int as events, count(distinct data->'order'->>'id')::int as orders from events
       where store = $1 and type = 'order.paid' and data->'order'->>'id' = any($2::text[])`,
      [store, orderIds],
    );
    return { paid: paid.rows[0].n, paidEvents: events.rows[0].events, ordersWithOneEvent: events.rows[0].orders };
  } finally {
    await client.end();
  }
}
