/** The payments module's public interface: what orders render and decide, and the storefront's provider list. */
export { OrderPayment, OrderRefund, OrderUnits, PaymentStatus, Payment, PublicPaymentProvider } from './schemas.js';
export type { OrderPaymentView, OrderRefundView, PublicPaymentProviderView } from './schemas.js';
export { orderPaymentView, refundView } from './views.js';
export { closeOrderPayments, enableManualProvider, paymentsOfOrders, paymentsOfOrdersPart, publicPaymentProviders, recordManualPayment, refundsOfOrders, refundsOfOrdersPart, takeRefund, type RefundRequest } from './service.js';
export type { PaymentRow, RefundRow } from './repository.js';
export { PaymentsRuntime, type PaymentsSettings } from './runtime.js';
