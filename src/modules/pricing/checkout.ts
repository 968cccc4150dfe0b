/**
 * The total a shopper pays: shipping and taxes on top of the lines and the discount. Pure, like the
 * rest of pricing, and the only place these amounts are computed, so a cart and the order made from
 * it can never round differently. The rules, each checkable by hand (docs/checkout.md):
 *
 * - the discount's amount is shared over its eligible lines in proportion to their price: each gets
 *   the floor of its exact share, and the units left go one each to the lines with the largest
 *   remainders (earlier lines first on ties);
 * - a line's taxable base is its price less its share; its rate is the first of (country, region,
 *   category), (country, region), (country, category), (country) that exists;
 * - prices without tax: tax = round(base x rate / 10000); prices with tax: tax = base -
 *   round(base x 10000 / (10000 + rate)); round is the nearest integer, halves up;
 * - shipping is taxed the same way at the destination's rate without category;
 * - tax lines sum by (name, rate), lines first, then shipping, in order of first appearance.
 *
 * Products times quantities can pass 2^53 once multiplied by a rate, so the arithmetic is BigInt.
 */
import type { AppliedDiscount } from './discount.js';

/** A tax rate as pricing needs it: `rate` in basis points (825 = 8.25 %). */
export interface TaxRateRule {
  country: string;
  region: string | null;
  category: string | null;
  rate: number;
  name: string;
}

/** A shipping option as pricing needs it. */
export interface ShippingRule {
  id: string;
  name: string;
  price: number;
  countries: readonly string[];
  freeAbove: number | null;
  minSubtotal: number;
  active: boolean;
}

/** Where a cart or an order goes: an ISO 3166-1 alpha-2 country (any case) and a region (an address's state). */
export interface Destination {
  country: string;
  region: string | null;
}

/** A line as the totals need it: its `order.price`, its product's tax category, whether the discount covers it. */
export interface TaxedLine {
  price: number;
  taxCategory: string | null;
  eligible: boolean;
}

export interface ShippingView {
  optionId: string;
  name: string;
  country: string;
  region: string | null;
  amount: number;
}

export interface TaxLine {
  name: string;
  rate: number;
  amount: number;
}

export interface CheckoutTotals {
  discount: AppliedDiscount | null;
  discountTotal: number;
  shipping: ShippingView | null;
  shippingTotal: number;
  taxLines: TaxLine[];
  taxTotal: number;
  total: number;
}

/** round(a / b), the nearest integer, halves up (a >= 0, b > 0). */
export function roundHalfUp(a: bigint, b: bigint): bigint {
  return (2n * a + b) / (2n * b);
}

/** Whether a text is an ISO 3166-1 alpha-2 country code (any case); another country matches no rate and no listed option. */
export const isCountryCode = (country: string) => /^[A-Za-z]{2}$/.test(country);

/**
 * The discount's amount shared over the lines it covers, in proportion to their price: floors of
 * the exact shares, then one unit each to the largest remainders (earlier lines first on ties).
 */
export function discountShares(amount: number, lines: ReadonlyArray<{ price: number; eligible: boolean }>): number[] {
  const shares = lines.map(() => 0);
  const total = lines.reduce((sum, l) => sum + (l.eligible ? BigInt(l.price) : 0n), 0n);
  if (amount <= 0 || total === 0n) return shares;
  const remainders: Array<{ index: number; remainder: bigint }> = [];
  let given = 0;
  lines.forEach((line, index) => {
    if (!line.eligible) return;
    const exact = BigInt(amount) * BigInt(line.price);
    shares[index] = Number(exact / total);
    given += shares[index]!;
    remainders.push({ index, remainder: exact % total });
  });
  // Stable sort: equal remainders keep line order.
  remainders.sort((a, b) => (a.remainder === b.remainder ? 0 : a.remainder > b.remainder ? -1 : 1));
  for (let i = 0; i < amount - given; i++) shares[remainders[i]!.index]! += 1;
  return shares;
}

/** The rate of a product category at a destination: (C, S, category), (C, S), (C, category), (C); none: undefined. */
export function rateFor(rates: readonly TaxRateRule[], destination: Destination, category: string | null): TaxRateRule | undefined {
  if (!isCountryCode(destination.country)) return undefined;
  const country = destination.country.toUpperCase();
  const region = destination.region?.toLowerCase() ?? null;
  const find = (byRegion: boolean, byCategory: boolean) =>
    rates.find(
      (r) =>
        r.country.toUpperCase() === country &&
        (byRegion ? region !== null && r.region?.toLowerCase() === region : r.region === null) &&
        (byCategory ? r.category === category : r.category === null),
    );
  const steps: Array<[boolean, boolean]> = category === null ? [[true, false], [false, false]] : [[true, true], [true, false], [false, true], [false, false]];
  for (const [byRegion, byCategory] of steps) {
    const rate = find(byRegion, byCategory);
    if (rate) return rate;
  }
  return undefined;
}

/** The tax in a base at a rate: added on top (prices without tax) or taken out of it (prices with tax). */
export function taxOf(base: number, rate: number, pricesIncludeTax: boolean): number {
  const b = BigInt(base);
  const r = BigInt(rate);
  return Number(pricesIncludeTax ? b - roundHalfUp(b * 10000n, 10000n + r) : roundHalfUp(b * r, 10000n));
}

/** Whether an option applies to a destination country and a subtotal after discount. */
export function shippingApplies(option: ShippingRule, country: string, subtotal: number): boolean {
  if (!option.active || subtotal < option.minSubtotal) return false;
  if (option.countries.length === 0) return true;
  return isCountryCode(country) && option.countries.some((c) => c.toUpperCase() === country.toUpperCase());
}

/** An option's amount for a subtotal after discount: 0 from `freeAbove` on. */
export function shippingAmount(option: ShippingRule, subtotal: number): number {
  return option.freeAbove !== null && subtotal >= option.freeAbove ? 0 : option.price;
}

/** The options that apply to a country and subtotal, with their amounts, cheapest first (then by name). */
export function shippingChoices(options: readonly ShippingRule[], country: string, subtotal: number): Array<{ id: string; name: string; amount: number }> {
  return options
    .filter((o) => shippingApplies(o, country, subtotal))
    .map((o) => ({ id: o.id, name: o.name, amount: shippingAmount(o, subtotal) }))
    .sort((a, b) => a.amount - b.amount || a.name.localeCompare(b.name));
}

/** The total a shopper pays, from its parts: the tax is added only when prices exclude it. */
export function grandTotal(parts: { price: number; discountTotal: number; shippingTotal: number; taxTotal: number; pricesIncludeTax: boolean }): number {
  return parts.price - parts.discountTotal + parts.shippingTotal + (parts.pricesIncludeTax ? 0 : parts.taxTotal);
}

/**
 * A cart's or an order's totals: its lines' `price`, its discount (amount decided by
 * `decideDiscount`), its shipping option and where to, and the taxes for `taxDestination` (null: no
 * tax yet).
 */
export function checkoutTotals(input: {
  price: number;
  lines: readonly TaxedLine[];
  discount: AppliedDiscount | null;
  shipping: { option: ShippingRule; destination: Destination } | null;
  taxDestination: Destination | null;
  rates: readonly TaxRateRule[];
  pricesIncludeTax: boolean;
}): CheckoutTotals {
  const discountTotal = input.discount?.amount ?? 0;
  const subtotal = input.price - discountTotal;
  const shipping = input.shipping
    ? { optionId: input.shipping.option.id, name: input.shipping.option.name, country: input.shipping.destination.country, region: input.shipping.destination.region, amount: shippingAmount(input.shipping.option, subtotal) }
    : null;
  const shippingTotal = shipping?.amount ?? 0;
  const taxes = new Map<string, TaxLine>();
  const addTax = (rate: TaxRateRule | undefined, base: number) => {
    if (!rate) return;
    const key = `${rate.name}\u0000${rate.rate}`;
    const line = taxes.get(key) ?? { name: rate.name, rate: rate.rate, amount: 0 };
    line.amount += taxOf(base, rate.rate, input.pricesIncludeTax);
    taxes.set(key, line);
  };
  const destination = input.taxDestination;
  if (destination && input.rates.length > 0) {
    const shares = discountShares(discountTotal, input.lines);
    input.lines.forEach((line, i) => addTax(rateFor(input.rates, destination, line.taxCategory), line.price - shares[i]!));
    if (shipping) addTax(rateFor(input.rates, destination, null), shippingTotal);
  }
  const taxLines = [...taxes.values()];
  const taxTotal = taxLines.reduce((sum, t) => sum + t.amount, 0);
  return {
    discount: input.discount,
    discountTotal,
    shipping,
    shippingTotal,
    taxLines,
    taxTotal,
    total: grandTotal({ price: input.price, discountTotal, shippingTotal, taxTotal, pricesIncludeTax: input.pricesIncludeTax }),
  };
}
