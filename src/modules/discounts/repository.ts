/** Discount SQL: the discounts table, and the reads the rules need (collections' products, customers' uses). */
import { sql } from 'drizzle-orm';
import { jsonb, nothing, part, prepared, queryRows, storeKeys, valueList, type BesideWrite, type Executor, type Part } from '../../db/client.js';
import { AppError } from '../../lib/app-error.js';
import { toIsoOrNull } from '../../lib/time.js';
import type { DiscountRule } from '../pricing/index.js';

/** A stored discount: the rule pricing decides with, and its record's own fields. */
export interface DiscountRow extends Omit<DiscountRule, 'products' | 'collections' | 'inCollections'> {
  store: string;
  products: string[];
  collections: string[];
  createdAt: Date;
  updatedAt: Date | null;
}

export type DiscountFields = Pick<DiscountRow, 'type' | 'value' | 'minSubtotal' | 'startsAt' | 'endsAt' | 'usageLimit' | 'oncePerCustomer' | 'products' | 'collections' | 'active'>;

const columns = sql.raw(
  `d.id, d.store, d.code, d.type, d.value, d.min_subtotal::int8 as "minSubtotal", d.starts_at as "startsAt", d.ends_at as "endsAt", ` +
    `d.usage_limit as "usageLimit", d.usage_count as "usageCount", d.once_per_customer as "oncePerCustomer", d.products, d.collections, ` +
    `d.active, d.created_at as "createdAt", d.updated_at as "updatedAt", d.deleted_at as "deletedAt"`,
);

function normalize(row: DiscountRow): DiscountRow {
  const date = (d: Date | string | null) => (d === null ? null : new Date(d));
  return { ...row, minSubtotal: Number(row.minSubtotal), startsAt: date(row.startsAt), endsAt: date(row.endsAt), createdAt: new Date(row.createdAt), updatedAt: date(row.updatedAt), deletedAt: date(row.deletedAt) };
}

const rows = async (db: Executor, query: ReturnType<typeof sql>) => (await queryRows<DiscountRow>(db, query)).map(normalize);

export async function insertDiscount(tx: Executor, store: string, code: string, f: DiscountFields): Promise<DiscountRow> {
  const [row] = await rows(
    tx,
    sql`insert into discounts as d (store, code, type, value, min_subtotal, starts_at, ends_at, usage_limit, once_per_customer, products, collections, active)
        values (${store}, ${code}, ${f.type}, ${f.value}, ${f.minSubtotal}, ${toIsoOrNull(f.startsAt)}, ${toIsoOrNull(f.endsAt)}, ${f.usageLimit},
                ${f.oncePerCustomer}, ${jsonb(f.products)}, ${jsonb(f.collections)}, ${f.active})
        returning ${columns}`,
  );
  return row!;
}

export async function updateDiscount(tx: Executor, store: string, id: string, f: DiscountFields): Promise<DiscountRow> {
  const [row] = await rows(
    tx,
    sql`update discounts d set type = ${f.type}, value = ${f.value}, min_subtotal = ${f.minSubtotal}, starts_at = ${toIsoOrNull(f.startsAt)},
          ends_at = ${toIsoOrNull(f.endsAt)}, usage_limit = ${f.usageLimit}, once_per_customer = ${f.oncePerCustomer},
          products = ${jsonb(f.products)}, collections = ${jsonb(f.collections)}, active = ${f.active}, updated_at = now()
        where d.store = ${store} and d.id = ${id} returning ${columns}`,
  );
  return row!;
}

export async function softDeleteDiscount(tx: Executor, store: string, id: string): Promise<DiscountRow> {
  const [row] = await rows(tx, sql`update discounts d set deleted_at = now(), updated_at = now() where d.store = ${store} and d.id = ${id} returning ${columns}`);
  return row!;
}

/** A non-deleted discount (locked when asked). */
export async function findDiscount(db: Executor, store: string, id: string, { lock = false } = {}): Promise<DiscountRow | undefined> {
  const [row] = await rows(db, sql`select ${columns} from discounts d where d.store = ${store} and d.id = ${id} and d.deleted_at is null${lock ? sql` for update` : sql``}`);
  return row;
}

/** Newest first. */
export async function listDiscounts(db: Executor, store: string, page: { limit: number; offset: number }): Promise<DiscountRow[]> {
  return rows(db, sql`select ${columns} from discounts d where d.store = ${store} and d.deleted_at is null order by d.created_at desc, d.id desc limit ${page.limit} offset ${page.offset}`);
}

export async function countDiscounts(db: Executor, store: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from discounts where store = ${store} and deleted_at is null`);
  return row?.n ?? 0;
}

/** The non-deleted discounts with these (upper-case) codes. */
export async function findByCodes(db: Executor, store: string, codes: string[]): Promise<DiscountRow[]> {
  return findByStoresCodes(db, codes.map((key) => ({ store, key })));
}

/** The same for codes of several stores (a round of several), in one statement. */
export async function findByStoresCodes(db: Executor, codes: Array<{ store: string; key: string }>): Promise<DiscountRow[]> {
  if (codes.length === 0) return [];
  return rows(db, byStoresCodes(codes));
}

/** `findByStoresCodes` as a part, to send with a round's other reads (`together`). */
export function findByStoresCodesPart(codes: Array<{ store: string; key: string }>): Part<DiscountRow[]> {
  return codes.length === 0 ? nothing([]) : part(byStoresCodes(codes), (found) => (found as unknown as DiscountRow[]).map(normalize));
}

const byStoresCodes = (codes: Array<{ store: string; key: string }>) =>
  prepared(sql`select ${columns} from discounts d where (d.store, d.code) in (${storeKeys(codes.map((c) => ({ store: c.store, id: c.key })), 'text')}) and d.deleted_at is null`);

/**
 * Discounts by id, deleted ones included (a cart keeps showing a deleted code, at amount 0). With
 * `lock`, locked in id order for the rest of the transaction (after the products, so orders and
 * cancels take their locks in one order and cannot deadlock).
 */
export async function findByIds(db: Executor, store: string, ids: string[], { lock = false } = {}): Promise<DiscountRow[]> {
  return findByStoresIds(db, ids.map((key) => ({ store, key })), { lock });
}

/** The same for discounts of several stores (a round of several), in one statement; locked in (store, id) order. */
export async function findByStoresIds(db: Executor, ids: Array<{ store: string; key: string }>, { lock = false } = {}): Promise<DiscountRow[]> {
  if (ids.length === 0) return [];
  const locking = lock ? sql` order by d.store, d.id for no key update` : sql``;
  return rows(db, sql`${byStoresIds(ids)}${locking}`);
}

/** `findByStoresIds` (unlocked) as a part, to send with a round's other reads (`together`). */
export function findByStoresIdsPart(ids: Array<{ store: string; key: string }>): Part<DiscountRow[]> {
  return ids.length === 0 ? nothing([]) : part(prepared(byStoresIds(ids)), (found) => (found as unknown as DiscountRow[]).map(normalize));
}

const byStoresIds = (ids: Array<{ store: string; key: string }>) => sql`select ${columns} from discounts d where (d.store, d.id) in (${storeKeys(ids.map((i) => ({ store: i.store, id: i.key })))})`;

/**
 * Which of `productIds` belong to one of `collections` or to a collection nested under one. A
 * deleted or archived collection reaches nothing, and nothing through it (archived is out of the
 * storefront: its products are not visible, and a code does not reach its children through it).
 */
export async function productsInCollections(db: Executor, store: string, collections: string[], productIds: string[]): Promise<Set<string>> {
  if (collections.length === 0 || productIds.length === 0) return new Set();
  const found = await queryRows<{ id: string }>(
    db,
    sql`with recursive reach(id) as (
          select c.id from collections c where c.store = ${store} and c.id in (${valueList(collections)}) and c.deleted_at is null and not c.archived
          union
          select c.id from reach r
            join collection_parents p on p.store = ${store} and p.parent_id = r.id
            join collections c on c.store = ${store} and c.id = p.child_id and c.deleted_at is null and not c.archived)
        select distinct cp.product_id as id from collection_products cp
        where cp.store = ${store} and cp.product_id in (${valueList(productIds)}) and cp.collection_id in (select id from reach)`,
  );
  return new Set(found.map((r) => r.id));
}

/**
 * `${discountId}:${customerId}` of the customers among each store's `customerIds` who have an order
 * with one of its `discountIds` that is not cancelled, in one statement: by store.
 */
export async function storesCustomersWhoUsed(db: Executor, stores: Array<{ store: string; discountIds: string[]; customerIds: string[] }>): Promise<Map<string, string[]>> {
  return whoUsed(db, stores.map((s) => ({ store: s.store, discountIds: s.discountIds, people: s.customerIds })), 'customer');
}

/** `${discountId}:email:${email}` of the emails (lower case) among each store's `emails` that have such an order, in one statement: by store. */
export async function storesEmailsWhoUsed(db: Executor, stores: Array<{ store: string; discountIds: string[]; emails: string[] }>): Promise<Map<string, string[]>> {
  return whoUsed(db, stores.map((s) => ({ store: s.store, discountIds: s.discountIds, people: s.emails })), 'email');
}

async function whoUsed(db: Executor, stores: Array<{ store: string; discountIds: string[]; people: string[] }>, by: 'customer' | 'email'): Promise<Map<string, string[]>> {
  const used = stores.filter((s) => s.discountIds.length > 0 && s.people.length > 0);
  const byStore = new Map<string, string[]>();
  if (used.length === 0) return byStore;
  const discounts = used.flatMap(({ store, discountIds }) => discountIds.map((id) => ({ store, id })));
  const person = by === 'customer' ? sql`o.customer_id` : sql`lower(o.email)`;
  const people = sql.join(used.flatMap(({ store, people: list }) => list.map((p) => sql`(${store}, ${p})`)), sql`, `);
  const key = by === 'customer' ? sql`o.discount_id || ':' || o.customer_id` : sql`o.discount_id || ':email:' || lower(o.email)`;
  const found = await queryRows<{ store: string; key: string }>(
    db,
    sql`select distinct o.store, ${key} as key from orders o
        where (o.store, o.discount_id) in (${storeKeys(discounts)}) and (o.store, ${person}) in (${people})
          ${by === 'email' ? sql`and o.email is not null` : sql``} and o.status <> 'CANCELLED' and o.deleted_at is null`,
  );
  for (const r of found) byStore.set(r.store, [...(byStore.get(r.store) ?? []), r.key]);
  return byStore;
}

/**
 * Counts a round's uses (of one store or several), one guarded update for them all (never past
 * `usage_limit`), to make inside another statement (the round's orders'), which fails if it
 * counted fewer codes than it was given.
 */
export function storesUses(uses: Array<{ store: string; id: string; uses: number }>): BesideWrite {
  return {
    ctes: sql`used_codes as (select * from jsonb_to_recordset(${jsonb(uses)}) as u(store text, id uuid, uses int)),
        counted_uses as (
          update discounts d set usage_count = d.usage_count + u.uses from used_codes u
          where (d.store, d.id) in (${storeKeys(uses)}) and d.store = u.store and d.id = u.id
            and (d.usage_limit is null or d.usage_count + u.uses <= d.usage_limit) returning d.id)`,
    name: 'counted_uses',
    // A count the guard refuses cannot happen under the locks; it fails the round if it does.
    check: (changed) => {
      if (changed !== uses.length) throw new AppError('SERVICE_UNAVAILABLE', 'a discount code changed under a lock; retry');
    },
  };
}

/** Gives a cancelled order's use back. */
export async function returnUse(tx: Executor, store: string, id: string): Promise<void> {
  await tx.execute(sql`update discounts set usage_count = usage_count - 1 where store = ${store} and id = ${id} and usage_count > 0`);
}

/** Which of `ids` are products (or collections) of the store, not deleted. */
export async function existingIds(db: Executor, store: string, table: 'products' | 'collections', ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const found = await queryRows<{ id: string }>(db, sql`select id from ${sql.raw(table)} where store = ${store} and id in (${valueList(ids)}) and deleted_at is null`);
  return new Set(found.map((r) => r.id));
}
