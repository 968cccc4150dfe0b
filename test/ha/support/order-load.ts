/**
 * Orders with Idempotency-Key from many concurrent clients, as careful shops send them: every
 * request is retried with its key after a 503 or a dropped connection until it is answered 201.
 * A key answered 409 "still running" (its first request was cut by the failover while it held the
 * key) is retried every second in the background while the client goes on with new orders. Keeps
 * every attempt, for the checks and the figures of the HA tests.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ROOT_TOKEN } from '../../support/app.js';
import { call } from '../../support/server-process.js';
import { ADDRESS } from '../../support/shop.js';

export interface Shop {
  admin: string;
  server: string;
  customer: string;
  addressId: string;
  products: Array<{ id: string; initial: number }>;
}

export interface Attempt {
  sentAt: number;
  answeredAt: number;
  /** 0: no answer (the connection to the service failed). */
  status: number;
  code?: string;
  orderId?: string;
}

export interface Order {
  key: string;
  body: { address: string; products: Array<{ id: string; quantity: number }> };
  attempts: Attempt[];
  orderId?: string;
  /** Retried in the background after a 409 "still running". */
  parked?: boolean;
}

const SETTLE_MS = 150_000;

export async function setUpShop(base: string, stock: number[]): Promise<Shop> {
  const slug = `ha-${randomUUID().slice(0, 8)}`;
  const created = await call(base, 'POST', '/v1/admin/stores', { token: ROOT_TOKEN, body: { slug } });
  assert.equal(created.status, 201, created.text);
  const admin = created.json.tokens.admin as string;
  const server = (await call(base, 'POST', '/v1/admin/tokens', { token: admin, body: { kind: 'server' } })).json.secret as string;
  const products = [];
  for (const quantity of stock) {
    const p = await call(base, 'POST', '/v1/admin/products', {
      token: admin,
      body: { name: 'P', slug: `p-${randomUUID().slice(0, 8)}`, sku: 'S', price: 10, quantity, status: 'ACTIVE' },
    });
    assert.equal(p.status, 201, p.text);
    products.push({ id: p.json.product.id as string, initial: quantity });
  }
  const customer = randomUUID();
  const address = await call(base, 'POST', `/v1/${customer}/addresses`, { token: server, body: { address: ADDRESS } });
  assert.equal(address.status, 201, address.text);
  return { admin, server, customer, addressId: address.json.address.id, products };
}

export class OrderLoad {
  readonly orders: Order[] = [];
  private stopping = false;
  private readonly clients: Array<Promise<void>> = [];
  private readonly parked: Array<Promise<void>> = [];

  constructor(
    private readonly shop: Shop,
    private readonly bases: string[],
  ) {}

  start(clients: number) {
    for (let c = 0; c < clients; c++) this.clients.push(this.client(c));
  }

  /** Stops starting new orders and waits until every started one is answered 201. */
  async stop() {
    this.stopping = true;
    await Promise.all(this.clients);
    await Promise.all(this.parked);
  }

  /** Sends one order's request again with its key (a client's late retry). */
  retry(order: Order) {
    return this.send(order, this.bases[0]!);
  }

  private async client(c: number) {
    for (let i = 0; !this.stopping; i++) {
      const product = this.shop.products[(c + i) % this.shop.products.length]!;
      const order: Order = {
        key: randomUUID(),
        body: { address: this.shop.addressId, products: [{ id: product.id, quantity: 1 + ((c + i) % 3) }] },
        attempts: [],
      };
      this.orders.push(order);
      await this.settle(order, this.bases[(c + i) % this.bases.length]!);
    }
  }

  private async settle(order: Order, base: string, deadline = Date.now() + SETTLE_MS) {
    for (;;) {
      const attempt = await this.send(order, base);
      order.attempts.push(attempt);
      if (attempt.status === 201) {
        order.orderId ??= attempt.orderId;
        return;
      }
      if (Date.now() > deadline) return;
      if (attempt.code === 'IDEMPOTENCY_KEY_IN_USE') {
        if (!order.parked) {
          order.parked = true;
          this.parked.push(this.settle(order, base, deadline));
          return;
        }
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      if (attempt.status !== 0 && attempt.status !== 503) return;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  private async send(order: Order, base: string): Promise<Attempt> {
    const sentAt = Date.now();
    try {
      const r = await call(base, 'POST', `/v1/${this.shop.customer}/orders`, {
        token: this.shop.server,
        headers: { 'idempotency-key': order.key },
        body: order.body,
      });
      return { sentAt, answeredAt: Date.now(), status: r.status, code: r.json?.code, orderId: r.json?.order?.id };
    } catch {
      return { sentAt, answeredAt: Date.now(), status: 0 };
    }
  }
}

/**
 * How long writes were refused: from the first answer that refused an order (503, or none) after
 * `from` to the first 201 of an order sent after that answer.
 */
export function refusedWindowMs(orders: Order[], from: number): number {
  const attempts = orders.flatMap((o) => o.attempts);
  const refusedAt = Math.min(...attempts.filter((a) => (a.status === 503 || a.status === 0) && a.answeredAt >= from).map((a) => a.answeredAt));
  const acceptedAt = Math.min(...attempts.filter((a) => a.status === 201 && a.sentAt > refusedAt).map((a) => a.answeredAt));
  return Number.isFinite(refusedAt) && Number.isFinite(acceptedAt) ? acceptedAt - refusedAt : 0;
}

/**
 * The longest time between two orders answered 201 from `from` to `until` (by answer time, while
 * new orders kept coming). Orders in flight at the event may still be answered 201 a moment later.
 */
export function longestGapMs(orders: Order[], from: number, until: number): { ms: number; start: number; end: number } {
  const times = orders
    .flatMap((o) => o.attempts)
    .filter((a) => a.status === 201 && a.answeredAt >= from && a.answeredAt <= until)
    .map((a) => a.answeredAt)
    .sort((a, b) => a - b);
  let gap = { ms: 0, start: from, end: from };
  for (let i = 1; i < times.length; i++) if (times[i]! - times[i - 1]! > gap.ms) gap = { ms: times[i]! - times[i - 1]!, start: times[i - 1]!, end: times[i]! };
  return gap;
}

/** Every stored order of the shop's customer: id and quantities by product. */
export async function storedOrders(base: string, shop: Shop) {
  const orders: Array<{ id: string; products: Array<{ id: string; order: { quantity: number } }> }> = [];
  for (let offset = 0; ; offset += 100) {
    const page = await call(base, 'GET', `/v1/${shop.customer}/orders?limit=100&offset=${offset}`, { token: shop.server });
    assert.equal(page.status, 200, page.text);
    orders.push(...page.json.orders);
    if (page.json.orders.length < 100) return orders;
  }
}

/**
 * The checks every failure test makes afterwards: each order answered 201 is stored exactly once,
 * a retry with its key answers the same order, and the stock adds up.
 */
export async function assertNothingLostOrDoubled(load: OrderLoad, shop: Shop, base: string) {
  const answered = load.orders.filter((o) => o.orderId);
  assert.equal(answered.length, load.orders.length, `${load.orders.length - answered.length} orders were never answered 201`);
  for (const order of answered) {
    const ids = new Set(order.attempts.filter((a) => a.status === 201).map((a) => a.orderId));
    assert.equal(ids.size, 1, `key ${order.key} was answered with two orders: ${[...ids].join(', ')}`);
  }
  assert.equal(new Set(answered.map((o) => o.orderId)).size, answered.length, 'two keys got the same order');

  const stored = await storedOrders(base, shop);
  const storedIds = new Set(stored.map((o) => o.id));
  const lost = answered.filter((o) => !storedIds.has(o.orderId!));
  assert.equal(lost.length, 0, `orders answered 201 but not stored: ${lost.map((o) => o.orderId).join(', ')}`);
  assert.equal(stored.length, answered.length, `${stored.length} orders stored for ${answered.length} keys: duplicates`);

  for (let i = 0; i < answered.length; i += 32) {
    await Promise.all(
      answered.slice(i, i + 32).map(async (order) => {
        const again = await load.retry(order);
        assert.equal(again.status, 201, `retry of ${order.key}: ${again.status} ${again.code ?? ''}`);
        assert.equal(again.orderId, order.orderId, `retry of ${order.key} answered another order`);
      }),
    );
  }
  assert.equal((await storedOrders(base, shop)).length, answered.length, 'the retries made no order');

  for (const product of shop.products) {
    const sold = stored.flatMap((o) => o.products).filter((p) => p.id === product.id).reduce((sum, p) => sum + p.order.quantity, 0);
    const left = (await call(base, 'GET', `/v1/admin/products/${product.id}`, { token: shop.admin })).json.product.quantity as number;
    assert.equal(sold + left, product.initial, `product ${product.id}: ${product.initial} in stock at first, ${sold} sold, ${left} left`);
  }
  return { orders: answered.length };
}

/** Answers by status (0: no answer), first attempts apart from retries. */
export function tally(orders: Order[]) {
  const first: Record<string, number> = {};
  const retries: Record<string, number> = {};
  for (const order of orders) {
    order.attempts.forEach((a, i) => {
      const name = a.status === 0 ? 'no answer' : a.code ? `${a.status} ${a.code}` : String(a.status);
      const counts = i === 0 ? first : retries;
      counts[name] = (counts[name] ?? 0) + 1;
    });
  }
  return { first, retries };
}
