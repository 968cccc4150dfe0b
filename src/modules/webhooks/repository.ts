/** Webhook endpoint SQL. */
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';

export interface EndpointRow {
  id: string;
  store: string;
  url: string;
  events: string[];
  description: string;
  disabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const columns = sql.raw(`id, store, url, events, description, disabled, created_at as "createdAt", updated_at as "updatedAt"`);
const textArray = (values: string[]) => sql`array[${sql.join(values.map((v) => sql`${v}`), sql`, `)}]::text[]`;

export async function insertEndpoint(db: Executor, store: string, values: { url: string; events: string[]; description: string; secret: string }): Promise<EndpointRow> {
  const [row] = await queryRows<EndpointRow>(
    db,
    sql`insert into webhook_endpoints (store, url, events, description, secret)
        values (${store}, ${values.url}, ${textArray(values.events)}, ${values.description}, ${values.secret}) returning ${columns}`,
  );
  return row!;
}

export async function listEndpoints(db: Executor, store: string): Promise<EndpointRow[]> {
  return queryRows<EndpointRow>(db, sql`select ${columns} from webhook_endpoints where store = ${store} order by created_at, id`);
}

export async function findEndpoint(db: Executor, store: string, id: string): Promise<EndpointRow | undefined> {
  const [row] = await queryRows<EndpointRow>(db, sql`select ${columns} from webhook_endpoints where store = ${store} and id = ${id}`);
  return row;
}

export interface EndpointChange {
  url?: string;
  events?: string[];
  description?: string;
  disabled?: boolean;
}

export async function updateEndpoint(db: Executor, store: string, id: string, change: EndpointChange): Promise<EndpointRow | undefined> {
  const sets: SQL[] = [sql`updated_at = now()`];
  if (change.url !== undefined) sets.push(sql`url = ${change.url}`);
  if (change.events !== undefined) sets.push(sql`events = ${textArray(change.events)}`);
  if (change.description !== undefined) sets.push(sql`description = ${change.description}`);
  // Enabling again starts a new failure window, or the next failure would disable it at once.
  if (change.disabled !== undefined) sets.push(sql`disabled = ${change.disabled}`, sql`failing_since = null`);
  const [row] = await queryRows<EndpointRow>(
    db,
    sql`update webhook_endpoints set ${sql.join(sets, sql`, `)} where store = ${store} and id = ${id} returning ${columns}`,
  );
  return row;
}

/** Deletes the endpoint and its delivery log. */
export async function deleteEndpoint(db: Executor, store: string, id: string): Promise<EndpointRow | undefined> {
  const [row] = await queryRows<EndpointRow>(
    db,
    sql`with gone as (delete from webhook_endpoints where store = ${store} and id = ${id} returning ${columns}),
        log as (delete from webhook_deliveries where store = ${store} and endpoint_id in (select id from gone))
        select * from gone`,
  );
  return row;
}

/** A new secret; the current one keeps signing until `overlapSeconds` from now. */
export async function rotateSecret(db: Executor, store: string, id: string, secret: string, overlapSeconds: number): Promise<boolean> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`update webhook_endpoints set previous_secret = secret, secret = ${secret},
          previous_secret_expires_at = now() + make_interval(secs => ${overlapSeconds}), updated_at = now()
        where store = ${store} and id = ${id} returning id`,
  );
  return rows.length > 0;
}
