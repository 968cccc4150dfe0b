/**
 * A store's settings as the storefront needs them (GET /v1/store) and as its admin changes them
 * (PATCH /v1/admin/store): its currency, whether its prices hold the tax, how long an order may stay
 * unpaid, and the payment providers a shopper can choose.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { Executor } from '../../db/client.js';
import { AppError } from '../../lib/app-error.js';
import { named } from '../../lib/http-schemas.js';
import { publicPaymentProviders } from '../payments/index.js';
import * as repo from './repository.js';

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

const PaymentProviderChoice = named('StorePaymentProvider', Type.Object({
  name: Type.String({ examples: ['manual'] }),
  instructions: Type.Optional(Type.String({ description: 'what a shopper paying with `manual` must do', examples: ['Pay by bank transfer to ...'] })),
  publishableKey: Type.Optional(Type.String({ description: 'the public key a `stripe` checkout needs (never a secret)' })),
}));
export type PaymentProviderChoice = Static<typeof PaymentProviderChoice>;

export const StoreSettings = named('StoreSettings', Type.Object({
  slug: Type.String({ examples: ['demo'] }),
  name: Type.String({ examples: ['Demo store'] }),
  currency: Type.String({ description: 'ISO 4217; every price is an integer in its smallest unit', examples: ['USD'] }),
  pricesIncludeTax: Type.Boolean({ description: 'true: prices hold the tax, which is taken out of them; false: the tax is added to the total' }),
  unpaidOrderTimeoutSeconds: Type.Union([Type.Integer(), Type.Null()], { description: 'how long an order may stay unpaid; null: never cancelled for it' }),
  paymentProviders: Type.Array(PaymentProviderChoice, { description: 'the enabled payment providers, as a checkout needs them' }),
}));
export type StoreSettingsView = Static<typeof StoreSettings>;
export const StoreSettingsEnvelope = named('StoreSettingsEnvelope', Type.Object({ store: StoreSettings }));

export const UpdateStoreBody = named('UpdateStoreBody', Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'an ISO 4217 code, upper case', examples: ['EUR'] })),
    pricesIncludeTax: Type.Optional(Type.Boolean()),
    unpaidOrderTimeoutSeconds: Type.Optional(Type.Union([Type.Integer({ minimum: 60, maximum: 2_592_000 }), Type.Null()], { description: '60..2592000 seconds, or null: never' })),
  },
  { additionalProperties: false },
));
export type UpdateStoreBody = Static<typeof UpdateStoreBody>;

/** What a checkout prices with: the currency and whether prices hold the tax. */
export interface PricingSettings {
  currency: string;
  pricesIncludeTax: boolean;
}

/** The enabled payment providers as a storefront needs them (never a secret). */
export async function paymentProvidersOf(db: Executor, store: string): Promise<PaymentProviderChoice[]> {
  return publicPaymentProviders(db, store);
}

async function settingsView(db: Executor, row: repo.StoreSettingsRow): Promise<StoreSettingsView> {
  return {
    slug: row.slug,
    name: row.name,
    currency: row.currency,
    pricesIncludeTax: row.pricesIncludeTax,
    unpaidOrderTimeoutSeconds: row.unpaidOrderTimeoutSeconds,
    paymentProviders: await paymentProvidersOf(db, row.slug),
  };
}

/** The store's settings (GET /v1/store). */
export async function getStoreSettings(db: Executor, store: string): Promise<{ store: StoreSettingsView }> {
  const row = await repo.findStoreSettings(db, store);
  if (!row) throw new AppError('NOT_FOUND', `store ${store} not found`);
  return { store: await settingsView(db, row) };
}

/** Changes the store's settings (PATCH /v1/admin/store); a currency the runtime does not know is 400. */
export async function updateStoreSettings(db: Executor, store: string, body: UpdateStoreBody): Promise<{ store: StoreSettingsView }> {
  if (body.currency !== undefined && !CURRENCIES.has(body.currency)) {
    throw new AppError('VALIDATION_FAILED', `currency ${body.currency} is not an ISO 4217 code`, { errors: [{ field: '/currency', message: 'is not a known ISO 4217 code' }] });
  }
  const row = await repo.updateStoreSettings(db, store, body);
  if (!row) throw new AppError('NOT_FOUND', `store ${store} not found`);
  return { store: await settingsView(db, row) };
}

/** The settings a store's row (or `pricingSettingsJson`) holds; no store prices in USD, tax added. */
export function pricingSettingsOf(row: PricingSettings | null): PricingSettings {
  return { currency: row?.currency ?? 'USD', pricesIncludeTax: row?.pricesIncludeTax ?? false };
}
