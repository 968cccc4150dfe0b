/**
 * Checkout holds in catalog answers: the storefront shows each product's stock less what unexpired
 * holds keep (the holds module reads them), the admin shows the stock and `held` beside it. Reads
 * ask only when the store has unexpired holds (the cache reads that first, see cache.ts).
 */
import type { Executor } from '../../db/client.js';
import { heldTotals } from '../holds/index.js';

/** Products with `quantity` as the storefront shows it: the stock less what is held (never below 0). */
export async function lessHeld<T extends { id: string; quantity: number }>(db: Executor, store: string, products: T[], held: boolean): Promise<T[]> {
  if (!held || products.length === 0) return products;
  const totals = await heldTotals(db, store, products.map((p) => p.id));
  return totals.size === 0 ? products : products.map((p) => ({ ...p, quantity: Math.max(0, p.quantity - (totals.get(p.id) ?? 0)) }));
}

/** Products with `held` beside their stock, as the admin sees them. */
export async function withHeld<T extends { id: string }>(db: Executor, store: string, products: T[]): Promise<Array<T & { held: number }>> {
  const totals = await heldTotals(db, store, products.map((p) => p.id));
  return products.map((p) => ({ ...p, held: totals.get(p.id) ?? 0 }));
}
