import type { Executor } from '../../db/client.js';
import { toIso, toIsoOrNull } from '../../lib/time.js';
import * as repo from './repository.js';
import type { AddressInput, AddressView } from './schemas.js';

export function addressView(row: repo.AddressRow): AddressView {
  return {
    ...row,
    createdAt: toIso(row.createdAt),
    updatedAt: toIsoOrNull(row.updatedAt),
    deletedAt: toIsoOrNull(row.deletedAt),
  };
}

/** Stores a new address of the customer in this store. */
export async function createAddress(tx: Executor, store: string, customerId: string, input: AddressInput) {
  return { address: addressView(await repo.insertAddress(tx, store, customerId, input)) };
}

/** The customer's addresses in this store, newest first; `total` counts them all. */
export async function listAddresses(db: Executor, store: string, customerId: string, query: { limit?: number; offset?: number }) {
  const page = { limit: query.limit ?? 50, offset: query.offset ?? 0 };
  const [rows, total] = await Promise.all([repo.listAddresses(db, store, customerId, page), repo.countAddresses(db, store, customerId)]);
  return { addresses: rows.map(addressView), total };
}
