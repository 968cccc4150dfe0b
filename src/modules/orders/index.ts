/** The orders module's public interface: its schemas (placing and reading orders happen through its routes). */
export { Order, OrderEnvelope, OrderStatus } from './schemas.js';
export type { OrderView } from './schemas.js';
