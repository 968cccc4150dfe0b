/** Order states and the only transitions the admin API allows. */
import { AppError } from '../../plugins/errors.js';
import type { OrderStatus } from './schemas.js';

export const ORDER_TRANSITIONS: Record<OrderStatus, readonly OrderStatus[]> = {
  CREATED: ['PAID', 'CANCELLED'],
  PAID: ['FULFILLED', 'CANCELLED'],
  FULFILLED: [],
  CANCELLED: [],
};

export function assertTransition(from: OrderStatus, to: OrderStatus): void {
  if (!ORDER_TRANSITIONS[from].includes(to)) {
    throw new AppError('INVALID_TRANSITION', `an order cannot go from ${from} to ${to}`);
  }
}
