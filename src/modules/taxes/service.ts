/** Tax rates (admin): one per (country, region, category); the rules that pick a line's rate are pricing's. */
import type { Executor } from '../../db/client.js';
import { postgresErrorCode } from '../../db/errors.js';
import { AppError } from '../../lib/app-error.js';
import { toIso, toIsoOrNull } from '../../lib/time.js';
import { isCountryCode, type TaxRateRule } from '../pricing/index.js';
import * as repo from './repository.js';
import type { CreateTaxRateBody, TaxRateView, UpdateTaxRateBody } from './schemas.js';

const notFound = (id: string) => new AppError('NOT_FOUND', `tax rate ${id} not found`);

function view(row: repo.TaxRateRow): TaxRateView {
  return { id: row.id, country: row.country, region: row.region, category: row.category, rate: row.rate, name: row.name, createdAt: toIso(row.createdAt), updatedAt: toIsoOrNull(row.updatedAt) };
}

async function conflictAware<T>(place: repo.TaxRateFields, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (postgresErrorCode(error) === '23505') {
      throw new AppError('CONFLICT', `a tax rate for ${place.country}${place.region ? `/${place.region}` : ''}${place.category ? ` (${place.category})` : ''} already exists`);
    }
    throw error;
  }
}

/** Creates a rate; another for the same (country, region, category) is 409. */
export async function createTaxRate(tx: Executor, store: string, body: CreateTaxRateBody): Promise<{ taxRate: TaxRateView }> {
  const fields = { country: body.country.toUpperCase(), region: body.region ?? null, category: body.category ?? null, rate: body.rate, name: body.name };
  return { taxRate: view(await conflictAware(fields, () => repo.insertTaxRate(tx, store, fields))) };
}

export async function updateTaxRate(tx: Executor, store: string, id: string, body: UpdateTaxRateBody): Promise<{ taxRate: TaxRateView }> {
  const row = await repo.findTaxRate(tx, store, id);
  if (!row) throw notFound(id);
  const fields = { country: (body.country ?? row.country).toUpperCase(), region: body.region === undefined ? row.region : body.region, category: body.category === undefined ? row.category : body.category, rate: body.rate ?? row.rate, name: body.name ?? row.name };
  const updated = await conflictAware(fields, () => repo.updateTaxRate(tx, store, id, fields));
  if (!updated) throw notFound(id);
  return { taxRate: view(updated) };
}

export async function deleteTaxRate(tx: Executor, store: string, id: string): Promise<{ taxRate: TaxRateView }> {
  const row = await repo.deleteTaxRate(tx, store, id);
  if (!row) throw notFound(id);
  return { taxRate: view(row) };
}

export async function getTaxRate(db: Executor, store: string, id: string): Promise<{ taxRate: TaxRateView }> {
  const row = await repo.findTaxRate(db, store, id);
  if (!row) throw notFound(id);
  return { taxRate: view(row) };
}

export async function listTaxRates(db: Executor, store: string, query: { limit?: number; offset?: number }): Promise<{ taxRates: TaxRateView[]; total: number }> {
  const [rows, total] = await Promise.all([repo.listTaxRates(db, store, { limit: query.limit ?? 50, offset: query.offset ?? 0 }), repo.countTaxRates(db, store)]);
  return { taxRates: rows.map(view), total };
}

/** The rates that may apply at these destination countries (codes of any case; others match nothing). */
export async function ratesForCountries(db: Executor, store: string, countries: Iterable<string>): Promise<TaxRateRule[]> {
  return repo.ratesOfCountries(db, store, taxedCountries(countries));
}

/** The codes rates are looked up by (`taxRatesJson` too): country codes only, upper-case, once each. */
export const taxedCountries = (countries: Iterable<string>): string[] => [...new Set([...countries].filter(isCountryCode).map((c) => c.toUpperCase()))];
