/** Storefront catalog reads: only visible products, only live collections. */
import type { Database } from '../../db/client.js';
import { AppError } from '../../plugins/errors.js';
import * as products from './repository.js';
import * as collections from './collections-repository.js';
import type { ListProductsQuery } from './schemas.js';
import { collectionView, productView } from './views.js';

/** Lists visible products, optionally of one collection; `total` counts every match. */
export async function listProducts(db: Database, store: string, query: ListProductsQuery) {
  const page = { limit: query.limit ?? 50, offset: query.offset ?? 0, sort: query.sort ?? '-createdAt' };
  let collectionId: string | undefined;
  if (query.collection !== undefined) {
    collectionId = await collections.findVisibleCollectionId(db, store, query.collection);
    // An unknown or archived collection holds nothing the storefront may see.
    if (!collectionId) return { products: [], total: 0 };
  }
  const filter = { store, visibleOnly: true, collectionId };
  const [rows, total] = await Promise.all([products.listProducts(db, filter, page), products.countProducts(db, filter)]);
  return { products: rows.map(productView), total };
}

/** The visible product with this slug, or 404. */
export async function getProductBySlug(db: Database, store: string, slug: string) {
  const row = await products.findVisibleProductBySlug(db, store, slug);
  if (!row) throw new AppError('NOT_FOUND', `product "${slug.slice(0, 100)}" not found`);
  return { product: productView(row) };
}

/** Lists the store's non-deleted, non-archived collections. */
export async function listCollections(db: Database, store: string, query: { limit?: number; offset?: number }, includeArchived = false) {
  const page = { limit: query.limit ?? 50, offset: query.offset ?? 0, includeArchived };
  const [rows, total] = await Promise.all([
    collections.listCollections(db, store, page),
    collections.countCollections(db, store, includeArchived),
  ]);
  return { collections: rows.map(collectionView), total };
}
