import { toIso, toIsoOrNull } from '../../lib/time.js';
import { addressView, type AddressRow } from '../addresses/index.js';
import { orderPaymentView, type PaymentRow } from '../payments/index.js';
import { discountTotals, paymentTotals } from '../pricing/index.js';
import type { OrderLineRow, OrderRow } from './repository.js';
import type { OrderView } from './schemas.js';

/** An order with its lines (the products as they were when ordered) and its address. */
export function orderView(order: OrderRow, lines: OrderLineRow[], address: AddressRow, payments: PaymentRow[]): OrderView {
  const priced = discountTotals(Number(order.price), order.discount ?? null);
  const { paidTotal, refundedTotal, paymentStatus } = paymentTotals(priced.total, payments.map(paymentAmounts));
  return {
    id: order.id,
    store: order.store,
    customerId: order.customerId,
    addressId: order.addressId,
    price: Number(order.price),
    originalPrice: order.originalPrice === null ? null : Number(order.originalPrice),
    // As placed: the discount was priced when the order was made and is kept with it.
    ...priced,
    status: order.status,
    payments: payments.map(orderPaymentView),
    paidTotal,
    refundedTotal,
    paymentStatus,
    createdAt: toIso(order.createdAt),
    updatedAt: toIsoOrNull(order.updatedAt),
    deletedAt: toIsoOrNull(order.deletedAt),
    products: lines.map((line) => ({ ...line.product, order: { quantity: line.quantity, price: Number(line.linePrice) } })),
    address: addressView(address),
  };
}

export const paymentAmounts = (p: PaymentRow) => ({ status: p.status, amount: Number(p.amount), capturedAmount: Number(p.capturedAmount), refundedAmount: Number(p.refundedAmount) });

/** What the order's shopper pays (the order's `total`). */
export const orderTotalOf = (order: OrderRow) => discountTotals(Number(order.price), order.discount ?? null).total;
