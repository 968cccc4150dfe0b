/** The orders module's public interface: its schemas (placing and reading orders happen through its routes). */
export { Order, OrderEnvelope, OrderStatus } from './schemas.js';
export type { OrderView } from './schemas.js';
export { cancelUnpaidOrder, lockOrder, markOrderPaid } from './admin-service.js';
export { renderOrder } from './service.js';
export { orderTotalOf, paymentAmounts } from './views.js';
export { unpaidOrdersPastTimeout, type OrderRow } from './repository.js';
