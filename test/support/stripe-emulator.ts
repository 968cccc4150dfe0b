/**
 * A Stripe stand-in for the tests: an HTTP server that answers what the service calls (payment
 * intents: create with idempotency keys, retrieve, cancel, capture; refunds), typed with the SDK's
 * own types, and that makes the webhooks Stripe would send, signed as Stripe signs them
 * (`webhooks.generateTestHeaderString`). Switches: declines, errors, timeouts, and the delivery of
 * events delayed, repeated or reordered. It keeps a record of every intent, capture and refund, so
 * a test checks what money moved, not only what the service says.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';

export interface Delivery {
  body: string;
  headers: Record<string, string>;
}

/** What the next calls of a kind do instead of succeeding. */
export type Fault = 'api_error' | 'card_declined' | 'timeout';

export class StripeEmulator {
  readonly intents = new Map<string, Stripe.PaymentIntent>();
  readonly refunds: Stripe.Refund[] = [];
  readonly captures: string[] = [];
  /** Calls as they arrived: `POST /v1/payment_intents`, ... */
  readonly calls: string[] = [];
  /** Secret keys that authenticate; any other is 401. */
  readonly keys = new Set<string>();
  private readonly answered = new Map<string, { status: number; body: unknown }>();
  private readonly faults: Array<{ path: RegExp; fault: Fault }> = [];
  private readonly intercepts: Array<{ path: RegExp; action: () => void }> = [];
  private server: Server | undefined;
  private hung: ServerResponse[] = [];
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.hung) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** The next call whose path matches fails this way (once). */
  failNext(path: RegExp, fault: Fault): void {
    this.faults.push({ path, fault });
  }

  /**
   * The next call whose path matches is done at Stripe (recorded, its idempotency key kept), then
   * `action` runs (a test kills the service here) and no answer is sent.
   */
  afterNext(path: RegExp, action: () => void): void {
    this.intercepts.push({ path, action });
  }

  /** The shopper pays with Stripe.js: the intent succeeds (or is authorized, or declined) at Stripe. */
  pay(intentId: string, outcome: 'succeed' | 'decline' = 'succeed'): Stripe.PaymentIntent {
    const intent = this.intents.get(intentId)!;
    if (outcome === 'decline') {
      intent.status = 'requires_payment_method';
      intent.last_payment_error = { type: 'card_error', code: 'card_declined', message: 'Your card was declined.' } as Stripe.PaymentIntent.LastPaymentError;
    } else if (intent.capture_method === 'manual') {
      intent.status = 'requires_capture';
      intent.amount_capturable = intent.amount;
    } else {
      intent.status = 'succeeded';
      intent.amount_received = intent.amount;
    }
    return structuredClone(intent);
  }

  /** A Stripe event of the intent as it is now (or as given). */
  event(type: Stripe.Event['type'], object: Stripe.PaymentIntent | Stripe.Charge): Stripe.Event {
    return {
      id: `evt_${randomBytes(12).toString('hex')}`,
      object: 'event',
      api_version: '2025-01-27',
      created: Math.floor(Date.now() / 1000),
      data: { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    } as unknown as Stripe.Event;
  }

  /** The charge.refunded event of an intent's refunds so far. */
  chargeRefunded(intentId: string): Stripe.Event {
    const intent = this.intents.get(intentId)!;
    const refunded = this.refunds.filter((r) => r.payment_intent === intentId).reduce((sum, r) => sum + r.amount, 0);
    const charge = { id: `ch_${intentId}`, object: 'charge', amount: intent.amount, amount_refunded: refunded, payment_intent: intentId, refunded: refunded === intent.amount } as unknown as Stripe.Charge;
    return this.event('charge.refunded', charge);
  }

  /** Signed as Stripe signs: `Stripe-Signature: t=...,v1=...` over "t.body" with the endpoint's secret. */
  sign(event: Stripe.Event, secret: string, options: { timestamp?: number; body?: string } = {}): Delivery {
    const body = options.body ?? JSON.stringify(event);
    const header = Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: options.timestamp ?? Math.floor(Date.now() / 1000) });
    return { body, headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': header } };
  }

  /**
   * Deliveries as Stripe may make them: each event `repeat` times, in the given order or
   * `reversed`, each after `delayMs`, all at once (`concurrent`) or one after another.
   */
  async deliver(
    send: (delivery: Delivery) => Promise<{ status: number }>,
    events: Stripe.Event[],
    secret: string,
    options: { repeat?: number; reversed?: boolean; delayMs?: number; concurrent?: boolean } = {},
  ): Promise<number[]> {
    const ordered = options.reversed ? [...events].reverse() : events;
    const all = ordered.flatMap((e) => Array.from({ length: options.repeat ?? 1 }, () => this.sign(e, secret)));
    const one = async (d: Delivery) => {
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      return (await send(d)).status;
    };
    if (options.concurrent) return Promise.all(all.map(one));
    const statuses: number[] = [];
    for (const d of all) statuses.push(await one(d));
    return statuses;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const params = parseForm(Buffer.concat(chunks).toString('utf8'));
    const url = new URL(req.url ?? '/', 'http://x');
    const call = `${req.method} ${url.pathname}`;
    this.calls.push(call);
    const key = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!this.keys.has(key)) return send(res, 401, { error: { type: 'invalid_request_error', message: `Invalid API Key provided: ${key.slice(0, 8)}****` } });
    const faultAt = this.faults.findIndex((f) => f.path.test(call));
    if (faultAt >= 0) {
      const fault = this.faults.splice(faultAt, 1)[0]!.fault;
      if (fault === 'timeout') {
        this.hung.push(res);
        return;
      }
      if (fault === 'card_declined') return send(res, 402, { error: { type: 'card_error', code: 'card_declined', message: 'Your card was declined.' } });
      return send(res, 500, { error: { type: 'api_error', message: 'Something went wrong on our end.' } });
    }
    const idempotencyKey = req.headers['idempotency-key'];
    const remembered = typeof idempotencyKey === 'string' ? this.answered.get(`${key}:${idempotencyKey}`) : undefined;
    if (remembered) return send(res, remembered.status, remembered.body);
    const [status, body] = this.answer(req.method ?? 'GET', url.pathname, params);
    if (typeof idempotencyKey === 'string' && req.method === 'POST') this.answered.set(`${key}:${idempotencyKey}`, { status, body });
    const interceptAt = this.intercepts.findIndex((i) => i.path.test(call));
    if (interceptAt >= 0) {
      this.intercepts.splice(interceptAt, 1)[0]!.action();
      this.hung.push(res);
      return;
    }
    send(res, status, body);
  }

  private answer(method: string, path: string, params: Record<string, unknown>): [number, unknown] {
    const unexpected = (message: string): [number, unknown] => [400, { error: { type: 'invalid_request_error', code: 'payment_intent_unexpected_state', message } }];
    if (method === 'POST' && path === '/v1/payment_intents') {
      const id = `pi_${randomBytes(12).toString('hex')}`;
      const intent = {
        id, object: 'payment_intent', amount: Number(params.amount), amount_received: 0, amount_capturable: 0, currency: String(params.currency),
        capture_method: params.capture_method === 'manual' ? 'manual' : 'automatic', client_secret: `${id}_secret_${randomBytes(8).toString('hex')}`,
        created: Math.floor(Date.now() / 1000), last_payment_error: null, livemode: false, metadata: (params.metadata ?? {}) as Record<string, string>,
        status: 'requires_payment_method',
      } as unknown as Stripe.PaymentIntent;
      this.intents.set(id, intent);
      return [200, intent];
    }
    const m = /^\/v1\/payment_intents\/([^/]+)(?:\/(cancel|capture))?$/.exec(path);
    if (m) {
      const intent = this.intents.get(m[1]!);
      if (!intent) return [404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such payment_intent' } }];
      if (method === 'GET') return [200, intent];
      if (m[2] === 'cancel') {
        if (intent.status === 'succeeded' || intent.status === 'canceled') return unexpected(`This PaymentIntent's status is ${intent.status}`);
        intent.status = 'canceled';
        return [200, intent];
      }
      if (m[2] === 'capture') {
        if (intent.status !== 'requires_capture') return unexpected(`This PaymentIntent's status is ${intent.status}`);
        intent.status = 'succeeded';
        intent.amount_received = intent.amount;
        this.captures.push(intent.id);
        return [200, intent];
      }
    }
    if (method === 'POST' && path === '/v1/refunds') {
      const intent = this.intents.get(String(params.payment_intent));
      if (!intent || intent.status !== 'succeeded') return unexpected('This PaymentIntent has no charge to refund');
      const already = this.refunds.filter((r) => r.payment_intent === intent.id).reduce((sum, r) => sum + r.amount, 0);
      const amount = params.amount === undefined ? intent.amount_received - already : Number(params.amount);
      if (amount + already > intent.amount_received) return [400, { error: { type: 'invalid_request_error', code: 'charge_already_refunded', message: 'already refunded' } }];
      const refund = { id: `re_${randomBytes(12).toString('hex')}`, object: 'refund', amount, payment_intent: intent.id, status: 'succeeded', currency: intent.currency } as unknown as Stripe.Refund;
      this.refunds.push(refund);
      return [200, refund];
    }
    return [404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path})` } }];
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${randomBytes(6).toString('hex')}` });
  res.end(JSON.stringify(body));
}

/** Stripe's form encoding: `metadata[store]=s` becomes `{metadata: {store: 's'}}`. */
function parseForm(body: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    const nested = /^([^[]+)\[([^\]]+)\]$/.exec(name);
    if (nested) ((out[nested[1]!] ??= {}) as Record<string, string>)[nested[2]!] = value;
    else out[name] = value;
  }
  return out;
}
