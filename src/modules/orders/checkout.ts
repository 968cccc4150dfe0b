/**
 * Placing orders, fast under contention. The orders that arrive while a round of orders runs make
 * the next round (plugins/commands.ts): one transaction, whatever their stores, their
 * products and whether they come from a cart or a product list. The round locks its carts with
 * their lines, then its products (each in (store, id) order), decides each store's orders in
 * arrival order against that store's locked stock (pricing's StockLedger), and writes the accepted
 * ones with one set-based statement over all its stores, each module's part its own CTEs: stock
 * (catalog), orders and lines (here), carts (carts), code uses (discounts). So a flash sale, a busy
 * store's checkout or a thousand quiet stores' orders commit once per round, not once per order or
 * per store, and each order is still all or nothing with its own answer. Stock never goes below
 * zero, whatever the concurrency or the number of processes; a cart becomes at most one order.
 */
import { timeOrderedId } from '../../lib/time-ordered-id.js';
import { CLIENT_LOCK_CLASS, lockStoresClients, parts, together, type Executor } from '../../db/client.js';
import type { ProductSnapshot } from '../../db/schema.js';
import { AppError } from '../../lib/app-error.js';
import type { Outcome } from '../../lib/keyed-batcher.js';
import type { RoundJob, StoreJobs } from '../../plugins/commands.js';
import { storesAddressesPart, type AddressRow } from '../addresses/index.js';
import { assertCartPending, completeStoresCarts, lockStoresCartsForOrders, type OrderableCart } from '../carts/index.js';
import { lockStoresSellableProducts, productFieldsView, recordStockCrossing, takeStoresStock, type SellableProduct } from '../catalog/index.js';
import { countedUses, discountsForStoresRoundPart, type RoundDiscounts } from '../discounts/index.js';
import { holdsOfStoresPart } from '../holds/index.js';
import { assertWithinLimits, checkoutTotals, discountEligible, isCountryCode, DiscountLedger, linePrice, orderRefusalError, StockLedger, sumLines, totals } from '../pricing/index.js';
import { decideOrderDiscount, discountWanted } from './discount.js';
import { decideOrderShipping, storesRoundCheckoutPart, type RoundCheckout } from './shipping.js';
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
  return (await placeStoresOrders(tx, [{ store, jobs }], policy))[0]!;
}

/** What a round reads of one of its stores, under the round's locks. */
interface StoreReads {
  store: string;
  requests: OrderRequest[];
  /** The client addresses whose unpaid orders are counted (none without UNPAID_ORDERS_PER_CLIENT). */
  counted: string[];
  unpaid: Map<string, number>;
  carts: Map<string, OrderableCart>;
  addresses: Map<string, AddressRow>;
  products: Map<string, SellableProduct>;
  now: Date;
  stock: StockLedger;
  discounts: RoundDiscounts;
  checkout: RoundCheckout;
}

const cartIdsOf = (requests: OrderRequest[]) => [...new Set(requests.flatMap((r) => (r.cartId ? [r.cartId] : [])))];
const linesFrom = (carts: Map<string, OrderableCart>) => (r: OrderRequest) => (r.cartId ? (carts.get(r.cartId)?.lines ?? new Map<string, number>()) : r.lines);

/**
 * Decides and writes a round of orders of one store or several (the stores sorted): each read and
 * each write is one statement over all the round's stores, its row locks in (store, id) order, kind
 * by kind (carts, then products, then codes, then the stores' order number counters), as every round takes them; each store's orders are
 * still decided on their own, against their store's rows only. One list of outcomes per store.
 */
export async function placeStoresOrders(tx: Executor, stores: Array<StoreJobs<OrderRequest>>, policy: OrderPolicy): Promise<Array<Array<Outcome<Placed>>>> {
  const rounds = stores.map(({ store, jobs }) => {
    const requests = jobs.map((j) => j.job);
    const counted = policy.unpaidPerClient > 0 ? [...new Set(requests.flatMap((r) => (r.client === null ? [] : [r.client])))] : [];
    return { store, requests, counted };
  });
  // What each client address has unpaid, under its advisory lock (first, before any row lock), so the
  // count holds across processes until the round commits.
  const clients = rounds.map((r) => ({ store: r.store, clients: r.counted }));
  await lockStoresClients(tx, CLIENT_LOCK_CLASS.unpaidOrders, clients);
  const unpaid = await repo.unpaidByStoresClients(tx, clients);
  // Addresses are never changed through the API and a deleted one stays deleted: no lock needed, and
  // they are read with the carts' lines, after the carts' lock.
  const { carts, beside: addresses } = await lockStoresCartsForOrders(
    tx,
    rounds.map((r) => ({ store: r.store, ids: cartIdsOf(r.requests) })),
    storesAddressesPart(rounds.map((r) => ({ store: r.store, ids: [...new Set(r.requests.map((q) => q.addressId))] }))),
  );
  const cartsOf = (store: string) => carts.get(store) ?? new Map<string, OrderableCart>();
  const addressesOf = (store: string) => addresses.get(store) ?? new Map<string, AddressRow>();
  const { products, now } = await lockStoresSellableProducts(tx, rounds.map((r) => ({ store: r.store, ids: [...new Set(r.requests.flatMap((q) => [...linesFrom(cartsOf(r.store))(q).keys()]))] })));
  const productsOf = (store: string) => products.get(store) ?? new Map<string, SellableProduct>();
  // One round trip after the products' lock, for what the round reads that depends on none of the
  // others: the holds (units under other carts' unexpired holds are not for these orders; a held
  // cart's own are), the codes (read; those limited or once per customer are then locked, after the
  // products, and read again) and what the orders are priced with.
  const [held, finishDiscounts, checkouts] = await together(tx, parts([
    holdsOfStoresPart(rounds.map((r) => ({ store: r.store, productIds: [...productsOf(r.store).keys()], cartIds: [...cartsOf(r.store).keys()] }))),
    discountsForStoresRoundPart(rounds.map((r) => {
      const storeCarts = cartsOf(r.store);
      return { store: r.store, wanted: discountWanted(r.requests, (q) => storeCarts.get(q.cartId!)?.discountId ?? null, linesFrom(storeCarts)) };
    })),
    storesRoundCheckoutPart(rounds.map((r) => ({ store: r.store, countries: [...addressesOf(r.store).values()].map((a) => a.country) }))),
  ] as const));
  const discounts = await finishDiscounts(tx);
  const decided = rounds.map((r) =>
    decideOrders({
      ...r, unpaid: unpaid.get(r.store) ?? new Map(), carts: cartsOf(r.store), addresses: addressesOf(r.store), products: productsOf(r.store), now,
      stock: new StockLedger(productsOf(r.store), held.get(r.store) ?? []), discounts: discounts.get(r.store)!, checkout: checkouts.get(r.store)!,
    }, policy),
  );
  const orders = decided.flatMap((d) => d.accepted.map((a) => ({ ...a.row, store: d.reads.store })));
  // None accepted: every outcome is a refusal.
  if (orders.length === 0) return decided.map((d) => d.outcomes as Array<Outcome<Placed>>);
  const takes = decided.flatMap((d) => d.reads.stock.taken().map((t) => ({ ...t, store: d.reads.store })));
  const completed = completeStoresCarts(orders.flatMap((o) => (o.cartId ? [{ store: o.store, id: o.cartId, customerId: o.customerId, addressId: o.addressId, held: cartsOf(o.store).get(o.cartId)!.held }] : [])));
  const uses = countedUses(decided.flatMap((d) => d.usage.used().map((u) => ({ ...u, store: d.reads.store }))));
  await uses.lock(tx);
  // One statement writes the round: the orders (numbered as they are written, each store's in
  // arrival order), the stock they take, the carts they complete and the codes' uses. The rows it
  // locks that the round had not, each from there to the commit: the stores' number counters (in
  // store order, the last kind) and a counted code's row.
  const numbers = await repo.insertStoresOrders(tx, orders, decided.flatMap((d) => d.accepted.flatMap((a) => a.snapshots.map((l) => ({ ...l, store: d.reads.store })))),
    [takeStoresStock(takes), ...(completed.write ? [completed.write] : []), ...(uses.write ? [uses.write] : [])]);
  await completed.endHolds(tx);
  const placed = decided.map(({ reads, accepted, outcomes }) => {
    const views = accepted.map((a) => ({
      view: orderView({ ...a.row, store: reads.store, number: numbers.get(a.row.id)!, status: 'CREATED', updatedAt: null, deletedAt: null }, a.snapshots, a.address, [], [], []),
      job: a.job,
    }));
    return { reads, views, outcomes: outcomes.map((o): Outcome<Placed> => (o.ok ? { ok: true, value: { order: views[o.value]!.view } } : o)) };
  });
  for (const [s, { views, reads }] of placed.entries()) {
    for (const { view, job } of views) {
      const { record } = stores[s]!.jobs[job]!;
      record('order.created', { order: view });
      // Each line shows the stock left right after its order: 0 means this order took the last unit.
      for (const line of view.products) if (line.quantity === 0) await recordStockCrossing(tx, record, reads.store, line.id, line.order.quantity, 0);
    }
  }
  return placed.map((p) => p.outcomes);
}

type Accepted = { row: Omit<repo.NewOrder, 'number'>; snapshots: repo.NewOrderLine[]; address: AddressRow; job: number };

/**
 * Decides a store's orders of a round in arrival order, against what the round read of that store:
 * the accepted ones take their stock and codes in the store's ledgers; a refused one takes nothing.
 */
function decideOrders(reads: StoreReads, policy: OrderPolicy): { reads: StoreReads; accepted: Accepted[]; outcomes: Array<Outcome<number>>; usage: DiscountLedger } {
  const { requests, counted, unpaid, carts, addresses, products, now, stock, discounts, checkout } = reads;
  const linesOf = linesFrom(carts);
  const usage = new DiscountLedger(discounts.usedBy);
  const ordered = new Set<string>();
  const accepted: Accepted[] = [];
  const outcomes = requests.map((request, job): Outcome<number> => {
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
      const id = timeOrderedId();
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
  return { reads, accepted, outcomes, usage };
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
