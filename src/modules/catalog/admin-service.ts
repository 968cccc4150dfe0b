/** Catalog administration: products, collections, membership and the collection hierarchy. */
import type { Database, Executor } from '../../db/client.js';
import { postgresErrorCode } from '../../db/errors.js';
import { AppError } from '../../plugins/errors.js';
import { bumpCatalogVersion } from '../stores/repository.js';
import * as products from './repository.js';
import * as collections from './collections-repository.js';
import type { AdminListProductsQuery, CreateCollectionBody, CreateProductBody, UpdateCollectionBody, UpdateProductBody } from './schemas.js';
import { collectionView, productView } from './views.js';

async function uniqueSlug<T>(kind: string, slug: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
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

/** Every non-deleted product of the store, whatever its status. */
export async function listAdminProducts(db: Database, store: string, query: AdminListProductsQuery) {
  const filter = { store, visibleOnly: false, status: query.status };
  const page = { limit: query.limit ?? 50, offset: query.offset ?? 0, sort: '-createdAt' as const };
  const [rows, total] = await Promise.all([products.listProducts(db, filter, page), products.countProducts(db, filter)]);
  return { products: rows.map(productView), total };
}

export async function getAdminProduct(db: Database, store: string, id: string) {
  return { product: productView(await productOr404(db, store, id)) };
}

/** Creates a product; it is a DRAFT unless a status is given. */
export async function createProduct(db: Database, store: string, body: CreateProductBody) {
  const id = await uniqueSlug('product', body.slug, () =>
    db.transaction(async (tx) => {
      const created = await products.insertProduct(tx, store, body);
      await bumpCatalogVersion(tx, store);
      return created;
    }),
  );
  return { product: productView(await productOr404(db, store, id)) };
}

export async function updateProduct(db: Database, store: string, id: string, body: UpdateProductBody) {
  const found = await uniqueSlug('product', body.slug, () =>
    db.transaction(async (tx) => {
      const updated = await products.updateProduct(tx, store, id, body);
      if (updated) await bumpCatalogVersion(tx, store);
      return updated;
    }),
  );
  if (!found) throw new AppError('NOT_FOUND', `product ${id} not found`);
  return { product: productView(await productOr404(db, store, id)) };
}

/** Soft-deletes a product: it leaves the catalog, its slug can be reused, past orders keep it. */
export async function deleteProduct(db: Database, store: string, id: string) {
  await db.transaction(async (tx) => {
    if (!(await products.softDeleteProduct(tx, store, id))) throw new AppError('NOT_FOUND', `product ${id} not found`);
    await bumpCatalogVersion(tx, store);
  });
  return { product: productView((await products.findProductIncludingDeleted(db, store, id))!) };
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

export async function createCollection(db: Database, store: string, body: CreateCollectionBody) {
  const id = await uniqueSlug('collection', body.slug, () =>
    db.transaction(async (tx) => {
      const created = await collections.insertCollection(tx, store, body);
      if (body.parents?.length) await setParents(tx, store, created, body.parents);
      await bumpCatalogVersion(tx, store);
      return created;
    }),
  );
  return { collection: collectionView(await collectionOr404(db, store, id)) };
}

export async function updateCollection(db: Database, store: string, id: string, body: UpdateCollectionBody) {
  await uniqueSlug('collection', body.slug, () =>
    db.transaction(async (tx) => {
      if (!(await collections.updateCollection(tx, store, id, body))) throw new AppError('NOT_FOUND', `collection ${id} not found`);
      if (body.parents) await setParents(tx, store, id, body.parents);
      await bumpCatalogVersion(tx, store);
    }),
  );
  return { collection: collectionView(await collectionOr404(db, store, id)) };
}

/** Soft-deletes a collection: its links stop counting and its slug can be reused. */
export async function deleteCollection(db: Database, store: string, id: string) {
  await db.transaction(async (tx) => {
    if (!(await collections.softDeleteCollection(tx, store, id))) throw new AppError('NOT_FOUND', `collection ${id} not found`);
    await bumpCatalogVersion(tx, store);
  });
  return { collection: collectionView((await collections.findCollection(db, store, id, { includeDeleted: true }))!) };
}

export async function addProductToCollection(db: Database, store: string, id: string, productId: string) {
  await db.transaction(async (tx) => {
    await collectionOr404(tx, store, id);
    await productOr404(tx, store, productId);
    await collections.addProduct(tx, store, id, productId);
    await collections.updateCollection(tx, store, id, {});
    await bumpCatalogVersion(tx, store);
  });
  return { collection: collectionView(await collectionOr404(db, store, id)) };
}

export async function removeProductFromCollection(db: Database, store: string, id: string, productId: string) {
  await db.transaction(async (tx) => {
    await collectionOr404(tx, store, id);
    if (!(await collections.removeProduct(tx, store, id, productId))) {
      throw new AppError('NOT_FOUND', `product ${productId} is not in collection ${id}`);
    }
    await collections.updateCollection(tx, store, id, {});
    await bumpCatalogVersion(tx, store);
  });
  return { collection: collectionView(await collectionOr404(db, store, id)) };
}
