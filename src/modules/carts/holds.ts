/**
 * Checkout holds of carts (POST and DELETE /v1/carts/:id/hold). A hold keeps a PENDING cart's units
 * for CART_HOLD_SECONDS without touching the stock: what others may take and what the storefront
 * shows is the stock less every unexpired hold (pricing's StockLedger decides). Exact under any
 * concurrency: a round of holds locks its carts, then their products in id order, as orders do, and
 * judges what is available under those locks, so holds and orders of one product are serialized on
 * its row. A hold ends when its time passes (nothing to run), when the cart changes, is ordered or
 * released.
 */
import type { Executor } from '../../db/client.js';
import { CATALOG_CHANGED } from '../../plugins/commands.js';
import { AppError } from '../../lib/app-error.js';
import type { Outcome } from '../../lib/keyed-batcher.js';
import { asDate } from '../../lib/time.js';
import { findSellableProducts, lockSellableProducts, type SellableProduct } from '../catalog/index.js';
import { endHolds, holdsOf, lessHeld, replaceHolds } from '../holds/index.js';
import { orderRefusalError, StockLedger } from '../pricing/index.js';
import * as repo from './repository.js';
import type { CartView } from './schemas.js';
import { assertCartPending } from './state.js';
import { cartRules, priced, pricedView, viewOf } from './answers.js';
import { cartCheckout } from './checkout.js';

type Changed = { cart: CartView };

/** The products as the storefront shows them: each quantity is what no unexpired hold takes. */
export function shownBy(products: ReadonlyMap<string, SellableProduct>, stock: StockLedger): Map<string, SellableProduct> {
  return new Map([...products].map(([id, p]) => [id, { ...p, quantity: stock.shown(id) }]));
}

/** The same, reading what is held of them. */
export async function shownProducts(db: Executor, store: string, products: ReadonlyMap<string, SellableProduct>): Promise<Map<string, SellableProduct>> {
  return new Map((await lessHeld(db, store, [...products.values()])).map((p) => [p.id, p]));
}

/**
 * Holds every line of PENDING carts until now + `seconds`, all or nothing per cart, for each
 * request of a round (a store's holds that arrive while its previous round runs): the round locks
 * its carts (id order) with their lines, then their products (id order), and decides each hold in
 * arrival order against what the earlier ones left. A held cart is checked and renewed.
 */
export async function holdCarts(tx: Executor, store: string, cartIds: string[], seconds: number): Promise<Array<Outcome<Changed>>> {
  const carts = await repo.lockCarts(tx, store, [...new Set(cartIds)]);
  const { products, now } = await lockSellableProducts(tx, store, [...new Set([...carts.values()].flatMap((c) => c.lines.map((l) => l.productId)))]);
  const stock = new StockLedger(products, await holdsOf(tx, store, [...products.keys()], [...carts.keys()]));
  const until = new Date(now.getTime() + seconds * 1000);
  const rules = await cartRules(tx, store, [...carts.values()].map((c) => ({ discountId: c.cart.discountId, productIds: c.lines.map((l) => l.productId) })));
  const checkout = await cartCheckout(tx, store, [...carts.values()].map((c) => c.cart));
  const held = new Map<string, repo.StoredLine[]>();
  const outcomes = cartIds.map((cartId): Outcome<Changed> => {
    try {
      const locked = carts.get(cartId);
      if (!locked) throw new AppError('NOT_FOUND', `cart ${cartId} not found`);
      assertCartPending(locked.cart.status, cartId);
      const refusals = locked.lines.flatMap((l) => stock.refusal(l.productId, l.quantity, cartId) ?? []);
      if (refusals.length > 0) throw orderRefusalError(refusals);
      stock.hold(cartId, new Map(locked.lines.map((l) => [l.productId, l.quantity])));
      held.set(cartId, locked.lines);
      const expiresAt = asDate(locked.cart.expiresAt).getTime() > until.getTime() ? locked.cart.expiresAt : until;
      return { ok: true, value: { cart: pricedView({ ...locked.cart, heldUntil: until, expiresAt }, priced(locked.lines, shownBy(products, stock)), rules, now, checkout) } };
    } catch (error) {
      return { ok: false, error };
    }
  });
  if (held.size > 0) {
    await replaceHolds(tx, store, [...held].flatMap(([cartId, lines]) => lines.map((l) => ({ cartId, productId: l.productId, quantity: l.quantity }))), until);
    await repo.setHeldUntil(tx, store, [...held.keys()], until);
  }
  return outcomes;
}

/** Ends a cart's hold (a cart that holds nothing answers as it is). */
export async function releaseHold(tx: Executor, store: string, id: string): Promise<Changed> {
  const cartId = id.toLowerCase();
  const locked = (await repo.lockCarts(tx, store, [cartId])).get(cartId);
  if (!locked) throw new AppError('NOT_FOUND', `cart ${id} not found`);
  assertCartPending(locked.cart.status, cartId);
  if (locked.holdRows) {
    await endHolds(tx, store, [cartId]);
    await repo.setHeldUntil(tx, store, [cartId], null);
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

/** A change's answer; when it ended a hold that was running, the catalog changed with it (its units show again). */
export function endingHold<T extends object>(answer: T, locked: repo.LockedCart): T {
  return locked.cart.heldUntil === null ? answer : Object.assign(answer, { [CATALOG_CHANGED]: true });
}
