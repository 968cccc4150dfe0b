/** Collections SQL: listing with `_count`s, the hierarchy, membership and the admin writes. */
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, valueList, type Executor } from '../../db/client.js';
import { visibleProductText } from './visibility.js';

export interface CollectionRecord {
  id: string;
  store: string;
  name: string;
  slug: string;
  description: string;
  archived: boolean;
  createdAt: Date;
  updatedAt: Date | null;
  deletedAt: Date | null;
  parentsCount: number;
  childrenCount: number;
  productsCount: number;
  parentIds: string[];
}

// Links count only when the collection at their other end is neither deleted nor archived.
const collectionColumns = sql.raw(
  `c.id, c.store, c.name, c.slug, c.description, c.archived, c.created_at as "createdAt", c.updated_at as "updatedAt", ` +
    `c.deleted_at as "deletedAt", ` +
    `(select count(*)::int from collection_parents l join collections o on o.store = l.store and o.id = l.parent_id ` +
    `where l.store = c.store and l.child_id = c.id and o.deleted_at is null and not o.archived) as "parentsCount", ` +
    `(select count(*)::int from collection_parents l join collections o on o.store = l.store and o.id = l.child_id ` +
    `where l.store = c.store and l.parent_id = c.id and o.deleted_at is null and not o.archived) as "childrenCount", ` +
    `(select count(*)::int from collection_products cp join products p on p.store = cp.store and p.id = cp.product_id ` +
    `where cp.store = c.store and cp.collection_id = c.id and ${visibleProductText('p')}) as "productsCount", ` +
    `coalesce((select array_agg(l.parent_id::text order by l.created_at, l.parent_id) from collection_parents l join collections o ` +
    `on o.store = l.store and o.id = l.parent_id where l.store = c.store and l.child_id = c.id and o.deleted_at is null), '{}') as "parentIds"`,
);

function collectionWhere(store: string, includeArchived: boolean): SQL {
  return includeArchived
    ? sql`c.store = ${store} and c.deleted_at is null`
    : sql`c.store = ${store} and c.deleted_at is null and not c.archived`;
}

export async function listCollections(
  db: Executor,
  store: string,
  page: { limit: number; offset: number; includeArchived: boolean },
): Promise<CollectionRecord[]> {
  return queryRows<CollectionRecord>(
    db,
    sql`select ${collectionColumns} from collections c where ${collectionWhere(store, page.includeArchived)}
        order by c.created_at asc, c.id asc limit ${page.limit} offset ${page.offset}`,
  );
}

export async function countCollections(db: Executor, store: string, includeArchived: boolean): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from collections c where ${collectionWhere(store, includeArchived)}`);
  return row?.n ?? 0;
}

export async function findCollection(db: Executor, store: string, id: string, { includeDeleted = false } = {}): Promise<CollectionRecord | undefined> {
  const deleted = includeDeleted ? sql`` : sql` and c.deleted_at is null`;
  const [row] = await queryRows<CollectionRecord>(db, sql`select ${collectionColumns} from collections c where c.store = ${store} and c.id = ${id}${deleted}`);
  return row;
}

/** The id of the storefront-visible (non-deleted, non-archived) collection with this slug. */
export async function findVisibleCollectionId(db: Executor, store: string, slug: string): Promise<string | undefined> {
  const [row] = await queryRows<{ id: string }>(
    db,
    sql`select id from collections where store = ${store} and slug = ${slug} and deleted_at is null and not archived`,
  );
  return row?.id;
}

export interface CollectionWrite {
  name?: string;
  slug?: string;
  description?: string;
  archived?: boolean;
}

export async function insertCollection(db: Executor, store: string, values: Required<Pick<CollectionWrite, 'name' | 'slug'>> & CollectionWrite): Promise<string> {
  const [row] = await queryRows<{ id: string }>(
    db,
    sql`insert into collections (store, name, slug, description) values (${store}, ${values.name}, ${values.slug}, ${values.description ?? ''}) returning id`,
  );
  return row!.id;
}

/** Marks the collection changed and applies the given fields; false when it does not exist. */
export async function updateCollection(db: Executor, store: string, id: string, values: CollectionWrite): Promise<boolean> {
  const sets: SQL[] = [sql`updated_at = now()`];
  if (values.name !== undefined) sets.push(sql`name = ${values.name}`);
  if (values.slug !== undefined) sets.push(sql`slug = ${values.slug}`);
  if (values.description !== undefined) sets.push(sql`description = ${values.description}`);
  if (values.archived !== undefined) sets.push(sql`archived = ${values.archived}`);
  const rows = await queryRows<{ id: string }>(
    db,
    sql`update collections set ${sql.join(sets, sql`, `)} where store = ${store} and id = ${id} and deleted_at is null returning id`,
  );
  return rows.length > 0;
}

export async function softDeleteCollection(db: Executor, store: string, id: string): Promise<boolean> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`update collections set deleted_at = now(), updated_at = now() where store = ${store} and id = ${id} and deleted_at is null returning id`,
  );
  return rows.length > 0;
}

/** The ids among `ids` that are non-deleted collections of the store. */
export async function existingCollectionIds(db: Executor, store: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await queryRows<{ id: string }>(
    db,
    sql`select id::text from collections where store = ${store} and deleted_at is null and id in (${valueList(ids)})`,
  );
  return new Set(rows.map((r) => r.id));
}

/** True when `candidate` is `collection` itself or one of its descendants (so it cannot be a parent). */
export async function isSelfOrDescendant(db: Executor, store: string, collection: string, candidate: string): Promise<boolean> {
  const rows = await queryRows<{ found: boolean }>(
    db,
    sql`with recursive descendants(id) as (
          select ${collection}::uuid
          union
          select l.child_id from collection_parents l join descendants d on l.parent_id = d.id
          join collections o on o.store = l.store and o.id = l.child_id and o.deleted_at is null
          where l.store = ${store}
        )
        select exists (select 1 from descendants where id = ${candidate}::uuid) as found`,
  );
  return rows[0]?.found ?? false;
}

export async function replaceParents(db: Executor, store: string, child: string, parents: string[]): Promise<void> {
  await db.execute(sql`delete from collection_parents where store = ${store} and child_id = ${child}`);
  for (const parent of parents) {
    await db.execute(sql`insert into collection_parents (store, child_id, parent_id) values (${store}, ${child}, ${parent})`);
  }
}

/** Serializes hierarchy changes of one store, so that two concurrent edits cannot close a cycle. */
export async function lockStoreHierarchy(db: Executor, store: string): Promise<void> {
  await db.execute(sql`select 1 from stores where slug = ${store} for update`);
}

export async function addProduct(db: Executor, store: string, collection: string, product: string): Promise<void> {
  await db.execute(
    sql`insert into collection_products (store, collection_id, product_id) values (${store}, ${collection}, ${product}) on conflict do nothing`,
  );
}

export async function removeProduct(db: Executor, store: string, collection: string, product: string): Promise<boolean> {
  const rows = await queryRows<{ product_id: string }>(
    db,
    sql`delete from collection_products where store = ${store} and collection_id = ${collection} and product_id = ${product} returning product_id`,
  );
  return rows.length > 0;
}
