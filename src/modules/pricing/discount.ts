/**
 * Discount codes: whether a code applies to some lines, and by how much. Pure, like the rest of
 * pricing: callers read (and for orders lock) the discounts and the facts the rules need (which
 * lines' products are in the code's collections, which customers used a once-per-customer code),
 * this decides. Carts and orders both price through here, so they can never round differently.
 */
import { AppError } from '../../lib/app-error.js';

export type DiscountType = 'percentage' | 'fixed';

/** Why a code does not apply (the `reason` of 422 DISCOUNT_NOT_APPLICABLE). */
export const DISCOUNT_REASONS = ['unknown', 'inactive', 'not_started', 'expired', 'used_up', 'min_subtotal', 'no_eligible_products', 'already_used', 'email_required'] as const;
export type DiscountReason = (typeof DISCOUNT_REASONS)[number];

/** A discount as pricing needs it. */
export interface DiscountRule {
  id: string;
  code: string;
  type: DiscountType;
  value: number;
  minSubtotal: number;
  startsAt: Date | null;
  endsAt: Date | null;
  usageLimit: number | null;
  usageCount: number;
  oncePerCustomer: boolean;
  active: boolean;
  deletedAt: Date | null;
  products: readonly string[];
  collections: readonly string[];
  /** Products (among the lines priced) that belong to one of `collections` or to a collection nested in one. */
  inCollections: ReadonlySet<string>;
}

/** A discount as carts and orders show it. */
export interface AppliedDiscount {
  code: string;
  type: DiscountType;
  value: number;
  amount: number;
}

/** A priced line: its product and its `order.price`. */
export interface DiscountLine {
  productId: string;
  price: number;
}

/** What a discount does to some lines: the discount shown (amount 0 when refused) and why it does not apply. */
export interface DiscountDecision {
  discount: AppliedDiscount;
  reason?: DiscountReason;
}

/** Whether a line's product is eligible: every line when the code names no product and no collection. */
export function discountEligible(rule: DiscountRule, productId: string): boolean {
  if (rule.products.length === 0 && rule.collections.length === 0) return true;
  return rule.products.includes(productId) || rule.inCollections.has(productId);
}

/** The amount on an eligible subtotal: percentages round down, a fixed amount never exceeds it. Integer money. */
export function discountAmount(type: DiscountType, value: number, eligibleSubtotal: number): number {
  if (eligibleSubtotal <= 0) return 0;
  return type === 'percentage' ? Math.floor((eligibleSubtotal * value) / 100) : Math.min(value, eligibleSubtotal);
}

/**
 * Decides a code for some lines at `now`. `usedBefore` is the uses already counted elsewhere in the
 * decision (earlier orders of the same round); `alreadyUsed` says the customer has an order with it
 * (known for orders only: a cart's customer is not known).
 */
export function decideDiscount(
  rule: DiscountRule,
  lines: readonly DiscountLine[],
  context: DecisionContext,
): DiscountDecision {
  const shown = { code: rule.code, type: rule.type, value: rule.value };
  const price = lines.reduce((sum, l) => sum + l.price, 0);
  const eligibleSubtotal = lines.filter((l) => discountEligible(rule, l.productId)).reduce((sum, l) => sum + l.price, 0);
  const reason = refusalReason(rule, lines, price, context);
  if (reason) return { discount: { ...shown, amount: 0 }, reason };
  return { discount: { ...shown, amount: discountAmount(rule.type, rule.value, eligibleSubtotal) } };
}

/** What a decision knows beyond the code and the lines. */
interface DecisionContext {
  now: Date;
  usedBefore?: number;
  alreadyUsed?: boolean;
  /** A guest session's order without an email: a once-per-customer code cannot tell who it is. */
  emailMissing?: boolean;
}

function refusalReason(rule: DiscountRule, lines: readonly DiscountLine[], price: number, context: DecisionContext): DiscountReason | undefined {
  if (rule.deletedAt) return 'unknown';
  if (!rule.active) return 'inactive';
  const now = context.now.getTime();
  if (rule.startsAt && now < rule.startsAt.getTime()) return 'not_started';
  if (rule.endsAt && now >= rule.endsAt.getTime()) return 'expired';
  if (rule.usageLimit !== null && rule.usageCount + (context.usedBefore ?? 0) >= rule.usageLimit) return 'used_up';
  if (price < rule.minSubtotal) return 'min_subtotal';
  if (!lines.some((l) => discountEligible(rule, l.productId))) return 'no_eligible_products';
  if (rule.oncePerCustomer && context.emailMissing) return 'email_required';
  if (rule.oncePerCustomer && context.alreadyUsed) return 'already_used';
  return undefined;
}

/**
 * The reason a public caller (the storefront token, a customer credential) is told: a code that is
 * inactive or not started yet reads as unknown, so guessing cannot find a store's coming promotions.
 * Secret tokens get the true reason.
 */
export function reasonFor(reason: DiscountReason, publicCaller: boolean): DiscountReason {
  return publicCaller && (reason === 'inactive' || reason === 'not_started') ? 'unknown' : reason;
}

/** A cart's or an order's totals with its discount: `total` is `price` less `discountTotal`. */
export function discountTotals(price: number, discount: AppliedDiscount | null): { discount: AppliedDiscount | null; discountTotal: number; total: number } {
  const discountTotal = discount?.amount ?? 0;
  return { discount, discountTotal, total: price - discountTotal };
}

const REASON_TEXT: Record<DiscountReason, string> = {
  unknown: 'no such discount code',
  inactive: 'the discount code is not active',
  not_started: 'the discount code is not valid yet',
  expired: 'the discount code has expired',
  used_up: 'the discount code has been used as often as it may be',
  min_subtotal: 'the subtotal is below the minimum for this code',
  no_eligible_products: 'no product here is eligible for this code',
  already_used: 'this customer has already used this code',
  email_required: 'this code is once per customer: an order of a guest session must give its email',
};

/** The 422 that refuses a code, with its `reason`. */
export function discountRefusalError(code: string, reason: DiscountReason): AppError {
  // The submitted code is the caller's own; it stays out of the log (a guess, or a customer's private code).
  return new AppError('DISCOUNT_NOT_APPLICABLE', `discount code ${code}: ${REASON_TEXT[reason]}`, { reason, logDetail: `discount code refused: ${REASON_TEXT[reason]}` });
}

/** Who places an order, as once per customer sees it: a guest session's customer id is new with each session. */
export interface Buyer {
  customerId: string;
  email: string | null;
  guest: boolean;
}

/** The key of one use of a code: by a customer id, or by an email (lower case). */
export function usedKey(discountId: string, customerId: string | undefined, email?: string): string {
  return email === undefined ? `${discountId}:${customerId}` : `${discountId}:email:${email}`;
}

/**
 * The discounts of one decision (a round of orders): how many uses the orders decided so far take,
 * and which customers used a once-per-customer code, so the round stays exact like the stock ledger.
 */
export class DiscountLedger {
  private readonly uses = new Map<string, number>();
  private readonly customers = new Set<string>();

  /**
   * `usedBy`: `usedKey(discountId, customerId)` of the customers, and `usedKey(discountId, undefined, email)`
   * of the emails, that have an order with the code that is not cancelled.
   */
  constructor(usedBy: Iterable<string>) {
    for (const key of usedBy) this.customers.add(key);
  }

  /** The decision for an order of `buyer` with these lines; records nothing. Once per customer is also once per email. */
  decide(rule: DiscountRule, lines: readonly DiscountLine[], now: Date, buyer: Buyer): DiscountDecision {
    const email = buyer.email?.toLowerCase();
    const alreadyUsed = this.customers.has(usedKey(rule.id, buyer.customerId)) || (email !== undefined && this.customers.has(usedKey(rule.id, undefined, email)));
    return decideDiscount(rule, lines, { now, usedBefore: this.uses.get(rule.id) ?? 0, alreadyUsed, emailMissing: buyer.guest && email === undefined });
  }

  /** Counts an accepted order's use. */
  use(rule: DiscountRule, buyer: Buyer): void {
    this.uses.set(rule.id, (this.uses.get(rule.id) ?? 0) + 1);
    this.customers.add(usedKey(rule.id, buyer.customerId));
    if (buyer.email) this.customers.add(usedKey(rule.id, undefined, buyer.email.toLowerCase()));
  }

  /** Uses per discount, for the guarded usage update. */
  used(): Array<{ id: string; uses: number }> {
    return [...this.uses].map(([id, uses]) => ({ id, uses }));
  }
}
