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
export async function mintCustomerToken(db: Executor, store: string, customerId: string, ttlSeconds: number): Promise<MintedCustomerToken> {
  const { row, secret } = await tokens.issueCustomerToken(db, store, customerId.toLowerCase(), ttlSeconds);
  return { token: customerTokenView(row), secret };
}

/** A guest session: a new random customer id and a token for it. */
export async function startGuestSession(db: Executor, store: string, ttlSeconds: number) {
  const customerId = randomUUID();
  return { customerId, ...(await mintCustomerToken(db, store, customerId, ttlSeconds)) };
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

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

function checkSettings(body: CustomerAuthSettings): void {
  const problems: Array<{ field: string; message: string }> = [];
  if ((body.jwksUrl === undefined) === (body.jwks === undefined)) problems.push({ field: 'body', message: 'send exactly one of jwksUrl and jwks' });
  if (body.jwksUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(body.jwksUrl);
    } catch {
      problems.push({ field: 'body.jwksUrl', message: 'is not a URL' });
    }
    if (url && !(url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOST.test(url.hostname)))) {
      problems.push({ field: 'body.jwksUrl', message: 'must be https (http only for a loopback host)' });
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

/** Sets the store's identity provider; (issuer, audience) names one store only (409 otherwise). */
export async function configureCustomerAuth(db: Executor, store: string, body: CustomerAuthSettings) {
  checkSettings(body);
  try {
    const row = await repo.saveCustomerAuth(db, store, { issuer: body.issuer, audience: body.audience, jwksUrl: body.jwksUrl ?? null, jwks: body.jwks ?? null });
    return { customerAuth: customerAuthView(row) };
  } catch (error) {
    if (postgresErrorCode(error) === '23505') throw new AppError('CONFLICT', 'another store already accepts JWTs of this issuer and audience');
    throw error;
  }
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
