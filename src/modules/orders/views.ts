import { toIso, toIsoOrNull } from '../../lib/time.js';
import { addressView, type AddressRow } from '../addresses/index.js';
import { orderPaymentView, refundView, type PaymentRow, type RefundRow } from '../payments/index.js';
import { grandTotal, paymentTotals } from '../pricing/index.js';
import type { FulfillmentRow, OrderLineRow, OrderRow } from './repository.js';
import type { FulfillmentView, OrderView } from './schemas.js';

/** An order with its lines (the products as they were when ordered) and its address. */
export function orderView(order: OrderRow, lines: OrderLineRow[], address: AddressRow, payments: PaymentRow[], fulfillments: FulfillmentRow[], refunds: RefundRow[]): OrderView {
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
    fulfillments: fulfillments.map(fulfillmentView),
    fulfillmentStatus: fulfillmentStatusOf(order.status, fulfillments),
    refunds: refunds.map(refundView),
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

export const fulfillmentView = (row: FulfillmentRow): FulfillmentView => ({
  id: row.id, lines: row.lines, trackingNumber: row.trackingNumber, trackingUrl: row.trackingUrl, carrier: row.carrier, createdAt: toIso(row.createdAt),
});

/** FULFILLED exactly when every unit shipped (orders fulfilled before fulfilments were kept count too). */
export const fulfillmentStatusOf = (status: OrderRow['status'], fulfillments: FulfillmentRow[]) =>
  status === 'FULFILLED' ? 'fulfilled' : fulfillments.length > 0 ? 'partially_fulfilled' : 'unfulfilled';

/** Units of each product still to ship: ordered less fulfilled. */
export function unfulfilledUnits(lines: OrderLineRow[], fulfillments: FulfillmentRow[]): Map<string, number> {
  const left = new Map(lines.map((l) => [l.product.id, l.quantity]));
  for (const f of fulfillments) for (const l of f.lines) left.set(l.productId, (left.get(l.productId) ?? 0) - l.quantity);
  return left;
}
