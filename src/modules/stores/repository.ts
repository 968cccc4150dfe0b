import { and, eq, gt, isNull, ne, or, sql } from 'drizzle-orm';
import { queryRows, type Database, type Executor } from '../../db/client.js';
import { stores, tokens } from '../../db/schema.js';
import type { TokenKind } from './tokens.js';
import { FreshCoalescer } from '../../lib/fresh-coalescer.js';
import { catalogVersionOf, holdsVersionOf } from './catalog-version.js';

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

export async function listStoreSlugs(db: Executor, limit: number): Promise<string[]> {
  return (await db.select({ slug: stores.slug }).from(stores).orderBy(stores.slug).limit(limit)).map((r) => r.slug);
}

export async function listStores(db: Executor): Promise<StoreRow[]> {
  return db.select().from(stores).orderBy(stores.slug);
}

export async function countStores(db: Executor): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(stores);
  return row?.n ?? 0;
}

export async function insertToken(
  db: Executor,
  token: { store: string; kind: TokenKind; secretHash: string; customerId?: string; ttlSeconds?: number; guest?: boolean },
): Promise<TokenRow> {
  const { ttlSeconds, ...values } = token;
  const expiresAt = ttlSeconds === undefined ? null : sql`now() + make_interval(secs => ${ttlSeconds})`;
  const [row] = await db.insert(tokens).values({ ...values, expiresAt }).returning();
  return row!;
}

function tokenLookup(db: Database) {
  return db
    .select({ id: tokens.id, kind: tokens.kind, customerId: tokens.customerId, guest: tokens.guest, catalogVersion: catalogVersionOf(tokens.store), holdsVersion: holdsVersionOf(tokens.store) })
    .from(tokens)
    .where(
      and(
        eq(tokens.store, sql.placeholder('store')),
        eq(tokens.secretHash, sql.placeholder('hash')),
        isNull(tokens.revokedAt),
        or(isNull(tokens.expiresAt), gt(tokens.expiresAt, sql`now()`)),
      ),
    )
    .prepare('storefront_token_lookup');
}

type ActiveToken = { id: string; kind: TokenRow['kind']; customerId: string | null; guest: boolean; catalogVersion: number; holdsVersion: number };

// Every request runs this query: it is built once per database, prepared on the server, and
// shared among the requests of one token that wait for it at the same time.
const preparedLookups = new WeakMap<Database, { query: ReturnType<typeof tokenLookup>; coalescer: FreshCoalescer<ActiveToken | undefined> }>();

/** A live (not revoked, not expired) token, with its store's catalog version: one indexed query per request does both. */
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

/** Revokes one token of the store (of one kind, when given). */
export async function revokeToken(db: Executor, store: string, id: string, kind?: TokenKind): Promise<TokenRow | undefined> {
  const [row] = await db
    .update(tokens)
    .set({ revokedAt: sql`coalesce(${tokens.revokedAt}, now())` })
    .where(and(eq(tokens.store, store), eq(tokens.id, id), kind ? eq(tokens.kind, kind) : undefined))
    .returning();
  return row;
}

/** Revokes every live token of one customer ("sign out everywhere"); answers how many. */
export async function revokeCustomerTokens(db: Executor, store: string, customerId: string): Promise<number> {
  const rows = await db
    .update(tokens)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(tokens.store, store), eq(tokens.customerId, customerId), isNull(tokens.revokedAt)))
    .returning({ id: tokens.id });
  return rows.length;
}

/** The store's own tokens (not its customers'), oldest first. */
export async function listTokens(db: Executor, store: string): Promise<TokenRow[]> {
  return db.select().from(tokens).where(and(eq(tokens.store, store), ne(tokens.kind, 'customer'))).orderBy(tokens.createdAt);
}

/** Deletes customer tokens that expired or were revoked over `keepSeconds` ago, store by store; answers how many. */
export async function purgeDeadCustomerTokens(db: Executor, keepSeconds = 7 * 86400): Promise<number> {
  const rows = await db.execute(
    sql`delete from tokens where kind = 'customer'
          and coalesce(revoked_at, expires_at) < now() - make_interval(secs => ${keepSeconds}) returning id`,
  );
  return (rows as unknown as { rows: unknown[] }).rows.length;
}

/** A store's checkout settings. */
export interface StoreSettingsRow {
  slug: string;
  name: string;
  currency: string;
  pricesIncludeTax: boolean;
  unpaidOrderTimeoutSeconds: number | null;
}

const settingsColumns = sql.raw(`slug, name, currency, prices_include_tax as "pricesIncludeTax", unpaid_order_timeout_seconds as "unpaidOrderTimeoutSeconds"`);

export async function findStoreSettings(db: Executor, store: string): Promise<StoreSettingsRow | undefined> {
  const [row] = await queryRows<StoreSettingsRow>(db, sql`select ${settingsColumns} from stores where slug = ${store}`);
  return row;
}

/** Changes the given settings (undefined: unchanged); answers the store as it is after. */
export async function updateStoreSettings(db: Executor, store: string, change: Partial<Omit<StoreSettingsRow, 'slug'>>): Promise<StoreSettingsRow | undefined> {
  const sets = [sql`updated_at = now()`];
  if (change.name !== undefined) sets.push(sql`name = ${change.name}`);
  if (change.currency !== undefined) sets.push(sql`currency = ${change.currency}`);
  if (change.pricesIncludeTax !== undefined) sets.push(sql`prices_include_tax = ${change.pricesIncludeTax}`);
  if (change.unpaidOrderTimeoutSeconds !== undefined) sets.push(sql`unpaid_order_timeout_seconds = ${change.unpaidOrderTimeoutSeconds}`);
  const [row] = await queryRows<StoreSettingsRow>(db, sql`update stores set ${sql.join(sets, sql`, `)} where slug = ${store} returning ${settingsColumns}`);
  return row;
}
