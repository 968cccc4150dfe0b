/**
 * A cart's answer: its lines priced as the storefront shows them, and its discount code priced on
 * those lines now (the pricing module decides the amount; a code that stopped applying shows 0).
 */
import type { Executor } from '../../db/client.js';
import type { SellableProduct } from '../catalog/index.js';
import { discountsByIdOfStores } from '../discounts/index.js';
import type { DiscountRule } from '../pricing/index.js';
import type * as repo from './repository.js';
import type { CartView } from './schemas.js';
import { cartDiscount, cartView, type PricedLine } from './views.js';
import { cartCheckout, type CartCheckout } from './checkout.js';

export function priced(lines: repo.StoredLine[], products: ReadonlyMap<string, SellableProduct>): PricedLine[] {
  return lines.map((l) => ({ product: products.get(l.productId)!, quantity: l.quantity }));
}

/** The discount rules of carts that have a code, for the products each cart's answer will show. */
export async function cartRules(db: Executor, store: string, carts: Array<{ discountId: string | null; productIds: string[] }>): Promise<Map<string, DiscountRule>> {
  return (await cartRulesOfStores(db, [{ store, carts }])).get(store)!;
}

/** `cartRules` for the carts of several stores (a round of many), by store: one read, none when no cart has a code. */
export async function cartRulesOfStores(db: Executor, stores: Array<{ store: string; carts: Array<{ discountId: string | null; productIds: string[] }> }>): Promise<Map<string, Map<string, DiscountRule>>> {
  const wanted = stores.map(({ store, carts }) => ({ store, ids: carts.flatMap((c) => (c.discountId ? [{ id: c.discountId, productIds: c.productIds }] : [])) }));
  if (wanted.every((w) => w.ids.length === 0)) return new Map(stores.map(({ store }) => [store, new Map()]));
  return discountsByIdOfStores(db, wanted);
}

/** A cart's answer, its discount priced on these lines at `now`. */
export function pricedView(cart: repo.CartRow, lines: PricedLine[], rules: ReadonlyMap<string, DiscountRule>, now: Date, checkout: CartCheckout): CartView {
  return cartView(cart, lines, cartDiscount(cart.discountId ? rules.get(cart.discountId) : undefined, lines, now), checkout);
}

/** A cart's answer, reading its code's rule, its shipping and its taxes. */
export async function viewOf(db: Executor, store: string, cart: repo.CartRow, lines: PricedLine[], now: Date): Promise<CartView> {
  const rules = await cartRules(db, store, [{ discountId: cart.discountId, productIds: lines.map((l) => l.product.id) }]);
  return pricedView(cart, lines, rules, now, await cartCheckout(db, store, [cart]));
}
