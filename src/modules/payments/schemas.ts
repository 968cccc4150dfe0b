/** Payments and payment providers as the API answers them (TypeBox; also the OpenAPI document). */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, NullableTimestamp, StringEnum, Timestamp, Uuid, named } from '../../lib/http-schemas.js';

export const ProviderName = StringEnum(['manual', 'stripe'] as const, { description: 'a payment provider' });
export const CaptureMethod = StringEnum(['automatic', 'manual'] as const, {
  description: '`automatic`: captured when the shopper pays; `manual`: authorized now, captured at the first fulfilment',
});
export const PaymentStatus = StringEnum(['pending', 'authorized', 'succeeded', 'failed', 'cancelled'] as const, { description: "the payment's state at its provider" });

export const PaymentProvider = named('PaymentProvider', Type.Object({
  name: ProviderName,
  enabled: Type.Boolean(),
  captureMethod: CaptureMethod,
  publishableKey: Nullable('string', { description: "Stripe's publishable key (public); null for manual" }),
  secretKeyLast4: Nullable('string', { description: 'the last 4 characters of the secret key; the key itself is never answered' }),
  instructions: Nullable('string', { description: 'what the shopper is told to do (manual)' }),
  webhookUrl: Nullable('string', { description: 'the URL to register at Stripe for its webhooks (path; prefix it with the public origin)' }),
  createdAt: Timestamp(),
  updatedAt: NullableTimestamp(),
}));
export type PaymentProviderView = Static<typeof PaymentProvider>;

export const PaymentProviderEnvelope = named('PaymentProviderEnvelope', Type.Object({ paymentProvider: PaymentProvider }));
export const PaymentProviderList = named('PaymentProviderList', Type.Object({ paymentProviders: Type.Array(PaymentProvider) }));

export const ManualProviderBody = named('ManualProviderBody', Type.Object(
  { instructions: Type.Optional(Type.String({ maxLength: 2000, description: 'shown to the shopper, e.g. "Pay on delivery"' })) },
  { additionalProperties: false },
));

const secret = (description: string) => Type.String({ minLength: 8, maxLength: 255, pattern: '^\\S+$', description });
export const StripeProviderBody = named('StripeProviderBody', Type.Object(
  {
    secretKey: secret('sk_live_... or sk_test_... (write-only; stored encrypted)'),
    publishableKey: Type.String({ minLength: 8, maxLength: 255, pattern: '^pk_\\S+$', description: 'pk_live_... or pk_test_...' }),
    webhookSecret: secret('whsec_... of the webhook endpoint registered at Stripe (write-only; stored encrypted)'),
    captureMethod: Type.Optional(CaptureMethod),
  },
  { additionalProperties: false },
));
export const ProviderParams = Type.Object({ name: ProviderName });

/** A payment as an order shows it: no client secret. */
const paymentFields = {
  id: Uuid('payment id'),
  orderId: Uuid('order id'),
  provider: ProviderName,
  status: PaymentStatus,
  amount: Type.Integer({ description: "the order's unpaid balance when the payment was made, in the currency's smallest unit" }),
  currency: Type.String({ description: 'ISO 4217, upper case', examples: ['USD'] }),
  capturedAmount: Type.Integer({ description: 'captured of it' }),
  refundedAmount: Type.Integer({ description: 'refunded of it' }),
  instructions: Nullable('string', { description: "the manual provider's instructions" }),
  createdAt: Timestamp(),
  updatedAt: NullableTimestamp(),
};
export const OrderPayment = named('OrderPayment', Type.Object(paymentFields));
export type OrderPaymentView = Static<typeof OrderPayment>;

/** The units a fulfilment ships or a refund returns. */
export const OrderUnits = Type.Array(
  Type.Object({ productId: Uuid('a product of the order'), quantity: Type.Integer({ minimum: 1, maximum: 1_000_000 }) }, { additionalProperties: false }),
  { maxItems: 100 },
);

export const OrderRefund = named('OrderRefund', Type.Object({
  id: Uuid('refund id'),
  amount: Type.Integer({ description: 'given back, in the order\'s currency (minor units)' }),
  reason: Nullable('string'),
  lines: OrderUnits,
  restock: Type.Boolean({ description: 'the lines\' units were put back in stock (a return)' }),
  status: StringEnum(['pending', 'succeeded'] as const, { description: '`pending` while a provider has yet to make it (the service retries)' }),
  createdAt: Timestamp(),
}));
export type OrderRefundView = Static<typeof OrderRefund>;

export const Payment = named('Payment', Type.Object({
  ...paymentFields,
  clientSecret: Nullable('string', { description: "for Stripe.js to confirm the payment in the shopper's browser (stripe)" }),
}));
export type PaymentView = Static<typeof Payment>;
export const PaymentEnvelope = named('PaymentEnvelope', Type.Object({ payment: Payment }));

export const CreatePaymentBody = named('CreatePaymentBody', Type.Object({ provider: ProviderName }, { additionalProperties: false }));
export const OrderPaymentParams = Type.Object({ customer: Uuid('customer id'), id: Uuid('order id') });
export const SyncPaymentParams = Type.Object({ customer: Uuid('customer id'), id: Uuid('order id'), paymentId: Uuid('payment id') });
export const StripeWebhookParams = Type.Object({ store: Type.String({ minLength: 1, maxLength: 63, description: 'the store slug' }) });
export const WebhookReceipt = named('PaymentWebhookReceipt', Type.Object({ received: Type.Boolean() }));

/** What the storefront needs to offer a provider (GET /v1/store's `paymentProviders`): never a secret. */
export const PublicPaymentProvider = named('PublicPaymentProvider', Type.Union([
  Type.Object({ name: Type.Literal('manual'), instructions: Type.String() }),
  Type.Object({ name: Type.Literal('stripe'), publishableKey: Type.String() }),
]));
export type PublicPaymentProviderView = Static<typeof PublicPaymentProvider>;
