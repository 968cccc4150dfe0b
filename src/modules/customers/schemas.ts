/** Customer credentials: customer tokens, guest sessions and the store's identity-provider settings. */
import { Type, type Static } from '@sinclair/typebox';
import { NullableTimestamp, Timestamp, Uuid, named } from '../../lib/http-schemas.js';

export const CustomerToken = named('CustomerToken', Type.Object({
  id: Uuid('token id'),
  customerId: Uuid('the customer this token is bound to'),
  createdAt: Timestamp(),
  expiresAt: Timestamp('when the token stops working'),
  revokedAt: NullableTimestamp(),
}));

const Secret = Type.String({ description: 'the token secret, shown only in this answer; send it as Authorization: Bearer <secret>', examples: ['cus_demo_3q2...'] });

export const MintCustomerTokenBody = named('MintCustomerTokenBody', Type.Object(
  {
    customerId: Uuid('the customer id (your back end decides who it is)'),
    ttlSeconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 2592000, default: 3600, description: 'lifetime in seconds, 60..2592000 (default 3600)' })),
  },
  { additionalProperties: false },
));
export type MintCustomerTokenBody = Static<typeof MintCustomerTokenBody>;

export const MintedCustomerToken = named('MintedCustomerToken', Type.Object({ token: CustomerToken, secret: Secret }));
export const GuestSession = named('GuestSession', Type.Object({ customerId: Uuid('a new random customer id'), token: CustomerToken, secret: Secret }));
export const CustomerTokenEnvelope = named('CustomerTokenEnvelope', Type.Object({ token: CustomerToken }));
export const RevokedCount = named('RevokedCount', Type.Object({ revoked: Type.Integer({ description: 'how many live tokens were revoked' }) }));
export const RevokeAllQuery = Type.Object({ customerId: Uuid('revoke every token of this customer') }, { additionalProperties: false });
export const TokenParams = Type.Object({ id: Uuid('customer token id') });

const Jwk = Type.Object({ kty: Type.String({ examples: ['RSA', 'EC', 'OKP'] }) }, { additionalProperties: true, description: 'a public JWK' });
const Jwks = Type.Object({ keys: Type.Array(Jwk, { minItems: 1, maxItems: 50 }) }, { additionalProperties: true, description: 'an inline JWK Set of public keys' });

export const CustomerAuthBody = named('CustomerAuthBody', Type.Object(
  {
    issuer: Type.String({ minLength: 1, maxLength: 500, description: 'the `iss` of the tokens', examples: ['https://shop.eu.auth0.com/'] }),
    audience: Type.String({ minLength: 1, maxLength: 500, description: 'an `aud` the tokens carry', examples: ['https://api.shop.example'] }),
    jwksUrl: Type.Optional(Type.String({ maxLength: 2000, description: 'https URL of the JWK Set, on a public address (plain http and private addresses only with ALLOW_PRIVATE_NETWORKS); fetched with a 3 s timeout and a 64 KiB cap, no redirect followed; exclusive with jwks' })),
    jwks: Type.Optional(Jwks),
  },
  { additionalProperties: false },
));
export type CustomerAuthBody = Static<typeof CustomerAuthBody>;

export const CustomerAuth = named('CustomerAuth', Type.Object({
  issuer: Type.String(),
  audience: Type.String(),
  jwksUrl: Type.Union([Type.String(), Type.Null()]),
  jwks: Type.Union([Jwks, Type.Null()]),
  createdAt: Timestamp(),
  updatedAt: NullableTimestamp(),
}));
export const CustomerAuthEnvelope = named('CustomerAuthEnvelope', Type.Object({ customerAuth: CustomerAuth }));
