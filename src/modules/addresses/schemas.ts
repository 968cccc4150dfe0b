import { Type, type Static } from '@sinclair/typebox';
import { Limit, NullableTimestamp, Offset, Timestamp, Uuid, named } from '../../lib/http-schemas.js';

const Required = (example: string) => Type.String({ minLength: 1, maxLength: 255, examples: [example] });
const Optional = (example: string) => Type.Optional(Type.String({ maxLength: 255, default: '', examples: [example] }));

export const AddressInput = named('AddressInput', Type.Object(
  {
    alias: Optional('home'),
    zipcode: Required('01001-000'),
    street: Required('Rua Augusta'),
    state: Required('SP'),
    city: Required('São Paulo'),
    country: Required('BR'),
    neightborhood: Optional('Consolação'),
    number: Required('1508'),
    complement: Optional('apt 12'),
    name: Optional('Ana Souza'),
    phone: Optional('+55 11 5555-0100'),
  },
  { additionalProperties: false },
));
export type AddressInput = Static<typeof AddressInput>;

export const CreateAddressBody = named('CreateAddressBody', Type.Object({ address: AddressInput }, { additionalProperties: false }));

export const Address = named('Address', Type.Object({
  id: Uuid('address id'),
  store: Type.String({ examples: ['demo'] }),
  customerId: Uuid('customer id'),
  alias: Type.String(),
  zipcode: Type.String(),
  street: Type.String(),
  state: Type.String(),
  city: Type.String(),
  country: Type.String(),
  neightborhood: Type.String({ description: 'spelled so by the contract' }),
  number: Type.String(),
  complement: Type.String(),
  name: Type.String({ description: 'the recipient' }),
  phone: Type.String(),
  createdAt: Timestamp(),
  updatedAt: NullableTimestamp(),
  deletedAt: NullableTimestamp(),
}));
export type AddressView = Static<typeof Address>;

export const AddressEnvelope = named('AddressEnvelope', Type.Object({ address: Address }));
export const AddressList = named('AddressList', Type.Object({ addresses: Type.Array(Address), total: Type.Integer() }));
export const AddressListQuery = Type.Object({ limit: Type.Optional(Limit), offset: Type.Optional(Offset) }, { additionalProperties: false });
