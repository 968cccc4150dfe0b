import { sql } from 'drizzle-orm';
import { arrayOf, nothing, part, prepared, queryRows, type Executor, type Part } from '../../db/client.js';
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

/** Addresses of several stores by id (deleted ones included: the caller checks), by store, then by id: a statement to send with others (db/client.ts `together`). */
export function storesAddressesPart(stores: Array<{ store: string; ids: string[] }>): Part<Map<string, Map<string, AddressRow>>> {
  const keys = stores.flatMap(({ store, ids }) => ids.map((id) => ({ store, id })));
  if (keys.length === 0) return nothing(new Map());
  // Each pair by the primary key on its own (a lateral subquery, kept apart by its `limit`: a pair
  // names at most one address). Joined as a set, the prepared statement's plan guesses ten pairs and,
  // while the table is small (2,000 addresses: 35 pages), reads all of it for every round of orders:
  // 0.5-0.8 ms a round against about 0.1 for 25 probes. test/database-connections.test.ts checks the plan.
  const pairs = sql`unnest(${arrayOf(keys.map((k) => k.store), 'text')}, ${arrayOf(keys.map((k) => k.id), 'uuid')}) as k(key_store, key_id)`;
  const statement = sql`select ${columns} from ${pairs} cross join lateral (select * from addresses a where a.store = k.key_store and a.id = k.key_id limit 1) a`;
  return part(prepared(statement), (rows) => {
    const byStore = new Map<string, Map<string, AddressRow>>();
    for (const r of rows as unknown as AddressRow[]) byStore.set(r.store, (byStore.get(r.store) ?? new Map<string, AddressRow>()).set(r.id, r));
    return byStore;
  });
}
