import { sql } from 'drizzle-orm';
import { queryRows, valueList, type Executor } from '../../db/client.js';
import type { AddressInput } from './schemas.js';

export interface AddressRow {
  id: string;
  store: string;
  customerId: string;
  alias: string;
  zipcode: string;
  street: string;
  state: string;
  city: string;
  country: string;
  neightborhood: string;
  number: string;
  complement: string;
  name: string;
  phone: string;
  createdAt: Date;
  updatedAt: Date | null;
  deletedAt: Date | null;
}

const columns = sql.raw(
  `id, store, customer_id as "customerId", alias, zipcode, street, state, city, country, neightborhood, number, complement, name, phone, ` +
    `created_at as "createdAt", updated_at as "updatedAt", deleted_at as "deletedAt"`,
);

export async function insertAddress(db: Executor, store: string, customerId: string, a: AddressInput): Promise<AddressRow> {
  const [row] = await queryRows<AddressRow>(
    db,
    sql`insert into addresses (store, customer_id, alias, zipcode, street, state, city, country, neightborhood, number, complement, name, phone)
        values (${store}, ${customerId}, ${a.alias ?? ''}, ${a.zipcode}, ${a.street}, ${a.state}, ${a.city}, ${a.country},
                ${a.neightborhood ?? ''}, ${a.number}, ${a.complement ?? ''}, ${a.name ?? ''}, ${a.phone ?? ''})
        returning ${columns}`,
  );
  return row!;
}

export async function listAddresses(db: Executor, store: string, customerId: string, page: { limit: number; offset: number }): Promise<AddressRow[]> {
  return queryRows<AddressRow>(
    db,
    sql`select ${columns} from addresses where store = ${store} and customer_id = ${customerId} and deleted_at is null
        order by created_at desc nulls last, id desc nulls last limit ${page.limit} offset ${page.offset}`,
  );
}

export async function countAddresses(db: Executor, store: string, customerId: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from addresses where store = ${store} and customer_id = ${customerId} and deleted_at is null`,
  );
  return row?.n ?? 0;
}

export async function findAddresses(db: Executor, store: string, ids: string[]): Promise<Map<string, AddressRow>> {
  if (ids.length === 0) return new Map();
  const rows = await queryRows<AddressRow>(
    db,
    sql`select ${columns} from addresses where store = ${store} and id in (${valueList(ids)})`,
  );
  return new Map(rows.map((r) => [r.id, r]));
}
