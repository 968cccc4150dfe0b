/**
 * Token kinds and secrets. The kinds are named here once; the schema, the admin API, the CLI and
 * the secret format all read this table. A secret names its kind and store
 * (`<prefix>_<store>_<random>`), so that its lookup stays within one store's rows; only the
 * SHA-256 of a secret is kept. Secrets carry 256 random bits, so a fast hash is enough: there is
 * nothing to brute-force.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256Hex } from '../../lib/sha256.js';
import { TOKEN_KIND_NAMES, type TokenKind } from '../../db/schema.js';

export { TOKEN_KIND_NAMES, type TokenKind };

export const TOKEN_KINDS: Readonly<Record<TokenKind, { prefix: string; secret: boolean; issuedByAdmin: boolean }>> = {
  /** One store's admin API and every storefront route. */
  admin: { prefix: 'adm', secret: true, issuedByAdmin: true },
  /** A shop's own back end: every storefront route, for any customer. */
  server: { prefix: 'srv', secret: true, issuedByAdmin: true },
  /** Public: ships inside web pages and apps; catalog, carts and guest sessions only. */
  storefront: { prefix: 'sf', secret: false, issuedByAdmin: true },
  /** Bound to one customer of one store, short-lived: customer tokens and guest sessions. */
  customer: { prefix: 'cus', secret: false, issuedByAdmin: false },
};
/** The kinds an admin issues with POST /v1/admin/tokens and the CLI. */
export const ISSUABLE_TOKEN_KINDS = TOKEN_KIND_NAMES.filter((kind) => TOKEN_KINDS[kind].issuedByAdmin) as Array<'admin' | 'server' | 'storefront'>;
export type IssuableTokenKind = (typeof ISSUABLE_TOKEN_KINDS)[number];

const SECRET_SHAPE = new RegExp(
  `^(?:${TOKEN_KIND_NAMES.map((kind) => TOKEN_KINDS[kind].prefix).join('|')})_([a-z0-9][a-z0-9-]{1,62})_[A-Za-z0-9_-]{43}$`,
);

export function newSecret(kind: TokenKind, store: string): string {
  return `${TOKEN_KINDS[kind].prefix}_${store}_${randomBytes(32).toString('base64url')}`;
}

export function hashSecret(secret: string): string {
  return sha256Hex(secret);
}

/** The store a secret claims to belong to, or undefined when it is not shaped like one of ours. */
export function storeOfSecret(secret: string): string | undefined {
  return SECRET_SHAPE.exec(secret)?.[1];
}

export function secretsEqual(a: string, b: string): boolean {
  return hashesEqual(hashSecret(a), hashSecret(b));
}

/** Two hashes of `hashSecret`, compared in constant time (a secret against one known only by its hash). */
export function hashesEqual(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
