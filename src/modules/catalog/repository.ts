/** Catalog SQL: products and collections with their `_count`s, and the admin writes. */
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';
import { productColumns, visibleProduct, type ProductRecord } from './visibility.js';
import type { ProductSort } from './schemas.js';

export interface ProductWithCounts extends ProductRecord {
  collectionsCount: number;
  ordersCount: number;
}

const productCounts = sql.raw(
  `(select count(*)::int from collection_products ccp join collections cc on cc.store = ccp.store and cc.id = ccp.collection_id ` +
    `where ccp.store = p.store and ccp.product_id = p.id and cc.deleted_at is null) as "collectionsCount", ` +
    `(select count(*)::int from order_lines ol where ol.store = p.store and ol.product_id = p.id) as "ordersCount"`,
);

const PRODUCT_ORDER: Record<ProductSort, SQL> = {
  createdAt: sql.raw('p.created_at asc, p.id asc'),
  '-createdAt': sql.raw('p.created_at desc, p.id desc'),
  price: sql.raw('p.price asc, p.id asc'),
  '-price': sql.raw('p.price desc, p.id desc'),
  name: sql.raw('p.name asc, p.id asc'),
  '-name': sql.raw('p.name desc, p.id desc'),
};

export interface ProductFilter {
  store: string;
  /** Only visible products (the storefront), or every non-deleted one (the admin). */
  visibleOnly: boolean;
  collectionId?: string;
  status?: 'DRAFT' | 'ACTIVE';
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
  return sql.join(parts, sql` and `);
}

export async function listProducts(
  db: Executor,
  filter: ProductFilter,
  page: { limit: number; offset: number; sort: ProductSort },
): Promise<ProductWithCounts[]> {
  return queryRows<ProductWithCounts>(
    db,
    sql`select ${productColumns('p')}, ${productCounts} from products p where ${productWhere(filter)}
        order by ${PRODUCT_ORDER[page.sort]} limit ${page.limit} offset ${page.offset}`,
  );
}

export async function countProducts(db: Executor, filter: ProductFilter): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from products p where ${productWhere(filter)}`);
  return row?.n ?? 0;
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

export interface ProductWrite {
  name?: string;
  slug?: string;
  sku?: string;
  price?: number;
  quantity?: number;
  description?: string;
  originalPrice?: number | null;
  status?: 'DRAFT' | 'ACTIVE';
}

const PRODUCT_WRITE_COLUMNS: Record<keyof ProductWrite, string> = {
  name: 'name',
  slug: 'slug',
  sku: 'sku',
  price: 'price',
  quantity: 'quantity',
  description: 'description',
  originalPrice: 'original_price',
  status: 'status',
};

export async function insertProduct(db: Executor, store: string, values: ProductWrite): Promise<string> {
  const entries = Object.entries(values).filter(([, v]) => v !== undefined) as [keyof ProductWrite, unknown][];
  const columns = sql.raw(['store', ...entries.map(([k]) => PRODUCT_WRITE_COLUMNS[k])].join(', '));
  const params = sql.join([sql`${store}`, ...entries.map(([, v]) => sql`${v}`)], sql`, `);
  const [row] = await queryRows<{ id: string }>(db, sql`insert into products (${columns}) values (${params}) returning id`);
  return row!.id;
}

/** Applies the given fields; false when no such non-deleted product exists. */
export async function updateProduct(db: Executor, store: string, id: string, values: ProductWrite): Promise<boolean> {
  const sets = (Object.entries(values).filter(([, v]) => v !== undefined) as [keyof ProductWrite, unknown][]).map(
    ([k, v]) => sql`${sql.raw(PRODUCT_WRITE_COLUMNS[k])} = ${v}`,
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
