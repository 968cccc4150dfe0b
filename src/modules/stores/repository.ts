import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.js';
import { stores, tokens } from '../../db/schema.js';
import type { TokenKind } from './tokens.js';
import { FreshCoalescer } from '../../lib/fresh-coalescer.js';

export type StoreRow = typeof stores.$inferSelect;
export type TokenRow = typeof tokens.$inferSelect;

export async function insertStore(db: Executor, slug: string, name: string): Promise<StoreRow> {
  const [row] = await db.insert(stores).values({ slug, name }).returning();
  return row!;
}

export async function findStore(db: Executor, slug: string): Promise<StoreRow | undefined> {
  const [row] = await db.select().from(stores).where(eq(stores.slug, slug));
  return row;
}

export async function countStores(db: Executor): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(stores);
  return row?.n ?? 0;
}

export async function insertToken(db: Executor, store: string, kind: TokenKind, secretHash: string): Promise<TokenRow> {
  const [row] = await db.insert(tokens).values({ store, kind, secretHash }).returning();
  return row!;
}

function tokenLookup(db: Database) {
  return db
    .select({ id: tokens.id, kind: tokens.kind, catalogVersion: stores.catalogVersion })
    .from(tokens)
    .innerJoin(stores, eq(stores.slug, tokens.store))
    .where(and(eq(tokens.store, sql.placeholder('store')), eq(tokens.secretHash, sql.placeholder('hash')), isNull(tokens.revokedAt)))
    .prepare('storefront_token_lookup');
}

type ActiveToken = { id: string; kind: TokenRow['kind']; catalogVersion: number };

// Every request runs this query: it is built once per database, prepared on the server, and
// shared among the requests of one token that wait for it at the same time.
const preparedLookups = new WeakMap<Database, { query: ReturnType<typeof tokenLookup>; coalescer: FreshCoalescer<ActiveToken | undefined> }>();

/** A live token, with its store's catalog version: one indexed query per request does both. */
export async function findActiveToken(
  db: Database,
  store: string,
  secretHash: string,
): Promise<ActiveToken | undefined> {
  let lookup = preparedLookups.get(db);
  if (!lookup) preparedLookups.set(db, (lookup = { query: tokenLookup(db), coalescer: new FreshCoalescer() }));
  const { query } = lookup;
  return lookup.coalescer.get(`${store}\u0000${secretHash}`, async () => (await query.execute({ store, hash: secretHash }))[0]);
}

/** Marks the store's catalog changed; call it last in the transaction that changes it. */
export async function bumpCatalogVersion(db: Executor, store: string): Promise<void> {
  await db.execute(sql`update stores set catalog_version = catalog_version + 1 where slug = ${store}`);
}

export async function revokeToken(db: Executor, store: string, id: string): Promise<TokenRow | undefined> {
  const [row] = await db
    .update(tokens)
    .set({ revokedAt: sql`coalesce(${tokens.revokedAt}, now())` })
    .where(and(eq(tokens.store, store), eq(tokens.id, id)))
    .returning();
  return row;
}

export async function listTokens(db: Executor, store: string): Promise<TokenRow[]> {
  return db.select().from(tokens).where(eq(tokens.store, store)).orderBy(tokens.createdAt);
}
