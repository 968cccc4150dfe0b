/**
 * Checkout holds in catalog answers: the storefront shows each product's stock less what unexpired
 * holds keep (the holds module reads them), the admin shows the stock and `held` beside it. Reads
 * ask only when the store has unexpired holds (the cache reads that first, see cache.ts).
 */
import type { Executor } from '../../db/client.js';
import { heldTotals, lessHeld as withoutHeld } from '../holds/index.js';

/** Products with `quantity` as the storefront shows it; `held` false: the store holds nothing, no read. */
export async function lessHeld<T extends { id: string; quantity: number }>(db: Executor, store: string, products: T[], held: boolean): Promise<T[]> {
  return held ? withoutHeld(db, store, products) : products;
}

/** Products with `held` beside their stock, as the admin sees them. */
export async function withHeld<T extends { id: string }>(db: Executor, store: string, products: T[]): Promise<Array<T & { held: number }>> {
  const totals = await heldTotals(db, store, products.map((p) => p.id));
  return products.map((p) => ({ ...p, held: totals.get(p.id) ?? 0 }));
}
