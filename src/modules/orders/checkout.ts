/**
 * Placing orders, fast under contention. A transaction locks the products it needs (in id order),
 * decides every order in memory against the locked stock, then writes them all in one statement
 * (stock, orders, lines, carts, idempotent answers) and commits: a product row stays locked for
 * one statement and the commit. Orders of a store that arrive while such a transaction runs are
 * combined into the next one, whatever their products (a flash sale, or a busy store's checkout,
 * commits once per round, not once per order), each still all or nothing, decided in arrival
 * order, with its own answer, idempotency record and `order.created` event.
 * Stock can never go below zero, whatever the concurrency or the number of processes.
 */
import { randomUUID } from 'node:crypto';
import type { Database, Executor } from '../../db/client.js';
import type { ProductSnapshot } from '../../db/schema.js';
import { AppError } from '../../plugins/errors.js';
import { KeyedBatcher, type Outcome } from '../../lib/keyed-batcher.js';
import { toIso } from '../../lib/time.js';
import * as addresses from '../addresses/repository.js';
import * as cartsRepo from '../carts/repository.js';
import { sumLines } from '../carts/service.js';
import { assertCartPending } from '../carts/state.js';
import { totals } from '../carts/views.js';
import { productFieldsView } from '../catalog/views.js';
import type { IdempotencyClaim } from '../idempotency/plugin.js';
import { recordOrdersPlaced } from './events.js';
import * as repo from './repository.js';
import type { CreateOrderBody, OrderView } from './schemas.js';
import { orderView } from './views.js';

interface StockProblem {
  productId: string;
  code: 'PRODUCT_UNAVAILABLE' | 'INSUFFICIENT_STOCK';
  requested: number;
  available: number;
}

/** One order to place: who, where to, what (summed by product), and its idempotency claim. */
interface OrderRequest {
  store: string;
  customerId: string;
  addressId: string;
  cartId: string | null;
  lines: Map<string, number>;
  claim: IdempotencyClaim | null;
}

type Placed = { order: OrderView };

function refusal(problems: StockProblem[]): AppError {
  const short = problems.every((p) => p.code === 'INSUFFICIENT_STOCK');
  const detail = short
    ? `not enough stock for ${problems.length} product(s)`
    : `${problems.filter((p) => p.code === 'PRODUCT_UNAVAILABLE').length} product(s) are not available`;
  return new AppError(short ? 'INSUFFICIENT_STOCK' : 'PRODUCT_UNAVAILABLE', detail, { errors: problems });
}

/** Refuses a body with both or neither of `id` and `products`, with a detail that says so. */
export function assertOneSource(body: unknown): void {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  if ((fields.id === undefined) === (fields.products === undefined)) {
    throw new AppError('VALIDATION_FAILED', 'send exactly one of `id` (a cart) and `products`', {
      errors: [{ field: 'body', message: 'exactly one of id and products is required' }],
    });
  }
}

export class Checkout {
  /** Orders of a product list, combined per store. */
  private readonly batcher = new KeyedBatcher<OrderRequest, Placed>((requests) => this.db.transaction((tx) => this.placeAll(tx, requests)));

  constructor(private readonly db: Database) {}

  /** Places an order from a cart or a product list; all or nothing. */
  async placeOrder(store: string, customerId: string, body: CreateOrderBody, claim: IdempotencyClaim | null): Promise<Placed> {
    assertOneSource(body);
    const request = { store, customerId: customerId.toLowerCase(), addressId: body.address.toLowerCase(), claim };
    if (body.id !== undefined) {
      const cartId = body.id;
      return this.db.transaction(async (tx) => {
        const cart = await cartsRepo.lockCart(tx, store, cartId);
        if (!cart) throw new AppError('NOT_FOUND', `cart ${cartId} not found`);
        assertCartPending(cart.status, cart.id);
        const lines = await cartsRepo.cartLines(tx, store, cart.id);
        return unwrap((await this.placeAll(tx, [{ ...request, cartId: cart.id, lines: new Map(lines.map((l) => [l.id, l.lineQuantity])) }]))[0]!);
      });
    }
    const lines = sumLines(body.products ?? []);
    return this.batcher.submit(store, { ...request, cartId: null, lines });
  }

  /** Decides each order in turn against its address and the locked stock, then writes the accepted ones at once. */
  private async placeAll(tx: Executor, requests: OrderRequest[]): Promise<Array<Outcome<Placed>>> {
    const store = requests[0]!.store;
    // Addresses are never changed through the API and a deleted one stays deleted: no lock needed.
    const found = await addresses.findAddresses(tx, store, [...new Set(requests.map((r) => r.addressId))]);
    const ids = [...new Set(requests.flatMap((r) => [...r.lines.keys()]))].sort();
    const products = await repo.lockProducts(tx, store, ids);
    const stock = new Map([...products.values()].map((p) => [p.id, p.quantity]));
    const writes: repo.OrderWrites = { stock: [], orders: [], lines: [], keys: [], carts: [] };
    const outcomes = requests.map((request): Outcome<Placed> => {
      const address = found.get(request.addressId);
      if (!address || address.customerId !== request.customerId || address.deletedAt) {
        return { ok: false, error: new AppError('ADDRESS_NOT_FOUND', `address ${request.addressId} is not an address of customer ${request.customerId}`) };
      }
      const problems: StockProblem[] = [];
      const lineIds = [...request.lines.keys()].sort();
      for (const id of lineIds) {
        const requested = request.lines.get(id)!;
        const product = products.get(id);
        if (!product?.visible) problems.push({ productId: id, code: 'PRODUCT_UNAVAILABLE', requested, available: 0 });
        else if (stock.get(id)! < requested) problems.push({ productId: id, code: 'INSUFFICIENT_STOCK', requested, available: stock.get(id)! });
      }
      if (problems.length > 0) return { ok: false, error: refusal(problems) };
      const snapshots = lineIds.map((id) => {
        const quantity = request.lines.get(id)!;
        stock.set(id, stock.get(id)! - quantity);
        // The product as ordered: its quantity is the stock left right after this order.
        return { product: { ...productFieldsView(products.get(id)!), quantity: stock.get(id)! } as ProductSnapshot, quantity };
      });
      const order = this.record(writes, request, address, snapshots, products.get(lineIds[0]!)!.now);
      return { ok: true, value: order };
    });
    if (writes.orders.length > 0) {
      writes.stock = [...stock].filter(([id, left]) => products.get(id)!.quantity !== left).map(([id, left]) => ({ id, taken: products.get(id)!.quantity - left }));
      const written = await repo.writeOrders(tx, store, writes);
      // Cannot happen while the rows are locked; the guards are what make overselling impossible regardless.
      if (written.products !== writes.stock.length) throw new AppError('SERVICE_UNAVAILABLE', 'the stock changed under a lock; retry');
      if (written.carts !== writes.carts.length) throw new AppError('CART_NOT_PENDING', 'the cart is no longer PENDING');
      await recordOrdersPlaced(tx, store, outcomes.flatMap((o) => (o.ok ? [o.value.order] : [])));
    }
    return outcomes;
  }

  /** Adds one accepted order to the writes and answers it as the API shows it. */
  private record(writes: repo.OrderWrites, request: OrderRequest, address: addresses.AddressRow, snapshots: Array<{ product: ProductSnapshot; quantity: number }>, now: Date): Placed {
    const id = randomUUID();
    const sum = totals(snapshots.map((s) => ({ price: s.product.price, originalPrice: s.product.originalPrice, quantity: s.quantity })));
    const lines = snapshots.map((s) => ({ orderId: id, product: s.product, quantity: s.quantity, linePrice: s.product.price * s.quantity }));
    const row = { id, store: request.store, customerId: request.customerId, addressId: address.id, status: 'CREATED' as const, ...sum, createdAt: now, updatedAt: null, deletedAt: null };
    const placed = { order: orderView(row, lines, address) };
    writes.orders.push({ id, customer_id: row.customerId, address_id: row.addressId, cart_id: request.cartId, price: sum.price, original_price: sum.originalPrice, created_at: toIso(now) });
    for (const l of lines) writes.lines.push({ order_id: id, product_id: l.product.id, quantity: l.quantity, unit_price: l.product.price, line_price: l.linePrice, product: l.product });
    if (request.claim) writes.keys.push({ caller: request.claim.caller, key: request.claim.key, body: JSON.stringify(placed) });
    if (request.cartId) writes.carts.push({ id: request.cartId, customer_id: row.customerId, address_id: row.addressId });
    return placed;
  }
}

function unwrap(outcome: Outcome<Placed>): Placed {
  if (outcome.ok) return outcome.value;
  throw outcome.error;
}
