/**
 * What an order's payments add up to, by rules a person can check by hand (docs/payments.md):
 * `paidTotal` is what was captured, `refundedTotal` what went back, and `paymentStatus`
 * `refunded` (refunds equal the captured money), `partially_refunded` (some went back), `paid`
 * (captured covers the total), `authorized` (authorized plus captured cover it), else `unpaid`.
 */
export type PaymentStatusOfOrder = 'unpaid' | 'authorized' | 'paid' | 'partially_refunded' | 'refunded';

export interface PaymentAmounts {
  status: 'pending' | 'authorized' | 'succeeded' | 'failed' | 'cancelled';
  amount: number;
  capturedAmount: number;
  refundedAmount: number;
}

export function paymentTotals(total: number, payments: readonly PaymentAmounts[]) {
  const paidTotal = payments.reduce((sum, p) => sum + p.capturedAmount, 0);
  const refundedTotal = payments.reduce((sum, p) => sum + p.refundedAmount, 0);
  const authorized = payments.filter((p) => p.status === 'authorized').reduce((sum, p) => sum + p.amount, 0);
  let paymentStatus: PaymentStatusOfOrder = 'unpaid';
  if (refundedTotal > 0 && refundedTotal === paidTotal) paymentStatus = 'refunded';
  else if (refundedTotal > 0) paymentStatus = 'partially_refunded';
  else if (paidTotal >= total) paymentStatus = 'paid';
  else if (authorized + paidTotal >= total) paymentStatus = 'authorized';
  // What a new payment is for: the total less what is authorized or kept.
  const balance = Math.max(0, total - authorized - (paidTotal - refundedTotal));
  return { paidTotal, refundedTotal, paymentStatus, balance };
}

/** Whether the payments cover the order: the moment CREATED becomes PAID. */
export const coversOrder = (status: PaymentStatusOfOrder) => status === 'paid' || status === 'authorized';
