/** Storefront catalog reads: only visible products, only live collections. */
import type { Database } from '../../db/client.js';
import { AppError } from '../../plugins/errors.js';
import * as products from './repository.js';
import * as collections from './collections-repository.js';
import type { ListProductsQuery } from './schemas.js';
import { sortKeyKinds, type ListSort } from './product-order.js';
import { decodeCursor, encodeCursor, listBinding } from './cursor.js';
import { searchTermsOf } from './search.js';
import { collectionView, productView } from './views.js';
import { lessHeld } from './held.js';

/**
 * Lists visible products: `collection`, `group`, `q` and the filters narrow it; `collapse=group`
 * shows each group once; `total` counts every entry. With `held` (the store has unexpired checkout
 * holds), quantities and `inStock` are the stock less what is held.
 */
export async function listProducts(db: Database, store: string, query: ListProductsQuery, held = false) {
  if (query.after !== undefined && query.offset !== undefined) {
    throw new AppError('VALIDATION_FAILED', 'after and offset cannot be used together: a cursor already says where the page starts');
  }
  if (query.minPrice !== undefined && query.maxPrice !== undefined && query.minPrice > query.maxPrice) {
    throw new AppError('VALIDATION_FAILED', `minPrice (${query.minPrice}) is above maxPrice (${query.maxPrice})`);
  }
  const sort: ListSort = query.sort ?? (query.q !== undefined ? 'relevance' : '-createdAt');
  // The cursor names this list: the same store, collection, group, collapse, q, filters and sort.
  const binding = listBinding({
    store, collection: query.collection, q: query.q, minPrice: query.minPrice, maxPrice: query.maxPrice, inStock: query.inStock, sort,
    group: query.group, collapse: query.collapse,
  });
  const after = query.after === undefined ? undefined : decodeCursor(query.after, binding, sortKeyKinds(sort));
  const empty = { products: [], total: 0, nextCursor: null };
  let collectionId: string | undefined;
  if (query.collection !== undefined) {
    collectionId = await collections.findVisibleCollectionId(db, store, query.collection);
    // An unknown or archived collection holds nothing the storefront may see.
    if (!collectionId) return empty;
  }
  const search = query.q === undefined ? undefined : await searchTermsOf(db, store, query.q);
  if (search === null) return empty;
  const filter = {
    store, visibleOnly: true, collectionId, group: query.group, minPrice: query.minPrice, maxPrice: query.maxPrice, inStock: query.inStock, search,
    collapseGroups: query.collapse === 'group', held,
  };
  const limit = query.limit ?? 50;
  // One row more than the page tells whether a next page exists.
  const page = { limit: limit + 1, offset: query.offset ?? 0, sort, after };
  const [rows, total] = await Promise.all([products.listProducts(db, filter, page), products.countProducts(db, filter)]);
  const last = rows.length > limit ? rows[limit - 1] : undefined;
  return {
    products: (await lessHeld(db, store, rows.slice(0, limit), held)).map(productView),
    total,
    nextCursor: last ? encodeCursor({ keys: last.sortKeys, id: last.id }, binding) : null,
  };
}

/** The visible product with this slug, or 404. */
export async function getProductBySlug(db: Database, store: string, slug: string, held = false) {
  const row = await products.findVisibleProductBySlug(db, store, slug);
  if (!row) throw new AppError('NOT_FOUND', `product "${slug.slice(0, 100)}" not found`);
  return { product: productView((await lessHeld(db, store, [row], held))[0]!) };
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
