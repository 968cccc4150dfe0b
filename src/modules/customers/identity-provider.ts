/**
 * Customers signed in by a store's own identity provider (Auth0, Cognito, Keycloak, ...): a bearer
 * JWT is matched to its store by `iss` and `aud`, then verified with `jose` against the store's JWK
 * Set: RS256, ES256 or EdDSA only (never `none`, never an HMAC), `exp` required with 30 s leeway,
 * `nbf` honoured, `sub` a UUID (the customer id). A remote JWK Set is fetched with a 3 s timeout,
 * cached, and fetched again when a token names an unknown `kid` (at most once per cool-down).
 */
import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { Database } from '../../db/client.js';
import { AppError } from '../../plugins/errors.js';
import { findCustomerAuthByIssuer, type CustomerAuthMatch, type JwkSet } from './customer-auth-repository.js';

export const JWT_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'];
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface JwtCustomer {
  store: string;
  customerId: string;
  catalogVersion: number;
}

export const looksLikeJwt = (token: string) => JWT_SHAPE.test(token);

/** A JWK Set that could not be fetched: JWT requests answer 503, nothing else is affected. */
class KeySetUnavailable extends Error {}

export class IdentityProviders {
  /** Key sets per store, rebuilt when the store's settings change (their `updatedAt`). */
  private readonly keySets = new Map<string, { version: string; getKey: JWTVerifyGetKey }>();

  constructor(private readonly options: { fetchTimeoutMs: number; refetchCooldownMs: number }) {}

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
      throw refuse('the token is not a valid JWT');
    }
    const audiences = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud.filter((a) => typeof a === 'string') : [];
    if (typeof claims.iss !== 'string' || audiences.length === 0) throw refuse('the JWT names no issuer or audience');
    const match = await findCustomerAuthByIssuer(db, claims.iss, audiences);
    if (!match) throw refuse('no store accepts JWTs of this issuer and audience');
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
        });
      }
      throw refuse(`the JWT was refused: ${reasonOf(error)}`);
    }
    if (!sub || !UUID.test(sub)) throw refuse('the JWT subject (sub) must be a UUID: it is the customer id');
    return { store: match.store, customerId: sub.toLowerCase(), catalogVersion: match.catalogVersion };
  }

  private keySetOf(match: CustomerAuthMatch): JWTVerifyGetKey {
    const version = `${match.updatedAt}|${match.jwksUrl ?? ''}`;
    const known = this.keySets.get(match.store);
    if (known && known.version === version) return known.getKey;
    const getKey = match.jwksUrl ? this.remote(match.jwksUrl) : local(match.jwks ?? { keys: [] });
    this.keySets.set(match.store, { version, getKey });
    return getKey;
  }

  private remote(url: string): JWTVerifyGetKey {
    const keySet = createRemoteJWKSet(new URL(url), {
      timeoutDuration: this.options.fetchTimeoutMs,
      cooldownDuration: this.options.refetchCooldownMs,
    });
    return async (header, token) => {
      try {
        return await keySet(header, token);
      } catch (error) {
        // An unknown kid (after the refetch) is the token's fault; anything else is the fetch's.
        if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys || error instanceof errors.JOSENotSupported) throw error;
        throw new KeySetUnavailable(error instanceof Error ? error.message : String(error));
      }
    };
  }
}

function local(jwks: JwkSet): JWTVerifyGetKey {
  return createLocalJWKSet(jwks as Parameters<typeof createLocalJWKSet>[0]);
}

function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'it has expired';
  if (error instanceof errors.JWTClaimValidationFailed) return `claim ${error.claim} ${error.reason === 'check_failed' ? 'is not valid' : error.reason}`;
  if (error instanceof errors.JOSEAlgNotAllowed) return 'its algorithm is not allowed (RS256, ES256 or EdDSA)';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the signature does not verify';
  if (error instanceof errors.JWKSNoMatchingKey) return 'no key of the JWK Set matches it';
  return 'it is malformed';
}
