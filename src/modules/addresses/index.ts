/** The addresses module's public interface: the addresses an order names, and their view and schema. */
import * as repo from './repository.js';

export type { AddressRow } from './repository.js';
export { addressView } from './service.js';
export { Address } from './schemas.js';

/** The addresses of several stores among `ids` (a round's), as a statement to send with others (db/client.ts `together`). */
export const storesAddressesPart = repo.storesAddressesPart;
