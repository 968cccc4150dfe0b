/** The payments module's public interface: what orders render and decide, and the storefront's provider list. */
export { OrderPayment, PaymentStatus, Payment, PublicPaymentProvider } from './schemas.js';
export type { OrderPaymentView, PublicPaymentProviderView } from './schemas.js';
export { orderPaymentView } from './views.js';
export { closeOrderPayments, enableManualProvider, paymentsOfOrders, publicPaymentProviders, recordManualPayment } from './service.js';
export type { PaymentRow } from './repository.js';
export { PaymentsRuntime } from './runtime.js';
