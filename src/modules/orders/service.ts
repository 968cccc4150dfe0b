/**
 * Placing and reading orders. One transaction does everything or nothing: it locks the cart (if
 * any) and then the products in id order, checks every line, takes the stock with guarded updates,
 * stores the order with a snapshot of each product, completes the cart, and keeps the idempotent
 * answer. Stock can never go below zero, whatever the concurrency or the number of processes.
 */
import type { Database, Executor } from '../../db/client.js';
import type { ProductSnapshot } from '../../db/schema.js';
import { AppError } from '../../plugins/errors.js';
import * as addresses from '../addresses/repository.js';
import * as cartsRepo from '../carts/repository.js';
import { sumLines } from '../carts/service.js';
import { assertCartPending } from '../carts/state.js';
import { totals } from '../carts/views.js';
import { productFieldsView } from '../catalog/views.js';
import { completeIdempotencyKey, type IdempotencyClaim } from '../idempotency/plugin.js';
import { bumpCatalogVersion } from '../stores/repository.js';
import * as repo from './repository.js';
import type { CreateOrderBody } from './schemas.js';
import { orderView } from './views.js';

interface StockProblem {
  productId: string;
  code: 'PRODUCT_UNAVAILABLE' | 'INSUFFICIENT_STOCK';
  requested: number;
  available: number;
}

/** The lines to order: the cart's (locked, PENDING) or the request's, summed by product. */
async function requestedLines(tx: Executor, store: string, body: CreateOrderBody): Promise<{ cartId: string | null; lines: Map<string, number> }> {
  if (body.id === undefined) return { cartId: null, lines: sumLines(body.products ?? []) };
  const cart = await cartsRepo.lockCart(tx, store, body.id);
  if (!cart) throw new AppError('NOT_FOUND', `cart ${body.id} not found`);
  assertCartPending(cart.status, cart.id);
  const lines = await cartsRepo.cartLines(tx, store, cart.id);
  return { cartId: cart.id, lines: new Map(lines.map((l) => [l.id, l.lineQuantity])) };
}

function refuse(problems: StockProblem[]): never {
  const short = problems.every((p) => p.code === 'INSUFFICIENT_STOCK');
  const detail = short
    ? `not enough stock for ${problems.length} product(s)`
    : `${problems.filter((p) => p.code === 'PRODUCT_UNAVAILABLE').length} product(s) are not available`;
  throw new AppError(short ? 'INSUFFICIENT_STOCK' : 'PRODUCT_UNAVAILABLE', detail, { errors: problems });
}

/** Places an order from a cart or a product list; all or nothing. */
export async function placeOrder(db: Database, store: string, customerId: string, body: CreateOrderBody, claim?: IdempotencyClaim | null) {
  if ((body.id === undefined) === (body.products === undefined)) {
    throw new AppError('VALIDATION_FAILED', 'send exactly one of `id` (a cart) and `products`', {
      errors: [{ field: 'body', message: 'exactly one of id and products is required' }],
    });
  }
  return db.transaction(async (tx) => {
    const address = await addresses.findCustomerAddress(tx, store, customerId, body.address);
    if (!address) throw new AppError('ADDRESS_NOT_FOUND', `address ${body.address} is not an address of customer ${customerId}`);
    const { cartId, lines } = await requestedLines(tx, store, body);
    const ids = [...lines.keys()].sort();
    const products = await repo.lockProducts(tx, store, ids);

    const problems: StockProblem[] = [];
    for (const id of ids) {
      const requested = lines.get(id)!;
      const product = products.get(id);
      if (!product || !product.visible) problems.push({ productId: id, code: 'PRODUCT_UNAVAILABLE', requested, available: 0 });
      else if (product.quantity < requested) problems.push({ productId: id, code: 'INSUFFICIENT_STOCK', requested, available: product.quantity });
    }
    if (problems.length > 0) refuse(problems);

    const snapshots: Array<{ product: ProductSnapshot; quantity: number }> = [];
    for (const id of ids) {
      const quantity = lines.get(id)!;
      const after = await repo.takeStock(tx, store, id, quantity);
      // Cannot happen while the row is locked; the guard is what makes overselling impossible regardless.
      if (!after) refuse([{ productId: id, code: 'INSUFFICIENT_STOCK', requested: quantity, available: products.get(id)!.quantity }]);
      snapshots.push({ product: productFieldsView(after), quantity });
    }
    const sum = totals(snapshots.map((s) => ({ price: s.product.price, originalPrice: s.product.originalPrice, quantity: s.quantity })));
    const order = await repo.insertOrder(tx, { store, customerId, addressId: address.id, cartId, ...sum });
    const lineRows = snapshots.map((s) => ({ product: s.product, quantity: s.quantity, linePrice: s.product.price * s.quantity }));
    for (const line of lineRows) await repo.insertOrderLine(tx, store, order.id, line);
    if (cartId && !(await repo.completeCart(tx, store, cartId, customerId, address.id))) {
      throw new AppError('CART_NOT_PENDING', `cart ${cartId} is no longer PENDING`);
    }
    const result = { order: orderView(order, lineRows.map((l) => ({ ...l, orderId: order.id })), address) };
    await completeIdempotencyKey(tx, claim, 201, result);
    // Stock and _count.orders changed; last, so the store row is held only while committing.
    await bumpCatalogVersion(tx, store);
    return result;
  });
}

/** Orders with their lines and addresses, in the order given. */
export async function renderOrders(db: Executor, store: string, orders: repo.OrderRow[]) {
  const ids = orders.map((o) => o.id);
  const [lines, addressRows] = await Promise.all([
    repo.orderLines(db, store, ids),
    addresses.findAddresses(db, store, [...new Set(orders.map((o) => o.addressId))]),
  ]);
  return orders.map((o) => orderView(o, lines.filter((l) => l.orderId === o.id), addressRows.get(o.addressId)!));
}

/** The customer's orders, newest first; `total` counts them all. */
export async function listCustomerOrders(db: Database, store: string, customerId: string, query: { limit?: number; offset?: number }) {
  const filter = { store, customerId };
  const page = { limit: query.limit ?? 50, offset: query.offset ?? 0 };
  const [rows, total] = await Promise.all([repo.listOrders(db, filter, page), repo.countOrders(db, filter)]);
  return { orders: await renderOrders(db, store, rows), total };
}

/** One order of the customer; another customer's order is 404. */
export async function getCustomerOrder(db: Database, store: string, customerId: string, id: string) {
  const order = await repo.findOrder(db, store, id);
  if (!order || order.customerId !== customerId.toLowerCase()) throw new AppError('NOT_FOUND', `order ${id} not found`);
  const [view] = await renderOrders(db, store, [order]);
  return { order: view! };
}
