import { toIso, toIsoOrNull } from '../../lib/time.js';
import type { PaymentRow, ProviderRow, RefundRow } from './repository.js';
import type { OrderPaymentView, OrderRefundView, PaymentProviderView, PaymentView, PublicPaymentProviderView } from './schemas.js';

export const webhookPathOf = (store: string) => `/api/v1/payment-webhooks/stripe/${store}`;

export function providerView(row: ProviderRow): PaymentProviderView {
  return {
    name: row.name,
    enabled: row.enabled,
    captureMethod: row.captureMethod,
    publishableKey: row.publishableKey,
    secretKeyLast4: row.secretKeyLast4,
    instructions: row.instructions,
    webhookUrl: row.name === 'stripe' ? webhookPathOf(row.store) : null,
    createdAt: toIso(row.createdAt),
    updatedAt: toIsoOrNull(row.updatedAt),
  };
}

export function publicProviderView(row: ProviderRow): PublicPaymentProviderView {
  return row.name === 'manual' ? { name: 'manual', instructions: row.instructions ?? '' } : { name: 'stripe', publishableKey: row.publishableKey ?? '' };
}

export function orderPaymentView(row: PaymentRow): OrderPaymentView {
  return {
    id: row.id,
    orderId: row.orderId,
    provider: row.provider,
    status: row.status,
    amount: Number(row.amount),
    currency: row.currency,
    capturedAmount: Number(row.capturedAmount),
    refundedAmount: Number(row.refundedAmount),
    instructions: row.instructions,
    createdAt: toIso(row.createdAt),
    updatedAt: toIsoOrNull(row.updatedAt),
  };
}

export const paymentView = (row: PaymentRow): PaymentView => ({ ...orderPaymentView(row), clientSecret: row.clientSecret });

/** A refund as the order shows it (how it was split over payments stays inside). */
export const refundView = (row: RefundRow): OrderRefundView => ({
  id: row.id, amount: Number(row.amount), reason: row.reason, lines: row.lines, restock: row.restock, status: row.status, createdAt: toIso(row.createdAt),
});
