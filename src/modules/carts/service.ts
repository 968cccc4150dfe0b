/**
 * Cart rules. Every change locks the cart row first, so concurrent changes to one cart are
 * serialized and never lose a line or a quantity. Carts do not reserve stock: a line is accepted
 * when the product is visible and its stock covers the line's whole quantity at that moment.
 * Creating carts and adding products, the busy writes, are combined per store (combined-writes.ts).
 */
import type { Database, Executor } from '../../db/client.js';
import { AppError } from '../../plugins/errors.js';
import * as repo from './repository.js';
import type { Warning } from './schemas.js';
import { assertCartPending } from './state.js';
import { cartView } from './views.js';

/** Sums repeated product ids, keeping the order of first appearance. */
export function sumLines(lines: Array<{ id: string; quantity: number }>): Map<string, number> {
  const summed = new Map<string, number>();
  for (const line of lines) {
    const id = line.id.toLowerCase();
    summed.set(id, (summed.get(id) ?? 0) + line.quantity);
  }
  return summed;
}

/** Why a line of `requested` units of this product cannot be had, or undefined when it can. */
export function refusal(productId: string, requested: number, product: repo.Availability | undefined): Warning | undefined {
  if (!product || !product.visible) return { productId, code: 'PRODUCT_UNAVAILABLE', requested, available: 0 };
  if (requested > product.quantity) return { productId, code: 'INSUFFICIENT_STOCK', requested, available: product.quantity };
  return undefined;
}

async function render(db: Executor, cart: repo.CartRow) {
  return cartView(cart, cart.deletedAt ? [] : await repo.cartLines(db, cart.store, cart.id));
}

async function lockPending(tx: Executor, store: string, id: string): Promise<repo.CartRow> {
  const cart = await repo.lockCart(tx, store, id);
  if (!cart) throw new AppError('NOT_FOUND', `cart ${id} not found`);
  assertCartPending(cart.status, id);
  return cart;
}

/** A non-deleted cart of the store, as it reads now. */
export async function getCart(db: Database, store: string, id: string) {
  const cart = await repo.findCart(db, store, id);
  if (!cart) throw new AppError('NOT_FOUND', `cart ${id} not found`);
  return { cart: await render(db, cart) };
}

/** Sets a line's quantity: the same quantity changes nothing, 0 removes the line. */
export async function adjustCartLine(db: Database, store: string, id: string, productId: string, quantity: number, ttlSeconds: number) {
  return db.transaction(async (tx) => {
    const cart = await lockPending(tx, store, id);
    const pid = productId.toLowerCase();
    const current = await repo.lineQuantity(tx, store, id, pid);
    if (current === undefined) throw new AppError('NOT_FOUND', `product ${productId} is not in cart ${id}`);
    if (quantity === current) return { cart: await render(tx, cart) };
    if (quantity === 0) return removeLine(tx, store, id, pid, ttlSeconds);
    const refused = refusal(pid, quantity, (await repo.availability(tx, store, [pid])).get(pid));
    if (refused) throw refusalError(refused);
    await repo.setLineQuantity(tx, store, id, pid, quantity);
    await repo.touchCart(tx, store, id, ttlSeconds);
    return { cart: await render(tx, (await repo.findCart(tx, store, id))!) };
  });
}

/** Removes a product from the cart; removing the last one deletes the cart. */
export async function removeCartLine(db: Database, store: string, id: string, productId: string, ttlSeconds: number) {
  return db.transaction(async (tx) => {
    await lockPending(tx, store, id);
    const pid = productId.toLowerCase();
    if ((await repo.lineQuantity(tx, store, id, pid)) === undefined) {
      throw new AppError('NOT_FOUND', `product ${productId} is not in cart ${id}`);
    }
    return removeLine(tx, store, id, pid, ttlSeconds);
  });
}

async function removeLine(tx: Executor, store: string, id: string, productId: string, ttlSeconds: number) {
  const left = await repo.deleteLine(tx, store, id, productId);
  if (left === 0) return { cart: await render(tx, await repo.softDeleteCart(tx, store, id)) };
  await repo.touchCart(tx, store, id, ttlSeconds);
  return { cart: await render(tx, (await repo.findCart(tx, store, id))!) };
}

/** The 422 that refuses a line. */
export function refusalError(refused: Warning): AppError {
  const { productId, requested, available } = refused;
  const detail =
    refused.code === 'INSUFFICIENT_STOCK'
      ? `only ${available} of product ${productId} in stock, ${requested} requested`
      : `product ${productId} is not available`;
  return new AppError(refused.code as 'INSUFFICIENT_STOCK' | 'PRODUCT_UNAVAILABLE', detail, { errors: [refused] });
}
