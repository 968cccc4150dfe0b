/** Tax rate shapes (docs/checkout.md): one rate per (country, region, category), in basis points. */
import { Type, type Static } from '@sinclair/typebox';
import { Limit, Nullable, NullableTimestamp, Offset, Timestamp, Uuid, named } from '../../lib/http-schemas.js';

const Country = Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2, stored upper case', examples: ['DE'] });
const Region = Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Null()], { description: "matched to an address's `state`, ignoring case; null: the whole country", examples: ['TX'] });
const Category = Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Null()], { description: "a product's `taxCategory`; null: every product without a rate of its own", examples: ['books'] });
const Rate = Type.Integer({ minimum: 0, maximum: 10000, description: 'basis points: 2000 = 20 %, 825 = 8.25 %', examples: [825] });
const Name = Type.String({ minLength: 1, maxLength: 80, description: 'what the tax line says', examples: ['VAT'] });

export const TaxRate = named('TaxRate', Type.Object({
  id: Uuid('tax rate id'),
  country: Type.String({ examples: ['US'] }),
  region: Nullable('string'),
  category: Nullable('string'),
  rate: Type.Integer({ description: 'basis points', examples: [825] }),
  name: Type.String({ examples: ['Sales tax'] }),
  createdAt: Timestamp(),
  updatedAt: NullableTimestamp(),
}));
export type TaxRateView = Static<typeof TaxRate>;

export const CreateTaxRateBody = named('CreateTaxRateBody', Type.Object(
  { country: Country, region: Type.Optional(Region), category: Type.Optional(Category), rate: Rate, name: Name },
  { additionalProperties: false },
));
export type CreateTaxRateBody = Static<typeof CreateTaxRateBody>;
export const UpdateTaxRateBody = named('UpdateTaxRateBody', Type.Partial(CreateTaxRateBody, { additionalProperties: false }));
export type UpdateTaxRateBody = Static<typeof UpdateTaxRateBody>;

export const TaxRateEnvelope = named('TaxRateEnvelope', Type.Object({ taxRate: TaxRate }));
export const TaxRateList = named('TaxRateList', Type.Object({ taxRates: Type.Array(TaxRate), total: Type.Integer() }));
export const TaxRateListQuery = Type.Object({ limit: Type.Optional(Limit), offset: Type.Optional(Offset) }, { additionalProperties: false });
export const TaxRateParams = Type.Object({ id: Uuid('tax rate id') });
