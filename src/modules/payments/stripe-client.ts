/**
 * The Stripe calls the service makes, through the official SDK only. Each call that changes money
 * carries an idempotency key, so a retry (after a timeout, a crash, a second process) never
 * charges, captures or refunds twice. A refusal or an unreachable Stripe is 502
 * PAYMENT_PROVIDER_ERROR; its detail never carries a key or Stripe's own message (which may).
 */
import Stripe from 'stripe';
import { AppError } from '../../lib/app-error.js';
import { BoundedMap } from '../../lib/bounded-map.js';

export type Intent = Stripe.PaymentIntent;

export interface StripeCalls {
  createIntent(params: Stripe.PaymentIntentCreateParams, idempotencyKey: string): Promise<Intent>;
  retrieveIntent(id: string): Promise<Intent>;
  cancelIntent(id: string, idempotencyKey: string): Promise<Intent>;
  captureIntent(id: string, idempotencyKey: string): Promise<Intent>;
  refund(intentId: string, amount: number, idempotencyKey: string): Promise<Stripe.Refund>;
}

/**
 * One SDK client per secret key (the SDK keeps its connections), for the 1,000 keys last used: a
 * forgotten one is only made again.
 */
export class StripeClients {
  private readonly clients = new BoundedMap<string, Stripe>(1_000);

  constructor(private readonly apiUrl: URL, private readonly timeoutMs = 10_000) {}

  for(secretKey: string): StripeCalls {
    let client = this.clients.get(secretKey);
    if (!client) {
      client = new Stripe(secretKey, {
        host: this.apiUrl.hostname,
        port: this.apiUrl.port || (this.apiUrl.protocol === 'http:' ? 80 : 443),
        protocol: this.apiUrl.protocol === 'http:' ? 'http' : 'https',
        timeout: this.timeoutMs,
        // A retry reuses the call's idempotency key: Stripe answers it once.
        maxNetworkRetries: 1,
        telemetry: false,
      });
      this.clients.set(secretKey, client);
    }
    const stripe = client;
    return {
      createIntent: (params, idempotencyKey) => call(() => stripe.paymentIntents.create(params, { idempotencyKey })),
      retrieveIntent: (id) => call(() => stripe.paymentIntents.retrieve(id)),
      cancelIntent: (id, idempotencyKey) => call(() => stripe.paymentIntents.cancel(id, {}, { idempotencyKey })),
      captureIntent: (id, idempotencyKey) => call(() => stripe.paymentIntents.capture(id, {}, { idempotencyKey })),
      refund: (intentId, amount, idempotencyKey) => call(() => stripe.refunds.create({ payment_intent: intentId, amount }, { idempotencyKey })),
    };
  }
}

/** Stripe's error, kept only as its type and code (the message may quote a key). */
export class ProviderRefusal extends AppError {
  constructor(readonly stripeCode: string | undefined, kind: string) {
    super('PAYMENT_PROVIDER_ERROR', 'the payment provider refused the request or could not be reached', { cause: `stripe ${kind}${stripeCode ? ` ${stripeCode}` : ''}` });
  }
}

async function call<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const e = error as { type?: string; code?: string };
    throw new ProviderRefusal(typeof e.code === 'string' ? e.code : undefined, typeof e.type === 'string' ? e.type : 'error');
  }
}
