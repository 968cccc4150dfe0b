/** The orders module's public interface: its schemas (placing and reading orders happen through its routes). */
export { Order, OrderEnvelope, OrderStatus } from './schemas.js';
export type { OrderView } from './schemas.js';
export { cancelUnpaidOrder, lockOrder, lockOrders, markOrderPaid, markOrdersPaid } from './admin-service.js';
export { renderingOf, renderOrder, renderOrders, type KnownOfOrders } from './service.js';
export { orderTotalOf, paymentAmounts } from './views.js';
export { unpaidOrdersPastTimeout, type OrderRow } from './repository.js';
