import { toIso, toIsoOrNull } from '../../lib/time.js';
import { addressView, type AddressRow } from '../addresses/index.js';
import { orderPaymentView, type PaymentRow } from '../payments/index.js';
import { grandTotal, paymentTotals } from '../pricing/index.js';
import type { OrderLineRow, OrderRow } from './repository.js';
import type { OrderView } from './schemas.js';

/** An order with its lines (the products as they were when ordered) and its address. */
export function orderView(order: OrderRow, lines: OrderLineRow[], address: AddressRow, payments: PaymentRow[]): OrderView {
  const price = Number(order.price);
  // As placed: the discount, shipping and taxes were priced when the order was made and are kept with it.
  const kept = { discountTotal: Number(order.discountTotal), shippingTotal: Number(order.shippingTotal), taxTotal: Number(order.taxTotal) };
  const total = orderTotalOf(order);
  const { paidTotal, refundedTotal, paymentStatus } = paymentTotals(total, payments.map(paymentAmounts));
  return {
    id: order.id,
    number: Number(order.number),
    store: order.store,
    customerId: order.customerId,
    email: order.email,
    addressId: order.addressId,
    price,
    originalPrice: order.originalPrice === null ? null : Number(order.originalPrice),
    discount: order.discount ?? null,
    discountTotal: kept.discountTotal,
    currency: order.currency,
    shipping: order.shipping ?? null,
    shippingTotal: kept.shippingTotal,
    taxLines: order.taxLines ?? [],
    taxTotal: kept.taxTotal,
    total,
    status: order.status,
    payments: payments.map(orderPaymentView),
    paidTotal,
    refundedTotal,
    paymentStatus,
    createdAt: toIso(order.createdAt),
    updatedAt: toIsoOrNull(order.updatedAt),
    deletedAt: toIsoOrNull(order.deletedAt),
    // Lines placed before products had a tax category or `maxPerOrder` kept no such field: null, as it was then.
    products: lines.map((line) => ({ ...line.product, taxCategory: line.product.taxCategory ?? null, maxPerOrder: line.product.maxPerOrder ?? null, order: { quantity: line.quantity, price: Number(line.linePrice) } })),
    address: addressView(address),
  };
}

export const paymentAmounts = (p: PaymentRow) => ({ status: p.status, amount: Number(p.amount), capturedAmount: Number(p.capturedAmount), refundedAmount: Number(p.refundedAmount) });


/** What the order's shopper pays (the order's `total`, as placed). */
export const orderTotalOf = (order: OrderRow) =>
  grandTotal({ price: Number(order.price), discountTotal: Number(order.discountTotal), shippingTotal: Number(order.shippingTotal), taxTotal: Number(order.taxTotal), pricesIncludeTax: order.pricesIncludeTax });
