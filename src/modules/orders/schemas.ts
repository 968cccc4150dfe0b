import { Type, type Static } from '@sinclair/typebox';
import { Address } from '../addresses/index.js';
import { LineRequest, ProductLine } from '../carts/index.js';
import { discountFields } from '../discounts/index.js';
import { checkoutFields } from '../shipping/index.js';
import { OrderPayment, OrderRefund, OrderUnits } from '../payments/index.js';
import { Limit, Nullable, NullableTimestamp, Offset, StringEnum, Timestamp, Uuid, named } from '../../lib/http-schemas.js';

export const OrderStatus = StringEnum(['CREATED', 'PAID', 'FULFILLED', 'CANCELLED'] as const, {
  description: 'CREATED -> PAID -> FULFILLED; CREATED or PAID -> CANCELLED',
});
export type OrderStatus = Static<typeof OrderStatus>;

const OrderAddress = Uuid('an address id of this customer');
const OrderEmail = Type.String({ format: 'email', maxLength: 254, description: "the shopper's email; an order of a guest session needs it for a once-per-customer code", examples: ['ana@example.com'] });

export const OrderFromCart = named('OrderFromCart', Type.Object(
  { id: Uuid('a PENDING cart to order'), address: OrderAddress, email: Type.Optional(OrderEmail) },
  { additionalProperties: false, description: 'an order of the lines of a PENDING cart' },
));

export const OrderFromProducts = named('OrderFromProducts', Type.Object(
  {
    address: OrderAddress,
    products: Type.Array(LineRequest, { minItems: 1, maxItems: 100, description: '1..100 lines, repeated ids summed' }),
    discountCode: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'a discount code, any case (an order from a cart uses the cart\'s code)', examples: ['WELCOME10'] })),
    shippingOption: Type.Optional(Uuid('a shipping option id (an order from a cart uses the cart\'s shipping)')),
    email: Type.Optional(OrderEmail),
  },
  { additionalProperties: false, description: 'an order of a list of products' },
));

/** Exactly one of a cart (`id`) and a product list (`products`); service code reads it flat. */
export type CreateOrderBody = { id?: string; address: string; products?: LineRequest[]; discountCode?: string; shippingOption?: string; email?: string };
export const CreateOrderBody = Type.Unsafe<CreateOrderBody>({
  title: 'CreateOrderBody',
  description: 'from a PENDING cart (`id`) or from a product list (`products`): exactly one of them',
  oneOf: [OrderFromCart, OrderFromProducts],
});

export const FulfillmentStatus = StringEnum(['unfulfilled', 'partially_fulfilled', 'fulfilled'] as const, { description: 'how many of its units have shipped' });
export const PaymentStatusOfOrder = StringEnum(['unpaid', 'authorized', 'paid', 'partially_refunded', 'refunded'] as const, {
  description: '`refunded`: refundedTotal > 0 and equal to paidTotal; `partially_refunded`: refundedTotal > 0; `paid`: paidTotal >= total; `authorized`: authorized plus captured >= total; else `unpaid`',
});

export const Fulfillment = named('Fulfillment', Type.Object({
  id: Uuid('fulfillment id'),
  lines: OrderUnits,
  trackingNumber: Nullable('string'),
  trackingUrl: Nullable('string'),
  carrier: Nullable('string'),
  createdAt: Timestamp(),
}));
export type FulfillmentView = Static<typeof Fulfillment>;

export const Order = named('Order', Type.Object({
  id: Uuid('order id'),
  number: Type.Integer({ description: 'what a shopper quotes: unique within the store, increasing, from 1001 (numbers may skip)', examples: [1042] }),
  store: Type.String({ examples: ['demo'] }),
  customerId: Uuid('customer id'),
  email: Nullable('string', { description: 'the email given with the order, or null' }),
  addressId: Uuid('address id'),
  price: Type.Integer({ description: "sum of the lines' order.price" }),
  originalPrice: Nullable('integer'),
  ...discountFields,
  ...checkoutFields,
  status: OrderStatus,
  payments: Type.Array(OrderPayment, { description: 'oldest first' }),
  paidTotal: Type.Integer({ description: 'captured by its payments' }),
  refundedTotal: Type.Integer({ description: 'refunded of it' }),
  paymentStatus: PaymentStatusOfOrder,
  fulfillments: Type.Array(Fulfillment, { description: 'shipments, oldest first' }),
  fulfillmentStatus: FulfillmentStatus,
  refunds: Type.Array(OrderRefund, { description: 'money given back, oldest first' }),
  createdAt: Timestamp(),
  updatedAt: NullableTimestamp(),
  deletedAt: NullableTimestamp(),
  products: Type.Array(ProductLine, { description: 'each product as it was when ordered; quantity is the stock left right after' }),
  address: Address,
}));
export type OrderView = Static<typeof Order>;

export const OrderEnvelope = named('OrderEnvelope', Type.Object({ order: Order }));
export const OrderList = named('OrderList', Type.Object({ orders: Type.Array(Order), total: Type.Integer() }));
export const OrderListQuery = Type.Object({ limit: Type.Optional(Limit), offset: Type.Optional(Offset) }, { additionalProperties: false });
export const CustomerOrderParams = Type.Object({ customer: Uuid('customer id'), id: Uuid('order id') });

export const AdminOrderListQuery = Type.Object(
  {
    limit: Type.Optional(Limit),
    offset: Type.Optional(Offset),
    status: Type.Optional(OrderStatus),
    number: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'the order number' })),
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 254, description: 'exact, ignoring case' })),
    customerId: Type.Optional(Uuid('customer id')),
    createdFrom: Type.Optional(Timestamp('created at or after (ISO timestamp)')),
    createdTo: Type.Optional(Timestamp('created before (ISO timestamp)')),
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "matches the number, the email, or the recipient's name (ignoring case)" })),
    fulfillmentStatus: Type.Optional(FulfillmentStatus),
    paymentStatus: Type.Optional(PaymentStatusOfOrder),
  },
  { additionalProperties: false },
);
export type AdminOrderListQuery = Static<typeof AdminOrderListQuery>;
export const AdminOrderParams = Type.Object({ id: Uuid('order id') });
export const UpdateOrderBody = named('UpdateOrderStatusBody', Type.Object({ status: OrderStatus }, { additionalProperties: false }));

const Tracking = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 500, description }));
export const CreateFulfillmentBody = named('CreateFulfillmentBody', Type.Object(
  {
    lines: Type.Optional(Type.Array(Type.Object({ productId: Uuid('a product of the order'), quantity: Type.Integer({ minimum: 1, maximum: 1_000_000 }) }, { additionalProperties: false }), { minItems: 1, maxItems: 100, description: 'the units shipped; without it, every unit not yet fulfilled' })),
    trackingNumber: Tracking('the carrier\'s tracking number'),
    trackingUrl: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2000, description: 'where the shopper follows the parcel' })),
    carrier: Tracking('who carries it'),
  },
  { additionalProperties: false },
));
export type CreateFulfillmentBody = Static<typeof CreateFulfillmentBody>;
export const FulfillmentEnvelope = named('FulfillmentEnvelope', Type.Object({ fulfillment: Fulfillment, order: Order }));

export const CreateRefundBody = named('CreateRefundBody', Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: 1_000_000_000_000, description: "to give back, in the order's currency (minor units)" }),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    lines: Type.Optional(Type.Array(Type.Object({ productId: Uuid('a product of the order'), quantity: Type.Integer({ minimum: 1, maximum: 1_000_000 }) }, { additionalProperties: false }), { minItems: 1, maxItems: 100, description: 'the units the refund is for' })),
    restock: Type.Optional(Type.Boolean({ description: 'put the lines\' units back in stock (a return); default false' })),
  },
  { additionalProperties: false },
));
export type CreateRefundBody = Static<typeof CreateRefundBody>;
export const RefundEnvelope = named('RefundEnvelope', Type.Object({ refund: OrderRefund, order: Order }));
