/** Rows to API objects: ISO timestamps, `_count`s, and nothing the contract does not show. */
import { toIso, toIsoOrNull } from '../../lib/time.js';
import type { CollectionRecord } from './collections-repository.js';
import type { ProductWithCounts } from './repository.js';
import type { ProductRecord } from './visibility.js';
import type { AdminCollectionView, ProductView } from './schemas.js';

export function productFieldsView(row: ProductRecord) {
  return {
    id: row.id,
    store: row.store,
    status: row.status,
    name: row.name,
    slug: row.slug,
    description: row.description,
    price: row.price,
    originalPrice: row.originalPrice,
    quantity: row.quantity,
    sku: row.sku,
    createdAt: toIso(row.createdAt),
    updatedAt: toIsoOrNull(row.updatedAt),
    deletedAt: toIsoOrNull(row.deletedAt),
  };
}

export function productView(row: ProductWithCounts): ProductView {
  return { ...productFieldsView(row), _count: { collections: row.collectionsCount, orders: row.ordersCount } };
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
