/** A store's identity-provider settings (customer_auth), one row per store. */
import { sql } from 'drizzle-orm';
import { queryRows, valueList, type Executor } from '../../db/client.js';
import { catalogVersionOf, holdsVersionOf } from '../stores/index.js';

/** A JWK Set of public keys. */
export type JwkSet = { keys: Array<{ kty: string } & Record<string, unknown>> };

export interface CustomerAuthRow {
  store: string;
  issuer: string;
  audience: string;
  jwksUrl: string | null;
  jwks: JwkSet | null;
  createdAt: Date;
  updatedAt: Date | null;
}

/** What a JWT request needs: the settings, a version that changes with them, and the catalog version. */
export interface CustomerAuthMatch extends Omit<CustomerAuthRow, 'createdAt' | 'updatedAt'> {
  updatedAt: string;
  catalogVersion: number;
  holdsVersion: number;
}

const columns = sql.raw(
  `store, issuer, audience, jwks_url as "jwksUrl", jwks, created_at as "createdAt", updated_at as "updatedAt"`,
);

export async function findCustomerAuth(db: Executor, store: string): Promise<CustomerAuthRow | undefined> {
  const [row] = await queryRows<CustomerAuthRow>(db, sql`select ${columns} from customer_auth where store = ${store}`);
  return row;
}

/**
 * The registrations a JWT of `issuer` could belong to, at most two (two are already one too many):
 * every registration of the issuer, or with `audiences`, those whose audience is one of them.
 */
export async function findIssuerRegistrations(db: Executor, issuer: string, audiences: string[] | null): Promise<CustomerAuthMatch[]> {
  const audienceFilter = audiences === null ? sql`` : sql`and a.audience in (${valueList(audiences.slice(0, 10))})`;
  return queryRows<CustomerAuthMatch>(
    db,
    sql`select a.store, a.issuer, a.audience, a.jwks_url as "jwksUrl", a.jwks,
          coalesce(a.updated_at, a.created_at)::text as "updatedAt", ${catalogVersionOf(sql.raw('a.store'))} as "catalogVersion", ${holdsVersionOf(sql.raw('a.store'))} as "holdsVersion"
        from customer_auth a
        where a.issuer = ${issuer} ${audienceFilter}
        order by a.store
        limit 2`,
  );
}

/** Serializes registrations of one issuer until the transaction ends, so two stores cannot both take it. */
export async function lockIssuer(tx: Executor, issuer: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`customer_auth:${issuer}`}))`);
}

/** Stores other than `store` that registered `issuer`. */
export async function otherStoresOfIssuer(db: Executor, issuer: string, store: string): Promise<string[]> {
  const rows = await queryRows<{ store: string }>(db, sql`select store from customer_auth where issuer = ${issuer} and store <> ${store} order by store limit 5`);
  return rows.map((r) => r.store);
}

/** Issuers that several stores registered (left from before each issuer had one owner), with those stores. */
export async function findIssuersOfSeveralStores(db: Executor): Promise<Array<{ issuer: string; stores: string[] }>> {
  return queryRows(db, sql`select issuer, array_agg(store order by store) as stores from customer_auth group by issuer having count(*) > 1 order by issuer limit 100`);
}

export async function saveCustomerAuth(
  db: Executor,
  store: string,
  settings: { issuer: string; audience: string; jwksUrl: string | null; jwks: object | null },
): Promise<CustomerAuthRow> {
  const jwks = settings.jwks === null ? null : JSON.stringify(settings.jwks);
  const [row] = await queryRows<CustomerAuthRow>(
    db,
    sql`insert into customer_auth (store, issuer, audience, jwks_url, jwks)
        values (${store}, ${settings.issuer}, ${settings.audience}, ${settings.jwksUrl}, ${jwks}::jsonb)
        on conflict (store) do update set issuer = excluded.issuer, audience = excluded.audience,
          jwks_url = excluded.jwks_url, jwks = excluded.jwks, updated_at = now()
        returning ${columns}`,
  );
  return row!;
}

export async function deleteCustomerAuth(db: Executor, store: string): Promise<CustomerAuthRow | undefined> {
  const [row] = await queryRows<CustomerAuthRow>(db, sql`delete from customer_auth where store = ${store} returning ${columns}`);
  return row;
}
