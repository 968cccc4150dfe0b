/** Cart SQL: carts and their lines. Every change to an existing cart runs in a transaction that first locks the cart row. */
import { sql } from 'drizzle-orm';
import { jsonb, nothing, part, parts, prepared, queryRows, storeKeys, together, valueList, type BesideWrite, type Executor, type Part } from '../../db/client.js';
import { AppError } from '../../lib/app-error.js';
import { asDate, toIso } from '../../lib/time.js';
import type { ShippingRule, TaxRateRule } from '../pricing/index.js';
import { shippingRulesJson } from '../shipping/index.js';
import { pricingSettingsJson, type PricingSettings } from '../stores/index.js';
import { taxRatesJson } from '../taxes/index.js';
import type { CartStatus } from './state.js';

export interface CartRow {
  id: string;
  store: string;
  /** The state at the database's clock: a PENDING cart past its expiry reads EXPIRED. */
  status: CartStatus;
  customerId: string | null;
  addressId: string | null;
  createdAt: Date;
  updatedAt: Date | null;
  deletedAt: Date | null;
  expiresAt: Date;
  /** The discount code set on the cart, if any. */
  discountId: string | null;
  /** Until when its checkout hold lasts; null when it holds nothing (or the hold has passed). */
  heldUntil: Date | null;
  /** The shipping option chosen and where to (the cart is taxed for it); null: none yet. */
  shippingOptionId: string | null;
  shippingCountry: string | null;
  shippingRegion: string | null;
}

/** A line as stored: which product, how many, in the order the lines were added. */
export interface StoredLine {
  productId: string;
  quantity: number;
}

/** A locked cart, its lines, and the transaction's time at the API's precision. */
export interface LockedCart {
  cart: CartRow;
  lines: StoredLine[];
  now: Date;
  /** The cart has hold rows to delete (its hold may have passed). */
  holdRows: boolean;
  /** Its last hold as stored (it may have passed): when it was first taken, and until when it was last renewed. */
  lastHold: { startedAt: Date | null; until: Date | null };
}

// What every change that ends a cart's hold writes: no hold, and nothing of its window or client kept.
const endedHold = sql.raw('held_until = null, hold_started_at = null, hold_client = null');

// The only place that says when a cart is expired: a PENDING row past `expires_at` reads EXPIRED.
const cartColumns = sql.raw(
  `c.id, c.store, case when c.status = 'PENDING' and c.expires_at <= now() then 'EXPIRED' else c.status end as status, ` +
    `c.customer_id as "customerId", c.address_id as "addressId", c.created_at as "createdAt", c.updated_at as "updatedAt", ` +
    `c.deleted_at as "deletedAt", c.expires_at as "expiresAt", c.discount_id as "discountId", ` +
    `case when c.held_until > now() then c.held_until end as "heldUntil", ` +
    `c.shipping_option_id as "shippingOptionId", c.shipping_country as "shippingCountry", c.shipping_region as "shippingRegion"`,
);

/** New carts of one store or several (a round of many) with their lines, in one statement; each cart's lines in the order given. */
export async function insertCartsOfStores(
  tx: Executor,
  carts: Array<{ store: string; id: string; createdAt: Date; expiresAt: Date }>,
  lines: Array<[store: string, cartId: string, productId: string, quantity: number]>,
): Promise<void> {
  await tx.execute(
    prepared(sql`with new_carts as (
          insert into carts (store, id, created_at, expires_at)
          select c.* from jsonb_to_recordset(${jsonb(carts.map((c) => ({ store: c.store, id: c.id, created_at: toIso(c.createdAt), expires_at: toIso(c.expiresAt) })))})
            as c(store text, id uuid, created_at timestamptz, expires_at timestamptz))
        insert into cart_lines (store, cart_id, product_id, quantity)
        select e.line->>0, (e.line->>1)::uuid, (e.line->>2)::uuid, (e.line->>3)::int
        from jsonb_array_elements(${jsonb(lines)}) with ordinality as e(line, n) order by e.n`),
  );
}

/** A non-deleted cart. */
export async function findCart(db: Executor, store: string, id: string): Promise<CartRow | undefined> {
  const [row] = await queryRows<CartRow>(db, sql`select ${cartColumns} from carts c where c.store = ${store} and c.id = ${id} and c.deleted_at is null`);
  return row;
}

/**
 * Locks the non-deleted carts among `ids` in id order (so combined changes and orders cannot
 * deadlock), then reads their lines under the lock: in a statement of its own, whose snapshot sees
 * whatever a change that held a cart's lock before committed.
 */
export async function lockCarts(tx: Executor, store: string, ids: string[]): Promise<Map<string, LockedCart>> {
  return (await lockCartsOfStores(tx, [{ store, ids }])).get(store)!;
}

/**
 * The same for the carts of several stores (a round of many), locked in (store, id) order, the one
 * global order of cart locks: two statements whatever the number of stores. Every store given has its map.
 */
export async function lockCartsOfStores(tx: Executor, wanted: Array<{ store: string; ids: string[] }>): Promise<Map<string, Map<string, LockedCart>>> {
  return (await lockCartsOfStoresWith(tx, wanted, nothing(null))).carts;
}

/**
 * `lockCartsOfStores`, sending `beside` (a read of the caller's that needs none of the carts) with
 * the carts' lines: their statement must follow the lock's, so the read costs no round trip of its
 * own. Without carts to lock, `beside` goes alone.
 */
export async function lockCartsOfStoresWith<T>(tx: Executor, wanted: Array<{ store: string; ids: string[] }>, beside: Part<T>): Promise<{ carts: Map<string, Map<string, LockedCart>>; beside: T }> {
  const byStore = new Map(wanted.map((w) => [w.store, new Map<string, LockedCart>()]));
  const keys = wanted.flatMap((w) => w.ids.map((id) => ({ store: w.store, id })));
  if (keys.length === 0) return { carts: byStore, beside: await together(tx, beside) };
  const rows = await queryRows<CartRow & { now: Date; holdRows: boolean; holdStartedAt: Date | null; lastHeldUntil: Date | null }>(
    tx,
    prepared(sql`select ${cartColumns}, now()::timestamptz(3) as now, c.held_until is not null as "holdRows",
          c.hold_started_at as "holdStartedAt", c.held_until as "lastHeldUntil" from carts c
        where (c.store, c.id) in (${storeKeys(keys)}) and c.deleted_at is null order by c.store, c.id for update`),
  );
  // The lines after the lock: every change of a cart's lines takes the cart's lock first.
  const [lines, read] = await together(tx, parts([linesOfCartsOfStoresPart(rows.map((r) => ({ store: r.store, id: r.id }))), beside] as const));
  for (const { now, holdRows, holdStartedAt, lastHeldUntil, ...cart } of rows) {
    byStore.get(cart.store)?.set(cart.id, {
      cart,
      lines: lines.get(cart.store)?.get(cart.id) ?? [],
      now: asDate(now),
      holdRows,
      lastHold: { startedAt: holdStartedAt && asDate(holdStartedAt), until: lastHeldUntil && asDate(lastHeldUntil) },
    });
  }
  return { carts: byStore, beside: read };
}

/** The lines of several carts, by cart id, in the order they were added. */
export async function linesOfCarts(db: Executor, store: string, cartIds: string[]): Promise<Map<string, StoredLine[]>> {
  return (await linesOfCartsOfStores(db, cartIds.map((id) => ({ store, id })))).get(store) ?? new Map();
}

/** The lines of carts of several stores, by store and cart id, each cart's in the order they were added. */
export async function linesOfCartsOfStores(db: Executor, carts: Array<{ store: string; id: string }>): Promise<Map<string, Map<string, StoredLine[]>>> {
  return together(db, linesOfCartsOfStoresPart(carts));
}

function linesOfCartsOfStoresPart(carts: Array<{ store: string; id: string }>): Part<Map<string, Map<string, StoredLine[]>>> {
  const byStore = new Map<string, Map<string, StoredLine[]>>();
  if (carts.length === 0) return nothing(byStore);
  const query = prepared(sql`select store, cart_id as "cartId", product_id as "productId", quantity from cart_lines
        where (store, cart_id) in (${storeKeys(carts)}) order by store, cart_id, position`);
  return part(query, (rows) => {
    for (const { store, cartId, ...line } of rows as unknown as Array<StoredLine & { store: string; cartId: string }>) {
      const mine = byStore.get(store) ?? byStore.set(store, new Map()).get(store)!;
      mine.set(cartId, [...(mine.get(cartId) ?? []), line]);
    }
    return byStore;
  });
}

/**
 * Sets lines of locked carts to the quantities decided for them (new ones are added in this
 * order) and records the change on each cart: `updatedAt` is `now`, the expiry `expiresAt`.
 */
export async function writeLines(tx: Executor, store: string, lines: Array<[cartId: string, productId: string, quantity: number]>, touched: { ids: string[]; now: Date; expiresAt: Date }): Promise<void> {
  await writeLinesOfStores(tx, lines.map((l) => [store, ...l]), { carts: touched.ids.map((id) => ({ store, id })), now: touched.now, expiresAt: touched.expiresAt });
}

/** The same for locked carts of several stores (a round of many), in one statement. */
export async function writeLinesOfStores(
  tx: Executor,
  lines: Array<[store: string, cartId: string, productId: string, quantity: number]>,
  touched: { carts: Array<{ store: string; id: string }>; now: Date; expiresAt: Date },
): Promise<void> {
  await tx.execute(
    prepared(sql`with changed as (
          insert into cart_lines (store, cart_id, product_id, quantity)
          select e.line->>0, (e.line->>1)::uuid, (e.line->>2)::uuid, (e.line->>3)::int
          from jsonb_array_elements(${jsonb(lines)}) with ordinality as e(line, n) order by e.n
          on conflict (store, cart_id, product_id) do update set quantity = excluded.quantity, updated_at = now())
        update carts set updated_at = ${toIso(touched.now)}, expires_at = ${toIso(touched.expiresAt)}, ${endedHold}
        where (store, id) in (${storeKeys(touched.carts)})`),
  );
}

/** Removes a line of a locked cart and records the change; an emptied cart is deleted (soft) instead. */
export async function removeLine(tx: Executor, store: string, cartId: string, productId: string, change: { now: Date; expiresAt: Date; empties: boolean }): Promise<void> {
  const touch = change.empties
    ? sql`update carts set deleted_at = ${toIso(change.now)}, updated_at = ${toIso(change.now)}, ${endedHold} where store = ${store} and id = ${cartId}`
    : sql`update carts set updated_at = ${toIso(change.now)}, expires_at = ${toIso(change.expiresAt)}, ${endedHold} where store = ${store} and id = ${cartId}`;
  await tx.execute(sql`with gone as (delete from cart_lines where store = ${store} and cart_id = ${cartId} and product_id = ${productId}) ${touch}`);
}

/**
 * Marks locked PENDING carts of one store or several COMPLETED with each order's customer and
 * address, one update for them all, to make inside another statement (guarded by the state it
 * expects: a cart that was not PENDING fails the round).
 */
export function completeStoresCarts(carts: Array<{ store: string; id: string; customerId: string; addressId: string }>): BesideWrite {
  return {
    ctes: sql`done_carts as (select * from jsonb_to_recordset(${jsonb(carts)}) as x(store text, id uuid, "customerId" uuid, "addressId" uuid)),
        completed_carts as (
          update carts c set status = 'COMPLETED', customer_id = x."customerId", address_id = x."addressId", updated_at = now(), ${endedHold} from done_carts x
          where (c.store, c.id) in (${storeKeys(carts)}) and c.store = x.store and c.id = x.id
            and c.status = 'PENDING' and c.deleted_at is null returning c.id)`,
    name: 'completed_carts',
    check: (changed) => {
      if (changed !== carts.length) throw new AppError('CART_NOT_PENDING', 'a cart is no longer PENDING');
    },
  };
}

/** Sets (or with null removes) a locked cart's discount code, and records the change. */
export async function setDiscount(tx: Executor, store: string, cartId: string, discountId: string | null, change: { now: Date; expiresAt: Date }): Promise<void> {
  await tx.execute(
    sql`update carts set discount_id = ${discountId}, updated_at = ${toIso(change.now)}, expires_at = ${toIso(change.expiresAt)} where store = ${store} and id = ${cartId}`,
  );
}

/** Ends a locked cart's hold (released): nothing of it is kept, so a new hold starts a new window. */
export async function endHold(tx: Executor, store: string, cartIds: string[]): Promise<void> {
  if (cartIds.length === 0) return;
  await tx.execute(sql`update carts set ${endedHold} where store = ${store} and id in (${valueList(cartIds)})`);
}

/**
 * Records the holds of locked carts (of one store or several), one update for them all, to make
 * inside the statement that writes the holds: until when each lasts, when it was first taken, which
 * client address holds it (null: a secret token, not counted), and an expiry no earlier than its
 * end, so a cart never expires while it holds units.
 */
export function recordHoldsOfStores(holds: Array<{ store: string; cartId: string; until: Date; startedAt: Date; client: string | null }>): BesideWrite {
  const rows = holds.map((h) => ({ store: h.store, id: h.cartId, until: toIso(h.until), started: toIso(h.startedAt), client: h.client }));
  return {
    ctes: sql`hold_records as (select * from jsonb_to_recordset(${jsonb(rows)}) as x(store text, id uuid, until timestamptz, started timestamptz, client text)),
        recorded_holds as (
          update carts c set held_until = x.until, hold_started_at = x.started, hold_client = x.client, expires_at = greatest(c.expires_at, x.until)
          from hold_records x where (c.store, c.id) in (${storeKeys(rows)}) and c.store = x.store and c.id = x.id returning c.id)`,
    name: 'recorded_holds',
    // The carts are locked by the round: each is there to record.
    check: (changed) => {
      if (changed !== rows.length) throw new AppError('SERVICE_UNAVAILABLE', 'a cart changed under a lock; retry');
    },
  };
}

/**
 * Sets (or with null removes) a locked cart's shipping option and destination, and records the
 * change; the cart keeps its hold, and so never expires before it.
 */
export async function setShipping(
  tx: Executor,
  store: string,
  cartId: string,
  shipping: { optionId: string; country: string; region: string | null } | null,
  change: { now: Date; expiresAt: Date },
): Promise<Date> {
  const [row] = await queryRows<{ expiresAt: Date }>(
    tx,
    sql`update carts set shipping_option_id = ${shipping?.optionId ?? null}, shipping_country = ${shipping?.country ?? null}, shipping_region = ${shipping?.region ?? null},
          updated_at = ${toIso(change.now)}, expires_at = greatest(${toIso(change.expiresAt)}::timestamptz, case when held_until > now() then held_until end)
        where store = ${store} and id = ${cartId} returning expires_at as "expiresAt"`,
  );
  return asDate(row!.expiresAt);
}

/**
 * The carts a client address holds now, per client: their ids and when each hold ends
 * (HOLDS_PER_CLIENT; read under the clients' advisory locks, so the count holds across processes).
 */
export async function heldByClients(db: Executor, store: string, clients: string[]): Promise<Map<string, Map<string, Date>>> {
  return (await heldByClientsOfStores(db, [{ store, clients }])).get(store)!;
}

/** `heldByClients` for the clients of several stores (a round of many), in one statement: by store. */
export async function heldByClientsOfStores(db: Executor, stores: Array<{ store: string; clients: string[] }>): Promise<Map<string, Map<string, Map<string, Date>>>> {
  const held = new Map(stores.map(({ store, clients }) => [store, new Map<string, Map<string, Date>>(clients.map((c) => [c, new Map()]))]));
  const keys = stores.flatMap(({ store, clients }) => clients.map((id) => ({ store, id })));
  if (keys.length === 0) return held;
  const rows = await queryRows<{ store: string; client: string; id: string; until: Date }>(
    db,
    prepared(sql`select store, hold_client as client, id, held_until as until from carts
        where (store, hold_client) in (${storeKeys(keys, 'text')}) and held_until > now() and status = 'PENDING' and deleted_at is null`),
  );
  for (const row of rows) held.get(row.store)?.get(row.client)?.set(row.id, asDate(row.until));
  return held;
}

type CheckoutRow = { store: string; settings: PricingSettings | null; options: ShippingRule[]; rates: TaxRateRule[] };

/**
 * What the carts or orders of a round of several stores are priced with, in one statement: each
 * store's settings, shipping options and the rates of its countries (upper-case codes), each read
 * by its own module's expression. A store's options are read only when `withOptions` (a round of
 * new carts, none with a shipping option, needs only the settings; spread over stores, that is a
 * store a cart). A part, to send with the round's other reads (`together`).
 */
export function checkoutOfStoresPart(stores: Array<{ store: string; countries: string[]; withOptions: boolean }>): Part<CheckoutRow[]> {
  const store = sql`w.store`;
  return part(
    prepared(sql`select w.store, ${pricingSettingsJson(store)} as settings,
          case when w."withOptions" then ${shippingRulesJson(store)} else '[]'::jsonb end as options,
          case when jsonb_array_length(w.countries) > 0 then ${taxRatesJson(store, sql`w.countries`)} else '[]'::jsonb end as rates
        from jsonb_to_recordset(${jsonb(stores)}) as w(store text, countries jsonb, "withOptions" boolean)`),
    (rows) => rows as CheckoutRow[],
  );
}
