/** The carts module's public interface: what orders need of carts, and the line schemas orders share. */
export { lockStoresCartsForOrders, completeStoresCarts, type OrderableCart } from './service.js';
export { assertCartPending } from './state.js';
export { checkoutsOfStoresPart } from './checkout.js';
export { expireCarts } from './expiry-job.js';
export { LineRequest, ProductLine } from './schemas.js';
