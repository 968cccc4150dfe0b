/**
 * Cart states. PENDING is the only state that takes changes; it moves to COMPLETED when an order
 * is made from it (`completeStoresCarts`, guarded by `status = 'PENDING'`) or to EXPIRED after
 * CART_TTL_SECONDS without a change (sliding: every change moves `expires_at`). A PENDING row
 * whose `expires_at` has passed already reads as EXPIRED (the repository's column list says so)
 * before the periodic job marks it. COMPLETED and EXPIRED are final.
 */
import { AppError } from '../../lib/app-error.js';

export type CartStatus = 'PENDING' | 'COMPLETED' | 'EXPIRED';

/** Throws the 409 that a change to (or an order from) a cart in this state answers. */
export function assertCartPending(status: CartStatus, cartId: string): void {
  if (status === 'EXPIRED') throw new AppError('CART_EXPIRED', `cart ${cartId} has expired`);
  if (status !== 'PENDING') throw new AppError('CART_NOT_PENDING', `cart ${cartId} is ${status}, not PENDING`);
}

/** A cart changed at `now` (the database's time) expires CART_TTL_SECONDS later. */
export function expiryFrom(now: Date, ttlSeconds: number): Date {
  return new Date(now.getTime() + ttlSeconds * 1000);
}
