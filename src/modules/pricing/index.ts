/**
 * Prices and stock, in one place for carts and orders: a line's price, the totals of a cart or an
 * order, and the check that refuses a line (PRODUCT_UNAVAILABLE, INSUFFICIENT_STOCK with
 * `{productId, requested, available}`). Pure: callers read and lock the products, this decides.
 *
 * Two rules plug in here, each at one place:
 * - a discount adds its amount in `totals` (and the answers' totals follow);
 * - what a line may take is `StockLedger.available`: the stock less what other carts hold under
 *   unexpired checkout holds (the ledger is built with the holds of its products).
 */
import { AppError } from '../../lib/app-error.js';

// Discount codes: the amount, the refusal reasons and the round's usage ledger (see discount.ts).
export * from './discount.js';
// Shipping and taxes: the total the shopper pays (see checkout.ts).
export * from './checkout.js';

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

/** Units of a product that one cart holds (an unexpired checkout hold); `cartId` null: other carts, summed. */
export interface HeldUnits {
  cartId: string | null;
  productId: string;
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
  /** Units held per product by unexpired holds, and per cart the units it holds. */
  private readonly held = new Map<string, number>();
  private readonly holds = new Map<string, Map<string, number>>();

  constructor(
    private readonly products: ReadonlyMap<string, Stocked>,
    holds: Iterable<HeldUnits> = [],
  ) {
    for (const p of products.values()) this.left.set(p.id, p.quantity);
    for (const h of holds) {
      this.held.set(h.productId, (this.held.get(h.productId) ?? 0) + h.quantity);
      if (h.cartId === null) continue;
      let cart = this.holds.get(h.cartId);
      if (!cart) this.holds.set(h.cartId, (cart = new Map()));
      cart.set(h.productId, h.quantity);
    }
  }

  /**
   * Units a line of this product may take now (0 for a product that cannot be sold): the stock less
   * what other carts hold; a cart's own hold is its to take.
   */
  available(productId: string, cartId: string | null = null): number {
    const product = this.products.get(productId);
    if (!product?.visible) return 0;
    const own = cartId === null ? 0 : (this.holds.get(cartId)?.get(productId) ?? 0);
    return Math.max(0, this.left.get(productId)! - (this.held.get(productId) ?? 0) + own);
  }

  /** The quantity the storefront shows: the stock less every unexpired hold. */
  shown(productId: string): number {
    return Math.max(0, (this.left.get(productId) ?? 0) - (this.held.get(productId) ?? 0));
  }

  /** The product's stock after what this ledger has taken (an order line's `quantity`). */
  stockLeft(productId: string): number {
    return this.left.get(productId) ?? 0;
  }

  /** Why `requested` units of the product cannot be had (by `cartId`, when a cart asks), or undefined when they can. */
  refusal(productId: string, requested: number, cartId: string | null = null): LineRefusal | undefined {
    const product = this.products.get(productId);
    if (!product?.visible) return { productId, code: 'PRODUCT_UNAVAILABLE', requested, available: 0 };
    const available = this.available(productId, cartId);
    if (requested > available) return { productId, code: 'INSUFFICIENT_STOCK', requested, available };
    return undefined;
  }

  /**
   * All or nothing: takes every line (product id order), or takes none and answers the refusals.
   * An order from a cart takes its held units first, and its hold ends.
   */
  take(lines: ReadonlyMap<string, number>, cartId: string | null = null): LineRefusal[] {
    const ids = [...lines.keys()].sort();
    const refusals = ids.flatMap((id) => this.refusal(id, lines.get(id)!, cartId) ?? []);
    if (refusals.length === 0) {
      for (const id of ids) this.left.set(id, this.left.get(id)! - lines.get(id)!);
      if (cartId !== null) this.release(cartId);
    }
    return refusals;
  }

  /** A cart's new hold within this decision (it replaces the one it had): later decisions see its units held. */
  hold(cartId: string, lines: ReadonlyMap<string, number>): void {
    this.release(cartId);
    for (const [productId, quantity] of lines) this.held.set(productId, (this.held.get(productId) ?? 0) + quantity);
    this.holds.set(cartId, new Map(lines));
  }

  /** Ends a cart's hold within this decision: its units count as unheld again. */
  release(cartId: string): void {
    for (const [productId, quantity] of this.holds.get(cartId) ?? []) this.held.set(productId, this.held.get(productId)! - quantity);
    this.holds.delete(cartId);
  }

  /** Units taken per product so far, for the guarded stock update. */
  taken(): Array<{ id: string; taken: number }> {
    return [...this.left].filter(([id, left]) => this.products.get(id)!.quantity !== left).map(([id, left]) => ({ id, taken: this.products.get(id)!.quantity - left }));
  }
}

/** The most units any line may have (a cart line, a hold, an order line), on every route, after summing. */
export const MAX_LINE_QUANTITY = 100_000;

/** A line over the most one order may have of its product. */
export interface QuantityLimitRefusal {
  productId: string;
  requested: number;
  maxPerOrder: number;
}

/**
 * The lines over their product's `maxPerOrder` (or over MAX_LINE_QUANTITY, whatever the product), in
 * the lines' order. A product not among `products` (unknown, deleted) has only the API's bound.
 * With every line at most 100000 units of a price at most 10^8, and at most 100 lines, a total stays
 * below 10^15, well inside a double's exact integers (2^53).
 */
export function quantityLimitRefusals(products: ReadonlyMap<string, { maxPerOrder?: number | null }>, lines: ReadonlyMap<string, number>): QuantityLimitRefusal[] {
  const refusals: QuantityLimitRefusal[] = [];
  for (const [productId, requested] of lines) {
    const own = products.get(productId)?.maxPerOrder ?? null;
    const maxPerOrder = own === null ? MAX_LINE_QUANTITY : Math.min(own, MAX_LINE_QUANTITY);
    if (requested > maxPerOrder) refusals.push({ productId, requested, maxPerOrder });
  }
  return refusals;
}

/** The 422 that refuses lines over their limit (QUANTITY_LIMIT_EXCEEDED), one `errors` entry each. */
export function quantityLimitError(refusals: QuantityLimitRefusal[]): AppError {
  const detail = refusals.map((r) => `${r.requested} of product ${r.productId} requested, at most ${r.maxPerOrder} per order`).join('; ');
  return new AppError('QUANTITY_LIMIT_EXCEEDED', detail, { errors: refusals });
}

/** Throws QUANTITY_LIMIT_EXCEEDED when a line is over its limit. */
export function assertWithinLimits(products: ReadonlyMap<string, { maxPerOrder?: number | null }>, lines: ReadonlyMap<string, number>): void {
  const refusals = quantityLimitRefusals(products, lines);
  if (refusals.length > 0) throw quantityLimitError(refusals);
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
export { paymentTotals, coversOrder, type PaymentAmounts, type PaymentStatusOfOrder } from './payments.js';
