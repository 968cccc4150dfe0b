/** A store's identity-provider settings (customer_auth), one row per store. */
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';
import { catalogVersionOf } from '../stores/index.js';

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
}

const columns = sql.raw(
  `store, issuer, audience, jwks_url as "jwksUrl", jwks, created_at as "createdAt", updated_at as "updatedAt"`,
);

export async function findCustomerAuth(db: Executor, store: string): Promise<CustomerAuthRow | undefined> {
  const [row] = await queryRows<CustomerAuthRow>(db, sql`select ${columns} from customer_auth where store = ${store}`);
  return row;
}

export async function findCustomerAuthByIssuer(db: Executor, issuer: string, audiences: string[]): Promise<CustomerAuthMatch | undefined> {
  const [row] = await queryRows<CustomerAuthMatch>(
    db,
    sql`select a.store, a.issuer, a.audience, a.jwks_url as "jwksUrl", a.jwks,
          coalesce(a.updated_at, a.created_at)::text as "updatedAt", ${catalogVersionOf(sql.raw('a.store'))} as "catalogVersion"
        from customer_auth a
        where a.issuer = ${issuer} and a.audience in (${sql.join(audiences.slice(0, 10).map((a) => sql`${a}`), sql`, `)})
        limit 1`,
  );
  return row;
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
