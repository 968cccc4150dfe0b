/** Catalog administration: products, collections, membership and the collection hierarchy. */
import type { Database, Executor } from '../../db/client.js';
import { postgresErrorCode } from '../../db/errors.js';
import { AppError } from '../../plugins/errors.js';
import type { EventType, Recorder } from '../events/index.js';
import * as products from './repository.js';
import * as collections from './collections-repository.js';
import type { AdminListProductsQuery, CreateCollectionBody, CreateProductBody, UpdateCollectionBody, UpdateProductBody } from './schemas.js';
import { collectionView, productView } from './views.js';
import { searchTermsOf } from './search.js';
import { nfcOptions, checkOptionNames, sameOptionsConflict } from './variant-rules.js';
import { withHeld } from './held.js';
import { decodeCursor, encodeCursor, listBinding } from './cursor.js';
import { sortKeyKinds } from './product-order.js';

async function uniqueSlug<T>(kind: string, slug: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const conflict = sameOptionsConflict(error);
    if (conflict) throw conflict;
    if (postgresErrorCode(error) === '23505') throw new AppError('CONFLICT', `a ${kind} with slug "${slug}" already exists in this store`);
    throw error;
  }
}

async function productOr404(db: Executor, store: string, id: string) {
  const row = await products.findProduct(db, store, id);
  if (!row) throw new AppError('NOT_FOUND', `product ${id} not found`);
  return row;
}

async function collectionOr404(db: Executor, store: string, id: string) {
  const row = await collections.findCollection(db, store, id);
  if (!row) throw new AppError('NOT_FOUND', `collection ${id} not found`);
  return row;
}

/** Records a product event with the product as the admin API answers it, read in the same transaction. */
async function recordProductEvent(tx: Executor, record: Recorder, store: string, type: EventType, id: string) {
  const row = type === 'product.deleted' ? await products.findProductIncludingDeleted(tx, store, id) : await products.findProduct(tx, store, id);
  const [product] = await withHeld(tx, store, [productView(row!)]);
  record(type, { product });
  return product!;
}

/**
 * `product.out_of_stock` / `product.back_in_stock` when a stock change crossed zero; nothing for a
 * deleted product (a cancelled order can return stock to one).
 */
export async function recordStockCrossing(tx: Executor, record: Recorder, store: string, id: string, before: number, after: number) {
  const type = before > 0 && after === 0 ? 'product.out_of_stock' : before === 0 && after > 0 ? 'product.back_in_stock' : undefined;
  if (type && (await products.findProduct(tx, store, id))) await recordProductEvent(tx, record, store, type, id);
}

async function recordCollectionEvent(tx: Executor, record: Recorder, store: string, type: EventType, id: string) {
  const collection = collectionView((await collections.findCollection(tx, store, id, { includeDeleted: type === 'collection.deleted' }))!);
  record(type, { collection });
  return collection;
}

/** Every non-deleted product of the store, whatever its status; `q` searches as the storefront does. */
export async function listAdminProducts(db: Database, store: string, query: AdminListProductsQuery) {
  const search = query.q === undefined ? undefined : await searchTermsOf(db, store, query.q);
  if (search === null) return { products: [], total: 0, nextCursor: null };
  if (query.after !== undefined && query.offset !== undefined) {
    throw new AppError('VALIDATION_FAILED', 'after and offset cannot be used together: a cursor already says where the page starts');
  }
  const filter = { store, visibleOnly: false, status: query.status, search, group: query.group };
  const sort = search ? ('relevance' as const) : ('-createdAt' as const);
  // The cursor names this list (the admin's: any status), so a storefront cursor never fits it.
  const binding = listBinding({ admin: true, store, status: query.status, q: query.q, group: query.group, sort });
  const after = query.after === undefined ? undefined : decodeCursor(query.after, binding, sortKeyKinds(sort));
  const limit = query.limit ?? 50;
  const page = { limit: limit + 1, offset: query.offset ?? 0, sort, after };
  const [rows, total] = await Promise.all([products.listProducts(db, filter, page), products.countProducts(db, filter)]);
  const last = rows.length > limit ? rows[limit - 1] : undefined;
  return {
    products: await withHeld(db, store, rows.slice(0, limit).map(productView)),
    total,
    nextCursor: last ? encodeCursor({ keys: last.sortKeys, id: last.id }, binding) : null,
  };
}

export async function getAdminProduct(db: Database, store: string, id: string) {
  const [product] = await withHeld(db, store, [productView(await productOr404(db, store, id))]);
  return { product: product! };
}

/** Creates a product; it is a DRAFT unless a status is given. */
export async function createProduct(tx: Executor, record: Recorder, store: string, given: CreateProductBody) {
  checkOptionNames(given.options);
  const body = nfcOptions(given);
  const product = await uniqueSlug('product', body.slug, async () => {
    const created = await products.insertProduct(tx, store, body);
    return recordProductEvent(tx, record, store, 'product.created', created);
  });
  return { product };
}

export async function updateProduct(tx: Executor, record: Recorder, store: string, id: string, given: UpdateProductBody) {
  checkOptionNames(given.options);
  const body = nfcOptions(given);
  const product = await uniqueSlug('product', body.slug, async () => {
    const before = await products.lockProductQuantity(tx, store, id);
    if (before === undefined || !(await products.updateProduct(tx, store, id, body))) throw new AppError('NOT_FOUND', `product ${id} not found`);
    const updated = await recordProductEvent(tx, record, store, 'product.updated', id);
    await recordStockCrossing(tx, record, store, id, before, updated.quantity);
    return updated;
  });
  return { product };
}

/** Soft-deletes a product: it leaves the catalog, its slug can be reused, past orders keep it. */
export async function deleteProduct(tx: Executor, record: Recorder, store: string, id: string) {
  if (!(await products.softDeleteProduct(tx, store, id))) throw new AppError('NOT_FOUND', `product ${id} not found`);
  const product = await recordProductEvent(tx, record, store, 'product.deleted', id);
  return { product };
}

export async function listAdminCollections(db: Database, store: string, query: { limit?: number; offset?: number }) {
  const page = { limit: query.limit ?? 50, offset: query.offset ?? 0, includeArchived: true };
  const [rows, total] = await Promise.all([collections.listCollections(db, store, page), collections.countCollections(db, store, true)]);
  return { collections: rows.map(collectionView), total };
}

export async function getAdminCollection(db: Database, store: string, id: string) {
  return { collection: collectionView(await collectionOr404(db, store, id)) };
}

/** Checks that every parent exists and none would close a cycle, then links them. */
async function setParents(tx: Executor, store: string, child: string, requested: string[]) {
  const parents = [...new Set(requested.map((p) => p.toLowerCase()))];
  await collections.lockStoreHierarchy(tx, store);
  const existing = await collections.existingCollectionIds(tx, store, parents);
  const missing = parents.find((p) => !existing.has(p));
  if (missing) throw new AppError('NOT_FOUND', `parent collection ${missing} not found`);
  for (const parent of parents) {
    if (await collections.isSelfOrDescendant(tx, store, child, parent)) {
      throw new AppError('COLLECTION_CYCLE', `collection ${parent} is this collection or one of its descendants, so it cannot be its parent`);
    }
  }
  await collections.replaceParents(tx, store, child, parents);
}

export async function createCollection(tx: Executor, record: Recorder, store: string, body: CreateCollectionBody) {
  const collection = await uniqueSlug('collection', body.slug, async () => {
    const created = await collections.insertCollection(tx, store, body);
    if (body.parents?.length) await setParents(tx, store, created, body.parents);
    return recordCollectionEvent(tx, record, store, 'collection.created', created);
  });
  return { collection };
}

export async function updateCollection(tx: Executor, record: Recorder, store: string, id: string, body: UpdateCollectionBody) {
  const collection = await uniqueSlug('collection', body.slug, async () => {
    if (!(await collections.updateCollection(tx, store, id, body))) throw new AppError('NOT_FOUND', `collection ${id} not found`);
    if (body.parents) await setParents(tx, store, id, body.parents);
    return recordCollectionEvent(tx, record, store, 'collection.updated', id);
  });
  return { collection };
}

/** Soft-deletes a collection: its links stop counting and its slug can be reused. */
export async function deleteCollection(tx: Executor, record: Recorder, store: string, id: string) {
  if (!(await collections.softDeleteCollection(tx, store, id))) throw new AppError('NOT_FOUND', `collection ${id} not found`);
  const collection = await recordCollectionEvent(tx, record, store, 'collection.deleted', id);
  return { collection };
}

export async function addProductToCollection(tx: Executor, record: Recorder, store: string, id: string, productId: string) {
  await collectionOr404(tx, store, id);
  await productOr404(tx, store, productId);
  await collections.addProduct(tx, store, id, productId);
  await collections.updateCollection(tx, store, id, {});
  const collection = await recordCollectionEvent(tx, record, store, 'collection.updated', id);
  return { collection };
}

export async function removeProductFromCollection(tx: Executor, record: Recorder, store: string, id: string, productId: string) {
  await collectionOr404(tx, store, id);
  if (!(await collections.removeProduct(tx, store, id, productId))) {
    throw new AppError('NOT_FOUND', `product ${productId} is not in collection ${id}`);
  }
  await collections.updateCollection(tx, store, id, {});
  const collection = await recordCollectionEvent(tx, record, store, 'collection.updated', id);
  return { collection };
}
