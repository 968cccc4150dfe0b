/**
 * Checkout holds of carts (POST and DELETE /v1/carts/:id/hold). A hold keeps a PENDING cart's units
 * for CART_HOLD_SECONDS without touching the stock: what others may take and what the storefront
 * shows is the stock less every unexpired hold (pricing's StockLedger decides). Exact under any
 * concurrency: a round of holds locks its carts, then their products in id order, as orders do, and
 * judges what is available under those locks, so holds and orders of one product are serialized on
 * its row. A hold ends when its time passes (nothing to run), when the cart changes, is ordered or
 * released. Taking or ending one changes the catalog answers that show its products only
 * (HOLDS_CHANGED; the holds module notes the products in the same transaction).
 */
import { CLIENT_LOCK_CLASS, lockStoresClients, parts, together, type Executor } from '../../db/client.js';
import { HOLDS_CHANGED } from '../../plugins/commands.js';
import { AppError } from '../../lib/app-error.js';
import type { Outcome } from '../../lib/keyed-batcher.js';
import { asDate } from '../../lib/time.js';
import { findSellableProducts, lockStoresSellableProducts, type SellableProduct } from '../catalog/index.js';
import { endHolds, holdsOfStoresPart, lessHeld, replaceHoldsOfStores } from '../holds/index.js';
import { assertWithinLimits, orderRefusalError, StockLedger, type DiscountRule } from '../pricing/index.js';
import * as repo from './repository.js';
import type { CartView } from './schemas.js';
import { assertCartPending } from './state.js';
import { cartRulesOfStores, priced, pricedView, viewOf } from './answers.js';
import { cartCheckoutsPart, type CartCheckout } from './checkout.js';

type Changed = { cart: CartView };

/** The products as the storefront shows them: each quantity is what no unexpired hold takes. */
export function shownBy(products: ReadonlyMap<string, SellableProduct>, stock: StockLedger): Map<string, SellableProduct> {
  return new Map([...products].map(([id, p]) => [id, { ...p, quantity: stock.shown(id) }]));
}

/** The same, reading what is held of them. */
export async function shownProducts(db: Executor, store: string, products: ReadonlyMap<string, SellableProduct>): Promise<Map<string, SellableProduct>> {
  return new Map((await lessHeld(db, store, [...products.values()])).map((p) => [p.id, p]));
}

/** One hold request of a round: which cart, and the client address of a public caller (null: a secret token). */
export interface HoldRequest {
  cartId: string;
  client: string | null;
}

/** How long holds last and what one client may keep (docs/configuration.md). */
export interface HoldPolicy {
  /** CART_HOLD_SECONDS: each hold or renewal lasts this long... */
  seconds: number;
  /** CART_HOLD_MAX_SECONDS: ...but never past this long after the hold was first taken. */
  maxSeconds: number;
  /** HOLDS_PER_CLIENT: held carts one client address may keep at once; 0 = no limit. */
  perClient: number;
}

/**
 * Holds every line of PENDING carts until now + `seconds` (capped at `maxSeconds` after the hold was
 * first taken), all or nothing per cart, for each request of a round (a store's holds that arrive
 * while its previous round runs). The round takes its clients' advisory locks (so what a client
 * holds is counted exactly, across processes), locks its carts (id order) with their lines, then
 * their products (id order), and decides each hold in arrival order against what the earlier ones
 * left. A held cart is checked and renewed; a hold renewed up to its cap is 409 HOLD_LIMIT_REACHED.
 */
export async function holdCarts(tx: Executor, store: string, requests: HoldRequest[], policy: HoldPolicy): Promise<Array<Outcome<Changed>>> {
  return (await holdCartsOfStores(tx, [{ store, requests }], policy))[0]!;
}

/**
 * `holdCarts` for a round of several stores, with the statements of one: each kind of lock taken
 * for every store before the next kind (the clients, then the carts, then the products, each in
 * (store, id) order), the order that rounds of orders and of carts keep too, so no two rounds wait
 * on each other in a cycle. Each store's holds are decided against its own rows, as one store's are.
 */
export async function holdCartsOfStores(tx: Executor, stores: Array<{ store: string; requests: HoldRequest[] }>, policy: HoldPolicy): Promise<Array<Array<Outcome<Changed>>>> {
  const counted = stores.map(({ store, requests }) => ({
    store, clients: policy.perClient > 0 ? [...new Set(requests.flatMap((r) => (r.client === null ? [] : [r.client])))] : [],
  }));
  await lockStoresClients(tx, CLIENT_LOCK_CLASS.holds, counted);
  const heldBy = await repo.heldByClientsOfStores(tx, counted);
  const carts = await repo.lockCartsOfStores(tx, stores.map(({ store, requests }) => ({ store, ids: [...new Set(requests.map((r) => r.cartId))] })));
  const cartsOf = (store: string) => [...carts.get(store)!.values()];
  const { products, now } = await lockStoresSellableProducts(tx, stores.map(({ store }) => ({ store, ids: [...new Set(cartsOf(store).flatMap((c) => c.lines.map((l) => l.productId)))] })));
  const productsOf = (store: string) => products.get(store) ?? new Map<string, SellableProduct>();
  // One round trip for the reads that depend on none of each other (a code's rule reads only with a code).
  const [holds, checkouts] = await together(tx, parts([
    holdsOfStoresPart(stores.map(({ store }) => ({ store, productIds: [...productsOf(store).keys()], cartIds: [...carts.get(store)!.keys()] }))),
    cartCheckoutsPart(stores.map(({ store }) => ({ store, carts: cartsOf(store).map((c) => c.cart) }))),
  ] as const));
  const rules = await cartRulesOfStores(tx, stores.map(({ store }) => ({ store, carts: cartsOf(store).map((c) => ({ discountId: c.cart.discountId, productIds: c.lines.map((l) => l.productId) })) })));
  const written: Array<{ store: string; cartId: string; lines: repo.StoredLine[]; until: Date; startedAt: Date; client: string | null }> = [];
  const outcomes = stores.map(({ store, requests }) => {
    const decided = decideHolds(requests, {
      carts: carts.get(store)!, products: productsOf(store), stock: new StockLedger(productsOf(store), holds.get(store)!), heldBy: heldBy.get(store)!,
      rules: rules.get(store)!, checkout: checkouts.get(store)!, now, policy,
    });
    for (const [cartId, h] of decided.held) written.push({ store, cartId, ...h });
    return decided.outcomes;
  });
  // One statement: the holds' lines, and each cart's record of its hold.
  await replaceHoldsOfStores(
    tx,
    written.flatMap((h) => h.lines.map((l) => ({ store: h.store, cartId: h.cartId, productId: l.productId, quantity: l.quantity, until: h.until }))),
    written.length === 0 ? [] : [repo.recordHoldsOfStores(written.map((h) => ({ store: h.store, cartId: h.cartId, until: h.until, startedAt: h.startedAt, client: h.client })))],
  );
  return outcomes;
}

/** What one store's holds of a round are decided against: its rows, locked and read for the round. */
interface HoldRound {
  carts: Map<string, repo.LockedCart>;
  products: ReadonlyMap<string, SellableProduct>;
  stock: StockLedger;
  heldBy: Map<string, Map<string, Date>>;
  rules: Map<string, DiscountRule>;
  checkout: CartCheckout;
  now: Date;
  policy: HoldPolicy;
}

/** One store's holds, in arrival order, each against what the earlier ones left: the outcomes and the holds to write. */
function decideHolds(requests: HoldRequest[], round: HoldRound) {
  const { carts, products, stock, heldBy, rules, checkout, now, policy } = round;
  const held = new Map<string, { lines: repo.StoredLine[]; until: Date; startedAt: Date; client: string | null }>();
  const outcomes = requests.map(({ cartId, client }): Outcome<Changed> => {
    try {
      const locked = carts.get(cartId);
      if (!locked) throw new AppError('NOT_FOUND', `cart ${cartId} not found`);
      assertCartPending(locked.cart.status, cartId);
      const { startedAt, until } = holdWindow(locked, now, policy);
      assertWithinLimits(products, new Map(locked.lines.map((l) => [l.productId, l.quantity])));
      const mine = client === null ? undefined : heldBy.get(client);
      if (mine && !mine.has(cartId) && mine.size >= policy.perClient) throw tooManyHolds(mine, now, policy.perClient);
      const refusals = locked.lines.flatMap((l) => stock.refusal(l.productId, l.quantity, cartId) ?? []);
      if (refusals.length > 0) throw orderRefusalError(refusals);
      stock.hold(cartId, new Map(locked.lines.map((l) => [l.productId, l.quantity])));
      for (const theirs of heldBy.values()) theirs.delete(cartId);
      mine?.set(cartId, until);
      held.set(cartId, { lines: locked.lines, until, startedAt, client });
      const expiresAt = asDate(locked.cart.expiresAt).getTime() > until.getTime() ? locked.cart.expiresAt : until;
      const answer = { cart: pricedView({ ...locked.cart, heldUntil: until, expiresAt }, priced(locked.lines, shownBy(products, stock)), rules, now, checkout) };
      // Renewing a running hold keeps the same units held: no catalog answer changes.
      return { ok: true, value: locked.cart.heldUntil === null ? Object.assign(answer, { [HOLDS_CHANGED]: true }) : answer };
    } catch (error) {
      return { ok: false, error };
    }
  });
  return { outcomes, held };
}

/**
 * When a hold taken now starts and ends. A running hold is renewed within its window, which ends
 * `maxSeconds` after it was first taken; a hold that was renewed up to that end (running or not) is
 * refused: the cart's lines must change, or the hold be released, before it is held again.
 */
function holdWindow(locked: repo.LockedCart, now: Date, policy: HoldPolicy): { startedAt: Date; until: Date } {
  const { startedAt: last, until: lastUntil } = locked.lastHold;
  const capOf = (start: Date) => start.getTime() + policy.maxSeconds * 1000;
  if (last && lastUntil && lastUntil.getTime() >= capOf(last)) {
    throw new AppError('HOLD_LIMIT_REACHED', `cart ${locked.cart.id} has been held for the longest a hold may last (${policy.maxSeconds} s); change the cart or release its hold to hold it again`);
  }
  const startedAt = last && locked.cart.heldUntil ? last : now;
  return { startedAt, until: new Date(Math.min(now.getTime() + policy.seconds * 1000, capOf(startedAt))) };
}

/** 429 for a client that holds as many carts as it may: it may retry when the first of them ends. */
function tooManyHolds(mine: ReadonlyMap<string, Date>, now: Date, limit: number): AppError {
  const first = Math.min(...[...mine.values()].map((until) => until.getTime()));
  const seconds = Math.max(1, Math.ceil((first - now.getTime()) / 1000));
  return new AppError('RATE_LIMITED', `this client already holds ${limit} carts of this store, the most it may; retry in ${seconds} s or release one`, {
    headers: { 'retry-after': String(seconds) },
  });
}

/** Ends a cart's hold (a cart that holds nothing answers as it is). */
export async function releaseHold(tx: Executor, store: string, id: string): Promise<Changed> {
  const cartId = id.toLowerCase();
  const locked = (await repo.lockCarts(tx, store, [cartId])).get(cartId);
  if (!locked) throw new AppError('NOT_FOUND', `cart ${id} not found`);
  assertCartPending(locked.cart.status, cartId);
  if (locked.holdRows) {
    await endHolds(tx, store, [cartId]);
    await repo.endHold(tx, store, [cartId]);
  }
  const { products } = await findSellableProducts(tx, store, locked.lines.map((l) => l.productId));
  const shown = await shownProducts(tx, store, products);
  // Only a release that ended a hold changes the catalog (its units show again).
  return endingHold({ cart: await viewOf(tx, store, { ...locked.cart, heldUntil: null }, priced(locked.lines, shown), locked.now) }, locked);
}

/** Ends the holds of carts whose lines changed (their `held_until` is cleared by the change itself). */
export async function endHoldsOfChanged(tx: Executor, store: string, carts: Array<repo.LockedCart>): Promise<void> {
  await endHolds(tx, store, carts.filter((c) => c.holdRows).map((c) => c.cart.id));
}

/** A change's answer; when it ended a hold that was running, the answers showing its products changed (its units show again). */
export function endingHold<T extends object>(answer: T, locked: repo.LockedCart): T {
  return locked.cart.heldUntil === null ? answer : Object.assign(answer, { [HOLDS_CHANGED]: true });
}
