import { toIso, toIsoOrNull } from '../../lib/time.js';
import { addressView, type AddressRow } from '../addresses/index.js';
import { discountTotals } from '../pricing/index.js';
import type { OrderLineRow, OrderRow } from './repository.js';
import type { OrderView } from './schemas.js';

/** An order with its lines (the products as they were when ordered) and its address. */
export function orderView(order: OrderRow, lines: OrderLineRow[], address: AddressRow): OrderView {
  return {
    id: order.id,
    store: order.store,
    customerId: order.customerId,
    addressId: order.addressId,
    price: Number(order.price),
    originalPrice: order.originalPrice === null ? null : Number(order.originalPrice),
    // As placed: the discount was priced when the order was made and is kept with it.
    ...discountTotals(Number(order.price), order.discount ?? null),
    email: order.email,
    status: order.status,
    createdAt: toIso(order.createdAt),
    updatedAt: toIsoOrNull(order.updatedAt),
    deletedAt: toIsoOrNull(order.deletedAt),
    // Orders placed before products had `maxPerOrder` kept no such field: null, as it was then.
    products: lines.map((line) => ({ ...line.product, maxPerOrder: line.product.maxPerOrder ?? null, order: { quantity: line.quantity, price: Number(line.linePrice) } })),
    address: addressView(address),
  };
}
