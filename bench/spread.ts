/**
 * Many stores in the benchmark (`--stores N`): N stores seeded straight into the tables in a few
 * set-based statements (2,000 stores take seconds, not 2,000 API calls), each with its own tokens,
 * a catalog of `--products / N` products (at least 10), customers (2,000 over all the stores, at
 * least one each) with a token and an address each, and carts to order, add to and hold. The write
 * and read workloads then pick a store at random per request (its token, its paths, its bodies), so
 * every request of a round may be of another store.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../src/db/client.js';

export interface SpreadCustomer {
  id: string;
  /** A token of this customer. */
  token: string;
  addressId: string;
}

export interface SpreadStore {
  store: string;
  storefront: string;
  /** The store's customers, each with a token and an address: the orders are placed by them (the bare-SQL ceiling's by the first). */
  customers: SpreadCustomer[];
  productIds: string[];
  /** Carts to order, each once (order-from-cart). */
  orderCartIds: string[];
  addCartIds: string[];
  /** Carts of 1-3 lines held again and again (cart-hold). */
  holdCartIds: string[];
}

/** Totals over all the stores, whatever their number: so one store and 2,000 are offered the same work. */
// Order carts for five passes of order-from-cart (bench/run.ts) at up to 3,800 orders a second (a
// fast VM made 2,612 a second on one store: 34,000 a pass, all that 170,000 gave).
const ORDER_CARTS = 250000;
const ADD_CARTS = 5000;
const HOLD_CARTS = 2000;
const HISTORY = 20000;
// A shopper per store when spread: one store gets as many, or its orders would all be one
// customer's, one token and one address read once per round, as no busy store's are.
const CUSTOMERS = 2000;

const secret = (prefix: string, store: string) => `${prefix}_${store}_${randomBytes(32).toString('base64url')}`;
const hash = (s: string) => createHash('sha256').update(s).digest('hex');
// Drizzle spreads a JS array into a list of parameters: an array goes as one literal instead (its
// items here are slugs, kinds and hex hashes: nothing to quote).
const textArray = (items: string[]) => sql`${`{${items.join(',')}}`}::text[]`;
const perStore = (total: number, stores: number) => Math.max(1, Math.ceil(total / stores));

/** Seeds `count` stores named `<prefix>-<n>`, each with `max(10, products / count)` products. */
export async function seedSpread(db: Database, prefix: string, count: number, products: number): Promise<SpreadStore[]> {
  const catalog = Math.max(10, Math.floor(products / count));
  const slugs = Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}`);
  const tokens = slugs.map((store) => ({
    store, storefront: secret('sf', store),
    customers: Array.from({ length: perStore(CUSTOMERS, count) }, () => ({ id: randomUUID(), token: secret('cus', store) })),
  }));
  await db.execute(sql`insert into stores (slug, name) select s, 'Spread ' || s from unnest(${textArray(slugs)}) s`);
  // What a store is made with beside its row: its versions row (with its order number counter).
  await db.execute(sql`insert into store_versions (store) select s from unnest(${textArray(slugs)}) s`);
  const made = tokens.flatMap((t) => [
    { store: t.store, kind: 'storefront', hash: hash(t.storefront), customer: 'none' },
    ...t.customers.map((c) => ({ store: t.store, kind: 'customer', hash: hash(c.token), customer: c.id })),
  ]);
  await db.execute(sql`insert into tokens (store, kind, secret_hash, customer_id, expires_at)
    select t.store, t.kind, t.hash, nullif(t.customer, 'none')::uuid, case when t.kind = 'customer' then now() + interval '30 days' end
    from unnest(${textArray(made.map((t) => t.store))}, ${textArray(made.map((t) => t.kind))}, ${textArray(made.map((t) => t.hash))},
                ${textArray(made.map((t) => t.customer))}) as t(store, kind, hash, customer)`);
  await db.execute(sql`insert into products (store, status, name, slug, description, price, quantity, sku, created_at)
    select s, 'ACTIVE', 'Linen shirt ' || i, 'product-' || i, '<p>Product ' || i || '</p>', 100 + (i * 37) % 10000, 1000000000, 'SKU-' || i, now() - make_interval(secs => i)
    from unnest(${textArray(slugs)}) s, generate_series(1, ${catalog}) i`);
  // The carts below find their products by slug: without statistics the planner expects a few rows and joins by scanning.
  await db.execute(sql`analyze products`);
  const shoppers = tokens.flatMap((t) => t.customers.map((c) => ({ store: t.store, id: c.id })));
  const addressOf = new Map((await queryRows<{ customer: string; id: string }>(db, sql`insert into addresses (store, customer_id, zipcode, street, state, city, country, number)
    select s, c::uuid, '01001-000', 'Rua A', 'SP', 'São Paulo', 'BR', '10'
    from unnest(${textArray(shoppers.map((c) => c.store))}, ${textArray(shoppers.map((c) => c.id))}) as x(s, c)
    returning customer_id::text as customer, id::text`)).map((r) => [r.customer, r.id]));
  // Carts of each store, each line a product of its own store: `kind` says which pool a cart is in.
  await db.execute(sql`create temporary table if not exists spread_carts (store text, kind text, id uuid)`);
  await db.execute(sql`truncate spread_carts`);
  for (const [kind, total] of [['order', ORDER_CARTS], ['add', ADD_CARTS], ['hold', HOLD_CARTS]] as const) {
    await db.execute(sql`with made as (
        insert into carts (store, expires_at) select s, now() + interval '30 days' from unnest(${textArray(slugs)}) s, generate_series(1, ${perStore(total, count)}) returning store, id),
      kept as (insert into spread_carts select store, ${kind}, id from made returning store, id),
      numbered as (select store, id, row_number() over (partition by store order by id) as rn from kept),
      wanted as (select k.store, k.id as cart, 'product-' || ((k.rn * 7 + j * 3) % ${catalog} + 1) as slug, 1 + (k.rn + j) % 2 as quantity
                 from numbered k cross join generate_series(0, case when ${kind} = 'hold' then (k.rn % 3)::int else 0 end) j),
      -- Each line by the product's slug (its unique index), not by a join over the whole catalog.
      lines as (select w.store, w.cart, p.id as product, w.quantity from wanted w join products p on p.store = w.store and p.slug = w.slug and p.deleted_at is null)
      insert into cart_lines (store, cart_id, product_id, quantity) select store, cart, product, case when ${kind} = 'hold' then quantity else 1 end from lines`);
  }
  // An order history, so that the order tables start as a selling platform's do (see seed.ts).
  await db.execute(sql`with counter as (
      update store_versions set last_order_number = last_order_number + ${perStore(HISTORY, count)} where store = any(${textArray(slugs)})
      returning store, last_order_number - ${perStore(HISTORY, count)} as before),
    history as (
      insert into orders (store, customer_id, address_id, price, status, created_at, number)
      select a.store, a.customer_id, a.id, 100, 'FULFILLED', now() - make_interval(hours => k), counter.before + k
      from (select distinct on (store) store, customer_id, id from addresses where store = any(${textArray(slugs)}) order by store, id) a
        join counter on counter.store = a.store, generate_series(1, ${perStore(HISTORY, count)}) k
      returning id, store)
    insert into order_lines (store, order_id, product_id, quantity, unit_price, line_price, product)
    select h.store, h.id, p.id, 1, 100, 100, jsonb_build_object('id', p.id, 'name', p.name, 'price', 100)
    from history h join lateral (select id, name from products where store = h.store limit 1) p on true`);
  await db.execute(sql`analyze`);
  const rows = async (query: ReturnType<typeof sql>) => {
    const byStore = new Map<string, string[]>();
    // Appended in place: a copy per row made this quadratic, minutes for one store's 100,000 carts.
    for (const r of await queryRows<{ store: string; id: string }>(db, query)) {
      const ids = byStore.get(r.store);
      if (ids) ids.push(r.id);
      else byStore.set(r.store, [r.id]);
    }
    return byStore;
  };
  const productsOf = await rows(sql`select store, id::text from products where store = any(${textArray(slugs)}) order by store, slug`);
  const cartsOf = { order: await rows(sql`select store, id::text from spread_carts where kind = 'order'`), add: await rows(sql`select store, id::text from spread_carts where kind = 'add'`), hold: await rows(sql`select store, id::text from spread_carts where kind = 'hold'`) };
  return tokens.map((t) => ({
    store: t.store, storefront: t.storefront, customers: t.customers.map((c) => ({ ...c, addressId: addressOf.get(c.id)! })),
    productIds: productsOf.get(t.store)!, orderCartIds: cartsOf.order.get(t.store)!, addCartIds: cartsOf.add.get(t.store)!, holdCartIds: cartsOf.hold.get(t.store)!,
  }));
}

/** One request of a spread workload: whose token, which path, which body. */
export interface Target {
  token: string;
  path: string;
  body?: string;
}

const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;
const orderPath = (c: SpreadCustomer) => `/api/v1/${c.id}/orders`;

/**
 * The spread workloads: a few thousand requests drawn at random over the stores (each store's
 * own token, products and carts); order-from-cart's carts are each ordered once, in an order
 * that shuffles the stores.
 */
export const SPREAD_WORKLOADS: Record<string, { kind: 'read' | 'write'; sequential?: boolean; targets: (stores: SpreadStore[]) => Target[] }> = {
  'list-products': { kind: 'read', targets: (stores) => stores.map((s) => ({ token: s.storefront, path: '/api/v1/products?limit=50' })) },
  'cart-create': {
    kind: 'write',
    targets: (stores) => draw(stores, (s) => ({ token: s.storefront, path: '/api/v1/carts', body: JSON.stringify({ products: [{ id: pick(s.productIds), quantity: 1 }] }) })),
  },
  'cart-add-line': {
    kind: 'write',
    targets: (stores) => draw(stores, (s) => ({ token: s.storefront, path: `/api/v1/carts/${pick(s.addCartIds)}/products`, body: JSON.stringify({ id: pick(s.productIds), quantity: 1 }) })),
  },
  'order-spread': {
    kind: 'write',
    targets: (stores) => draw(stores, (s) => {
      const c = pick(s.customers);
      return { token: c.token, path: orderPath(c), body: JSON.stringify({ address: c.addressId, products: [{ id: pick(s.productIds), quantity: 1 }] }) };
    }),
  },
  'order-from-cart': {
    kind: 'write', sequential: true,
    targets: (stores) => {
      const all = stores.flatMap((s) => s.orderCartIds.map((id, i) => {
        const c = s.customers[i % s.customers.length]!;
        return { token: c.token, path: orderPath(c), body: JSON.stringify({ id, address: c.addressId }) };
      }));
      for (let i = all.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [all[i], all[j]] = [all[j]!, all[i]!];
      }
      return all;
    },
  },
  'cart-hold': { kind: 'write', targets: (stores) => stores.flatMap((s) => s.holdCartIds.map((id) => ({ token: s.storefront, path: `/api/v1/carts/${id}/hold` }))) },
};

/** 20,000 requests drawn over the stores: enough variety for a run, whatever the number of stores. */
function draw(stores: SpreadStore[], make: (s: SpreadStore) => Target): Target[] {
  return Array.from({ length: 20000 }, (_, i) => make(stores[i % stores.length]!));
}

/** The rows the bare-SQL ceiling spreads its orders over: every product of every store. */
export const ceilingRows = (stores: SpreadStore[]) =>
  stores.flatMap((s) => s.productIds.map((productId) => ({ store: s.store, customerId: s.customers[0]!.id, addressId: s.customers[0]!.addressId, productId })));
