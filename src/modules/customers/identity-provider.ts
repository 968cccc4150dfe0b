/**
 * Customers signed in by a store's own identity provider (Auth0, Cognito, Keycloak, ...): a bearer
 * JWT is matched to exactly one store by its `iss` (and, for an issuer listed in
 * SHARED_JWT_ISSUERS, its `aud`), then verified with `jose` against that store's JWK Set: RS256,
 * ES256 or EdDSA only (never `none`, never an HMAC), `exp` required with 30 s leeway, `nbf`
 * honoured, `sub` a UUID (the customer id). A token that could belong to two stores belongs to
 * neither. Every refusal reads the same, so that nobody learns which issuers or audiences are
 * registered.
 */
import type { FastifyBaseLogger } from 'fastify';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { Database } from '../../db/client.js';
import { AppError } from '../../plugins/errors.js';
import { findIssuerRegistrations, type CustomerAuthMatch, type JwkSet } from './customer-auth-repository.js';
import { KeySetUnavailable, remoteKeySet, type RemoteKeySetOptions } from './jwks-fetch.js';
import { BoundedMap } from '../../lib/bounded-map.js';

/** How many stores' identity-provider key sets one process keeps (docs/performance.md, Memory). */
export const KEY_SETS_REMEMBERED = 1000;

export const JWT_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'];
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The one answer to every refused JWT, whatever the reason. */
export const JWT_REFUSED = 'the JWT was refused: it is malformed, expired or not yet valid, or not issued and signed for a store of this service';
/** A JWK Set of at most this size; anything larger is not a JWK Set. */
export const JWKS_MAX_BYTES = 64 * 1024;

export interface JwtCustomer {
  store: string;
  customerId: string;
  catalogVersion: number;
  holdsVersion: number;
}

export const looksLikeJwt = (token: string) => JWT_SHAPE.test(token);

export interface IdentityProviderOptions extends Pick<RemoteKeySetOptions, 'timeoutMs' | 'refetchCooldownMs' | 'allowPrivateNetworks'> {
  /** Issuers that several stores may register, each with its own audience. */
  sharedIssuers: string[];
}

export class IdentityProviders {
  /** Key sets per store, rebuilt when the store's settings change (their `updatedAt`). */
  // At most KEY_SETS_REMEMBERED stores' (the least recently used rebuilt when asked again).
  private readonly keySets = new BoundedMap<string, { version: string; getKey: JWTVerifyGetKey }>(KEY_SETS_REMEMBERED);
  private readonly sharedIssuers: Set<string>;

  constructor(
    private readonly options: IdentityProviderOptions,
    private readonly log?: FastifyBaseLogger,
  ) {
    this.sharedIssuers = new Set(options.sharedIssuers);
  }

  /** True when a bearer secret has the shape of a JWT. */
  recognizes(secret: string): boolean {
    return looksLikeJwt(secret);
  }

  /** The customer a bearer JWT names, or a 401 (`invalid_token`) / 503 AppError. */
  async authenticate(db: Database, token: string, refuse: (detail: string) => AppError): Promise<JwtCustomer> {
    let claims: { iss?: string; aud?: string | string[] };
    try {
      claims = decodeJwt(token);
    } catch {
      throw refuse(JWT_REFUSED);
    }
    const audiences = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud.filter((a) => typeof a === 'string') : [];
    if (typeof claims.iss !== 'string' || audiences.length === 0) throw refuse(JWT_REFUSED);
    // An issuer has one owner; only a shared one is told apart by audience.
    const matches = await findIssuerRegistrations(db, claims.iss, this.sharedIssuers.has(claims.iss) ? audiences : null);
    const [match] = matches;
    if (!match) throw refuse(JWT_REFUSED);
    if (matches.length > 1) {
      this.log?.warn(
        { event: 'jwt_ambiguous', issuer: claims.iss, stores: matches.map((m) => m.store) },
        `a JWT of issuer ${claims.iss} matches the registrations of stores ${matches.map((m) => m.store).join(' and ')}: refused for both`,
      );
      throw refuse(JWT_REFUSED);
    }
    let sub: string | undefined;
    try {
      const { payload } = await jwtVerify(token, this.keySetOf(match), {
        issuer: match.issuer,
        audience: match.audience,
        algorithms: JWT_ALGORITHMS,
        clockTolerance: 30,
        requiredClaims: ['exp', 'sub'],
      });
      sub = payload.sub;
    } catch (error) {
      if (error instanceof KeySetUnavailable) {
        throw new AppError('SERVICE_UNAVAILABLE', "the store's identity provider keys (JWK Set) cannot be fetched; retry shortly", {
          headers: { 'retry-after': '5' },
          cause: error.message,
        });
      }
      throw refuse(JWT_REFUSED);
    }
    if (!sub || !UUID.test(sub)) throw refuse(JWT_REFUSED);
    return { store: match.store, customerId: sub.toLowerCase(), catalogVersion: match.catalogVersion, holdsVersion: Number(match.holdsVersion) };
  }

  private keySetOf(match: CustomerAuthMatch): JWTVerifyGetKey {
    const version = `${match.updatedAt}|${match.jwksUrl ?? ''}`;
    const known = this.keySets.get(match.store);
    if (known && known.version === version) return known.getKey;
    const getKey = match.jwksUrl
      ? remoteKeySet(match.jwksUrl, { ...this.options, maxBytes: JWKS_MAX_BYTES, maxAgeMs: 10 * 60_000 })
      : local(match.jwks ?? { keys: [] });
    this.keySets.set(match.store, { version, getKey });
    return getKey;
  }
}

function local(jwks: JwkSet): JWTVerifyGetKey {
  return createLocalJWKSet(jwks as Parameters<typeof createLocalJWKSet>[0]);
}
