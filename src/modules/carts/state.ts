/**
 * Cart states. PENDING is the only state that takes changes; COMPLETED is set when an order is
 * made from the cart; EXPIRED follows CART_TTL_SECONDS without a change (sliding: every change
 * moves `expires_at`). A PENDING row whose `expires_at` has passed already reads as EXPIRED,
 * before the periodic job marks it.
 */
import { AppError } from '../../plugins/errors.js';

export type CartStatus = 'PENDING' | 'COMPLETED' | 'EXPIRED';

/** Allowed transitions; every update is guarded by the state it expects (`where status = $from`). */
export const CART_TRANSITIONS: Record<CartStatus, readonly CartStatus[]> = {
  PENDING: ['COMPLETED', 'EXPIRED'],
  COMPLETED: [],
  EXPIRED: [],
};

/** The state a cart row is in at `now`. */
export function cartStatusAt(cart: { status: CartStatus; expiresAt: Date }, now: Date): CartStatus {
  return cart.status === 'PENDING' && cart.expiresAt.getTime() <= now.getTime() ? 'EXPIRED' : cart.status;
}

/** Throws the 409 that a change to (or an order from) a cart in this state answers. */
export function assertCartPending(status: CartStatus, cartId: string): void {
  if (status === 'EXPIRED') throw new AppError('CART_EXPIRED', `cart ${cartId} has expired`);
  if (status !== 'PENDING') throw new AppError('CART_NOT_PENDING', `cart ${cartId} is ${status}, not PENDING`);
}
