import { Type, type Static } from '@sinclair/typebox';
import { Address } from '../addresses/schemas.js';
import { LineRequest, ProductLine } from '../carts/schemas.js';
import { Limit, Nullable, NullableTimestamp, Offset, StringEnum, Timestamp, Uuid } from '../../lib/http-schemas.js';

export const OrderStatus = StringEnum(['CREATED', 'PAID', 'FULFILLED', 'CANCELLED'] as const, {
  description: 'CREATED -> PAID -> FULFILLED; CREATED or PAID -> CANCELLED',
});
export type OrderStatus = Static<typeof OrderStatus>;

export const CreateOrderBody = Type.Object(
  {
    id: Type.Optional(Uuid('a PENDING cart to order; exclusive with products')),
    address: Uuid('an address id of this customer'),
    products: Type.Optional(
      Type.Array(LineRequest, { minItems: 1, maxItems: 100, description: '1..100 lines, repeated ids summed; exclusive with id' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateOrderBody = Static<typeof CreateOrderBody>;

export const Order = Type.Object({
  id: Uuid('order id'),
  store: Type.String({ examples: ['demo'] }),
  customerId: Uuid('customer id'),
  addressId: Uuid('address id'),
  price: Type.Integer({ description: "sum of the lines' order.price" }),
  originalPrice: Nullable('integer'),
  status: OrderStatus,
  createdAt: Timestamp(),
  updatedAt: NullableTimestamp(),
  deletedAt: NullableTimestamp(),
  products: Type.Array(ProductLine, { description: 'each product as it was when ordered; quantity is the stock left right after' }),
  address: Address,
});
export type OrderView = Static<typeof Order>;

export const OrderEnvelope = Type.Object({ order: Order });
export const OrderList = Type.Object({ orders: Type.Array(Order), total: Type.Integer() });
export const OrderListQuery = Type.Object({ limit: Type.Optional(Limit), offset: Type.Optional(Offset) }, { additionalProperties: false });
export const CustomerOrderParams = Type.Object({ customer: Uuid('customer id'), id: Uuid('order id') });

export const AdminOrderListQuery = Type.Object(
  { limit: Type.Optional(Limit), offset: Type.Optional(Offset), status: Type.Optional(OrderStatus) },
  { additionalProperties: false },
);
export const AdminOrderParams = Type.Object({ id: Uuid('order id') });
export const UpdateOrderBody = Type.Object({ status: OrderStatus }, { additionalProperties: false });
