/** Shipping options (admin), and the options a checkout may choose from; which apply, and for how much, is pricing's. */
import type { Executor } from '../../db/client.js';
import { AppError } from '../../lib/app-error.js';
import { toIso, toIsoOrNull } from '../../lib/time.js';
import type { ShippingRule } from '../pricing/index.js';
import * as repo from './repository.js';
import type { CreateShippingOptionBody, ShippingOptionView, UpdateShippingOptionBody } from './schemas.js';

const notFound = (id: string) => new AppError('NOT_FOUND', `shipping option ${id} not found`);
const codes = (countries: string[]) => [...new Set(countries.map((c) => c.toUpperCase()))];

function view(row: repo.ShippingOptionRow): ShippingOptionView {
  return { ...row, createdAt: toIso(row.createdAt), updatedAt: toIsoOrNull(row.updatedAt) };
}

export async function createShippingOption(tx: Executor, store: string, body: CreateShippingOptionBody): Promise<{ shippingOption: ShippingOptionView }> {
  const fields = { name: body.name, price: body.price, countries: codes(body.countries ?? []), freeAbove: body.freeAbove ?? null, minSubtotal: body.minSubtotal ?? 0, active: body.active ?? true };
  return { shippingOption: view(await repo.insertShippingOption(tx, store, fields)) };
}

export async function updateShippingOption(tx: Executor, store: string, id: string, body: UpdateShippingOptionBody): Promise<{ shippingOption: ShippingOptionView }> {
  const row = await repo.findShippingOption(tx, store, id);
  if (!row) throw notFound(id);
  const fields = {
    name: body.name ?? row.name, price: body.price ?? row.price, countries: body.countries ? codes(body.countries) : row.countries,
    freeAbove: body.freeAbove === undefined ? row.freeAbove : body.freeAbove, minSubtotal: body.minSubtotal ?? row.minSubtotal, active: body.active ?? row.active,
  };
  const updated = await repo.updateShippingOption(tx, store, id, fields);
  if (!updated) throw notFound(id);
  return { shippingOption: view(updated) };
}

/** Soft delete: it stops applying; orders keep the shipping they were placed with. */
export async function deleteShippingOption(tx: Executor, store: string, id: string): Promise<{ shippingOption: ShippingOptionView }> {
  const row = await repo.softDeleteShippingOption(tx, store, id);
  if (!row) throw notFound(id);
  return { shippingOption: view(row) };
}

export async function getShippingOption(db: Executor, store: string, id: string): Promise<{ shippingOption: ShippingOptionView }> {
  const row = await repo.findShippingOption(db, store, id);
  if (!row) throw notFound(id);
  return { shippingOption: view(row) };
}

export async function listShippingOptions(db: Executor, store: string, query: { limit?: number; offset?: number }): Promise<{ shippingOptions: ShippingOptionView[]; total: number }> {
  const [rows, total] = await Promise.all([repo.listShippingOptions(db, store, { limit: query.limit ?? 50, offset: query.offset ?? 0 }), repo.countShippingOptions(db, store)]);
  return { shippingOptions: rows.map(view), total };
}

/** Every option of the store that is not deleted, active or not, by id. */
export async function shippingRules(db: Executor, store: string): Promise<Map<string, ShippingRule>> {
  return new Map((await repo.allShippingOptions(db, store)).map((o) => [o.id, o]));
}

/** The options `shippingRulesJson` read, by id. */
export const shippingRulesOf = (options: ShippingRule[]): Map<string, ShippingRule> => new Map(options.map((o) => [o.id, o]));

/** One option that is not deleted, or undefined. */
export async function shippingRule(db: Executor, store: string, id: string): Promise<ShippingRule | undefined> {
  return repo.findShippingOption(db, store, id.toLowerCase());
}
