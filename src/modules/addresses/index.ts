/** The addresses module's public interface: the addresses an order names, and their view and schema. */
import type { Executor } from '../../db/client.js';
import * as repo from './repository.js';

export type { AddressRow } from './repository.js';
export { addressView } from './service.js';
export { Address } from './schemas.js';

/** The store's addresses among `ids` (deleted ones included: the caller checks), by id. */
export function findAddresses(db: Executor, store: string, ids: string[]): Promise<Map<string, repo.AddressRow>> {
  return repo.findAddresses(db, store, ids);
}

/** The same for several stores (a round of several), as a statement to send with others (db/client.ts `together`): by store, then by id. */
export const storesAddressesPart = repo.storesAddressesPart;
