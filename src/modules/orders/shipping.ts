/**
 * An order's shipping and taxes within a round of orders (checkout.ts): what the round reads (the
 * store's currency and tax setting, its shipping options, the rates of its addresses' countries),
 * and each order's shipping decision. The amounts are pricing's, computed again at order time.
 */
import { mapped, type Part } from '../../db/client.js';
import { AppError } from '../../lib/app-error.js';
import { shippingApplies, type ShippingRule, type TaxRateRule } from '../pricing/index.js';
import { checkoutsOfStoresPart } from '../carts/index.js';
import type { PricingSettings } from '../stores/index.js';

export interface RoundCheckout {
  settings: PricingSettings;
  options: ReadonlyMap<string, ShippingRule>;
  /** Once the store has an active option, every order needs one. */
  shippingRequired: boolean;
  rates: readonly TaxRateRule[];
}

/**
 * What a round's orders are priced with, for orders to these countries of each of its stores: one
 * statement for them all (each module's part of it is that module's expression), by store; a part,
 * sent with the round's other reads.
 */
export function storesRoundCheckoutPart(stores: Array<{ store: string; countries: Iterable<string> }>): Part<Map<string, RoundCheckout>> {
  // Every order reads its store's options: once a store has an active one, every order needs one.
  return mapped(checkoutsOfStoresPart(stores.map((s) => ({ ...s, withOptions: true }))), (checkouts) =>
    new Map([...checkouts].map(([store, c]) => [store, { ...c, shippingRequired: [...c.options.values()].some((o) => o.active) }])),
  );
}

/**
 * The order's shipping option (a cart's choice, or a product-list order's `shippingOption`), or null
 * when none is chosen and none is needed. Throws 422 SHIPPING_REQUIRED or SHIPPING_NOT_AVAILABLE
 * (an option that does not apply to the address's country and the subtotal after discount).
 */
export function decideOrderShipping(optionId: string | null, checkout: RoundCheckout, country: string, subtotal: number): ShippingRule | null {
  if (optionId === null) {
    if (checkout.shippingRequired) throw new AppError('SHIPPING_REQUIRED', 'this store ships its orders: choose a shipping option (the cart\'s shipping, or `shippingOption`)');
    return null;
  }
  const option = checkout.options.get(optionId.toLowerCase());
  if (!option || !shippingApplies(option, country, subtotal)) {
    throw new AppError('SHIPPING_NOT_AVAILABLE', `shipping option ${optionId} does not ship this order to ${country}`);
  }
  return option;
}
