/**
 * What a cart's answer needs beyond its lines and code: the store's currency and tax setting, the
 * shipping option it chose, and the tax rates of its destination. Read once for all the carts of a
 * request or a round; pricing computes the amounts.
 */
import { mapped, together, type Executor, type Part } from '../../db/client.js';
import { checkoutTotals, discountEligible, linePrice, type AppliedDiscount, type CheckoutTotals, type DiscountRule, type ShippingRule, type TaxRateRule } from '../pricing/index.js';
import { shippingRulesOf } from '../shipping/index.js';
import { pricingSettingsOf, type PricingSettings } from '../stores/index.js';
import { taxedCountries } from '../taxes/index.js';
import { checkoutOfStoresPart, type CartRow } from './repository.js';
import type { PricedLine } from './views.js';

export interface CartCheckout {
  settings: PricingSettings;
  /** The store's options (not deleted), by id. */
  options: ReadonlyMap<string, ShippingRule>;
  /** The rates of the carts' destination countries. */
  rates: readonly TaxRateRule[];
}

/** A cart's discount as priced on its lines, with the rule that says which lines it covers. */
export interface CartDiscount {
  rule: DiscountRule | undefined;
  applied: AppliedDiscount | null;
}

export const NO_DISCOUNT: CartDiscount = { rule: undefined, applied: null };

/** Reads what the answers of these carts need. */
export async function cartCheckout(db: Executor, store: string, carts: ReadonlyArray<Pick<CartRow, 'shippingOptionId' | 'shippingCountry'>>): Promise<CartCheckout> {
  return (await cartCheckouts(db, [{ store, carts }])).get(store)!;
}

/** The same for the carts of several stores (a round of many), by store, in one statement. */
export async function cartCheckouts(db: Executor, stores: Array<{ store: string; carts: ReadonlyArray<Pick<CartRow, 'shippingOptionId' | 'shippingCountry'>> }>): Promise<Map<string, CartCheckout>> {
  return together(db, cartCheckoutsPart(stores));
}

/** `cartCheckouts` as a part, to send with a round's other reads (`together`). */
export function cartCheckoutsPart(stores: Array<{ store: string; carts: ReadonlyArray<Pick<CartRow, 'shippingOptionId' | 'shippingCountry'>> }>): Part<Map<string, CartCheckout>> {
  return checkoutsOfStoresPart(stores.map(({ store, carts }) => {
    const countries = carts.flatMap((c) => (c.shippingOptionId === null ? [] : [c.shippingCountry!]));
    // Only a cart with a shipping option looks its option up (cartTotals).
    return { store, countries, withOptions: countries.length > 0 };
  }));
}

/**
 * What carts or orders of these stores are priced with, for destinations in these countries: each
 * store's settings, its shipping options (none read unless `withOptions`) and the rates of those
 * countries, one statement for them all (each module's part of it that module's SQL expression), by
 * store; a part, to send with a round's other reads (`together`).
 */
export function checkoutsOfStoresPart(stores: Array<{ store: string; countries: Iterable<string>; withOptions: boolean }>): Part<Map<string, CartCheckout>> {
  return mapped(
    checkoutOfStoresPart(stores.map(({ store, countries, withOptions }) => ({ store, countries: taxedCountries(countries), withOptions }))),
    (rows) => new Map(rows.map((row) => [row.store, { settings: pricingSettingsOf(row.settings), options: shippingRulesOf(row.options), rates: row.rates }])),
  );
}

/** A cart's totals: its discount, its shipping (an option since deleted shows as none) and its taxes for its destination. */
export function cartTotals(cart: CartRow, lines: PricedLine[], price: number, discount: CartDiscount, checkout: CartCheckout): CheckoutTotals & { currency: string } {
  const option = cart.shippingOptionId ? checkout.options.get(cart.shippingOptionId) : undefined;
  const destination = option ? { country: cart.shippingCountry!, region: cart.shippingRegion } : null;
  const totals = checkoutTotals({
    price,
    lines: lines.map((l) => ({ price: linePrice(l.product, l.quantity), taxCategory: l.product.taxCategory ?? null, eligible: discount.rule ? discountEligible(discount.rule, l.product.id) : false })),
    discount: discount.applied,
    shipping: option && destination ? { option, destination } : null,
    taxDestination: destination,
    rates: checkout.rates,
    pricesIncludeTax: checkout.settings.pricesIncludeTax,
  });
  return { currency: checkout.settings.currency, ...totals };
}
