/**
 * Token secrets. A secret names its store (`<kind>_<store>_<random>`), so that its lookup stays
 * within one store's rows; only the SHA-256 of a secret is kept. Secrets carry 256 random bits,
 * so a fast hash is enough: there is nothing to brute-force.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type TokenKind = 'admin' | 'storefront';

const PREFIX: Record<TokenKind, string> = { admin: 'adm', storefront: 'sf' };

export function newSecret(kind: TokenKind, store: string): string {
  return `${PREFIX[kind]}_${store}_${randomBytes(32).toString('base64url')}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** The store a secret claims to belong to, or undefined when it is not shaped like one of ours. */
export function storeOfSecret(secret: string): string | undefined {
  const match = /^(?:adm|sf)_([a-z0-9][a-z0-9-]{1,62})_[A-Za-z0-9_-]{43}$/.exec(secret);
  return match?.[1];
}

export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
