/**
 * What a lone Stripe delivery costs: `[TEST_DATABASE_URL=postgres://...] npx tsx bench/lone-delivery.ts [n]`.
 * `n` (400) orders paid through Stripe, then their `payment_intent.succeeded` deliveries one after
 * another, each a round of its own, to the service in this process (Fastify's inject, the tests'
 * Stripe emulator, the tests' database: PGlite, or PostgreSQL with TEST_DATABASE_URL). Prints the
 * average, p50 and p90 of the last three quarters, and the statements each delivery sent (BEGIN and
 * COMMIT included). Without HTTP and autocannon between, it shows a round's round trips more
 * finely than the bench's `payment-webhook alone` row, which shares the machine with its load.
 */
import { startTestApp } from '../test/support/app.js';
import { orderToPay, pay, SECRETS_KEY, stripeStore, webhookTo } from '../test/support/payments.js';
import { StripeEmulator } from '../test/support/stripe-emulator.js';

const n = Number(process.argv[2] ?? 400);
const emulator = await new StripeEmulator().start();
let statements = 0;
const t = await startTestApp({ SECRETS_KEY, STRIPE_API_URL: emulator.url }, { onQuery: () => statements++ });
try {
  const s = await stripeStore(t, emulator);
  const deliveries = [];
  for (let i = 0; i < n; i++) {
    const { customer, order } = await orderToPay(t, s, 1);
    const payment = (await pay(t, s, customer, order.id, 'stripe')).json.payment;
    const intent = [...emulator.intents.values()].find((x) => x.metadata.paymentId === payment.id)!;
    deliveries.push(emulator.event('payment_intent.succeeded', emulator.pay(intent.id)));
  }
  const times: number[] = [];
  const before = statements;
  for (const event of deliveries) {
    const started = performance.now();
    const [status] = await emulator.deliver(webhookTo(t, s.slug), [event], s.webhookSecret);
    times.push(performance.now() - started);
    if (status !== 200) throw new Error(`a delivery was answered ${status}`);
  }
  // The first quarter warms the JIT and the store's caches.
  const measured = times.slice(Math.floor(n / 4)).sort((a, b) => a - b);
  const at = (q: number) => measured[Math.floor(q * (measured.length - 1))]!.toFixed(2);
  const average = measured.reduce((sum, x) => sum + x, 0) / measured.length;
  console.log(`${measured.length} lone deliveries: ${average.toFixed(2)} ms on average, p50 ${at(0.5)} ms, p90 ${at(0.9)} ms; ${((statements - before) / n).toFixed(2)} statements each`);
} finally {
  await emulator.stop();
}
