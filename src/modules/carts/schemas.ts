/** Cart request and response shapes of the contract, with the limits of docs/api.md ("Carts"). */
import { Type, type Static } from '@sinclair/typebox';
import { productFields } from '../catalog/index.js';
import { discountFields } from '../discounts/index.js';
import { checkoutFields } from '../shipping/index.js';
import { Nullable, NullableTimestamp, StringEnum, Timestamp, Uuid, named } from '../../lib/http-schemas.js';

export const LineQuantity = Type.Integer({ minimum: 1, maximum: 100_000, description: 'units, 1..100000' });

export const LineRequest = named('LineInput', Type.Object({ id: Uuid('product id'), quantity: LineQuantity }, { additionalProperties: false }));
export type LineRequest = Static<typeof LineRequest>;

export const CreateCartBody = named('CreateCartBody', Type.Object(
  { products: Type.Array(LineRequest, { minItems: 1, maxItems: 100, description: '1..100 lines; repeated ids are summed' }) },
  { additionalProperties: false },
));
export type CreateCartBody = Static<typeof CreateCartBody>;

export const PatchLineBody = named('UpdateCartLineBody', Type.Object(
  { quantity: Type.Integer({ minimum: 0, maximum: 100_000, description: 'the new quantity; 0 removes the line' }) },
  { additionalProperties: false },
));

export const CartParams = Type.Object({ id: Uuid('cart id') });
export const CartLineParams = Type.Object({ id: Uuid('cart id'), pid: Uuid('product id') });

/** A product inside a cart or an order: the product's fields plus its line. */
export const ProductLine = named('ProductLine', Type.Object({
  ...productFields,
  order: Type.Object({
    quantity: Type.Integer({ description: 'units of this product in the cart or order' }),
    price: Type.Integer({ description: 'line total: unit price times quantity' }),
  }),
}));

export const CartStatus = StringEnum(['PENDING', 'COMPLETED', 'EXPIRED'] as const);

export const Cart = named('Cart', Type.Object({
  id: Uuid('cart id'),
  store: Type.String({ examples: ['demo'] }),
  customerId: Nullable('string', { description: 'set when an order is made from the cart' }),
  addressId: Nullable('string', { description: 'set when an order is made from the cart' }),
  price: Type.Integer({ description: "sum of the lines' order.price" }),
  originalPrice: Nullable('integer', { description: 'sum of (originalPrice ?? price) × quantity when any line has an originalPrice' }),
  ...discountFields,
  ...checkoutFields,
  status: CartStatus,
  createdAt: Timestamp(),
  updatedAt: NullableTimestamp(),
  deletedAt: NullableTimestamp(),
  expiresAt: Timestamp('when the cart expires unless it changes before'),
  heldUntil: NullableTimestamp('until when the checkout hold keeps its units for it (POST /v1/carts/:id/hold); null: nothing held'),
  products: Type.Array(ProductLine),
}));
export type CartView = Static<typeof Cart>;

export const Warning = named('CartWarning', Type.Object({
  productId: Uuid('product id'),
  code: Type.String({ examples: ['INSUFFICIENT_STOCK'] }),
  requested: Type.Integer(),
  available: Type.Integer(),
}));
export type Warning = Static<typeof Warning>;

export const CartEnvelope = named('CartEnvelope', Type.Object({ cart: Cart }));
export const CreatedCartEnvelope = named('CreatedCartEnvelope', Type.Object({
  cart: Cart,
  warnings: Type.Optional(Type.Array(Warning, { description: 'requested lines that were not added, and why' })),
}));
