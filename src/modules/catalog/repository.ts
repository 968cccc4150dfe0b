/** Catalog SQL: products and collections with their `_count`s, and the admin writes. */
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';
import { PRODUCT_COLUMN_NAMES, productColumns, productValue, visibleProduct, visibleProductText, type ProductRecord } from './visibility.js';
import type { CursorPosition } from './cursor.js';
import { comesAfter, orderBy, relevanceRank, sortKeysOf, type ListSort, type SearchTerms } from './product-order.js';
import type { UpdateProductBody } from './schemas.js';
import { availableQuantity } from '../holds/index.js';

export interface ProductWithCounts extends ProductRecord {
  collectionsCount: number;
  ordersCount: number;
  variantsCount: number;
}

/** The `_count`s of the products row `p`, as select columns. */
export const productCounts = sql.raw(
  `(select count(*)::int from collection_products ccp join collections cc on cc.store = ccp.store and cc.id = ccp.collection_id ` +
    `where ccp.store = p.store and ccp.product_id = p.id and cc.deleted_at is null) as "collectionsCount", ` +
    `(select count(*)::int from order_lines ol where ol.store = p.store and ol.product_id = p.id) as "ordersCount", ` +
    `(case when p.group_slug is null then 0 else (select count(*)::int from products gp ` +
    `where gp.store = p.store and gp.group_slug = p.group_slug and ${visibleProductText('gp')}) end) as "variantsCount"`,
);

export interface ProductFilter {
  store: string;
  /** Only visible products (the storefront), or every non-deleted one (the admin). */
  visibleOnly: boolean;
  collectionId?: string;
  group?: string;
  status?: 'DRAFT' | 'ACTIVE';
  minPrice?: number;
  maxPrice?: number;
  inStock?: boolean;
  search?: SearchTerms;
  /** Each group once, as its first matching product in the list's order. */
  collapseGroups?: boolean;
  /** The store has unexpired checkout holds: `inStock` judges the stock less what is held. */
  held?: boolean;
}

/** The filter over the products row aliased `alias` (collapsing aside: it depends on the order). */
function productWhere(filter: ProductFilter, alias = 'p'): SQL {
  const p = sql.raw(alias);
  const parts: SQL[] = [sql`${p}.store = ${filter.store}`];
  parts.push(filter.visibleOnly ? visibleProduct(alias) : sql`${p}.deleted_at is null`);
  if (filter.status) parts.push(sql`${p}.status = ${filter.status}`);
  if (filter.group !== undefined) parts.push(sql`${p}.group_slug = ${filter.group}`);
  if (filter.collectionId) {
    parts.push(
      sql`exists (select 1 from collection_products fcp where fcp.store = ${p}.store and fcp.collection_id = ${filter.collectionId} and fcp.product_id = ${p}.id)`,
    );
  }
  if (filter.minPrice !== undefined) parts.push(sql`${p}.price >= ${filter.minPrice}`);
  if (filter.maxPrice !== undefined) parts.push(sql`${p}.price <= ${filter.maxPrice}`);
  if (filter.inStock !== undefined) {
    const quantity = filter.held ? availableQuantity(alias) : sql`${p}.quantity`;
    parts.push(filter.inStock ? sql`${quantity} > 0` : sql`${quantity} <= 0`);
  }
  if (filter.search) parts.push(sql`${p}.search @@ ${filter.search.matchQuery}::tsquery`);
  return sql.join(parts, sql` and `);
}

/**
 * The row `p` stands for its group: no other matching product of the group comes before it. A
 * group has a few products, found by the group index, so this costs a few index reads per row.
 */
function firstOfItsGroup(filter: ProductFilter, sort: ListSort): SQL {
  return sql`(p.group_slug is null or not exists (select 1 from products g
    where g.store = p.store and g.group_slug = p.group_slug and g.deleted_at is null and g.id <> p.id
      and ${productWhere(filter, 'g')} and ${comesAfter(sort, filter.search, 'p', { alias: 'g' })}))`;
}

export interface ProductPage {
  limit: number;
  offset: number;
  sort: ListSort;
  after?: CursorPosition;
}

/** A page of products; each row carries its sort keys (`sortKeys`) for the next cursor. */
export async function listProducts(db: Executor, filter: ProductFilter, page: ProductPage): Promise<Array<ProductWithCounts & { sortKeys: Array<string | number> }>> {
  const where = [productWhere(filter)];
  if (filter.collapseGroups) where.push(firstOfItsGroup(filter, page.sort));
  if (page.after) where.push(comesAfter(page.sort, filter.search, 'p', { position: page.after }));
  const rank = page.sort === 'relevance' ? sql`, ${relevanceRank(filter.search!)} as "searchRank"` : sql``;
  const rows = await queryRows<ProductWithCounts & { searchRank?: number }>(
    db,
    sql`select ${productColumns('p')}, ${productCounts}${rank} from products p where ${sql.join(where, sql` and `)}
        order by ${orderBy(page.sort, filter.search)} limit ${page.limit} offset ${page.offset}`,
  );
  return rows.map(({ searchRank, ...row }) => ({ ...row, sortKeys: sortKeysOf(page.sort, row, searchRank) }));
}

/** Every match; collapsed, a group with any match counts once (it shows as exactly one of them). */
export async function countProducts(db: Executor, filter: ProductFilter): Promise<number> {
  const count = filter.collapseGroups ? sql`count(*) filter (where p.group_slug is null) + count(distinct p.group_slug)` : sql`count(*)`;
  const [row] = await queryRows<{ n: number }>(db, sql`select (${count})::int as n from products p where ${productWhere(filter)}`);
  return row?.n ?? 0;
}

/**
 * The words of `q` as search reads them (accents, case and punctuation folded like the products'
 * text), each with the name words of this store one letter away (words of 5+ letters, no digits).
 */
export async function readSearchWords(db: Executor, store: string, q: string): Promise<Array<{ word: string; near: string[] }>> {
  return queryRows<{ word: string; near: string[] }>(
    db,
    sql`with words as (select distinct w.lexeme as word from unnest(to_tsvector('simple'::regconfig, storefront_fold(${q}))) w)
        select w.word, coalesce((
          select array_agg(n.word order by n.word) from (
            select nw.word from product_name_words nw
            where nw.store = ${store} and length(w.word) >= 5 and w.word !~ '[0-9]' and nw.word % w.word and nw.word <> w.word
              and case when abs(length(nw.word) - length(w.word)) <= 1 then levenshtein(nw.word, w.word) <= 1 else false end
            limit 50) n), '{}') as near
        from words w order by w.word`,
  );
}

export async function findVisibleProductBySlug(db: Executor, store: string, slug: string): Promise<ProductWithCounts | undefined> {
  const [row] = await queryRows<ProductWithCounts>(
    db,
    sql`select ${productColumns('p')}, ${productCounts} from products p
        where p.store = ${store} and p.slug = ${slug} and ${visibleProduct('p')} limit 1`,
  );
  return row;
}

/** A non-deleted product by id, with its counts (the admin's view). */
export async function findProduct(db: Executor, store: string, id: string): Promise<ProductWithCounts | undefined> {
  const [row] = await queryRows<ProductWithCounts>(
    db,
    sql`select ${productColumns('p')}, ${productCounts} from products p
        where p.store = ${store} and p.id = ${id} and p.deleted_at is null`,
  );
  return row;
}

/** The id of a non-deleted product by its slug (the command line names products by slug). */
export async function findProductIdBySlug(db: Executor, store: string, slug: string): Promise<string | undefined> {
  const [row] = await queryRows<{ id: string }>(db, sql`select p.id from products p where p.store = ${store} and p.slug = ${slug} and p.deleted_at is null limit 1`);
  return row?.id;
}

/** The fields an admin writes (the product field list decides which). */
export type ProductWrite = UpdateProductBody;

export async function insertProduct(db: Executor, store: string, values: ProductWrite): Promise<string> {
  const entries = Object.entries(values).filter(([, v]) => v !== undefined) as [keyof ProductWrite, unknown][];
  const columns = sql.raw(['store', ...entries.map(([k]) => PRODUCT_COLUMN_NAMES[k])].join(', '));
  const params = sql.join([sql`${store}`, ...entries.map(([k, v]) => productValue(k, v))], sql`, `);
  const [row] = await queryRows<{ id: string }>(db, sql`insert into products (${columns}) values (${params}) returning id`);
  return row!.id;
}

/** Applies the given fields; false when no such non-deleted product exists. */
export async function updateProduct(db: Executor, store: string, id: string, values: ProductWrite): Promise<boolean> {
  const sets = (Object.entries(values).filter(([, v]) => v !== undefined) as [keyof ProductWrite, unknown][]).map(
    ([k, v]) => sql`${sql.raw(PRODUCT_COLUMN_NAMES[k])} = ${productValue(k, v)}`,
  );
  sets.push(sql`updated_at = now()`);
  const rows = await queryRows<{ id: string }>(
    db,
    sql`update products set ${sql.join(sets, sql`, `)} where store = ${store} and id = ${id} and deleted_at is null returning id`,
  );
  return rows.length > 0;
}

export async function softDeleteProduct(db: Executor, store: string, id: string): Promise<boolean> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`update products set deleted_at = now(), updated_at = now() where store = ${store} and id = ${id} and deleted_at is null returning id`,
  );
  return rows.length > 0;
}

/** A deleted product, as its DELETE answer shows it. */
export async function findProductIncludingDeleted(db: Executor, store: string, id: string): Promise<ProductWithCounts | undefined> {
  const [row] = await queryRows<ProductWithCounts>(
    db,
    sql`select ${productColumns('p')}, ${productCounts} from products p where p.store = ${store} and p.id = ${id}`,
  );
  return row;
}

/** Locks a non-deleted product and answers its stock, so an edit knows whether it crossed zero. */
export async function lockProductQuantity(db: Executor, store: string, id: string): Promise<number | undefined> {
  const [row] = await queryRows<{ quantity: number }>(
    db,
    sql`select quantity from products where store = ${store} and id = ${id} and deleted_at is null for no key update`,
  );
  return row?.quantity;
}
