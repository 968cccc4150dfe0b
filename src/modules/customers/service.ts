/**
 * Customer credentials: customer tokens minted by a shop's back end, guest sessions for shops
 * without one, and the store's identity-provider settings for JWTs. Tokens live in the `tokens`
 * table (kind `customer`), so revocation and expiry are seen at once by every process.
 */
import { randomUUID } from 'node:crypto';
import type { Executor } from '../../db/client.js';
import { postgresErrorCode } from '../../db/errors.js';
import { AppError } from '../../plugins/errors.js';
import { toIso, toIsoOrNull } from '../../lib/time.js';
import * as tokens from '../stores/index.js';
import * as repo from './customer-auth-repository.js';
import { OutboundRefusal, resolveOutboundTarget } from '../../lib/outbound-policy.js';

/** The whole fetch of a JWK Set, and the check of its URL at registration. */
export const JWKS_FETCH_TIMEOUT_MS = 3000;

export interface CustomerTokenView {
  id: string;
  customerId: string;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
}

export interface MintedCustomerToken {
  token: CustomerTokenView;
  secret: string;
}

/** Mints a token bound to one customer of the store, valid `ttlSeconds`; its secret is returned once. */
export async function mintCustomerToken(db: Executor, store: string, customerId: string, ttlSeconds: number, guest = false): Promise<MintedCustomerToken> {
  const { row, secret } = await tokens.issueCustomerToken(db, store, customerId.toLowerCase(), ttlSeconds, guest);
  return { token: customerTokenView(row), secret };
}

/** A guest session: a new random customer id and a token for it. */
export async function startGuestSession(db: Executor, store: string, ttlSeconds: number) {
  const customerId = randomUUID();
  return { customerId, ...(await mintCustomerToken(db, store, customerId, ttlSeconds, true)) };
}

/** Revokes one customer token of the store; it stops working at once, in every process. */
export async function revokeCustomerToken(db: Executor, store: string, id: string): Promise<{ token: CustomerTokenView }> {
  const row = await tokens.revokeCustomerToken(db, store, id);
  if (!row) throw new AppError('NOT_FOUND', `customer token ${id} not found`);
  return { token: customerTokenView(row) };
}

/** Revokes every token of one customer ("sign out everywhere"). */
export async function signOutEverywhere(db: Executor, store: string, customerId: string): Promise<{ revoked: number }> {
  return { revoked: await tokens.revokeAllCustomerTokens(db, store, customerId.toLowerCase()) };
}

function customerTokenView(row: tokens.TokenRow): CustomerTokenView {
  return {
    id: row.id,
    customerId: row.customerId!,
    createdAt: toIso(row.createdAt),
    expiresAt: toIso(row.expiresAt!),
    revokedAt: toIsoOrNull(row.revokedAt),
  };
}

export interface CustomerAuthSettings {
  issuer: string;
  audience: string;
  jwksUrl?: string;
  jwks?: repo.JwkSet;
}

/** What the platform allows a store's identity-provider settings. */
export interface CustomerAuthPolicy {
  allowPrivateNetworks: boolean;
  /** Issuers several stores may register, each with its own audience (SHARED_JWT_ISSUERS). */
  sharedJwtIssuers: string[];
}

async function checkSettings(body: CustomerAuthSettings, policy: CustomerAuthPolicy): Promise<void> {
  const problems: Array<{ field: string; message: string }> = [];
  if ((body.jwksUrl === undefined) === (body.jwks === undefined)) problems.push({ field: 'body', message: 'send exactly one of jwksUrl and jwks' });
  else if (body.jwksUrl !== undefined) {
    try {
      await resolveOutboundTarget(body.jwksUrl, policy.allowPrivateNetworks, JWKS_FETCH_TIMEOUT_MS);
    } catch (error) {
      if (!(error instanceof OutboundRefusal)) throw error;
      problems.push({ field: 'body.jwksUrl', message: error.rule });
    }
  }
  body.jwks?.keys.forEach((key, i) => {
    if ('d' in key || 'k' in key) problems.push({ field: `body.jwks.keys.${i}`, message: 'must be a public key (no private or symmetric key material)' });
  });
  if (problems.length > 0) throw new AppError('VALIDATION_FAILED', `${problems[0]!.field} ${problems[0]!.message}`, { errors: problems });
}

export function customerAuthView(row: repo.CustomerAuthRow) {
  return {
    issuer: row.issuer,
    audience: row.audience,
    jwksUrl: row.jwksUrl,
    jwks: row.jwks,
    createdAt: toIso(row.createdAt),
    updatedAt: toIsoOrNull(row.updatedAt),
  };
}

/**
 * Sets the store's identity provider. An issuer belongs to the one store that registered it (409
 * for any other), except a shared issuer, where each (issuer, audience) belongs to one store.
 */
export async function configureCustomerAuth(db: Executor, store: string, body: CustomerAuthSettings, policy: CustomerAuthPolicy) {
  await checkSettings(body, policy);
  try {
    const row = await db.transaction(async (tx) => {
      await repo.lockIssuer(tx, body.issuer);
      if (!policy.sharedJwtIssuers.includes(body.issuer) && (await repo.otherStoresOfIssuer(tx, body.issuer, store)).length > 0) {
        throw new AppError('CONFLICT', 'another store has registered this issuer: an issuer belongs to one store');
      }
      return repo.saveCustomerAuth(tx, store, { issuer: body.issuer, audience: body.audience, jwksUrl: body.jwksUrl ?? null, jwks: body.jwks ?? null });
    });
    return { customerAuth: customerAuthView(row) };
  } catch (error) {
    if (postgresErrorCode(error) === '23505') throw new AppError('CONFLICT', 'another store has registered this issuer with this audience');
    throw error;
  }
}

/**
 * Issuers registered by several stores before an issuer had one owner: their JWTs are refused for
 * every one of those stores (never let into the wrong one). Answers one line per issuer, for the log.
 */
export async function issuersOfSeveralStores(db: Executor, policy: CustomerAuthPolicy): Promise<string[]> {
  const rows = await repo.findIssuersOfSeveralStores(db);
  return rows
    .filter((row) => !policy.sharedJwtIssuers.includes(row.issuer))
    .map((row) => `issuer ${row.issuer} is registered by stores ${row.stores.join(', ')}: its JWTs are refused for all of them until only one store keeps it, or it is listed in SHARED_JWT_ISSUERS`);
}

export async function readCustomerAuth(db: Executor, store: string) {
  const row = await repo.findCustomerAuth(db, store);
  if (!row) throw new AppError('NOT_FOUND', 'this store accepts no identity-provider JWTs');
  return { customerAuth: customerAuthView(row) };
}

/** Turns identity-provider JWTs off for the store. */
export async function removeCustomerAuth(db: Executor, store: string) {
  const row = await repo.deleteCustomerAuth(db, store);
  if (!row) throw new AppError('NOT_FOUND', 'this store accepts no identity-provider JWTs');
  return { customerAuth: customerAuthView(row) };
}
