/**
 * The visibility rule, in one place: a product is visible when it is ACTIVE, not deleted, and no
 * non-deleted collection holding it is archived. Carts and orders use the same predicate.
 */
import { sql, type SQL } from 'drizzle-orm';

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

/** Product columns of the contract, camel-cased, from the products row aliased `alias`. */
export function productColumns(alias = 'p'): SQL {
  return sql.raw(
    `${alias}.id, ${alias}.store, ${alias}.status, ${alias}.name, ${alias}.slug, ${alias}.description, ${alias}.price, ` +
      `${alias}.original_price as "originalPrice", ${alias}.quantity, ${alias}.sku, ${alias}.created_at as "createdAt", ` +
      `${alias}.updated_at as "updatedAt", ${alias}.deleted_at as "deletedAt"`,
  );
}

export interface ProductRecord {
  id: string;
  store: string;
  status: 'DRAFT' | 'ACTIVE';
  name: string;
  slug: string;
  description: string;
  price: number;
  originalPrice: number | null;
  quantity: number;
  sku: string;
  createdAt: Date;
  updatedAt: Date | null;
  deletedAt: Date | null;
}
