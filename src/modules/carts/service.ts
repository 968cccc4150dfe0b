/**
 * Cart rules. Every change locks the cart row first, so concurrent changes to one cart are
 * serialized and never lose a line or a quantity. Carts do not reserve stock: a line is accepted
 * when the product is visible and what other carts do not hold covers the line's whole quantity at
 * that moment (the pricing module decides); only a checkout hold (holds.ts) keeps units, and a
 * change to the lines ends it. Creating carts and adding products, the busy writes, run in rounds of
 * a store's waiting requests (see plugins/commands.ts), each request still decided on its own.
 */
import { timeOrderedId } from '../../lib/time-ordered-id.js';
import { parts, together, type BesideWrite, type Executor, type Part } from '../../db/client.js';
import { AppError } from '../../lib/app-error.js';
import type { Outcome } from '../../lib/keyed-batcher.js';
import { findSellableProducts, findSellableProductsOfStores, type SellableProduct } from '../catalog/index.js';
import { assertWithinLimits, lineRefusalError, quantityLimitError, quantityLimitRefusals, StockLedger, type DiscountRule, type LineRefusal } from '../pricing/index.js';
import { endHoldsOfStores, holdsOf, holdsOfStoresPart } from '../holds/index.js';
import * as repo from './repository.js';
import { endHoldsOfChanged, endingHold, shownBy, shownProducts } from './holds.js';
import type { CartView, LineRequest, Warning } from './schemas.js';
import { assertCartPending, expiryFrom } from './state.js';
import { cartRulesOfStores, priced, pricedView, viewOf } from './answers.js';
import { cartView, type PricedLine } from './views.js';
import { cartCheckoutsPart, NO_DISCOUNT, type CartCheckout } from './checkout.js';

type Created = { cart: CartView; warnings?: Warning[] };
type Changed = { cart: CartView };

/** A line to add: which cart, which product, how many more. */
export interface Addition {
  cartId: string;
  productId: string;
  quantity: number;
}

const notFound = (id: string) => new AppError('NOT_FOUND', `cart ${id} not found`);

/** A non-deleted cart of the store, as it reads now. */
export async function getCart(db: Executor, store: string, id: string) {
  const cart = await repo.findCart(db, store, id);
  if (!cart) throw notFound(id);
  const lines = cart.deletedAt ? [] : ((await repo.linesOfCarts(db, store, [cart.id])).get(cart.id) ?? []);
  const { products, now } = await findSellableProducts(db, store, lines.map((l) => l.productId));
  return { cart: await viewOf(db, store, cart, priced(lines, await shownProducts(db, store, products)), now) };
}

/** One store's requests of a round (a round may combine several stores). */
export interface StoreRequests<T> {
  store: string;
  requests: T[];
}

/**
 * Creates each request's cart with its available lines; the others come back as warnings (none
 * available: 422). A new cart locks nothing: the products are read as of now.
 */
export async function createCarts(tx: Executor, store: string, requests: Array<Map<string, number>>, ttlSeconds: number): Promise<Array<Outcome<Created>>> {
  return (await createCartsOfStores(tx, [{ store, requests }], ttlSeconds))[0]!;
}

/**
 * `createCarts` for a round of one store or several: each read and the insert is one statement over
 * all the round's stores, and each request is decided against its own store's products and stock
 * only. One list of outcomes per store, in the order given.
 */
export async function createCartsOfStores(tx: Executor, stores: Array<StoreRequests<Map<string, number>>>, ttlSeconds: number): Promise<Array<Array<Outcome<Created>>>> {
  const { products, now } = await findSellableProductsOfStores(tx, stores.map(({ store, requests }) => ({ store, ids: [...new Set(requests.flatMap((r) => [...r.keys()]))] })));
  const [held, checkouts] = await together(tx, parts([
    holdsOfStoresPart(stores.map(({ store }) => ({ store, productIds: [...products.get(store)!.keys()] }))),
    cartCheckoutsPart(stores.map(({ store }) => ({ store, carts: [] }))),
  ] as const));
  const carts: Array<{ store: string; id: string; createdAt: Date; expiresAt: Date }> = [];
  const lines: Array<[string, string, string, number]> = [];
  const outcomes = stores.map(({ store, requests }) => {
    const mine = products.get(store)!;
    const decided = decideCreations(store, requests, mine, new StockLedger(mine, held.get(store)!), checkouts.get(store)!, now, ttlSeconds);
    carts.push(...decided.carts);
    lines.push(...decided.lines.map((l): [string, string, string, number] => [store, ...l]));
    return decided.outcomes;
  });
  if (carts.length > 0) await repo.insertCartsOfStores(tx, carts, lines);
  return outcomes;
}

/** One store's new carts, each request decided in turn against the stock the ones before it left. */
function decideCreations(
  store: string,
  requests: Array<Map<string, number>>,
  products: ReadonlyMap<string, SellableProduct>,
  stock: StockLedger,
  checkout: CartCheckout,
  now: Date,
  ttlSeconds: number,
): { outcomes: Array<Outcome<Created>>; carts: repo.CartRow[]; lines: Array<[string, string, number]> } {
  const shown = shownBy(products, stock);
  const carts: repo.CartRow[] = [];
  const lines: Array<[string, string, number]> = [];
  const outcomes = requests.map((request): Outcome<Created> => {
    // A line over its product's limit refuses the whole request: a limit is not a shortage to work around.
    const over = quantityLimitRefusals(products, request);
    if (over.length > 0) return { ok: false, error: quantityLimitError(over) };
    const warnings: LineRefusal[] = [];
    const accepted: PricedLine[] = [];
    for (const [productId, quantity] of request) {
      const refused = stock.refusal(productId, quantity);
      if (refused) warnings.push(refused);
      else accepted.push({ product: shown.get(productId)!, quantity });
    }
    if (accepted.length === 0) {
      return { ok: false, error: new AppError('PRODUCT_UNAVAILABLE', 'none of the requested products is available', { errors: warnings }) };
    }
    const cart: repo.CartRow = {
      id: timeOrderedId(), store, status: 'PENDING', customerId: null, addressId: null,
      createdAt: now, updatedAt: null, deletedAt: null, expiresAt: expiryFrom(now, ttlSeconds), discountId: null, heldUntil: null,
      shippingOptionId: null, shippingCountry: null, shippingRegion: null,
    };
    carts.push(cart);
    for (const line of accepted) lines.push([cart.id, line.product.id, line.quantity]);
    const created: Created = { cart: cartView(cart, accepted, NO_DISCOUNT, checkout) };
    if (warnings.length > 0) created.warnings = warnings;
    return { ok: true, value: created };
  });
  return { outcomes, carts, lines };
}

/**
 * Adds units of a product to a cart (to its line if it has one), for each request of a round: the
 * round's carts are locked with their lines, and each addition is decided in turn against its cart
 * as the ones before it left it. Every cart changed records the transaction's time as its change.
 */
export async function addItemsToCarts(tx: Executor, store: string, requests: Addition[], ttlSeconds: number): Promise<Array<Outcome<Changed>>> {
  return (await addItemsToCartsOfStores(tx, [{ store, requests }], ttlSeconds))[0]!;
}

/**
 * `addItemsToCarts` for a round of one store or several: the carts of all its stores are locked in
 * (store, id) order by one statement, each read and write is one statement over all the stores, and
 * each addition is decided against its own store's carts, products and stock only. One list of
 * outcomes per store, in the order given.
 */
export async function addItemsToCartsOfStores(tx: Executor, stores: Array<StoreRequests<Addition>>, ttlSeconds: number): Promise<Array<Array<Outcome<Changed>>>> {
  const locked = await repo.lockCartsOfStores(tx, stores.map(({ store, requests }) => ({ store, ids: [...new Set(requests.map((r) => r.cartId))] })));
  const cartsOf = (store: string) => [...locked.get(store)!.values()];
  const wanted = new Map(stores.map(({ store, requests }) => [store, [...new Set([...requests.map((r) => r.productId), ...cartsOf(store).flatMap((c) => c.lines.map((l) => l.productId))])]]));
  const { products, now } = await findSellableProductsOfStores(tx, stores.map(({ store }) => ({ store, ids: wanted.get(store)! })));
  // One round trip for the reads that depend on none of each other (a code's rule reads only with a code).
  const [held, checkouts] = await together(tx, parts([
    holdsOfStoresPart(stores.map(({ store }) => ({ store, productIds: [...products.get(store)!.keys()], cartIds: [...locked.get(store)!.keys()] }))),
    cartCheckoutsPart(stores.map(({ store }) => ({ store, carts: cartsOf(store).map((c) => c.cart) }))),
  ] as const));
  const change = { now, expiresAt: expiryFrom(now, ttlSeconds) };
  const rules = await cartRulesOfStores(tx, stores.map(({ store }) => ({ store, carts: cartsOf(store).map((c) => ({ discountId: c.cart.discountId, productIds: wanted.get(store)! })) })));
  const lines: Array<[string, string, string, number]> = [];
  const touched: Array<{ store: string; id: string }> = [];
  const ending: Array<{ store: string; id: string }> = [];
  const outcomes = stores.map(({ store, requests }) => {
    const carts = locked.get(store)!;
    const mine = products.get(store)!;
    const stock = new StockLedger(mine, held.get(store)!);
    const decided = decideAdditions(requests, carts, mine, stock, { rules: rules.get(store)!, checkout: checkouts.get(store)!, ...change });
    for (const [cartId, quantities] of decided.changed) {
      touched.push({ store, id: cartId });
      if (carts.get(cartId)!.holdRows) ending.push({ store, id: cartId });
      for (const [productId, quantity] of quantities) lines.push([store, cartId, productId, quantity]);
    }
    return decided.outcomes;
  });
  if (touched.length > 0) {
    await repo.writeLinesOfStores(tx, lines, { carts: touched, ...change });
    // The changed carts' holds end (their `held_until` was cleared by the write itself).
    await endHoldsOfStores(tx, ending);
  }
  return outcomes;
}

/**
 * One store's additions, each decided in turn against its locked cart as the ones before it left it;
 * answers the outcomes and the quantities to write, per cart changed.
 */
function decideAdditions(
  requests: Addition[],
  carts: ReadonlyMap<string, repo.LockedCart>,
  products: ReadonlyMap<string, SellableProduct>,
  stock: StockLedger,
  context: { rules: ReadonlyMap<string, DiscountRule>; checkout: CartCheckout; now: Date; expiresAt: Date },
): { outcomes: Array<Outcome<Changed>>; changed: Map<string, Map<string, number>> } {
  const { rules, checkout, now, expiresAt } = context;
  const changed = new Map<string, Map<string, number>>();
  const outcomes = requests.map((request): Outcome<Changed> => {
    try {
      const locked = carts.get(request.cartId);
      if (!locked) throw notFound(request.cartId);
      assertCartPending(locked.cart.status, locked.cart.id);
      const index = locked.lines.findIndex((l) => l.productId === request.productId);
      const quantity = (index < 0 ? 0 : locked.lines[index]!.quantity) + request.quantity;
      assertWithinLimits(products, new Map([[request.productId, quantity]]));
      // The change ends the cart's own hold: its units are its to take.
      const refused = stock.refusal(request.productId, quantity, locked.cart.id);
      if (refused) throw lineRefusalError(refused);
      stock.release(locked.cart.id);
      const line = { productId: request.productId, quantity };
      locked.lines = index < 0 ? [...locked.lines, line] : locked.lines.map((l, i) => (i === index ? line : l));
      changed.set(locked.cart.id, (changed.get(locked.cart.id) ?? new Map<string, number>()).set(request.productId, quantity));
      const cart = pricedView({ ...locked.cart, updatedAt: now, expiresAt, heldUntil: null }, priced(locked.lines, shownBy(products, stock)), rules, now, checkout);
      return { ok: true, value: endingHold({ cart }, locked) };
    } catch (error) {
      return { ok: false, error };
    }
  });
  return { outcomes, changed };
}

async function lockPending(tx: Executor, store: string, id: string, productId: string): Promise<repo.LockedCart> {
  const locked = (await repo.lockCarts(tx, store, [id.toLowerCase()])).get(id.toLowerCase());
  if (!locked) throw notFound(id);
  assertCartPending(locked.cart.status, id);
  if (!locked.lines.some((l) => l.productId === productId)) throw new AppError('NOT_FOUND', `product ${productId} is not in cart ${id}`);
  return locked;
}

/** Sets a line's quantity: the same quantity changes nothing, 0 removes the line. */
export async function adjustCartLine(tx: Executor, store: string, id: string, productId: string, quantity: number, ttlSeconds: number): Promise<Changed> {
  const pid = productId.toLowerCase();
  const locked = await lockPending(tx, store, id, pid);
  if (quantity === 0) return removeLine(tx, store, locked, pid, ttlSeconds);
  const { products } = await findSellableProducts(tx, store, locked.lines.map((l) => l.productId));
  const stock = new StockLedger(products, await holdsOf(tx, store, [...products.keys()], [locked.cart.id]));
  if (locked.lines.find((l) => l.productId === pid)!.quantity === quantity) return { cart: await viewOf(tx, store, locked.cart, priced(locked.lines, shownBy(products, stock)), locked.now) };
  assertWithinLimits(products, new Map([[pid, quantity]]));
  // The change ends the cart's own hold: its units are its to take.
  const refused = stock.refusal(pid, quantity, locked.cart.id);
  if (refused) throw lineRefusalError(refused);
  stock.release(locked.cart.id);
  const change = { now: locked.now, expiresAt: expiryFrom(locked.now, ttlSeconds) };
  await repo.writeLines(tx, store, [[locked.cart.id, pid, quantity]], { ids: [locked.cart.id], ...change });
  await endHoldsOfChanged(tx, store, [locked]);
  const lines = locked.lines.map((l) => (l.productId === pid ? { productId: pid, quantity } : l));
  return endingHold({ cart: await viewOf(tx, store, { ...locked.cart, updatedAt: change.now, expiresAt: change.expiresAt, heldUntil: null }, priced(lines, shownBy(products, stock)), locked.now) }, locked);
}

/** Removes a product from the cart; removing the last one deletes the cart. */
export async function removeCartLine(tx: Executor, store: string, id: string, productId: string, ttlSeconds: number): Promise<Changed> {
  const pid = productId.toLowerCase();
  return removeLine(tx, store, await lockPending(tx, store, id, pid), pid, ttlSeconds);
}

async function removeLine(tx: Executor, store: string, locked: repo.LockedCart, productId: string, ttlSeconds: number): Promise<Changed> {
  const lines = locked.lines.filter((l) => l.productId !== productId);
  const change = { now: locked.now, expiresAt: expiryFrom(locked.now, ttlSeconds), empties: lines.length === 0 };
  await repo.removeLine(tx, store, locked.cart.id, productId, change);
  await endHoldsOfChanged(tx, store, [locked]);
  if (change.empties) return endingHold({ cart: await viewOf(tx, store, { ...locked.cart, updatedAt: change.now, deletedAt: change.now, heldUntil: null }, [], locked.now) }, locked);
  const { products } = await findSellableProducts(tx, store, lines.map((l) => l.productId));
  const shown = await shownProducts(tx, store, products);
  return endingHold({ cart: await viewOf(tx, store, { ...locked.cart, updatedAt: change.now, expiresAt: change.expiresAt, heldUntil: null }, priced(lines, shown), locked.now) }, locked);
}

/** What an order takes from a cart: its lines, if the cart can be ordered. */
export interface OrderableCart {
  status: repo.CartRow['status'];
  lines: Map<string, number>;
  /** The cart's discount code, if any. */
  discountId: string | null;
  /** It has hold rows, which its order deletes. */
  held: boolean;
  /** The shipping option it chose, if any (the order ships to its own address). */
  shippingOptionId: string | null;
}

/**
 * Locks the carts of a round of orders of one store or several, in (store, id) order, and reads their
 * lines under the lock, with `beside` (a read of the caller's that needs none of the carts) in the
 * same statement as the lines.
 */
export async function lockStoresCartsForOrders<T>(tx: Executor, stores: Array<{ store: string; ids: string[] }>, beside: Part<T>): Promise<{ carts: Map<string, Map<string, OrderableCart>>; beside: T }> {
  const locked = await repo.lockCartsOfStoresWith(tx, stores, beside);
  const orderable = (c: repo.LockedCart): OrderableCart => ({
    status: c.cart.status, lines: new Map(c.lines.map((l) => [l.productId, l.quantity])), discountId: c.cart.discountId, held: c.holdRows, shippingOptionId: c.cart.shippingOptionId,
  });
  return { carts: new Map([...locked.carts].map(([store, carts]) => [store, new Map([...carts].map(([id, c]) => [id, orderable(c)]))])), beside: locked.beside };
}

/**
 * Marks ordered carts COMPLETED with the order's customer and address (carts locked by
 * `lockStoresCartsForOrders`): `write`, one update for them all, made inside the statement that
 * writes the round's orders; then `endHolds` ends the holds of those that held (one statement, only
 * when one did).
 */
export function completeStoresCarts(carts: Array<{ store: string; id: string; customerId: string; addressId: string; held?: boolean }>): { write: BesideWrite | null; endHolds: (tx: Executor) => Promise<void> } {
  const done = carts.map(({ store, id, customerId, addressId }) => ({ store, id, customerId, addressId }));
  return {
    write: done.length === 0 ? null : repo.completeStoresCarts(done),
    endHolds: (tx) => endHoldsOfStores(tx, carts.filter((c) => c.held).map((c) => ({ store: c.store, id: c.id }))),
  };
}

/** A line request as the routes receive it. */
export const additionOf = (cartId: string, line: LineRequest): Addition => ({ cartId: cartId.toLowerCase(), productId: line.id.toLowerCase(), quantity: line.quantity });
