/** Tax rate SQL. */
import { sql } from 'drizzle-orm';
import { queryRows, storeKeysMatch, valueList, type Executor } from '../../db/client.js';

export interface TaxRateRow {
  id: string;
  country: string;
  region: string | null;
  category: string | null;
  rate: number;
  name: string;
  createdAt: Date;
  updatedAt: Date | null;
}

export type TaxRateFields = Pick<TaxRateRow, 'country' | 'region' | 'category' | 'rate' | 'name'>;

const columns = sql.raw(`id, country, region, category, rate, name, created_at as "createdAt", updated_at as "updatedAt"`);

export async function insertTaxRate(tx: Executor, store: string, f: TaxRateFields): Promise<TaxRateRow> {
  const [row] = await queryRows<TaxRateRow>(
    tx,
    sql`insert into tax_rates (store, country, region, category, rate, name) values (${store}, ${f.country}, ${f.region}, ${f.category}, ${f.rate}, ${f.name}) returning ${columns}`,
  );
  return row!;
}

export async function updateTaxRate(tx: Executor, store: string, id: string, f: TaxRateFields): Promise<TaxRateRow | undefined> {
  const [row] = await queryRows<TaxRateRow>(
    tx,
    sql`update tax_rates set country = ${f.country}, region = ${f.region}, category = ${f.category}, rate = ${f.rate}, name = ${f.name}, updated_at = now()
        where store = ${store} and id = ${id} returning ${columns}`,
  );
  return row;
}

export async function deleteTaxRate(tx: Executor, store: string, id: string): Promise<TaxRateRow | undefined> {
  const [row] = await queryRows<TaxRateRow>(tx, sql`delete from tax_rates where store = ${store} and id = ${id} returning ${columns}`);
  return row;
}

export async function findTaxRate(db: Executor, store: string, id: string): Promise<TaxRateRow | undefined> {
  const [row] = await queryRows<TaxRateRow>(db, sql`select ${columns} from tax_rates where store = ${store} and id = ${id}`);
  return row;
}

/** By country, then region and category (the whole country first). */
export async function listTaxRates(db: Executor, store: string, page: { limit: number; offset: number }): Promise<TaxRateRow[]> {
  return queryRows<TaxRateRow>(
    db,
    sql`select ${columns} from tax_rates where store = ${store} order by country, region nulls first, category nulls first, id limit ${page.limit} offset ${page.offset}`,
  );
}

export async function countTaxRates(db: Executor, store: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from tax_rates where store = ${store}`);
  return row?.n ?? 0;
}

/** Every rate of the given countries (upper-case codes). */
export async function ratesOfCountries(db: Executor, store: string, countries: string[]): Promise<TaxRateRow[]> {
  if (countries.length === 0) return [];
  return queryRows<TaxRateRow>(db, sql`select ${columns} from tax_rates where store = ${store} and country in (${valueList(countries)}) order by id`);
}

/** The same for several stores (a round of several), in one statement: by store. */
export async function storesRatesOfCountries(db: Executor, stores: Array<{ store: string; countries: string[] }>): Promise<Map<string, TaxRateRow[]>> {
  const keys = stores.flatMap(({ store, countries }) => countries.map((key) => ({ store, key })));
  const byStore = new Map<string, TaxRateRow[]>();
  if (keys.length === 0) return byStore;
  const found = await queryRows<TaxRateRow & { store: string }>(
    db,
    sql`select t.store, ${columns} from tax_rates t where ${storeKeysMatch('t', 'country', keys)} order by t.store, t.id`,
  );
  for (const { store, ...row } of found) byStore.set(store, [...(byStore.get(store) ?? []), row]);
  return byStore;
}
