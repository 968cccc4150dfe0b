/**
 * A cart's shipping: the options that apply to it for a country (GET /v1/carts/:id/shipping-options),
 * and the option and destination it chooses (PUT /v1/carts/:id/shipping), which also taxes it;
 * DELETE removes them. Choosing is a change to the cart (it locks the row and moves `updatedAt` and
 * `expiresAt`) that keeps its hold.
 */
import type { Executor } from '../../db/client.js';
import { AppError } from '../../lib/app-error.js';
import { findSellableProducts } from '../catalog/index.js';
import { shippingApplies, shippingChoices, totals } from '../pricing/index.js';
import { shippingRule, shippingRules } from '../shipping/index.js';
import * as repo from './repository.js';
import type { CartView } from './schemas.js';
import { cartRules, priced } from './answers.js';
import { cartCheckout } from './checkout.js';
import { shownProducts } from './holds.js';
import { assertCartPending, expiryFrom } from './state.js';
import { cartDiscount, cartView, type PricedLine } from './views.js';

const notFound = (id: string) => new AppError('NOT_FOUND', `cart ${id} not found`);

/** The cart's lines as shown, its discount, and its subtotal after discount (what shipping options are judged on). */
async function pricedCart(db: Executor, store: string, cart: repo.CartRow, stored: repo.StoredLine[], now: Date) {
  const { products } = await findSellableProducts(db, store, stored.map((l) => l.productId));
  const lines: PricedLine[] = priced(stored, await shownProducts(db, store, products));
  const rules = await cartRules(db, store, [{ discountId: cart.discountId, productIds: lines.map((l) => l.product.id) }]);
  const discount = cartDiscount(cart.discountId ? rules.get(cart.discountId) : undefined, lines, now);
  const subtotal = totals(lines.map((l) => ({ unit: l.product, quantity: l.quantity }))).price - (discount.applied?.amount ?? 0);
  return { lines, discount, subtotal };
}

/** The active options that apply to the cart for a country, with their amounts, cheapest first. */
export async function cartShippingOptions(db: Executor, store: string, id: string, country: string) {
  const cart = await repo.findCart(db, store, id.toLowerCase());
  if (!cart) throw notFound(id);
  const stored = cart.deletedAt ? [] : ((await repo.linesOfCarts(db, store, [cart.id])).get(cart.id) ?? []);
  const { subtotal } = await pricedCart(db, store, cart, stored, new Date());
  return { shippingOptions: shippingChoices([...(await shippingRules(db, store)).values()], country, subtotal) };
}

async function lockPendingCart(tx: Executor, store: string, id: string): Promise<repo.LockedCart> {
  const locked = (await repo.lockCarts(tx, store, [id.toLowerCase()])).get(id.toLowerCase());
  if (!locked) throw notFound(id);
  assertCartPending(locked.cart.status, id);
  return locked;
}

/** Sets the cart's shipping option and destination; an option that does not apply to it there is 422 SHIPPING_NOT_AVAILABLE. */
export async function setCartShipping(tx: Executor, store: string, id: string, body: { optionId: string; country: string; region?: string }, ttlSeconds: number): Promise<{ cart: CartView }> {
  const locked = await lockPendingCart(tx, store, id);
  const { lines, discount, subtotal } = await pricedCart(tx, store, locked.cart, locked.lines, locked.now);
  const option = await shippingRule(tx, store, body.optionId);
  const country = body.country.toUpperCase();
  if (!option || !shippingApplies(option, country, subtotal)) {
    throw new AppError('SHIPPING_NOT_AVAILABLE', `shipping option ${body.optionId} does not ship this cart to ${country}`);
  }
  const shipping = { optionId: option.id, country, region: body.region ?? null };
  const expiresAt = await repo.setShipping(tx, store, locked.cart.id, shipping, { now: locked.now, expiresAt: expiryFrom(locked.now, ttlSeconds) });
  const cart = { ...locked.cart, shippingOptionId: shipping.optionId, shippingCountry: shipping.country, shippingRegion: shipping.region, updatedAt: locked.now, expiresAt };
  return { cart: cartView(cart, lines, discount, await cartCheckout(tx, store, [cart])) };
}

/** Removes the cart's shipping (and so its taxes); a cart without one is answered as it is. */
export async function removeCartShipping(tx: Executor, store: string, id: string, ttlSeconds: number): Promise<{ cart: CartView }> {
  const locked = await lockPendingCart(tx, store, id);
  const { lines, discount } = await pricedCart(tx, store, locked.cart, locked.lines, locked.now);
  if (!locked.cart.shippingOptionId) return { cart: cartView(locked.cart, lines, discount, await cartCheckout(tx, store, [locked.cart])) };
  const expiresAt = await repo.setShipping(tx, store, locked.cart.id, null, { now: locked.now, expiresAt: expiryFrom(locked.now, ttlSeconds) });
  const cart = { ...locked.cart, shippingOptionId: null, shippingCountry: null, shippingRegion: null, updatedAt: locked.now, expiresAt };
  return { cart: cartView(cart, lines, discount, await cartCheckout(tx, store, [cart])) };
}
