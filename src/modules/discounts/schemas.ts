/** Discount codes as the admin API takes and answers them, and the `discount` carts and orders show. */
import { Type, type Static } from '@sinclair/typebox';
import { Limit, Nullable, NullableTimestamp, Offset, StringEnum, Timestamp, Uuid, named } from '../../lib/http-schemas.js';

export const DISCOUNT_CODE_PATTERN = '^[A-Za-z0-9_-]{3,40}$';
const Code = Type.String({ pattern: DISCOUNT_CODE_PATTERN, minLength: 3, maxLength: 40, description: '3..40 letters, digits, _ or -; stored upper-case, matched without regard to case', examples: ['WELCOME10'] });
export const DiscountType = StringEnum(['percentage', 'fixed'] as const, { description: '`percentage` (value 1..100) or `fixed` (value in money)' });
const Value = Type.Integer({ minimum: 1, maximum: 1_000_000_000, description: 'percentage: 1..100; fixed: the amount, >= 1' });
const MinSubtotal = Type.Integer({ minimum: 0, maximum: 1_000_000_000_000, description: "the cart's or order's price must be at least this (default 0)" });
const When = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
const UsageLimit = Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000_000 }), Type.Null()], { description: 'uses allowed (null: no limit)' });
const Ids = (what: string) => Type.Array(Uuid(`${what} id of this store`), { maxItems: 1000, description: `${what}s whose lines are eligible (with the other list: both empty, every line)` });

const editable = {
  type: DiscountType,
  value: Value,
  minSubtotal: MinSubtotal,
  startsAt: When,
  endsAt: When,
  usageLimit: UsageLimit,
  oncePerCustomer: Type.Boolean({ description: 'at most one order with it per customer (default false)' }),
  products: Ids('product'),
  collections: Ids('collection'),
  active: Type.Boolean({ description: 'default true' }),
};

export const CreateDiscountBody = named('CreateDiscountBody', Type.Object(
  {
    code: Code,
    type: editable.type,
    value: editable.value,
    minSubtotal: Type.Optional(editable.minSubtotal),
    startsAt: Type.Optional(editable.startsAt),
    endsAt: Type.Optional(editable.endsAt),
    usageLimit: Type.Optional(editable.usageLimit),
    oncePerCustomer: Type.Optional(editable.oncePerCustomer),
    products: Type.Optional(editable.products),
    collections: Type.Optional(editable.collections),
    active: Type.Optional(editable.active),
  },
  { additionalProperties: false },
));
export type CreateDiscountBody = Static<typeof CreateDiscountBody>;

export const UpdateDiscountBody = named('UpdateDiscountBody', Type.Partial(Type.Object(editable), { additionalProperties: false, minProperties: 1, description: 'any field but `code` and `usageCount`' }));
export type UpdateDiscountBody = Static<typeof UpdateDiscountBody>;

export const Discount = named('Discount', Type.Object({
  id: Uuid('discount id'),
  code: Type.String({ examples: ['WELCOME10'] }),
  type: DiscountType,
  value: Type.Integer(),
  minSubtotal: Type.Integer(),
  startsAt: NullableTimestamp(),
  endsAt: NullableTimestamp(),
  usageLimit: Nullable('integer'),
  usageCount: Type.Integer({ description: 'placed orders with the code that are not cancelled' }),
  oncePerCustomer: Type.Boolean(),
  products: Type.Array(Type.String()),
  collections: Type.Array(Type.String()),
  active: Type.Boolean(),
  createdAt: Timestamp(),
  updatedAt: NullableTimestamp(),
}));
export type DiscountView = Static<typeof Discount>;

export const DiscountEnvelope = named('DiscountEnvelope', Type.Object({ discount: Discount }));
export const DiscountList = named('DiscountList', Type.Object({ discounts: Type.Array(Discount), total: Type.Integer() }));
export const DiscountListQuery = Type.Object({ limit: Type.Optional(Limit), offset: Type.Optional(Offset) }, { additionalProperties: false });
export const DiscountParams = Type.Object({ id: Uuid('discount id') });

/** The `discount` of a cart or an order. */
export const AppliedDiscount = named('AppliedDiscount', Type.Object(
  {
    code: Type.String({ examples: ['WELCOME10'] }),
    type: DiscountType,
    value: Type.Integer(),
    amount: Type.Integer({ description: 'what the code takes off; 0 on a cart when it does not apply now' }),
  },
  { description: 'the discount code and what it takes off' },
));

/** Fields carts and orders gain. */
export const discountFields = {
  discount: Type.Union([AppliedDiscount, Type.Null()], { description: 'the discount code, or null' }),
  discountTotal: Type.Integer({ description: "the discount's amount, else 0" }),
  total: Type.Integer({ description: 'what the shopper pays: price - discountTotal + shippingTotal, plus taxTotal when the store\'s prices exclude tax' }),
};

export const DiscountCodeBody = named('DiscountCodeBody', Type.Object({ code: Type.String({ minLength: 1, maxLength: 100, description: 'a discount code, any case', examples: ['welcome10'] }) }, { additionalProperties: false }));
