import { and, eq, gt, isNull, ne, or, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Database, type Executor } from '../../db/client.js';
import { stores, tokens } from '../../db/schema.js';
import type { TokenKind } from './tokens.js';
import { FreshBatcher } from '../../lib/fresh-batcher.js';
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

type ActiveToken = { id: string; kind: TokenRow['kind']; customerId: string | null; guest: boolean; catalogVersion: number; holdsVersion: number };

/**
 * Every request runs this query, for its token: the lookups asked while one runs make the next one
 * (FreshBatcher), one statement for the tokens of many stores, each token once. With one busy store
 * that is one lookup per round trip, as before; with requests spread over thousands of stores it is
 * still one, instead of one per request.
 */
const tokenLookups = new WeakMap<Database, FreshBatcher<ActiveToken | undefined>>();

// Built once per database and prepared on the server (one plan for every batch): the batch's
// (store, hash) pairs go as one JSON parameter. Each pair is looked up by the (store, secret_hash)
// index on its own (a lateral subquery, kept apart by its `limit`: a pair names at most one token):
// joined as a set, the planner guesses a hundred pairs and reads the whole table for them, 1 ms with
// 4,000 tokens where the index takes 0.04 ms for one pair and 0.5 ms for forty, and worse the more
// tokens a deployment has. (An `offset(0)` would say the same, but Drizzle leaves an offset of 0 out
// of the statement; test/database-connections.test.ts checks the plan.)
function tokenLookup(db: Database) {
  const wanted = sql`rows from (jsonb_to_recordset(${sql.placeholder('wanted')}::jsonb) as (store text, hash text)) with ordinality as x(store, hash, n)`;
  const token = db
    .select({ id: tokens.id, store: tokens.store, kind: tokens.kind, customerId: tokens.customerId, guest: tokens.guest })
    .from(tokens)
    .where(and(sql`${tokens.store} = x.store and ${tokens.secretHash} = x.hash`, isNull(tokens.revokedAt), or(isNull(tokens.expiresAt), gt(tokens.expiresAt, sql`now()`))))
    .limit(1)
    .as('t');
  return db
    .select({ n: sql<number>`x.n::int`, id: token.id, kind: token.kind, customerId: token.customerId, guest: token.guest, catalogVersion: catalogVersionOf(sql`x.store`), holdsVersion: holdsVersionOf(sql`x.store`) })
    .from(wanted)
    .innerJoinLateral(token, sql`true`)
    .prepare('storefront_token_lookup');
}

async function lookUpTokens(query: ReturnType<typeof tokenLookup>, keys: string[]): Promise<Map<string, ActiveToken>> {
  const wanted = keys.map((k) => {
    const [store, hash] = k.split('\u0000');
    return { store, hash };
  });
  const rows = await query.execute({ wanted: JSON.stringify(wanted) });
  return new Map(rows.map(({ n, ...token }) => [keys[Number(n) - 1]!, token]));
}

/** A live (not revoked, not expired) token, with its store's catalog version: one indexed query per lookup does both. */
export async function findActiveToken(
  db: Database,
  store: string,
  secretHash: string,
): Promise<ActiveToken | undefined> {
  let lookups = tokenLookups.get(db);
  if (!lookups) {
    const query = tokenLookup(db);
    tokenLookups.set(db, (lookups = new FreshBatcher<ActiveToken | undefined>((keys) => lookUpTokens(query, keys), undefined)));
  }
  return lookups.get(`${store}\u0000${secretHash}`);
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

/**
 * The pricing settings of the store a column names, as a jsonb expression (`{ currency,
 * pricesIncludeTax }`, null for no store): for a statement that reads them beside other things.
 */
export const pricingSettingsJson = (store: SQL): SQL =>
  sql`(select jsonb_build_object('currency', s.currency, 'pricesIncludeTax', s.prices_include_tax) from stores s where s.slug = ${store})`;

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
