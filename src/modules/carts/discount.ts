/**
 * A cart's discount code: POST /v1/carts/:id/discount sets it (refused with the reason when it does
 * not apply to the cart now; `already_used` waits for the order, when the customer is known), DELETE
 * removes it. Either is a change to the cart: it locks the row and moves `updatedAt` and `expiresAt`
 * (never before the end of the hold it keeps).
 */
import type { Executor } from '../../db/client.js';
import { AppError } from '../../lib/app-error.js';
import { asDate } from '../../lib/time.js';
import { findSellableProducts } from '../catalog/index.js';
import { discountByCode, normalizeCode } from '../discounts/index.js';
import { decideDiscount, discountRefusalError, linePrice, reasonFor } from '../pricing/index.js';
import * as repo from './repository.js';
import type { CartView } from './schemas.js';
import { priced } from './answers.js';
import { shownProducts } from './holds.js';
import { assertCartPending, expiryFrom } from './state.js';
import { cartView } from './views.js';
import { cartCheckout, NO_DISCOUNT } from './checkout.js';

async function lockPendingCart(tx: Executor, store: string, id: string): Promise<repo.LockedCart> {
  const locked = (await repo.lockCarts(tx, store, [id.toLowerCase()])).get(id.toLowerCase());
  if (!locked) throw new AppError('NOT_FOUND', `cart ${id} not found`);
  assertCartPending(locked.cart.status, id);
  return locked;
}

/** A change that keeps the cart's hold never moves its expiry before the hold's end: the later of the two. */
function keptExpiry(locked: repo.LockedCart, ttlSeconds: number): Date {
  const sliding = expiryFrom(locked.now, ttlSeconds);
  const heldUntil = locked.cart.heldUntil === null ? null : asDate(locked.cart.heldUntil);
  return heldUntil !== null && heldUntil.getTime() > sliding.getTime() ? heldUntil : sliding;
}

/** Sets the cart's code; `publicCaller`: a refusal says `unknown` for a code that is inactive or not started. */
export async function setCartDiscount(tx: Executor, store: string, id: string, code: string, ttlSeconds: number, publicCaller: boolean): Promise<{ cart: CartView }> {
  const locked = await lockPendingCart(tx, store, id);
  const productIds = locked.lines.map((l) => l.productId);
  const { products } = await findSellableProducts(tx, store, productIds);
  const lines = priced(locked.lines, await shownProducts(tx, store, products));
  const rule = await discountByCode(tx, store, code, productIds);
  if (!rule) throw discountRefusalError(normalizeCode(code), 'unknown');
  const decision = decideDiscount(rule, lines.map((l) => ({ productId: l.product.id, price: linePrice(l.product, l.quantity) })), { now: locked.now });
  if (decision.reason) throw discountRefusalError(rule.code, reasonFor(decision.reason, publicCaller));
  const change = { now: locked.now, expiresAt: keptExpiry(locked, ttlSeconds) };
  await repo.setDiscount(tx, store, locked.cart.id, rule.id, change);
  return { cart: cartView({ ...locked.cart, discountId: rule.id, updatedAt: change.now, expiresAt: change.expiresAt }, lines, { rule, applied: decision.discount }, await cartCheckout(tx, store, [locked.cart])) };
}

export async function removeCartDiscount(tx: Executor, store: string, id: string, ttlSeconds: number): Promise<{ cart: CartView }> {
  const locked = await lockPendingCart(tx, store, id);
  const { products } = await findSellableProducts(tx, store, locked.lines.map((l) => l.productId));
  const lines = priced(locked.lines, await shownProducts(tx, store, products));
  // Without a code there is nothing to remove: the cart is answered as it is, unchanged.
  if (!locked.cart.discountId) {
    return { cart: cartView(locked.cart, lines, NO_DISCOUNT, await cartCheckout(tx, store, [locked.cart])) };
  }
  const change = { now: locked.now, expiresAt: keptExpiry(locked, ttlSeconds) };
  await repo.setDiscount(tx, store, locked.cart.id, null, change);
  return { cart: cartView({ ...locked.cart, discountId: null, updatedAt: change.now, expiresAt: change.expiresAt }, lines, NO_DISCOUNT, await cartCheckout(tx, store, [locked.cart])) };
}
