/** Tax rate SQL. */
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, valueList, type Executor } from '../../db/client.js';

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

/**
 * Every rate of the store a column names in the countries a jsonb array names (upper-case codes), as
 * a jsonb array of the fields pricing decides with (id order): for a statement that reads them beside
 * other things.
 */
export const taxRatesJson = (store: SQL, countries: SQL): SQL =>
  sql`(select coalesce(jsonb_agg(jsonb_build_object('country', t.country, 'region', t.region, 'category', t.category, 'rate', t.rate, 'name', t.name) order by t.id), '[]'::jsonb)
      from tax_rates t where t.store = ${store} and t.country in (select jsonb_array_elements_text(${countries})))`;
