/** A cart as the API answers it: its lines with the products' current fields, priced by the pricing module. */
import { toIso, toIsoOrNull } from '../../lib/time.js';
import { productFieldsView, type ProductRecord } from '../catalog/index.js';
import { decideDiscount, linePrice, totals, type DiscountRule } from '../pricing/index.js';
import { cartTotals, type CartCheckout, type CartDiscount } from './checkout.js';
import type { CartRow } from './repository.js';
import type { CartView } from './schemas.js';

/** A cart line with its product's current fields. */
export interface PricedLine {
  product: ProductRecord;
  quantity: number;
}

/** A product line: the product's fields plus `order.quantity` and `order.price`. */
export function lineView({ product, quantity }: PricedLine) {
  return { ...productFieldsView(product), order: { quantity, price: linePrice(product, quantity) } };
}

/** The cart's discount as it applies to these lines now (amount 0 when it does not apply), or none. */
export function cartDiscount(rule: DiscountRule | undefined, lines: PricedLine[], now: Date): CartDiscount {
  if (!rule) return { rule: undefined, applied: null };
  return { rule, applied: decideDiscount(rule, lines.map((l) => ({ productId: l.product.id, price: linePrice(l.product, l.quantity) })), { now }).discount };
}

/** A cart's answer: its lines priced now, its discount, shipping and taxes (pricing computes every amount). */
export function cartView(cart: CartRow, lines: PricedLine[], discount: CartDiscount, checkout: CartCheckout): CartView {
  const sum = totals(lines.map((l) => ({ unit: l.product, quantity: l.quantity })));
  return {
    id: cart.id,
    store: cart.store,
    customerId: cart.customerId,
    addressId: cart.addressId,
    price: sum.price,
    originalPrice: sum.originalPrice,
    ...cartTotals(cart, lines, sum.price, discount, checkout),
    status: cart.status,
    createdAt: toIso(cart.createdAt),
    updatedAt: toIsoOrNull(cart.updatedAt),
    deletedAt: toIsoOrNull(cart.deletedAt),
    expiresAt: toIso(cart.expiresAt),
    heldUntil: toIsoOrNull(cart.heldUntil),
    products: lines.map(lineView),
  };
}
