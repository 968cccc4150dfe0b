/**
 * SQL of a group's variants saved in one request: a few set-based statements whatever the number
 * of variants (one insert for every new product, one read for every answer), so saving 100 costs
 * about what saving one does.
 */
import { getTableColumns, sql } from 'drizzle-orm';
import { products } from '../../db/schema.js';
import { queryRows, valueList, type Executor } from '../../db/client.js';
import { PRODUCT_COLUMN_NAMES, productColumns, productValue } from './visibility.js';
import { productCounts, type ProductWithCounts, type ProductWrite } from './repository.js';

export interface LockedProduct {
  id: string;
  slug: string;
  quantity: number;
  group: string | null;
  options: Record<string, string>;
}

/** Locks the non-deleted products of these ids (id order, as every writer of products locks) and answers what a save checks. */
export async function lockProducts(db: Executor, store: string, ids: string[]): Promise<LockedProduct[]> {
  if (ids.length === 0) return [];
  return queryRows<LockedProduct>(
    db,
    sql`select id, slug, quantity, group_slug as "group", options from products
        where store = ${store} and id in (${valueList(ids)}) and deleted_at is null order by id for no key update`,
  );
}

/** The non-deleted products holding any of these slugs. */
export async function productsWithSlugs(db: Executor, store: string, slugs: string[]): Promise<Array<{ id: string; slug: string }>> {
  if (slugs.length === 0) return [];
  return queryRows<{ id: string; slug: string }>(
    db,
    sql`select id, slug from products where store = ${store} and slug in (${valueList(slugs)}) and deleted_at is null`,
  );
}

/** The non-deleted products of a group, with their options (the group index: a few rows). */
export async function groupMembers(db: Executor, store: string, group: string): Promise<Array<{ id: string; slug: string; options: Record<string, string> }>> {
  return queryRows<{ id: string; slug: string; options: Record<string, string> }>(
    db,
    sql`select id, slug, options from products where store = ${store} and group_slug = ${group} and deleted_at is null`,
  );
}

/**
 * Inserts every new product with one statement (a field one of them omits takes its column's
 * default) and answers each one's id by its slug, which is unique among them. Each is created a
 * millisecond after the one before, ending at the transaction's time: lists oldest first (the
 * group view, its `options`) then show them in the order given, as when they were made one by one.
 */
export async function insertProducts(db: Executor, store: string, rows: ProductWrite[]): Promise<Map<string, string>> {
  if (rows.length === 0) return new Map();
  const keys = [...new Set(rows.flatMap((row) => Object.entries(row).filter(([, v]) => v !== undefined).map(([k]) => k)))] as Array<keyof ProductWrite>;
  const columns = sql.raw(['store', 'created_at', ...keys.map((k) => PRODUCT_COLUMN_NAMES[k])].join(', '));
  const values = rows.map((row, i) => {
    const createdAt = sql`now() - ${rows.length - 1 - i} * interval '1 millisecond'`;
    return sql`(${sql.join([sql`${store}`, createdAt, ...keys.map((k) => (row[k] === undefined ? sql`default` : productValue(k, row[k])))], sql`, `)})`;
  });
  const inserted = await queryRows<{ id: string; slug: string }>(db, sql`insert into products (${columns}) values ${sql.join(values, sql`, `)} returning id, slug`);
  return new Map(inserted.map((r) => [r.slug, r.id]));
}

const COLUMNS = getTableColumns(products);

/**
 * Applies each product's fields, with one statement per set of fields given (a dashboard's save
 * gives every product the same fields: one statement for all of them). Answers how many rows
 * changed; the products are locked already (`lockProducts`).
 */
export async function updateProducts(db: Executor, store: string, rows: Array<ProductWrite & { id: string }>): Promise<number> {
  const bySet = new Map<string, Array<ProductWrite & { id: string }>>();
  for (const row of rows) {
    const keys = Object.keys(row).filter((k) => k !== 'id' && row[k as keyof ProductWrite] !== undefined).sort().join(',');
    bySet.set(keys, [...(bySet.get(keys) ?? []), row]);
  }
  let changed = 0;
  for (const [signature, group] of bySet) {
    const keys = (signature ? signature.split(',') : []) as Array<keyof ProductWrite>;
    // VALUES has no column types of its own: each value says its column's.
    const values = group.map((row) => sql`(${sql.join([sql`${row.id}::uuid`, ...keys.map((k) => sql`${productValue(k, row[k])}::${sql.raw(COLUMNS[k].getSQLType())}`)], sql`, `)})`);
    const names = sql.raw(['id', ...keys.map((k) => `v_${PRODUCT_COLUMN_NAMES[k]}`)].join(', '));
    const sets = sql.raw([...keys.map((k) => `${PRODUCT_COLUMN_NAMES[k]} = v.v_${PRODUCT_COLUMN_NAMES[k]}`), 'updated_at = now()'].join(', '));
    const updated = await queryRows<{ id: string }>(
      db,
      sql`update products p set ${sets} from (values ${sql.join(values, sql`, `)}) as v(${names})
          where p.store = ${store} and p.id = v.id and p.deleted_at is null returning p.id`,
    );
    changed += updated.length;
  }
  return changed;
}

/** The non-deleted products of these ids with their counts, as the admin API answers them. */
export async function findProducts(db: Executor, store: string, ids: string[]): Promise<ProductWithCounts[]> {
  if (ids.length === 0) return [];
  return queryRows<ProductWithCounts>(
    db,
    sql`select ${productColumns('p')}, ${productCounts} from products p where p.store = ${store} and p.id in (${valueList(ids)}) and p.deleted_at is null`,
  );
}
