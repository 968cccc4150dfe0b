import { toIso, toIsoOrNull } from '../../lib/time.js';
import { productFieldsView } from '../catalog/views.js';
import type { ProductRecord } from '../catalog/visibility.js';
import type { CartLineRow, CartRow } from './repository.js';
import type { CartView } from './schemas.js';

/** A product line: the product's fields plus `order.quantity` and `order.price` at its unit price. */
export function lineView(product: ProductRecord, quantity: number) {
  return { ...productFieldsView(product), order: { quantity, price: product.price * quantity } };
}

/** Totals of lines: `price`, and `originalPrice` when any line has one (else null). */
export function totals(lines: Array<{ price: number; originalPrice: number | null; quantity: number }>) {
  let price = 0;
  let original = 0;
  let anyOriginal = false;
  for (const line of lines) {
    price += line.price * line.quantity;
    original += (line.originalPrice ?? line.price) * line.quantity;
    if (line.originalPrice !== null) anyOriginal = true;
  }
  return { price, originalPrice: anyOriginal ? original : null };
}

export function cartView(cart: CartRow, lines: CartLineRow[]): CartView {
  const sum = totals(lines.map((l) => ({ price: l.price, originalPrice: l.originalPrice, quantity: l.lineQuantity })));
  return {
    id: cart.id,
    store: cart.store,
    customerId: cart.customerId,
    addressId: cart.addressId,
    price: sum.price,
    originalPrice: sum.originalPrice,
    status: cart.status,
    createdAt: toIso(cart.createdAt),
    updatedAt: toIsoOrNull(cart.updatedAt),
    deletedAt: toIsoOrNull(cart.deletedAt),
    expiresAt: toIso(cart.expiresAt),
    products: lines.map((l) => lineView(l, l.lineQuantity)),
  };
}
