/**
 * The visibility rule, in one place: a product is visible when it is ACTIVE, not deleted, and no
 * non-deleted collection holding it is archived. Carts and orders use the same predicate.
 */
import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import { products } from '../../db/schema.js';

/** SQL predicate text over the products row aliased `alias`. */
export function visibleProductText(alias = 'p'): string {
  return (
    `(${alias}.status = 'ACTIVE' and ${alias}.deleted_at is null and not exists (` +
      `select 1 from collection_products vcp join collections vc on vc.store = vcp.store and vc.id = vcp.collection_id ` +
      `where vcp.store = ${alias}.store and vcp.product_id = ${alias}.id and vc.archived and vc.deleted_at is null))`
  );
}

/** SQL predicate over the products row aliased `alias`. */
export function visibleProduct(alias = 'p'): SQL {
  return sql.raw(visibleProductText(alias));
}

/** A product row as repositories return it: every column of the Drizzle table, camel-cased. */
export type ProductRecord = typeof products.$inferSelect;

/** The products table's SQL column name of each record field. */
export const PRODUCT_COLUMN_NAMES = Object.fromEntries(
  Object.entries(getTableColumns(products)).map(([key, column]) => [key, column.name]),
) as Record<keyof ProductRecord, string>;

const JSON_FIELDS = new Set(Object.entries(getTableColumns(products)).filter(([, column]) => column.dataType === 'json').map(([key]) => key));

/** A product field's value as an SQL parameter: json columns get JSON text (a driver would send an array as an SQL array). */
export function productValue(key: keyof ProductRecord, value: unknown): SQL {
  return JSON_FIELDS.has(key) ? sql`${JSON.stringify(value)}::${sql.raw(getTableColumns(products)[key].getSQLType())}` : sql`${value}`;
}

const columnListCache = new Map<string, SQL>();

/** Every column of a product record, camel-cased, from the products row aliased `alias`. */
export function productColumns(alias = 'p'): SQL {
  let columns = columnListCache.get(alias);
  if (!columns) {
    columns = sql.raw(Object.entries(PRODUCT_COLUMN_NAMES).map(([key, name]) => `${alias}.${name} as "${key}"`).join(', '));
    columnListCache.set(alias, columns);
  }
  return columns;
}
