/** An order's discount code within a round of orders (checkout.ts): which codes a round reads, and each order's decision. */
import type { DiscountSnapshot } from '../../db/schema.js';
import { normalizeCode, type RoundDiscounts } from '../discounts/index.js';
import { discountRefusalError, linePrice, orderRefusalError, reasonFor, type DiscountLedger, type DiscountRule, type StockLedger } from '../pricing/index.js';
import type { SellableProduct } from '../catalog/index.js';
import type { OrderRequest } from './checkout.js';

/** What the round must read: cart codes by id, product-list codes by code, for the products of each order. */
export function discountWanted(requests: OrderRequest[], cartDiscount: (r: OrderRequest) => string | null, linesOf: (r: OrderRequest) => Map<string, number>) {
  const ids: Array<{ id: string; productIds: string[] }> = [];
  const codes: Array<{ code: string; productIds: string[] }> = [];
  for (const r of requests) {
    const productIds = [...linesOf(r).keys()];
    const id = r.cartId ? cartDiscount(r) : null;
    if (id) ids.push({ id, productIds });
    if (!r.cartId && r.discountCode) codes.push({ code: r.discountCode, productIds });
  }
  const emails = [...new Set(requests.flatMap((r) => (r.email ? [r.email.toLowerCase()] : [])))];
  return { ids, codes, customerIds: [...new Set(requests.map((r) => r.customerId))], emails };
}

/**
 * The order's discount, or null without a code; throws the refusal. The lines must be had first
 * (a stock refusal is answered before a code's), then the code must apply to them, for this customer,
 * after the uses of the round's earlier orders.
 */
export function decideOrderDiscount(
  request: OrderRequest,
  cartDiscountId: string | null,
  discounts: RoundDiscounts,
  usage: DiscountLedger,
  stock: StockLedger,
  products: ReadonlyMap<string, SellableProduct>,
  wanted: ReadonlyMap<string, number>,
  now: Date,
): { rule: DiscountRule; applied: DiscountSnapshot } | null {
  const code = request.cartId ? null : request.discountCode;
  if (!cartDiscountId && !code) return null;
  const ids = [...wanted.keys()].sort();
  const refusals = ids.flatMap((id) => stock.refusal(id, wanted.get(id)!, request.cartId) ?? []);
  if (refusals.length > 0) throw orderRefusalError(refusals);
  const rule = cartDiscountId ? discounts.byId.get(cartDiscountId) : discounts.byCode.get(normalizeCode(code!));
  if (!rule) throw discountRefusalError(code ? normalizeCode(code) : 'of the cart', 'unknown');
  const lines = ids.map((id) => ({ productId: id, price: linePrice(products.get(id)!, wanted.get(id)!) }));
  const decision = usage.decide(rule, lines, now, request);
  if (decision.reason) throw discountRefusalError(rule.code, reasonFor(decision.reason, request.client !== null));
  return { rule, applied: decision.discount };
}
