/** Catalog SQL: products and collections with their `_count`s, and the admin writes. */
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';
import { toIso } from '../../lib/time.js';
import { PRODUCT_COLUMN_NAMES, productColumns, visibleProduct, type ProductRecord } from './visibility.js';
import type { CursorPosition, KeyKind } from './cursor.js';
import type { ProductSort, UpdateProductBody } from './schemas.js';

/** A list's order: one of the `sort` values, or search relevance (`q` without `sort`). */
export type ListSort = ProductSort | 'relevance';

export interface ProductWithCounts extends ProductRecord {
  collectionsCount: number;
  ordersCount: number;
}

const productCounts = sql.raw(
  `(select count(*)::int from collection_products ccp join collections cc on cc.store = ccp.store and cc.id = ccp.collection_id ` +
    `where ccp.store = p.store and ccp.product_id = p.id and cc.deleted_at is null) as "collectionsCount", ` +
    `(select count(*)::int from order_lines ol where ol.store = p.store and ol.product_id = p.id) as "ordersCount"`,
);

/** How a list is ordered: its sort keys (then the id, in the same direction) and how each rides in a cursor. */
interface ListOrder {
  keys: Array<{ expr: SQL; kind: KeyKind }>;
  descending: boolean;
  /**
   * The created_at index is `desc nulls last`; ORDER BY must say the same nulls placement (in
   * either direction) or PostgreSQL sorts the whole store instead of reading the index. The
   * columns are NOT NULL, so it changes no answer.
   */
  indexNulls?: boolean;
}

const key = (column: string, kind: KeyKind) => ({ expr: sql.raw(`p.${column}`), kind });
const ORDERS: Record<ProductSort, ListOrder> = {
  createdAt: { keys: [key('created_at', 'timestamp')], descending: false, indexNulls: true },
  '-createdAt': { keys: [key('created_at', 'timestamp')], descending: true, indexNulls: true },
  price: { keys: [key('price', 'integer')], descending: false },
  '-price': { keys: [key('price', 'integer')], descending: true },
  name: { keys: [key('name', 'text')], descending: false },
  '-name': { keys: [key('name', 'text')], descending: true },
};

/**
 * Search relevance (docs/api.md, "Search, filters and cursors"): an exact sku match first, then
 * products whose name holds every word (a typo match counts), then the rest; newest first among
 * equals.
 */
function relevanceRank(search: SearchTerms): SQL {
  return sql`(case when lower(p.sku) = lower(${search.sku}) then 0 when p.search @@ ${search.nameQuery}::tsquery then 1 else 2 end)`;
}

/** The sort keys of a list and how each rides in a cursor. */
export function sortKeyKinds(sort: ListSort): KeyKind[] {
  return sort === 'relevance' ? ['integer', 'timestamp'] : ORDERS[sort].keys.map((k) => k.kind);
}

const CAST: Record<KeyKind, SQL> = { timestamp: sql.raw('timestamptz'), integer: sql.raw('int'), text: sql.raw('text') };
const param = (value: string | number, kind: KeyKind) => sql`${value}::${CAST[kind]}`;

/** ORDER BY and the keyset predicate "after this position" for a sort. */
function ordering(sort: ListSort, search: SearchTerms | undefined, after: CursorPosition | undefined): { orderBy: SQL; afterWhere?: SQL } {
  if (sort === 'relevance') {
    const rank = relevanceRank(search!);
    const orderBy = sql`${rank} asc, p.created_at desc nulls last, p.id desc nulls last`;
    if (!after) return { orderBy };
    const [r, createdAt] = after.keys as [number, string];
    return {
      orderBy,
      afterWhere: sql`(${rank} > ${r}::int or (${rank} = ${r}::int and (p.created_at, p.id) < (${param(createdAt, 'timestamp')}, ${after.id}::uuid)))`,
    };
  }
  const order = ORDERS[sort];
  const nulls = order.indexNulls ? (order.descending ? ' nulls last' : ' nulls first') : '';
  const direction = sql.raw((order.descending ? 'desc' : 'asc') + nulls);
  const orderBy = sql.join([...order.keys.map((k) => sql`${k.expr} ${direction}`), sql`p.id ${direction}`], sql`, `);
  if (!after) return { orderBy };
  // A row comparison walks the (store, key, id) index from the position on: a deep page costs what the first does.
  const columns = sql.join([...order.keys.map((k) => k.expr), sql`p.id`], sql`, `);
  const values = sql.join([...order.keys.map((k, n) => param(after.keys[n]!, k.kind)), sql`${after.id}::uuid`], sql`, `);
  return { orderBy, afterWhere: sql`(${columns}) ${sql.raw(order.descending ? '<' : '>')} (${values})` };
}

/** A query's words as tsquery text: every word must match (`match`); `nameQuery` asks the name alone. */
export interface SearchTerms {
  matchQuery: string;
  nameQuery: string;
  /** `q` itself, for the exact sku match. */
  sku: string;
}

export interface ProductFilter {
  store: string;
  /** Only visible products (the storefront), or every non-deleted one (the admin). */
  visibleOnly: boolean;
  collectionId?: string;
  status?: 'DRAFT' | 'ACTIVE';
  minPrice?: number;
  maxPrice?: number;
  inStock?: boolean;
  search?: SearchTerms;
}

function productWhere(filter: ProductFilter): SQL {
  const parts: SQL[] = [sql`p.store = ${filter.store}`];
  parts.push(filter.visibleOnly ? visibleProduct('p') : sql`p.deleted_at is null`);
  if (filter.status) parts.push(sql`p.status = ${filter.status}`);
  if (filter.collectionId) {
    parts.push(
      sql`exists (select 1 from collection_products fcp where fcp.store = p.store and fcp.collection_id = ${filter.collectionId} and fcp.product_id = p.id)`,
    );
  }
  if (filter.minPrice !== undefined) parts.push(sql`p.price >= ${filter.minPrice}`);
  if (filter.maxPrice !== undefined) parts.push(sql`p.price <= ${filter.maxPrice}`);
  if (filter.inStock !== undefined) parts.push(filter.inStock ? sql`p.quantity > 0` : sql`p.quantity = 0`);
  if (filter.search) parts.push(sql`p.search @@ ${filter.search.matchQuery}::tsquery`);
  return sql.join(parts, sql` and `);
}

export interface ProductPage {
  limit: number;
  offset: number;
  sort: ListSort;
  after?: CursorPosition;
}

/** A page of products; each row carries its sort keys (`sortKeys`) for the next cursor. */
export async function listProducts(db: Executor, filter: ProductFilter, page: ProductPage): Promise<Array<ProductWithCounts & { sortKeys: Array<string | number> }>> {
  const { orderBy, afterWhere } = ordering(page.sort, filter.search, page.after);
  const where = afterWhere ? sql`${productWhere(filter)} and ${afterWhere}` : productWhere(filter);
  const rank = page.sort === 'relevance' ? sql`, ${relevanceRank(filter.search!)} as "searchRank"` : sql``;
  const rows = await queryRows<ProductWithCounts & { searchRank?: number }>(
    db,
    sql`select ${productColumns('p')}, ${productCounts}${rank} from products p where ${where}
        order by ${orderBy} limit ${page.limit} offset ${page.offset}`,
  );
  return rows.map(({ searchRank, ...row }) => ({ ...row, sortKeys: sortKeysOf(page.sort, row, searchRank) }));
}

function sortKeysOf(sort: ListSort, row: ProductWithCounts, searchRank: number | undefined): Array<string | number> {
  if (sort === 'relevance') return [searchRank!, toIso(row.createdAt)];
  const field = sort.replace('-', '') as 'createdAt' | 'price' | 'name';
  return [field === 'createdAt' ? toIso(row.createdAt) : row[field]];
}

export async function countProducts(db: Executor, filter: ProductFilter): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from products p where ${productWhere(filter)}`);
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

/** The fields an admin writes (the product field list decides which). */
export type ProductWrite = UpdateProductBody;

export async function insertProduct(db: Executor, store: string, values: ProductWrite): Promise<string> {
  const entries = Object.entries(values).filter(([, v]) => v !== undefined) as [keyof ProductWrite, unknown][];
  const columns = sql.raw(['store', ...entries.map(([k]) => PRODUCT_COLUMN_NAMES[k])].join(', '));
  const params = sql.join([sql`${store}`, ...entries.map(([, v]) => sql`${v}`)], sql`, `);
  const [row] = await queryRows<{ id: string }>(db, sql`insert into products (${columns}) values (${params}) returning id`);
  return row!.id;
}

/** Applies the given fields; false when no such non-deleted product exists. */
export async function updateProduct(db: Executor, store: string, id: string, values: ProductWrite): Promise<boolean> {
  const sets = (Object.entries(values).filter(([, v]) => v !== undefined) as [keyof ProductWrite, unknown][]).map(
    ([k, v]) => sql`${sql.raw(PRODUCT_COLUMN_NAMES[k])} = ${v}`,
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
