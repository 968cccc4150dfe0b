/**
 * Payments that call a provider. No transaction is ever open across a call to Stripe: each step
 * writes what it is about to ask (a pending payment, a `dueAction`), commits, asks Stripe with an
 * idempotency key, then applies the answer in a new transaction under the order's lock. A crash
 * between Stripe's answer and the commit leaves the written intention; the retry, the webhook or
 * the maintenance job asks again with the same key and finishes the job once.
 */
import Stripe from 'stripe';
import type { FastifyBaseLogger } from 'fastify';
import type { Database, Executor } from '../../db/client.js';
import { AppError } from '../../lib/app-error.js';
import { SYSTEM_ACTOR, withRecordedEvents, type Actor, type Alongside, type Recorder } from '../events/index.js';
import type { Outcome } from '../../lib/keyed-batcher.js';
import { cancelUnpaidOrder, lockOrder, orderTotalOf, paymentAmounts, renderOrder, unpaidOrdersPastTimeout } from '../orders/index.js';
import { paymentTotals } from '../pricing/index.js';
import { applyIntentRound, type IntentJob } from './intent-round.js';
import { RoundQueue } from './round-queue.js';
import * as repo from './repository.js';
import { Secrets, type SecretsSettings } from './secrets.js';
import { ProviderRefusal, StripeClients, type Intent, type StripeCalls } from './stripe-client.js';
import { orderPaymentView } from './views.js';

/**
 * While the process is busy with other requests, a store's rounds of intents begin at least this
 * far apart: at most about seven a second, each of all the deliveries that arrived meanwhile (up to
 * 200). At 100 ms, orders beside a full stream of deliveries kept less than 0.8 of their rate in
 * three runs of five (docs/payments.md, "Figures"); a delivery waits up to this much longer for
 * its answer, which no payment provider minds.
 */
const YIELD_ROUND_MS = 150;

/** How long a store's webhook secret is kept in memory, and for how many stores at most. */
const WEBHOOK_SECRET_TTL_MS = 1000;
const WEBHOOK_SECRET_CACHE_SIZE = 10_000;

/**
 * At most `size` holders at once, the others waiting their turn in order. Webhook deliveries and
 * syncs take half the database pool at most, so a stream of them never leaves checkout (and every
 * other write) queueing for a connection behind it.
 */
class Gate {
  private held = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly size: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.held >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.held++;
    try {
      return await work();
    } finally {
      // The turn passes straight to the next waiter (`held` unchanged), or is given back.
      const next = this.waiting.shift();
      if (next) next();
      else this.held--;
    }
  }
}

export interface PaymentsSettings extends SecretsSettings {
  dbPoolSize: number;
  stripeApiUrl: URL;
  paymentProviderTimeoutMs: number;
  paymentSyncAfterSeconds: number;
}

export class PaymentsRuntime {
  readonly secrets: Secrets;
  private readonly stripe: StripeClients;
  private readonly webhookSecrets = new Map<string, { secret: string | undefined; until: number }>();
  private readonly applying: Gate;
  /**
   * A store's intents (webhooks, syncs) that arrive while its rounds run make its next rounds. While
   * checkout keeps the process busy (`checkoutBusy`), they give way (round-queue.ts).
   */
  private readonly intents = new RoundQueue<IntentJob, string | null>((jobs) => this.runIntentRound(jobs), 200, 2, () => (this.checkoutBusy() ? YIELD_ROUND_MS : 0));

  constructor(
    private readonly db: Database,
    private readonly settings: PaymentsSettings,
    private readonly log: FastifyBaseLogger,
    private readonly checkoutBusy: () => boolean = () => false,
  ) {
    this.secrets = new Secrets(settings);
    this.stripe = new StripeClients(settings.stripeApiUrl, settings.paymentProviderTimeoutMs);
    this.applying = new Gate(Math.max(1, Math.floor(settings.dbPoolSize / 2)));
  }

  /** The store's Stripe calls, with its decrypted secret key. */
  async stripeOf(store: string): Promise<StripeCalls> {
    const provider = await repo.findProvider(this.db, store, 'stripe');
    if (!provider?.secretKeyEncrypted) throw new AppError('PAYMENT_PROVIDER_NOT_ENABLED', 'this store has not set up stripe');
    return this.stripe.for(this.secrets.decrypt(provider.secretKeyEncrypted));
  }

  /**
   * The store's webhook secret, or undefined when Stripe is not set up. Kept for a second per store:
   * a delivery then costs no read of the provider, and a secret saved or a provider disabled (here
   * or by another process) is seen within that second.
   */
  async webhookSecretOf(store: string): Promise<string | undefined> {
    const cached = this.webhookSecrets.get(store);
    if (cached && cached.until > Date.now()) return cached.secret;
    const secret = await this.readWebhookSecret(store);
    if (this.webhookSecrets.size >= WEBHOOK_SECRET_CACHE_SIZE) this.webhookSecrets.clear();
    this.webhookSecrets.set(store, { secret, until: Date.now() + WEBHOOK_SECRET_TTL_MS });
    return secret;
  }

  /** Forgets a store's cached webhook secret (its provider was saved or disabled). */
  forgetWebhookSecret(store: string): void {
    this.webhookSecrets.delete(store);
  }

  private async readWebhookSecret(store: string): Promise<string | undefined> {
    const provider = await repo.findProvider(this.db, store, 'stripe');
    if (!provider?.enabled || !provider.webhookSecretEncrypted) return undefined;
    try {
      return this.secrets.decrypt(provider.webhookSecretEncrypted);
    } catch {
      // Saved with another SECRETS_KEY: this store's webhooks cannot be verified until it is saved again.
      this.log.error({ store }, "the store's Stripe webhook secret cannot be decrypted with SECRETS_KEY; save the provider again");
      return undefined;
    }
  }

  private transaction<T>(store: string, work: (tx: Executor, record: Recorder, alongside: Alongside) => Promise<T>, actor: Actor = SYSTEM_ACTOR): Promise<T> {
    return withRecordedEvents(this.db, store, work, actor);
  }

  /**
   * POST /v1/:customer/orders/:id/payments: a payment of the order's balance, or the pending one of
   * that provider again (`created` false). Stripe: the intent is created after the pending payment
   * is committed, with the payment id as its idempotency key; a refusal leaves nothing pending.
   */
  async createPayment(store: string, customerId: string, orderId: string, providerName: repo.ProviderName, actor: Actor = SYSTEM_ACTOR): Promise<{ payment: repo.PaymentRow; created: boolean }> {
    const { payment, created } = await this.transaction(store, async (tx, record) => {
      const order = await lockOrder(tx, store, orderId);
      if (!order || order.customerId !== customerId.toLowerCase()) throw new AppError('NOT_FOUND', `order ${orderId} not found`);
      const provider = await repo.findProvider(tx, store, providerName);
      if (!provider?.enabled) throw new AppError('PAYMENT_PROVIDER_NOT_ENABLED', `this store has not enabled the ${providerName} payment provider`);
      if (order.status !== 'CREATED') throw new AppError('ORDER_NOT_PAYABLE', `order ${orderId} is ${order.status}; only a CREATED order is paid`);
      const payments = await repo.paymentsOf(tx, store, [orderId]);
      const pending = payments.find((p) => p.provider === providerName && p.status === 'pending');
      if (pending) return { payment: pending, created: false };
      const { balance } = paymentTotals(orderTotalOf(order), payments.map(paymentAmounts));
      if (balance <= 0) throw new AppError('ORDER_NOT_PAYABLE', `order ${orderId} has nothing left to pay`);
      const inserted = await repo.insertPayment(tx, {
        store, orderId, provider: providerName, amount: balance, currency: order.currency,
        instructions: providerName === 'manual' ? (provider.instructions ?? '') : null,
      });
      // A Stripe payment is announced once its intent exists (below).
      if (providerName === 'manual') record('payment.created', { payment: orderPaymentView(inserted), order: await renderOrder(tx, store, orderId) });
      return { payment: inserted, created: true };
    }, actor);
    if (payment.provider === 'manual' || payment.intentId) return { payment, created };
    return { payment: await this.createIntent(store, payment, created), created };
  }

  /** Asks Stripe for the payment's intent (again: the same key answers the same intent) and records it. */
  private async createIntent(store: string, payment: repo.PaymentRow, dropOnRefusal: boolean): Promise<repo.PaymentRow> {
    const provider = await repo.findProvider(this.db, store, 'stripe');
    let intent: Intent;
    try {
      const stripe = await this.stripeOf(store);
      intent = await stripe.createIntent(
        {
          amount: Number(payment.amount),
          currency: payment.currency.toLowerCase(),
          capture_method: provider?.captureMethod === 'manual' ? 'manual' : 'automatic',
          metadata: { store, orderId: payment.orderId, paymentId: payment.id },
        },
        payment.id,
      );
    } catch (error) {
      if (dropOnRefusal) await repo.deletePayment(this.db, store, payment.id);
      throw error;
    }
    return this.transaction(store, async (tx, record) => {
      await lockOrder(tx, store, payment.orderId);
      if (await repo.setIntent(tx, store, payment.id, intent.id, intent.client_secret)) {
        const saved = (await repo.findPayment(tx, store, payment.id))!;
        record('payment.created', { payment: orderPaymentView(saved), order: await renderOrder(tx, store, payment.orderId) });
      }
      return (await repo.findPayment(tx, store, payment.id))!;
    });
  }

  /** POST .../payments/:paymentId/sync: asks Stripe for the intent and applies it as its webhook would. */
  async syncPayment(store: string, customerId: string | null, orderId: string, paymentId: string): Promise<repo.PaymentRow> {
    const payment = await repo.findPayment(this.db, store, paymentId);
    const order = payment && payment.orderId === orderId ? await renderOrder(this.db, store, orderId) : undefined;
    if (!payment || !order || (customerId !== null && order.customerId !== customerId.toLowerCase())) throw new AppError('NOT_FOUND', `payment ${paymentId} not found`);
    await this.syncOne(store, payment);
    return (await repo.findPayment(this.db, store, paymentId))!;
  }

  private async syncOne(store: string, payment: repo.PaymentRow): Promise<void> {
    if (payment.provider !== 'stripe') return;
    // A payment whose create call's answer was lost: the same key gets the same intent.
    const withIntent = payment.intentId ? payment : await this.createIntent(store, payment, false);
    const intent = await (await this.stripeOf(store)).retrieveIntent(withIntent.intentId!);
    await this.applyIntent(store, intent, null);
  }

  /**
   * Applies what an intent says (a webhook's or a sync's), once per Stripe event id, in any order:
   * the move must be in the state table (intent-round.ts). It joins the store's next round of
   * intents. A payment that succeeds (or is authorized) for an order that is cancelled or already
   * covered is owed back, and settled right after the commit.
   */
  async applyIntent(store: string, intent: Intent, eventId: string | null, failedEvent = false, settleOwed = true): Promise<void> {
    const owed = await this.intents.submit(store, { store, intent, eventId, failedEvent });
    if (owed && settleOwed) await this.settle(store, owed);
  }

  /**
   * One round of a store's intents in one transaction. When it fails (a deadlock, a statement that
   * one intent's data breaks), each intent is tried again alone, so that one intent's failure never
   * fails another's delivery.
   */
  private async runIntentRound(jobs: IntentJob[]): Promise<Array<Outcome<string | null>>> {
    const store = jobs[0]!.store;
    const once = (some: IntentJob[]) => this.applying.run(() => this.transaction(store, (tx, record, alongside) => applyIntentRound(tx, store, some, record, alongside)));
    try {
      return await once(jobs);
    } catch (error) {
      if (jobs.length === 1) return [{ ok: false, error }];
      return Promise.all(jobs.map((job) => once([job]).then((outcomes) => outcomes[0]!, (alone: unknown): Outcome<string | null> => ({ ok: false, error: alone }))));
    }
  }

  /** Applies `charge.refunded`: the refunded amount only grows. */
  async applyRefund(store: string, charge: Stripe.Charge, eventId: string): Promise<void> {
    const intentId = typeof charge.payment_intent === 'string' ? charge.payment_intent : charge.payment_intent?.id;
    if (!intentId) return;
    await this.applying.run(() => this.transaction(store, async (tx, record) => {
      if (!(await repo.recordWebhookEvent(tx, store, eventId))) return;
      const known = await repo.findPaymentByIntent(tx, store, intentId);
      if (!known) return;
      await lockOrder(tx, store, known.orderId);
      const payment = (await repo.findPayment(tx, store, known.id))!;
      const refunded = Math.min(charge.amount_refunded, Number(payment.capturedAmount));
      if (refunded <= Number(payment.refundedAmount)) return;
      const whole = refunded === Number(payment.capturedAmount);
      const updated = (await repo.updatePayment(tx, store, payment.id, { refundedAmount: refunded, dueAction: whole && payment.dueAction === 'refund' ? null : payment.dueAction }))!;
      // Money given back at Stripe itself (its dashboard): shown as a refund of the order. A
      // cancel's own refund is already shown by its payment.
      if (payment.dueAction !== 'refund') {
        const amount = refunded - Number(payment.refundedAmount);
        await repo.insertRefund(tx, { store, orderId: payment.orderId, amount, reason: 'refunded at the payment provider', lines: [], restock: false, parts: [{ paymentId: payment.id, amount, settled: true }], status: 'succeeded' });
      }
      record('payment.refunded', { payment: orderPaymentView(updated), order: await renderOrder(tx, store, payment.orderId) });
    }));
  }

  /** Makes the provider call a payment is owed (a refund or a void), with its idempotency key, then records it. */
  async settle(store: string, paymentId: string): Promise<void> {
    const payment = await repo.findPayment(this.db, store, paymentId);
    if (!payment?.dueAction || payment.provider !== 'stripe') return;
    if (!payment.intentId) {
      // No intent was ever recorded: ask with the create call's key, so one made meanwhile is found and voided.
      await this.createIntent(store, payment, false);
      return this.settle(store, paymentId);
    }
    const stripe = await this.stripeOf(store);
    if (payment.dueAction === 'refund') {
      const amount = Number(payment.capturedAmount) - Number(payment.refundedAmount);
      if (amount > 0) await stripe.refund(payment.intentId, amount, `${payment.id}:refund`);
      await this.transaction(store, async (tx, record) => {
        await lockOrder(tx, store, payment.orderId);
        const fresh = (await repo.findPayment(tx, store, payment.id))!;
        if (fresh.dueAction !== 'refund') return;
        const updated = (await repo.updatePayment(tx, store, payment.id, { refundedAmount: fresh.capturedAmount, dueAction: null }))!;
        if (Number(fresh.refundedAmount) < Number(fresh.capturedAmount)) {
          record('payment.refunded', { payment: orderPaymentView(updated), order: await renderOrder(tx, store, payment.orderId) });
        }
      });
      return;
    }
    let intent: Intent;
    try {
      intent = await stripe.cancelIntent(payment.intentId, `${payment.id}:void`);
    } catch (error) {
      // An intent that succeeded meanwhile cannot be cancelled: what it did is applied (and refunded).
      if (!(error instanceof ProviderRefusal)) throw error;
      intent = await stripe.retrieveIntent(payment.intentId);
    }
    // Applied without settling again: a void that Stripe keeps refusing waits for the next job run
    // instead of looping; one that found the money taken is refunded here, once.
    await this.applyIntent(store, intent, null, false, false);
    const after = await repo.findPayment(this.db, store, paymentId);
    if (after?.dueAction === 'refund') await this.settle(store, paymentId);
  }

  /**
   * Captures the order's authorized Stripe payments (manual capture: at the first fulfilment), each
   * with its idempotency key, then applies what Stripe answers. A refusal is 502 and nothing is
   * applied. Called with no transaction open.
   */
  async captureOrder(store: string, orderId: string): Promise<void> {
    const authorized = (await repo.paymentsOf(this.db, store, [orderId])).filter((p) => p.provider === 'stripe' && p.status === 'authorized' && p.intentId && !p.dueAction);
    if (authorized.length === 0) return;
    const stripe = await this.stripeOf(store);
    for (const payment of authorized) {
      const intent = await stripe.captureIntent(payment.intentId!, `${payment.id}:capture`);
      await this.applyIntent(store, intent, null);
    }
  }

  /**
   * Makes a refund's Stripe parts (after its commit), each with the refund and payment ids as its
   * idempotency key, and marks each made. A failure leaves the part owed: the maintenance job asks
   * again with the same key.
   */
  async settleRefund(store: string, refundId: string): Promise<void> {
    const refund = await repo.findRefund(this.db, store, refundId);
    if (!refund || refund.status !== 'pending') return;
    for (const part of refund.parts.filter((p) => !p.settled)) {
      const payment = (await repo.findPayment(this.db, store, part.paymentId))!;
      await (await this.stripeOf(store)).refund(payment.intentId!, part.amount, `${refund.id}:${payment.id}`);
      await this.transaction(store, async (tx) => {
        await lockOrder(tx, store, refund.orderId);
        const fresh = (await repo.findRefund(tx, store, refund.id))!;
        const parts = fresh.parts.map((p) => (p.paymentId === part.paymentId ? { ...p, settled: true } : p));
        await repo.updateRefund(tx, store, refund.id, { parts, status: parts.every((p) => p.settled) ? 'succeeded' : 'pending' });
      });
    }
  }

  /** Settles what a cancelled order's payments are owed (after the cancel's commit). */
  async settleOrder(store: string, orderId: string): Promise<void> {
    for (const p of await repo.paymentsOf(this.db, store, [orderId])) if (p.dueAction) await this.settle(store, p.id);
  }

  /**
   * The maintenance job: owed refunds and voids, Stripe payments pending for longer than
   * PAYMENT_SYNC_AFTER_SECONDS (a lost webhook delays a payment, never loses it), and unpaid orders
   * past their store's timeout (cancelled, stock and code use given back, intents voided).
   */
  async runMaintenance(): Promise<{ settled: number; synced: number; cancelled: number }> {
    const result = { settled: 0, synced: 0, cancelled: 0 };
    const before = new Date(Date.now() - this.settings.paymentSyncAfterSeconds * 1000);
    for (const payment of await repo.openPayments(this.db, before, 100)) {
      try {
        if (payment.dueAction) {
          await this.settle(payment.store, payment.id);
          result.settled++;
        } else {
          await this.syncOne(payment.store, payment);
          result.synced++;
        }
      } catch (error) {
        this.log.warn({ err: error, payment: payment.id }, 'a payment could not be settled or synced; the next run tries again');
      }
    }
    for (const refund of await repo.pendingRefunds(this.db, 100)) {
      try {
        await this.settleRefund(refund.store, refund.id);
        result.settled++;
      } catch (error) {
        this.log.warn({ err: error, refund: refund.id }, 'a refund could not be made; the next run tries again');
      }
    }
    for (const { store, id } of await unpaidOrdersPastTimeout(this.db, 100)) {
      if (await this.transaction(store, (tx, record) => cancelUnpaidOrder(tx, record, store, id))) {
        result.cancelled++;
        await this.settleOrder(store, id).catch((error: unknown) => this.log.warn({ err: error, order: id }, 'an unpaid order was cancelled; its intents are voided at the next run'));
      }
    }
    return result;
  }
}
