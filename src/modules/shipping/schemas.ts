/** Shipping option shapes (docs/checkout.md). */
import { Type, type Static } from '@sinclair/typebox';
import { Limit, Nullable, NullableTimestamp, Offset, Timestamp, Uuid, named } from '../../lib/http-schemas.js';

const Money = Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'smallest currency unit' });
const Countries = Type.Array(Type.String({ pattern: '^[A-Za-z]{2}$' }), { maxItems: 250, description: 'ISO 3166-1 alpha-2 codes, stored upper case; empty: every country', examples: [['US', 'CA']] });

export const ShippingOption = named('ShippingOption', Type.Object({
  id: Uuid('shipping option id'),
  name: Type.String({ examples: ['Standard'] }),
  price: Type.Integer({ description: 'smallest currency unit', examples: [500] }),
  countries: Type.Array(Type.String(), { description: 'where it ships; empty: everywhere' }),
  freeAbove: Nullable('integer', { description: 'the amount is 0 when the subtotal after discount is at least this' }),
  minSubtotal: Type.Integer({ description: 'it applies only from this subtotal after discount' }),
  active: Type.Boolean(),
  createdAt: Timestamp(),
  updatedAt: NullableTimestamp(),
}));
export type ShippingOptionView = Static<typeof ShippingOption>;

export const CreateShippingOptionBody = named('CreateShippingOptionBody', Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 80, examples: ['Standard'] }),
    price: Money,
    countries: Type.Optional(Countries),
    freeAbove: Type.Optional(Type.Union([Money, Type.Null()], { description: 'free from this subtotal after discount on; null: never free' })),
    minSubtotal: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'default 0' })),
    active: Type.Optional(Type.Boolean({ description: 'default true' })),
  },
  { additionalProperties: false },
));
export type CreateShippingOptionBody = Static<typeof CreateShippingOptionBody>;
export const UpdateShippingOptionBody = named('UpdateShippingOptionBody', Type.Partial(CreateShippingOptionBody, { additionalProperties: false }));
export type UpdateShippingOptionBody = Static<typeof UpdateShippingOptionBody>;

export const ShippingOptionEnvelope = named('ShippingOptionEnvelope', Type.Object({ shippingOption: ShippingOption }));
export const ShippingOptionList = named('ShippingOptionList', Type.Object({ shippingOptions: Type.Array(ShippingOption), total: Type.Integer() }));
export const ShippingOptionListQuery = Type.Object({ limit: Type.Optional(Limit), offset: Type.Optional(Offset) }, { additionalProperties: false });
export const ShippingOptionParams = Type.Object({ id: Uuid('shipping option id') });

/** Where a cart or an order ships, by which option, for how much. */
export const ShippingChoice = named('ShippingChoice', Type.Object({
  optionId: Uuid('shipping option id'),
  name: Type.String({ examples: ['Standard'] }),
  country: Type.String({ examples: ['US'] }),
  region: Nullable('string', { examples: ['TX'] }),
  amount: Type.Integer({ description: 'smallest currency unit; 0 when free' }),
}));
export const TaxLine = named('TaxLine', Type.Object({
  name: Type.String({ examples: ['Sales tax'] }),
  rate: Type.Integer({ description: 'basis points', examples: [825] }),
  amount: Type.Integer(),
}));

/** The fields every cart and order gains: its currency, shipping and taxes (docs/checkout.md). */
export const checkoutFields = {
  currency: Type.String({ description: "ISO 4217: a cart shows the store's current one, an order keeps the one it was placed in", examples: ['USD'] }),
  shipping: Type.Union([ShippingChoice, Type.Null()], { description: 'the shipping option and destination, or null' }),
  shippingTotal: Type.Integer({ description: "the shipping's amount, else 0" }),
  taxLines: Type.Array(TaxLine, { description: 'taxes summed by (name, rate): lines first, then shipping, in order of first appearance' }),
  taxTotal: Type.Integer({ description: 'the sum of taxLines; held in the prices when the store\'s prices include tax, else added to total' }),
};

export const ShippingCountryQuery = Type.Object(
  { country: Type.String({ minLength: 1, maxLength: 100, description: 'ISO 3166-1 alpha-2, any case; anything else is offered only the options that ship everywhere', examples: ['US'] }) },
  { additionalProperties: false },
);
export const CartShippingOptions = named('CartShippingOptions', Type.Object({
  shippingOptions: Type.Array(Type.Object({ id: Uuid('shipping option id'), name: Type.String(), amount: Type.Integer() }), { description: 'cheapest first' }),
}));
export const SetCartShippingBody = named('SetCartShippingBody', Type.Object(
  {
    optionId: Uuid('a shipping option that applies to the cart and country'),
    country: Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2; the cart is taxed for it', examples: ['US'] }),
    region: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'state or region; a regional tax rate applies with it', examples: ['TX'] })),
  },
  { additionalProperties: false },
));
export type SetCartShippingBody = Static<typeof SetCartShippingBody>;
