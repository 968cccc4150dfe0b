/**
 * Seeds one benchmark store straight into the tables (multi-row INSERT ... SELECT), so that a
 * catalog of 100000 products takes seconds: 50 collections (some nested, one archived), a mix of
 * statuses and stock, a third of the products in groups of 2..8 variants, "hot" products with
 * ample stock for the write workloads, one customer with an address, and carts ready to be
 * ordered or added to.
 */
import { getTableColumns, sql } from 'drizzle-orm';
import { products } from '../src/db/schema.js';
import { PRODUCT_FIELD_NAMES } from '../src/modules/catalog/schemas.js';
import { queryRows, type Database } from '../src/db/client.js';
import { createStore } from '../src/modules/stores/service.js';
import { mintCustomerToken } from '../src/modules/customers/service.js';
import { encodeCursor, listBinding } from '../src/modules/catalog/cursor.js';
import { visibleProduct } from '../src/modules/catalog/visibility.js';
import { toIso } from '../src/lib/time.js';

export interface BenchFixture {
  store: string;
  storefront: string;
  admin: string;
  /** A customer token of `customerId`: orders are placed as the customer does. */
  customer: string;
  collectionSlug: string;
  slugs: string[];
  /** Groups with a visible variant, spread over the catalog. */
  groups: string[];
  hotProductIds: string[];
  customerId: string;
  addressId: string;
  /** A visible product with exactly 2000 in stock, for the sell-out check. */
  selloutProductId: string;
  /** Carts for the service's order-from-cart workload, and as many for the SQL ceiling. */
  orderCartIds: string[];
  ceilingOrderCartIds: string[];
  addCartIds: string[];
  /** `after=` of a page of 50 near the end of the default list (newest first). */
  deepCursor: string;
}

const HOT = 1000;
/** Past orders of the store, seeded so that the order tables start the run as a selling store's do. */
const ORDER_HISTORY = 20000;

/** A product numbered i is visible unless a draft (every 10th) or in the archived collection (every 97th). */
const visible = (i: number) => i % 10 !== 0 && i % 97 !== 0;

/**
 * Variants: products come in blocks of 15 made one after another; the first 2..8 of block b
 * (2 + b % 7) are the variants of group `group-b`, each its own size, named after the first.
 * So a third of the products are in groups, as in a shop that sells clothes.
 */
const BLOCK = 15;
const SIZE_NAMES = sql.raw(`array['XS','S','M','L','XL','XXL','3XL','4XL']`);
const IN_GROUP = `((i - 1) % ${BLOCK} < 2 + ((i - 1) / ${BLOCK}) % 7)`;
const inGroup = sql.raw(IN_GROUP);
const nameIndex = sql.raw(`(case when ${IN_GROUP} then (i - 1) / ${BLOCK} * ${BLOCK} + 1 else i end)`);

export async function seedBench(db: Database, products: number, cartsPerPool: number): Promise<BenchFixture> {
  const store = `bench-${products}`;
  const { tokens } = await createStore(db, store, `Benchmark ${products}`);
  await db.execute(sql`insert into collections (store, name, slug, description, archived, created_at)
    select ${store}, 'Collection ' || k, 'collection-' || k, '<p>Collection ' || k || '</p>', k = 50, now() - make_interval(secs => 100 - k)
    from generate_series(1, 50) k`);
  // Nesting: 2..10 under 1, 11..15 under 2..6, and 16 under both 2 and 3.
  await db.execute(sql`insert into collection_parents (store, child_id, parent_id)
    select ${store}, c.id, p.id from collections c join collections p on p.store = c.store
    where c.store = ${store} and (
      (c.slug in (select 'collection-' || k from generate_series(2, 10) k) and p.slug = 'collection-1')
      or (c.slug in (select 'collection-' || k from generate_series(11, 15) k) and p.slug = 'collection-' || (substring(c.slug from 12)::int - 9))
      or (c.slug = 'collection-16' and p.slug in ('collection-2', 'collection-3')))`);
  // Names from a small vocabulary (12 colours x 8 materials x 10 garments), so that search has
  // realistic work: "linen shi" matches one product in 80, whatever the catalog size.
  await db.execute(sql`insert into products (store, status, name, slug, description, price, original_price, quantity, sku, created_at, group_slug, options)
    select ${store}, case when i % 10 = 0 then 'DRAFT' else 'ACTIVE' end,
      (array['Red','Blue','Green','Black','White','Grey','Navy','Olive','Beige','Brown','Pink','Yellow'])[${nameIndex} % 12 + 1] || ' ' ||
      (array['linen','wool','cotton','silk','denim','leather','cashmere','velvet'])[(${nameIndex} / 12) % 8 + 1] || ' ' ||
      (array['shirt','sweater','trousers','jacket','scarf','dress','skirt','coat','blanket','cushion'])[(${nameIndex} / 96) % 10 + 1] || ' ' || ${nameIndex},
      'product-' || i,
      '<p>Description of <strong>product ' || i || '</strong>.</p>', 100 + (i * 37) % 10000,
      case when i % 4 = 0 then 200 + (i * 37) % 10000 end,
      case when i <= ${HOT} then 1000000000 when i % 20 = 0 then 0 else (i * 13) % 100 end,
      'SKU-' || i, now() - make_interval(secs => i),
      case when ${inGroup} then 'group-' || (i - 1) / ${BLOCK} end,
      case when ${inGroup} then json_build_object('Size', (${SIZE_NAMES})[(i - 1) % ${BLOCK} + 1]) else '{}'::json end
    from generate_series(1, ${products}) i`);
  // Every product in one of the 49 live collections; every 97th also in the archived one.
  await db.execute(sql`insert into collection_products (store, collection_id, product_id)
    select p.store, c.id, p.id from products p join collections c on c.store = p.store
      and c.slug = 'collection-' || (substring(p.slug from 9)::int % 49 + 1)
    where p.store = ${store}`);
  await db.execute(sql`insert into collection_products (store, collection_id, product_id)
    select p.store, c.id, p.id from products p join collections c on c.store = p.store and c.slug = 'collection-50'
    where p.store = ${store} and substring(p.slug from 9)::int % 97 = 0`);
  await db.execute(sql`analyze`);

  const hot = await queryRows<{ id: string }>(
    db,
    sql`select id::text from products where store = ${store} and status = 'ACTIVE' and quantity = 1000000000
          and substring(slug from 9)::int % 97 <> 0 order by slug`,
  );
  const [sellout] = await queryRows<{ id: string }>(
    db,
    sql`insert into products (store, status, name, slug, description, price, quantity, sku)
        values (${store}, 'ACTIVE', 'Flash sale', 'flash-sale', '<p>2000 units, then sold out.</p>', 990, 2000, 'FLASH-1') returning id::text`,
  );
  const customerId = '11111111-2222-4333-8444-555555555555';
  const [address] = await queryRows<{ id: string }>(
    db,
    sql`insert into addresses (store, customer_id, zipcode, street, state, city, country, number)
        values (${store}, ${customerId}, '01001-000', 'Rua A', 'SP', 'São Paulo', 'BR', '10') returning id`,
  );
  const makeCarts = async (count: number) =>
    (
      await queryRows<{ id: string }>(
        db,
        sql`with hot as (select id, row_number() over (order by id) as rn from products
                         where store = ${store} and quantity = 1000000000 and status = 'ACTIVE' and substring(slug from 9)::int % 97 <> 0),
                 made as (insert into carts (store, expires_at) select ${store}, now() + interval '30 days' from generate_series(1, ${count}) returning id),
                 numbered as (select id, row_number() over () as rn from made),
                 lines as (insert into cart_lines (store, cart_id, product_id, quantity)
                           select ${store}, n.id, h.id, 1 from numbered n join hot h on h.rn = n.rn % (select count(*) from hot) + 1 returning cart_id)
            select cart_id::text as id from lines`,
      )
    ).map((r) => r.id);
  const carts = { order: await makeCarts(cartsPerPool), ceiling: await makeCarts(cartsPerPool), add: await makeCarts(5000) };
  // A store that sells has an order history, and its statistics say so. Without one, the orders
  // table grows from empty under the load, and the foreign-key checks of new order lines keep a
  // plan made for an empty table (a scan) until autovacuum first analyzes it, up to a minute
  // later: the order workloads then slowed down by the second (measured: the checks of a batch
  // went from 1 ms to 350 ms). The history is spread over the catalog, as a shop's is: on one
  // product, the statistics said every product had 20000 lines, and every uncached `_count.orders`
  // read the whole table (1.2 ms a product) instead of its index.
  await db.execute(sql`with counter as (
      update store_versions set last_order_number = last_order_number + ${ORDER_HISTORY} where store = ${store} returning last_order_number - ${ORDER_HISTORY} as before),
    history as (
      insert into orders (store, customer_id, address_id, price, status, created_at, number)
      select ${store}, ${customerId}, ${address!.id}, 100, 'FULFILLED', now() - make_interval(hours => k), counter.before + k
      from counter, generate_series(1, ${ORDER_HISTORY}) k
      returning id),
    numbered as (select id, row_number() over () as rn from history),
    catalog as (select p.*, row_number() over (order by id) as rn from products p where store = ${store})
    insert into order_lines (store, order_id, product_id, quantity, unit_price, line_price, product)
    select ${store}, h.id, c.id, 1, 100, 100, ${historySnapshot('c')}
    from numbered h join catalog c on c.rn = h.rn % (select count(*) from catalog) + 1`);
  // Their events too: webhook deliveries check theirs against this table.
  await db.execute(sql`insert into events (store, type, data, created_at)
    select ${store}, 'order.created', jsonb_build_object('history', k), now() - make_interval(hours => k) from generate_series(1, ${ORDER_HISTORY}) k`);
  await db.execute(sql`analyze`);
  const groups = (
    await queryRows<{ group: string }>(
      db,
      sql`select distinct p.group_slug as group from products p where p.store = ${store} and p.group_slug is not null and ${visibleProduct('p')}
          order by 1 limit 1000`,
    )
  ).map((r) => r.group);
  const slugs: string[] = [];
  for (let i = 1; slugs.length < 1000 && i <= products; i += Math.max(1, Math.floor(products / 1500))) if (visible(i)) slugs.push(`product-${i}`);
  // The cursor the API would hand out 60 products before the end of the visible catalog.
  const [deep] = await queryRows<{ id: string; createdAt: Date | string }>(
    db,
    sql`select p.id::text as id, p.created_at as "createdAt" from products p where p.store = ${store} and ${visibleProduct('p')}
        order by p.created_at asc, p.id asc offset 60 limit 1`,
  );
  const deepCursor = encodeCursor({ keys: [toIso(deep!.createdAt)], id: deep!.id }, listBinding({ store, sort: '-createdAt' }));
  return {
    store,
    deepCursor,
    storefront: tokens.storefront,
    admin: tokens.admin,
    customer: (await mintCustomerToken(db, store, customerId, 2592000)).secret,
    collectionSlug: 'collection-7',
    slugs,
    groups,
    hotProductIds: hot.map((r) => r.id),
    selloutProductId: sellout!.id,
    customerId,
    addressId: address!.id,
    orderCartIds: carts.order,
    ceilingOrderCartIds: carts.ceiling,
    addCartIds: carts.add,
  };
}

/**
 * A past order line keeps the product as it was, every field the API shows (an order answer
 * serializes it), as the order path writes it; the history's lines are priced at 100.
 */
function historySnapshot(alias: string) {
  const columns = getTableColumns(products) as Record<string, { name: string; columnType: string }>;
  const pairs = PRODUCT_FIELD_NAMES.map((key) => {
    const column = `${alias}.${columns[key]!.name}`;
    const value = columns[key]!.columnType === 'PgTimestamp' ? `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` : column;
    return `'${key}', ${key === 'price' ? '100' : value}`;
  });
  return sql.raw(`jsonb_build_object(${pairs.join(', ')})`);
}
