/** Rows to API objects: ISO timestamps, `_count`s, and nothing the contract does not show. */
import { toIso, toIsoOrNull } from '../../lib/time.js';
import type { CollectionRecord } from './collections-repository.js';
import type { ProductWithCounts } from './repository.js';
import type { ProductRecord } from './visibility.js';
import { PRODUCT_FIELD_NAMES, productFields, type AdminCollectionView, type ProductFieldsView, type ProductView } from './schemas.js';

// A driver may hand a timestamp over as a Date or as text; the field list says which fields are timestamps.
const TIMESTAMP_FIELDS = new Set(PRODUCT_FIELD_NAMES.filter((key) => (productFields[key] as { format?: string }).format === 'date-time'));

/** The API fields of a product record (a cart or order row may carry more): timestamps as ISO strings. */
export function productFieldsView(row: ProductRecord): ProductFieldsView {
  const view: Record<string, unknown> = {};
  for (const key of PRODUCT_FIELD_NAMES) {
    const value = row[key] as unknown;
    view[key] = TIMESTAMP_FIELDS.has(key) ? toIsoOrNull(value as Date | string | null) : value;
  }
  return view as ProductFieldsView;
}

export function productView(row: ProductWithCounts): ProductView {
  return { ...productFieldsView(row), _count: { collections: row.collectionsCount, orders: row.ordersCount, variants: row.variantsCount } };
}

/** The admin view; the storefront's response schema drops `archived` and `parents`. */
export function collectionView(row: CollectionRecord): AdminCollectionView {
  return {
    id: row.id,
    store: row.store,
    name: row.name,
    slug: row.slug,
    description: row.description,
    archived: row.archived,
    parents: row.parentIds,
    createdAt: toIso(row.createdAt),
    updatedAt: toIsoOrNull(row.updatedAt),
    deletedAt: toIsoOrNull(row.deletedAt),
    _count: { parents: row.parentsCount, children: row.childrenCount, products: row.productsCount },
  };
}
