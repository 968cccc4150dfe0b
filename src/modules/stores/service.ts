import type { Executor } from '../../db/client.js';
import { postgresErrorCode } from '../../db/errors.js';
import { AppError } from '../../plugins/errors.js';
import { toIso } from '../../lib/time.js';
import * as repo from './repository.js';
import { createCatalogVersion } from './catalog-version.js';
import { hashSecret, newSecret, storeOfSecret, type IssuableTokenKind, type TokenKind } from './tokens.js';

export const STORE_SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;

export interface StoreView {
  slug: string;
  name: string;
  createdAt: string;
}

export interface TokenView {
  id: string;
  kind: TokenKind;
  createdAt: string;
  revokedAt: string | null;
}

export interface CreatedStore {
  store: StoreView;
  tokens: { admin: string; storefront: string };
}

/** Creates a store with one admin and one storefront token; their secrets are returned once. */
export async function createStore(db: Executor, slug: string, name?: string): Promise<CreatedStore> {
  if (!STORE_SLUG_PATTERN.test(slug)) {
    throw new AppError('VALIDATION_FAILED', 'slug must match ^[a-z0-9][a-z0-9-]{1,62}$');
  }
  try {
    return await db.transaction(async (tx) => {
      const store = await repo.insertStore(tx, slug, name ?? slug);
      await createCatalogVersion(tx, slug);
      const admin = newSecret('admin', slug);
      const storefront = newSecret('storefront', slug);
      await repo.insertToken(tx, { store: slug, kind: 'admin', secretHash: hashSecret(admin) });
      await repo.insertToken(tx, { store: slug, kind: 'storefront', secretHash: hashSecret(storefront) });
      return { store: storeView(store), tokens: { admin, storefront } };
    });
  } catch (error) {
    if (postgresErrorCode(error) === '23505') throw new AppError('CONFLICT', `a store with slug "${slug}" already exists`);
    throw error;
  }
}

/** Whether the platform holds any store yet. */
export async function hasStores(db: Executor): Promise<boolean> {
  return (await repo.countStores(db)) > 0;
}

/** Every store of the platform, by slug (the CLI's `store list`). */
export async function listStores(db: Executor): Promise<StoreView[]> {
  return (await repo.listStores(db)).map(storeView);
}

/** Issues a new admin, server or storefront token of a store; its secret is returned once. */
export async function createToken(db: Executor, store: string, kind: IssuableTokenKind): Promise<{ token: TokenView; secret: string }> {
  if (!(await repo.findStore(db, store))) throw new AppError('NOT_FOUND', `store "${store}" not found`);
  const secret = newSecret(kind, store);
  const row = await repo.insertToken(db, { store, kind, secretHash: hashSecret(secret) });
  return { token: tokenView(row), secret };
}

/** Revokes a token; it stops working at the next request, in every process. */
export async function revokeToken(db: Executor, store: string, id: string): Promise<TokenView> {
  const row = await repo.revokeToken(db, store, id);
  if (!row) throw new AppError('NOT_FOUND', `token ${id} not found`);
  return tokenView(row);
}

/** The store's own tokens: admin, server and storefront (customer tokens are not listed). */
export async function listTokens(db: Executor, store: string): Promise<TokenView[]> {
  return (await repo.listTokens(db, store)).map(tokenView);
}

/**
 * The store, kind (and customer) of a live token secret, or undefined for an unknown, revoked or
 * expired one. `secretHash` is its hashSecret, which the caller has already worked out.
 */
export async function authenticateSecret(db: Executor, secret: string, secretHash: string) {
  const store = storeOfSecret(secret);
  if (!store) return undefined;
  const token = await repo.findActiveToken(db, store, secretHash);
  return token ? { store, kind: token.kind, tokenId: token.id, customerId: token.customerId, guest: token.guest, catalogVersion: token.catalogVersion, holdsVersion: Number(token.holdsVersion) } : undefined;
}

function storeView(row: repo.StoreRow): StoreView {
  return { slug: row.slug, name: row.name, createdAt: toIso(row.createdAt) };
}

function tokenView(row: repo.TokenRow): TokenView {
  return { id: row.id, kind: row.kind, createdAt: toIso(row.createdAt), revokedAt: row.revokedAt ? toIso(row.revokedAt) : null };
}

/** Issues a token bound to one customer of the store, valid `ttlSeconds`; its secret is returned once. */
export async function issueCustomerToken(db: Executor, store: string, customerId: string, ttlSeconds: number, guest = false): Promise<{ row: repo.TokenRow; secret: string }> {
  const secret = newSecret('customer', store);
  const row = await repo.insertToken(db, { store, kind: 'customer', secretHash: hashSecret(secret), customerId, ttlSeconds, guest });
  return { row, secret };
}

/** Revokes one customer token of the store; undefined when there is none with this id. */
export function revokeCustomerToken(db: Executor, store: string, id: string): Promise<repo.TokenRow | undefined> {
  return repo.revokeToken(db, store, id, 'customer');
}

/** Revokes every token of one customer; answers how many. */
export function revokeAllCustomerTokens(db: Executor, store: string, customerId: string): Promise<number> {
  return repo.revokeCustomerTokens(db, store, customerId);
}
