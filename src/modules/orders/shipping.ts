/**
 * An order's shipping and taxes within a round of orders (checkout.ts): what the round reads (the
 * store's currency and tax setting, its shipping options, the rates of its addresses' countries),
 * and each order's shipping decision. The amounts are pricing's, computed again at order time.
 */
import type { Executor } from '../../db/client.js';
import { AppError } from '../../lib/app-error.js';
import { shippingApplies, type ShippingRule, type TaxRateRule } from '../pricing/index.js';
import { storesShippingRules } from '../shipping/index.js';
import { storesPricingSettings, type PricingSettings } from '../stores/index.js';
import { storesRatesForCountries } from '../taxes/index.js';

export interface RoundCheckout {
  settings: PricingSettings;
  options: ReadonlyMap<string, ShippingRule>;
  /** Once the store has an active option, every order needs one. */
  shippingRequired: boolean;
  rates: readonly TaxRateRule[];
}

/** Reads what a round's orders are priced with, for orders to these countries. */
export async function roundCheckout(tx: Executor, store: string, countries: Iterable<string>): Promise<RoundCheckout> {
  return (await storesRoundCheckout(tx, [{ store, countries }])).get(store)!;
}

/** The same for a round of several stores, one statement per table for them all: by store. */
export async function storesRoundCheckout(tx: Executor, stores: Array<{ store: string; countries: Iterable<string> }>): Promise<Map<string, RoundCheckout>> {
  const slugs = stores.map((s) => s.store);
  const settings = await storesPricingSettings(tx, slugs);
  const options = await storesShippingRules(tx, slugs);
  const rates = await storesRatesForCountries(tx, stores);
  return new Map(slugs.map((store) => {
    const mine = options.get(store)!;
    return [store, { settings: settings.get(store)!, options: mine, shippingRequired: [...mine.values()].some((o) => o.active), rates: rates.get(store)! }];
  }));
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
