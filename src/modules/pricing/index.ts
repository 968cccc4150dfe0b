/**
 * Prices and stock, in one place for carts and orders: a line's price, the totals of a cart or an
 * order, and the check that refuses a line (PRODUCT_UNAVAILABLE, INSUFFICIENT_STOCK with
 * `{productId, requested, available}`). Pure: callers read and lock the products, this decides.
 *
 * Two rules plug in here, each at one place:
 * - a discount adds its amount in `totals` (and the answers' totals follow);
 * - what a line may take is `StockLedger.available`: today the stock, with checkout holds the stock
 *   less what other carts hold (the ledger is built with what is held, per product).
 */
import { AppError } from '../../lib/app-error.js';

/** What a line's price is made of. */
export interface UnitPrice {
  price: number;
  originalPrice: number | null;
}

/** A product as the stock check sees it. */
export interface Stocked {
  id: string;
  visible: boolean;
  quantity: number;
}

/** Why a line cannot be had. */
export interface LineRefusal {
  productId: string;
  code: 'PRODUCT_UNAVAILABLE' | 'INSUFFICIENT_STOCK';
  requested: number;
  available: number;
}

export interface Totals {
  /** Sum of the lines' prices. */
  price: number;
  /** Sum of (originalPrice ?? price) x quantity when any line has an originalPrice, else null. */
  originalPrice: number | null;
}

/** A line's price: the unit price times the quantity. */
export function linePrice(unit: UnitPrice, quantity: number): number {
  return unit.price * quantity;
}

/** Totals of a cart's or an order's lines. */
export function totals(lines: Array<{ unit: UnitPrice; quantity: number }>): Totals {
  let price = 0;
  let original = 0;
  let anyOriginal = false;
  for (const { unit, quantity } of lines) {
    price += linePrice(unit, quantity);
    original += (unit.originalPrice ?? unit.price) * quantity;
    if (unit.originalPrice !== null) anyOriginal = true;
  }
  return { price, originalPrice: anyOriginal ? original : null };
}

/** Sums repeated product ids (lower-cased), keeping the order of first appearance. */
export function sumLines(lines: Array<{ id: string; quantity: number }>): Map<string, number> {
  const summed = new Map<string, number>();
  for (const line of lines) {
    const id = line.id.toLowerCase();
    summed.set(id, (summed.get(id) ?? 0) + line.quantity);
  }
  return summed;
}

/**
 * The stock of some products within one decision (one request, or one round of combined orders):
 * what each line may take, and what the orders decided so far have taken.
 */
export class StockLedger {
  private readonly left = new Map<string, number>();

  constructor(private readonly products: ReadonlyMap<string, Stocked>) {
    for (const p of products.values()) this.left.set(p.id, p.quantity);
  }

  /** Units a line of this product may take now (0 for a product that cannot be sold). */
  available(productId: string): number {
    const product = this.products.get(productId);
    return product?.visible ? this.left.get(productId)! : 0;
  }

  /** The product's stock after what this ledger has taken (an order line's `quantity`). */
  stockLeft(productId: string): number {
    return this.left.get(productId) ?? 0;
  }

  /** Why `requested` units of the product cannot be had, or undefined when they can. */
  refusal(productId: string, requested: number): LineRefusal | undefined {
    const product = this.products.get(productId);
    if (!product?.visible) return { productId, code: 'PRODUCT_UNAVAILABLE', requested, available: 0 };
    const available = this.available(productId);
    if (requested > available) return { productId, code: 'INSUFFICIENT_STOCK', requested, available };
    return undefined;
  }

  /** All or nothing: takes every line (product id order), or takes none and answers the refusals. */
  take(lines: ReadonlyMap<string, number>): LineRefusal[] {
    const ids = [...lines.keys()].sort();
    const refusals = ids.flatMap((id) => this.refusal(id, lines.get(id)!) ?? []);
    if (refusals.length === 0) for (const id of ids) this.left.set(id, this.left.get(id)! - lines.get(id)!);
    return refusals;
  }

  /** Units taken per product so far, for the guarded stock update. */
  taken(): Array<{ id: string; taken: number }> {
    return [...this.left].filter(([id, left]) => this.products.get(id)!.quantity !== left).map(([id, left]) => ({ id, taken: this.products.get(id)!.quantity - left }));
  }
}

/** The 422 that refuses one line of a cart. */
export function lineRefusalError(refusal: LineRefusal): AppError {
  const { productId, requested, available } = refusal;
  const detail = refusal.code === 'INSUFFICIENT_STOCK' ? `only ${available} of product ${productId} in stock, ${requested} requested` : `product ${productId} is not available`;
  return new AppError(refusal.code, detail, { errors: [refusal] });
}

/** The 422 that refuses a whole order: INSUFFICIENT_STOCK when every failing product is visible but short. */
export function orderRefusalError(refusals: LineRefusal[]): AppError {
  const short = refusals.every((p) => p.code === 'INSUFFICIENT_STOCK');
  const detail = short
    ? `not enough stock for ${refusals.length} product(s)`
    : `${refusals.filter((p) => p.code === 'PRODUCT_UNAVAILABLE').length} product(s) are not available`;
  return new AppError(short ? 'INSUFFICIENT_STOCK' : 'PRODUCT_UNAVAILABLE', detail, { errors: refusals });
}
