/**
 * Placing orders, fast under contention. The orders of a store that arrive while a round of its
 * orders runs make the next round (plugins/commands.ts): one transaction, whatever their products
 * and whether they come from a cart or a product list. The round locks its carts (id order) with
 * their lines, then its products (id order), decides each order in arrival order against the
 * locked stock (pricing's StockLedger), and writes the accepted ones with a few set-based
 * statements, each module its own: stock (catalog), orders and lines (here), carts (carts). So a
 * flash sale, or a busy store's checkout, commits once per round, not once per order, and each
 * order is still all or nothing with its own answer. Stock never goes below zero, whatever the
 * concurrency or the number of processes; a cart becomes at most one order.
 */
import { randomUUID } from 'node:crypto';
import { CLIENT_LOCK_CLASS, lockClients, type Executor } from '../../db/client.js';
import type { ProductSnapshot } from '../../db/schema.js';
import { AppError } from '../../lib/app-error.js';
import type { Outcome } from '../../lib/keyed-batcher.js';
import type { RoundJob } from '../../plugins/commands.js';
import { findAddresses, type AddressRow } from '../addresses/index.js';
import { assertCartPending, completeCarts, lockCartsForOrders } from '../carts/index.js';
import { lockSellableProducts, productFieldsView, recordStockCrossing, takeStock } from '../catalog/index.js';
import { discountsForRound, countUses } from '../discounts/index.js';
import { holdsOf } from '../holds/index.js';
import { assertWithinLimits, checkoutTotals, discountEligible, isCountryCode, DiscountLedger, linePrice, orderRefusalError, StockLedger, sumLines, totals } from '../pricing/index.js';
import { takeOrderNumbers } from '../stores/index.js';
import { decideOrderDiscount, discountWanted } from './discount.js';
import { decideOrderShipping, roundCheckout } from './shipping.js';
import * as repo from './repository.js';
import type { CreateOrderBody, OrderView } from './schemas.js';
import { orderView } from './views.js';

/** One order to place: who, where to, and from a cart or a product list (summed by product). */
export interface OrderRequest {
  customerId: string;
  addressId: string;
  cartId: string | null;
  lines: Map<string, number>;
  /** A product-list order's code, as sent (an order from a cart uses the cart's). */
  discountCode: string | null;
  /** A product-list order's shipping option (an order from a cart uses the cart's). */
  shippingOptionId: string | null;
  /** The shopper's email, if the body gave one. */
  email: string | null;
  /** Placed with a guest session (its customer id is new with each session). */
  guest: boolean;
  /** The client address of a public caller (UNPAID_ORDERS_PER_CLIENT); null for secret tokens. */
  client: string | null;
}

/** UNPAID_ORDERS_PER_CLIENT: unpaid orders one client address may have per store; 0 = no limit. */
export interface OrderPolicy {
  unpaidPerClient: number;
}

type Placed = { order: OrderView };

/** Refuses a body with both or neither of `id` and `products`, with a detail that says so. */
export function assertOneSource(body: unknown): void {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  if (fields.id !== undefined && fields.shippingOption !== undefined) {
    throw new AppError('VALIDATION_FAILED', 'an order from a cart uses the cart\'s shipping: send `shippingOption` only with `products`', {
      errors: [{ field: '/shippingOption', message: 'is not allowed with id' }],
    });
  }
  if (fields.id !== undefined && fields.discountCode !== undefined) {
    throw new AppError('VALIDATION_FAILED', 'an order from a cart uses the cart\'s discount code: send `discountCode` only with `products`', {
      errors: [{ field: '/discountCode', message: 'is not allowed with id' }],
    });
  }
  if ((fields.id === undefined) === (fields.products === undefined)) {
    throw new AppError('VALIDATION_FAILED', 'send exactly one of `id` (a cart) and `products`', {
      errors: [{ field: 'body', message: 'exactly one of id and products is required' }],
    });
  }
}

/** The order a request body asks for (the schema and `assertOneSource` have checked it). */
export function orderRequestOf(customerId: string, body: CreateOrderBody, caller: { guest: boolean; client: string | null }): OrderRequest {
  const cartId = body.id === undefined ? null : body.id.toLowerCase();
  return {
    customerId: customerId.toLowerCase(), addressId: body.address.toLowerCase(), cartId, lines: sumLines(body.products ?? []), discountCode: body.discountCode ?? null,
    shippingOptionId: body.shippingOption?.toLowerCase() ?? null, email: body.email ?? null, ...caller,
  };
}

/** Decides and writes one round of a store's orders: one outcome per request, in arrival order. */
export async function placeOrders(tx: Executor, store: string, jobs: Array<RoundJob<OrderRequest>>, policy: OrderPolicy): Promise<Array<Outcome<Placed>>> {
  const requests = jobs.map((j) => j.job);
  // What each client address has unpaid, under its advisory lock (first, before any row lock), so the
  // count holds across processes until the round commits.
  const counted = policy.unpaidPerClient > 0 ? [...new Set(requests.flatMap((r) => (r.client === null ? [] : [r.client])))] : [];
  await lockClients(tx, CLIENT_LOCK_CLASS.unpaidOrders, store, counted);
  const unpaid = await repo.unpaidByClients(tx, store, counted);
  const carts = await lockCartsForOrders(tx, store, [...new Set(requests.flatMap((r) => (r.cartId ? [r.cartId] : [])))]);
  const linesOf = (r: OrderRequest) => (r.cartId ? (carts.get(r.cartId)?.lines ?? new Map<string, number>()) : r.lines);
  // Addresses are never changed through the API and a deleted one stays deleted: no lock needed.
  const addresses = await findAddresses(tx, store, [...new Set(requests.map((r) => r.addressId))]);
  const { products, now } = await lockSellableProducts(tx, store, [...new Set(requests.flatMap((r) => [...linesOf(r).keys()]))]);
  // Units under other carts' unexpired holds are not for these orders; a held cart's own are (holds module).
  const stock = new StockLedger(products, await holdsOf(tx, store, [...products.keys()], [...carts.keys()]));
  // Codes after the products (their locks come last): read, and locked when limited or once per customer.
  const discounts = await discountsForRound(tx, store, discountWanted(requests, (r) => carts.get(r.cartId!)?.discountId ?? null, linesOf));
  const usage = new DiscountLedger(discounts.usedBy);
  const checkout = await roundCheckout(tx, store, [...addresses.values()].map((a) => a.country));
  const ordered = new Set<string>();
  const accepted: Array<{ row: Omit<repo.NewOrder, 'number'>; snapshots: Parameters<typeof repo.insertOrders>[3]; address: AddressRow; job: number }> = [];
  const decided = requests.map((request, job): Outcome<number> => {
    try {
      if (request.cartId) {
        const cart = carts.get(request.cartId);
        if (!cart) throw new AppError('NOT_FOUND', `cart ${request.cartId} not found`);
        // An earlier order of this round took the cart: it is COMPLETED once the round commits.
        if (ordered.has(request.cartId)) throw new AppError('CART_NOT_PENDING', `cart ${request.cartId} is COMPLETED, not PENDING`);
        assertCartPending(cart.status, request.cartId);
      }
      const address = addresses.get(request.addressId);
      if (!address || address.customerId !== request.customerId || address.deletedAt) {
        throw new AppError('ADDRESS_NOT_FOUND', `address ${request.addressId} is not an address of customer ${request.customerId}`);
      }
      const wanted = linesOf(request);
      assertWithinLimits(products, wanted);
      const client = counted.length > 0 ? request.client : null;
      if (client !== null && (unpaid.get(client) ?? 0) >= policy.unpaidPerClient) throw tooManyUnpaid(policy.unpaidPerClient);
      // Decided before the stock is taken (and taken only after the stock can be had): a refused order takes nothing.
      const discount = decideOrderDiscount(request, request.cartId ? (carts.get(request.cartId)?.discountId ?? null) : null, discounts, usage, stock, products, wanted, now);
      const stockRefusals = [...wanted.keys()].sort().flatMap((productId) => stock.refusal(productId, wanted.get(productId)!, request.cartId) ?? []);
      if (stockRefusals.length > 0) throw orderRefusalError(stockRefusals);
      // In the cart's (or the body's) line order, as the cart answered: the discount's shares break ties by it.
      const priced = [...wanted].map(([productId, quantity]) => ({ product: products.get(productId)!, quantity, price: linePrice(products.get(productId)!, quantity) }));
      const sum = totals(priced.map((l) => ({ unit: l.product, quantity: l.quantity })));
      const discountTotal = discount?.applied.amount ?? 0;
      const optionId = request.cartId ? (carts.get(request.cartId)?.shippingOptionId ?? null) : request.shippingOptionId;
      const option = decideOrderShipping(optionId, checkout, address.country, sum.price - discountTotal);
      const destination = { country: isCountryCode(address.country) ? address.country.toUpperCase() : address.country, region: address.state };
      const priceTotals = checkoutTotals({
        price: sum.price,
        lines: priced.map((l) => ({ price: l.price, taxCategory: l.product.taxCategory ?? null, eligible: discount ? discountEligible(discount.rule, l.product.id) : false })),
        discount: discount?.applied ?? null,
        shipping: option ? { option, destination } : null,
        taxDestination: destination,
        rates: checkout.rates,
        pricesIncludeTax: checkout.settings.pricesIncludeTax,
      });
      const refusals = stock.take(wanted, request.cartId);
      if (refusals.length > 0) throw orderRefusalError(refusals);
      if (request.cartId) ordered.add(request.cartId);
      if (discount) usage.use(discount.rule, request);
      if (client !== null) unpaid.set(client, (unpaid.get(client) ?? 0) + 1);
      const id = randomUUID();
      const snapshots = [...wanted.keys()].sort().map((productId) => {
        const quantity = wanted.get(productId)!;
        // The product as ordered: its quantity is the stock left right after this order.
        const product = { ...productFieldsView(products.get(productId)!), quantity: stock.stockLeft(productId) } as ProductSnapshot;
        return { orderId: id, product, quantity, unitPrice: product.price, linePrice: linePrice(product, quantity) };
      });
      const row = {
        id, customerId: request.customerId, addressId: address.id, cartId: request.cartId, price: sum.price, originalPrice: sum.originalPrice,
        discountId: discount?.rule.id ?? null, discount: discount?.applied ?? null, discountTotal,
        email: request.email, clientAddress: request.client, currency: checkout.settings.currency, pricesIncludeTax: checkout.settings.pricesIncludeTax,
        shipping: priceTotals.shipping, shippingTotal: priceTotals.shippingTotal, taxLines: priceTotals.taxLines, taxTotal: priceTotals.taxTotal, createdAt: now,
      };
      accepted.push({ row, snapshots, address, job });
      return { ok: true, value: accepted.length - 1 };
    } catch (error) {
      return { ok: false, error };
    }
  });
  // Numbers for the accepted orders, in arrival order, with one statement and no row lock.
  const numbers = await takeOrderNumbers(tx, store, accepted.length);
  const orders = accepted.map((a, i) => ({ ...a.row, number: numbers[i]! }));
  const lines = accepted.flatMap((a) => a.snapshots);
  const placed = accepted.map((a, i) => ({ view: orderView({ ...orders[i]!, store, status: 'CREATED', updatedAt: null, deletedAt: null }, a.snapshots, a.address, [], [], []), job: a.job }));
  const outcomes = decided.map((o): Outcome<Placed> => (o.ok ? { ok: true, value: { order: placed[o.value]!.view } } : o));
  if (orders.length === 0) return outcomes;
  const takes = stock.taken();
  // Cannot happen while the rows are locked; the guards are what make overselling impossible regardless.
  if ((await takeStock(tx, store, takes)) !== takes.length) throw new AppError('SERVICE_UNAVAILABLE', 'the stock changed under a lock; retry');
  await repo.insertOrders(tx, store, orders, lines);
  await completeCarts(tx, store, orders.flatMap((o) => (o.cartId ? [{ id: o.cartId, customerId: o.customerId, addressId: o.addressId, held: carts.get(o.cartId)!.held }] : [])));
  // Last, so an unlimited code's row is locked only from here to the commit.
  await countUses(tx, store, usage.used());
  for (const { view, job } of placed) {
    const { record } = jobs[job]!;
    record('order.created', { order: view });
    // Each line shows the stock left right after its order: 0 means this order took the last unit.
    for (const line of view.products) if (line.quantity === 0) await recordStockCrossing(tx, record, store, line.id, line.order.quantity, 0);
  }
  return outcomes;
}

/**
 * 429 for a client address with as many unpaid orders as it may have. When one is paid or cancelled
 * (or the store's unpaid-order timeout cancels it) the place is free again; a minute is a fair retry.
 */
function tooManyUnpaid(limit: number): AppError {
  return new AppError('RATE_LIMITED', `this client already has ${limit} unpaid orders in this store, the most it may; pay or cancel one first`, {
    headers: { 'retry-after': '60' },
  });
}
