/**
 * The whole data model. Every table carries `store` (the store's slug) and every key and index
 * leads with it, so that one store's rows can live together on one node of a distributed
 * PostgreSQL (the store is the distribution column). Money and quantities are integers;
 * timestamps are timestamptz with millisecond precision.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  customType,
  foreignKey,
  index,
  integer,
  json,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const xid8 = customType<{ data: string }>({ dataType: () => 'xid8' });
const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });
const createdAt = () => ts('created_at').notNull().defaultNow();
/** Ids in creation order (lib/time-ordered-id.ts says why), made by the database when the service does not. */
const id = () => uuid('id').notNull().default(sql`uuid_v7()`);
const store = () => text('store').notNull().references(() => stores.slug);
/**
 * The store column of a table whose rows already lead to their store's row through another foreign
 * key of (store, ...): an order through its address, an order line through its order, a cart's line
 * or hold through its cart. A check of the store itself would add nothing, and it is not free:
 * PostgreSQL runs it for every row written, and share-locks (writes to) the store's row once per
 * transaction and store, so a round of orders of many stores paid it for each of them
 * (docs/performance.md, "The checks of the store's row").
 */
const storeOfParent = () => text('store').notNull();

/** The kinds of token (what each may do is the stores module's: modules/stores/tokens.ts). */
export const TOKEN_KIND_NAMES = ['admin', 'server', 'storefront', 'customer'] as const;
export type TokenKind = (typeof TOKEN_KIND_NAMES)[number];

export const stores = pgTable('stores', {
  slug: text('slug').primaryKey(),
  name: text('name').notNull(),
  /** ISO 4217; every price of the store is an integer in its smallest unit. */
  currency: text('currency').notNull().default('USD'),
  /** Whether the prices shown already hold the tax (the tax is then taken out of them, not added). */
  pricesIncludeTax: boolean('prices_include_tax').notNull().default(false),
  /** How long an order may stay unpaid; null: never cancelled for it. */
  unpaidOrderTimeoutSeconds: integer('unpaid_order_timeout_seconds').default(86400),
  createdAt: createdAt(),
  updatedAt: ts('updated_at'),
});

/**
 * Each store's catalog version and holds version (modules/stores/catalog-version.ts): cached
 * catalog answers are keyed by them. They are bumped right after every committed change that
 * alters a catalog answer and before that change is answered, so a read that follows a change, in
 * any process, never gets an older answer. One narrow row per store, read through its key with
 * every token. They were a sequence each per store, which PostgreSQL opens as a relation of its
 * own: with thousands of stores every connection built a cache entry per store on first touch
 * (about 0.2 ms each, and memory that grew with the stores). The bump is a statement of its own,
 * so the row lock is held only while it runs, never across a change's transaction, and orders of
 * different products never wait for each other on it. The row also holds the store's last order
 * number: a round of orders locks it from the statement that writes them to its commit (one round
 * at a time per process; see modules/stores/order-numbers.ts). Half-filled pages keep a busy store's
 * bumps on their page (HOT updates: no index entry per bump); the migration sets the fill factor.
 */
export const storeVersions = pgTable('store_versions', {
  store: text('store').primaryKey().references(() => stores.slug),
  catalog: bigint('catalog', { mode: 'number' }).notNull().default(0),
  holds: bigint('holds', { mode: 'number' }).notNull().default(0),
  /** The last order number given (modules/stores/order-numbers.ts): a new store's first order is 1001. */
  lastOrderNumber: integer('last_order_number').notNull().default(1000),
});

export const tokens = pgTable(
  'tokens',
  {
    store: store(),
    id: id(),
    kind: text('kind', { enum: TOKEN_KIND_NAMES }).notNull(),
    /** SHA-256 of the secret; the secret itself is shown once and never stored. */
    secretHash: text('secret_hash').notNull(),
    /** The customer a `customer` token (or guest session) is bound to; null for the other kinds. */
    customerId: uuid('customer_id'),
    /** A guest session's token: its customer id is new with each session, so it says nothing of who shops. */
    guest: boolean('guest').notNull().default(false),
    createdAt: createdAt(),
    /** Customer tokens expire; the store's own tokens live until revoked. */
    expiresAt: ts('expires_at'),
    revokedAt: ts('revoked_at'),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.id] }),
    uniqueIndex('tokens_store_secret_hash_key').on(t.store, t.secretHash),
    index('tokens_store_customer_idx').on(t.store, t.customerId).where(sql`${t.customerId} is not null`),
    check('tokens_kind_check', sql`${t.kind} in (${sql.raw(TOKEN_KIND_NAMES.map((k) => `'${k}'`).join(', '))})`),
    check('tokens_customer_check', sql`(${t.kind} = 'customer') = (${t.customerId} is not null)`),
  ],
);

/**
 * A store's own identity provider: bearer JWTs whose `iss` and `aud` match are verified with its
 * JWK Set (fetched from `jwks_url`, or given inline as `jwks`). One (issuer, audience) names one store.
 */
export const customerAuth = pgTable(
  'customer_auth',
  {
    store: text('store').primaryKey().references(() => stores.slug),
    issuer: text('issuer').notNull(),
    audience: text('audience').notNull(),
    jwksUrl: text('jwks_url'),
    jwks: jsonb('jwks').$type<{ keys: Array<{ kty: string } & Record<string, unknown>> }>(),
    createdAt: createdAt(),
    updatedAt: ts('updated_at'),
  },
  (t) => [
    uniqueIndex('customer_auth_issuer_audience_key').on(t.issuer, t.audience),
    check('customer_auth_one_key_source_check', sql`(${t.jwksUrl} is null) <> (${t.jwks} is null)`),
  ],
);

export const products = pgTable(
  'products',
  {
    store: store(),
    id: id(),
    status: text('status', { enum: ['DRAFT', 'ACTIVE'] }).notNull().default('DRAFT'),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    description: text('description').notNull().default(''),
    price: integer('price').notNull(),
    originalPrice: integer('original_price'),
    quantity: integer('quantity').notNull(),
    /** Most units of it one cart line, hold or order line may have; null: only the API's 100000. */
    maxPerOrder: integer('max_per_order'),
    sku: text('sku').notNull(),
    /** Products sharing a group are the variants of one item (`group` is an SQL keyword, hence the column name). */
    group: text('group_slug'),
    /**
     * Option name to value. `json`, not `jsonb`: it keeps the order the admin wrote, which is the
     * order a storefront shows the pickers in. Equality (one combination per group) is decided on
     * a normalized jsonb of it, in a unique index of the custom migration.
     */
    options: json('options').$type<Record<string, string>>().notNull().default({}),
    images: jsonb('images').$type<Array<{ url: string; alt: string }>>().notNull().default([]),
    /** The tax category its rates are chosen by (a rate of the same category wins over the general one). */
    taxCategory: text('tax_category'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at'),
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.id] }),
    // A group's products, for `_count.variants`, the group view, `group=` and collapsing.
    index('products_store_group_idx').on(t.store, t.group).where(sql`${t.group} is not null and ${t.deletedAt} is null`),
    uniqueIndex('products_store_slug_key').on(t.store, t.slug).where(sql`${t.deletedAt} is null`),
    index('products_store_created_at_idx').on(t.store, t.createdAt.desc(), t.id.desc()),
    index('products_store_price_idx').on(t.store, t.price, t.id),
    index('products_store_name_idx').on(t.store, t.name, t.id),
    check('products_status_check', sql`${t.status} in ('DRAFT', 'ACTIVE')`),
    check('products_price_check', sql`${t.price} >= 0`),
    check('products_original_price_check', sql`${t.originalPrice} >= 0`),
    check('products_max_per_order_check', sql`${t.maxPerOrder} >= 1`),
    // The last line of defence against overselling: stock can never go below zero.
    check('products_quantity_check', sql`${t.quantity} >= 0`),
  ],
);

/**
 * The distinct words of product names, per store, for the one-typo rule of search. Filled by
 * triggers on products (custom migration), so no write path has to remember it; words of renamed
 * or deleted products stay, which costs a little space and never a wrong match (products are
 * matched again by their own search column).
 */
export const productNameWords = pgTable(
  'product_name_words',
  {
    store: store(),
    word: text('word').notNull(),
  },
  (t) => [primaryKey({ columns: [t.store, t.word] })],
);

export const collections = pgTable(
  'collections',
  {
    store: store(),
    id: id(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    description: text('description').notNull().default(''),
    archived: boolean('archived').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: ts('updated_at'),
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.id] }),
    uniqueIndex('collections_store_slug_key').on(t.store, t.slug).where(sql`${t.deletedAt} is null`),
    index('collections_store_created_at_idx').on(t.store, t.createdAt, t.id),
  ],
);

/** Many products per collection and many collections per product. */
export const collectionProducts = pgTable(
  'collection_products',
  {
    store: store(),
    collectionId: uuid('collection_id').notNull(),
    productId: uuid('product_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.collectionId, t.productId] }),
    foreignKey({ columns: [t.store, t.collectionId], foreignColumns: [collections.store, collections.id] }),
    foreignKey({ columns: [t.store, t.productId], foreignColumns: [products.store, products.id] }),
    index('collection_products_store_product_idx').on(t.store, t.productId),
  ],
);

/** Collection hierarchy: a collection may have several parents; cycles are refused. */
export const collectionParents = pgTable(
  'collection_parents',
  {
    store: store(),
    childId: uuid('child_id').notNull(),
    parentId: uuid('parent_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.childId, t.parentId] }),
    foreignKey({ columns: [t.store, t.childId], foreignColumns: [collections.store, collections.id] }),
    foreignKey({ columns: [t.store, t.parentId], foreignColumns: [collections.store, collections.id] }),
    index('collection_parents_store_parent_idx').on(t.store, t.parentId),
    check('collection_parents_not_self_check', sql`${t.childId} <> ${t.parentId}`),
  ],
);

/** The shipping of an order as it was placed. */
export type ShippingSnapshot = { optionId: string; name: string; country: string; region: string | null; amount: number };
/** One tax of an order as it was placed: its name and rate (basis points), and the amount. */
export type TaxLineSnapshot = { name: string; rate: number; amount: number };

/**
 * Tax rates: one per (country, region, category), region compared ignoring case (the unique index
 * of the migration). `rate` in basis points (825 = 8.25 %).
 */
export const taxRates = pgTable(
  'tax_rates',
  {
    store: store(),
    id: id(),
    country: text('country').notNull(),
    region: text('region'),
    category: text('category'),
    rate: integer('rate').notNull(),
    name: text('name').notNull(),
    createdAt: createdAt(),
    updatedAt: ts('updated_at'),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.id] }),
    uniqueIndex('tax_rates_store_place_key').on(t.store, t.country, sql`lower(coalesce(${t.region}, ''))`, sql`coalesce(${t.category}, '')`),
    check('tax_rates_rate_check', sql`${t.rate} between 0 and 10000`),
  ],
);

/** Shipping options: a price, where to (`countries`, empty: anywhere), free above a subtotal, from a minimum subtotal. */
export const shippingOptions = pgTable(
  'shipping_options',
  {
    store: store(),
    id: id(),
    name: text('name').notNull(),
    price: bigint('price', { mode: 'number' }).notNull(),
    countries: jsonb('countries').$type<string[]>().notNull().default([]),
    freeAbove: bigint('free_above', { mode: 'number' }),
    minSubtotal: bigint('min_subtotal', { mode: 'number' }).notNull().default(0),
    active: boolean('active').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: ts('updated_at'),
    deletedAt: ts('deleted_at'),
  },
  (t) => [primaryKey({ columns: [t.store, t.id] }), index('shipping_options_store_created_idx').on(t.store, t.createdAt.desc(), t.id.desc())],
);

/** A discount as an order applied it, kept as it was. */
export type DiscountSnapshot = { code: string; type: 'percentage' | 'fixed'; value: number; amount: number };

/**
 * Discount codes. `code` is stored upper-case and unique per store among non-deleted discounts.
 * `usage_count` counts the placed orders that are not cancelled; orders change it with a guarded
 * statement under the row's lock, so it never passes `usage_limit` (which an admin may still lower
 * below it: the code is then used up).
 */
export const discounts = pgTable(
  'discounts',
  {
    store: store(),
    id: id(),
    code: text('code').notNull(),
    type: text('type', { enum: ['percentage', 'fixed'] }).notNull(),
    value: integer('value').notNull(),
    minSubtotal: bigint('min_subtotal', { mode: 'number' }).notNull().default(0),
    startsAt: ts('starts_at'),
    endsAt: ts('ends_at'),
    usageLimit: integer('usage_limit'),
    usageCount: integer('usage_count').notNull().default(0),
    oncePerCustomer: boolean('once_per_customer').notNull().default(false),
    products: jsonb('products').$type<string[]>().notNull().default([]),
    collections: jsonb('collections').$type<string[]>().notNull().default([]),
    active: boolean('active').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: ts('updated_at'),
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.id] }),
    uniqueIndex('discounts_store_code_key').on(t.store, t.code).where(sql`${t.deletedAt} is null`),
    index('discounts_store_created_at_idx').on(t.store, t.createdAt.desc(), t.id.desc()),
    check('discounts_type_check', sql`${t.type} in ('percentage', 'fixed')`),
    check('discounts_usage_check', sql`${t.usageCount} >= 0`),
  ],
);

export const carts = pgTable(
  'carts',
  {
    store: store(),
    id: id(),
    status: text('status', { enum: ['PENDING', 'COMPLETED', 'EXPIRED'] }).notNull().default('PENDING'),
    customerId: uuid('customer_id'),
    addressId: uuid('address_id'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at'),
    deletedAt: ts('deleted_at'),
    expiresAt: ts('expires_at').notNull(),
    /** The discount code set on the cart (POST /v1/carts/:id/discount); it may stop applying. */
    discountId: uuid('discount_id'),
    /** Until when the cart's checkout hold lasts (its units are in cart_holds); null: no hold. */
    heldUntil: ts('held_until'),
    /** The shipping option chosen (PUT /v1/carts/:id/shipping) and where to: the cart is taxed for it. */
    shippingOptionId: uuid('shipping_option_id'),
    shippingCountry: text('shipping_country'),
    shippingRegion: text('shipping_region'),
    /** When its running hold was first taken: renewals end CART_HOLD_MAX_SECONDS after it. */
    holdStartedAt: ts('hold_started_at'),
    /** The client address that holds it, when a public caller did (HOLDS_PER_CLIENT counts these). */
    holdClient: text('hold_client'),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.id] }),
    // The held carts of one client address (HOLDS_PER_CLIENT).
    index('carts_store_hold_client_idx').on(t.store, t.holdClient, t.heldUntil).where(sql`${t.holdClient} is not null`),
    // The expiry job walks this per store, oldest first, in batches. (A partial index on PENDING
    // carts looked smaller, but the planner preferred it to the primary key for single-cart updates.)
    index('carts_store_expires_at_idx').on(t.store, t.expiresAt),
    check('carts_status_check', sql`${t.status} in ('PENDING', 'COMPLETED', 'EXPIRED')`),
  ],
);

export const cartLines = pgTable(
  'cart_lines',
  {
    store: storeOfParent(),
    cartId: uuid('cart_id').notNull(),
    productId: uuid('product_id').notNull(),
    quantity: integer('quantity').notNull(),
    /** Lines show in the order they were added; timestamps tie within one transaction. */
    position: bigint('position', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    createdAt: createdAt(),
    updatedAt: ts('updated_at'),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.cartId, t.productId] }),
    foreignKey({ columns: [t.store, t.cartId], foreignColumns: [carts.store, carts.id] }),
    foreignKey({ columns: [t.store, t.productId], foreignColumns: [products.store, products.id] }),
    check('cart_lines_quantity_check', sql`${t.quantity} > 0`),
  ],
);

/**
 * Checkout holds: units of a product a cart holds until `until` (the cart's `held_until`). A hold
 * never changes the stock: what is available is the stock less the holds whose `until` has not
 * passed, so a hold ends on its own with no job. Rows of ended holds are deleted with their cart's
 * next change, order or purge; until then `until` filters them out.
 */
export const cartHolds = pgTable(
  'cart_holds',
  {
    store: storeOfParent(),
    cartId: uuid('cart_id').notNull(),
    productId: uuid('product_id').notNull(),
    quantity: integer('quantity').notNull(),
    until: ts('until').notNull(),
  },
  (t) => [
    // The key leads with the cart (its id is unique across stores) so that it cannot serve a read of
    // a store's holds of some products. Led by the store, it could, walking every hold of the store
    // for each product, and for a busy store the planner took it: renewals move `until`, which grows
    // the (store, product) index and not the key, until the two look equally cheap
    // (test/database-connections.test.ts).
    primaryKey({ columns: [t.cartId, t.productId, t.store] }),
    foreignKey({ columns: [t.store, t.cartId], foreignColumns: [carts.store, carts.id] }),
    // Whether a store has unexpired holds, and the next to expire (catalog answers are valid until then).
    index('cart_holds_store_until_idx').on(t.store, t.until),
    // What is held of some products (their sums), for catalog reads, holds and orders.
    index('cart_holds_store_product_idx').on(t.store, t.productId, t.until),
    check('cart_holds_quantity_check', sql`${t.quantity} > 0`),
  ],
);

/**
 * Which products' held units changed, and by which transaction: a hold, release or cart change
 * writes its products' rows in its own transaction (modules/holds), then bumps the store's holds
 * version (store_versions, beside the catalog version) before answering. A
 * process that reads a newer holds version reads the rows written by transactions it had not seen
 * finish (`xid` at or above its last snapshot's xmin) and refreshes only the cached catalog answers
 * that show those products (catalog/held-marks.ts). One row per product, so it never grows past
 * the products ever held.
 */
export const catalogHoldMarks = pgTable(
  'catalog_hold_marks',
  {
    store: store(),
    productId: uuid('product_id').notNull(),
    xid: xid8('xid').notNull().default(sql`pg_current_xact_id()`),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.productId] }),
    // The products changed since a snapshot: one range read per catch-up.
    index('catalog_hold_marks_store_xid_idx').on(t.store, t.xid),
  ],
);

export const addresses = pgTable(
  'addresses',
  {
    store: store(),
    id: id(),
    customerId: uuid('customer_id').notNull(),
    alias: text('alias').notNull().default(''),
    zipcode: text('zipcode').notNull(),
    street: text('street').notNull(),
    state: text('state').notNull(),
    city: text('city').notNull(),
    country: text('country').notNull(),
    neightborhood: text('neightborhood').notNull().default(''),
    number: text('number').notNull(),
    complement: text('complement').notNull().default(''),
    /** The recipient and a phone for the parcel. */
    name: text('name').notNull().default(''),
    phone: text('phone').notNull().default(''),
    createdAt: createdAt(),
    updatedAt: ts('updated_at'),
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.id] }),
    index('addresses_store_customer_idx').on(t.store, t.customerId, t.createdAt.desc(), t.id.desc()),
  ],
);

export const orders = pgTable(
  'orders',
  {
    store: storeOfParent(),
    id: id(),
    customerId: uuid('customer_id').notNull(),
    addressId: uuid('address_id').notNull(),
    /** The cart this order was made from, if any. Unique: a cart becomes at most one order. */
    cartId: uuid('cart_id'),
    status: text('status', { enum: ['CREATED', 'PAID', 'FULFILLED', 'CANCELLED'] }).notNull().default('CREATED'),
    price: bigint('price', { mode: 'number' }).notNull(),
    originalPrice: bigint('original_price', { mode: 'number' }),
    /** The discount used, for its usage count and once-per-customer rule; `discount` is what was applied. */
    discountId: uuid('discount_id'),
    discount: jsonb('discount').$type<DiscountSnapshot>(),
    discountTotal: bigint('discount_total', { mode: 'number' }).notNull().default(0),
    /** What the shopper quotes: unique per store, from 1001, taken from the store's counter (store_versions). */
    number: integer('number').notNull(),
    email: text('email'),
    /** As placed: the store's currency then, whether its prices held the tax, the shipping and the taxes. */
    currency: text('currency').notNull().default('USD'),
    pricesIncludeTax: boolean('prices_include_tax').notNull().default(false),
    shipping: jsonb('shipping').$type<ShippingSnapshot>(),
    shippingTotal: bigint('shipping_total', { mode: 'number' }).notNull().default(0),
    taxLines: jsonb('tax_lines').$type<TaxLineSnapshot[]>().notNull().default([]),
    taxTotal: bigint('tax_total', { mode: 'number' }).notNull().default(0),
    /** The client address of an order placed with public credentials (UNPAID_ORDERS_PER_CLIENT counts its unpaid ones). */
    clientAddress: text('client_address'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at'),
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.id] }),
    uniqueIndex('orders_store_number_key').on(t.store, t.number),
    // The admin search by email (exact, ignoring case).
    index('orders_store_email_idx').on(t.store, sql`lower(${t.email})`).where(sql`${t.email} is not null`),
    foreignKey({ columns: [t.store, t.addressId], foreignColumns: [addresses.store, addresses.id] }),
    // Once per customer: the orders of a customer with a code, read under the discount's lock.
    index('orders_store_discount_customer_idx').on(t.store, t.discountId, t.customerId).where(sql`${t.discountId} is not null`),
    // Once per email: the orders with a code of an email, ignoring case.
    index('orders_store_discount_email_idx').on(t.store, t.discountId, sql`lower(${t.email})`).where(sql`${t.discountId} is not null and ${t.email} is not null`),
    // The unpaid orders of one client address (UNPAID_ORDERS_PER_CLIENT).
    index('orders_store_client_unpaid_idx').on(t.store, t.clientAddress).where(sql`${t.clientAddress} is not null and ${t.status} = 'CREATED'`),
    foreignKey({ columns: [t.store, t.cartId], foreignColumns: [carts.store, carts.id] }),
    uniqueIndex('orders_store_cart_key').on(t.store, t.cartId).where(sql`${t.cartId} is not null`),
    index('orders_store_customer_created_idx').on(t.store, t.customerId, t.createdAt.desc(), t.id.desc()),
    index('orders_store_status_created_idx').on(t.store, t.status, t.createdAt.desc()),
    index('orders_store_created_idx').on(t.store, t.createdAt.desc(), t.id.desc()),
    check('orders_status_check', sql`${t.status} in ('CREATED', 'PAID', 'FULFILLED', 'CANCELLED')`),
  ],
);

/**
 * The product as it was when ordered, kept whole so later edits do not change past orders: the
 * product row with its timestamps as ISO strings (what the API shows).
 */
export type ProductSnapshot = {
  [K in keyof typeof products.$inferSelect]: (typeof products.$inferSelect)[K] extends Date
    ? string
    : (typeof products.$inferSelect)[K] extends Date | null
      ? string | null
      : (typeof products.$inferSelect)[K];
};

export const orderLines = pgTable(
  'order_lines',
  {
    store: storeOfParent(),
    orderId: uuid('order_id').notNull(),
    productId: uuid('product_id').notNull(),
    quantity: integer('quantity').notNull(),
    unitPrice: integer('unit_price').notNull(),
    linePrice: bigint('line_price', { mode: 'number' }).notNull(),
    product: jsonb('product').$type<ProductSnapshot>().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.orderId, t.productId] }),
    foreignKey({ columns: [t.store, t.orderId], foreignColumns: [orders.store, orders.id] }),
    foreignKey({ columns: [t.store, t.productId], foreignColumns: [products.store, products.id] }),
    index('order_lines_store_product_idx').on(t.store, t.productId),
    check('order_lines_quantity_check', sql`${t.quantity} > 0`),
  ],
);

/**
 * Safe retries: the first completed answer per store, caller and key. A key in flight is held by a
 * transaction-level advisory lock, not by a row, so every row is a completed answer.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    store: store(),
    /**
     * Whose key space: `customer:<id>` on customer routes, `token:<id>` or `customer:<id>` on
     * POST /v1/carts. One caller's key never collides with, or reveals, another's.
     */
    caller: text('caller').notNull(),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    /**
     * Unused since keys in flight became advisory locks: nullable so that processes of the earlier
     * release, which still write them, and of this one run side by side during a rolling upgrade.
     * A later release drops them.
     */
    state: text('state', { enum: ['running', 'done'] }),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    createdAt: createdAt(),
    leaseUntil: ts('lease_until'),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.caller, t.key] }),
    index('idempotency_keys_store_expires_at_idx').on(t.store, t.expiresAt),
  ],
);

/**
 * A store's payment providers. Secrets (`stripe`'s secret key and webhook secret) are stored only
 * encrypted (AES-256-GCM with SECRETS_KEY, see modules/payments/secrets.ts) and never answered.
 */
export const paymentProviders = pgTable(
  'payment_providers',
  {
    store: store(),
    name: text('name', { enum: ['manual', 'stripe'] }).notNull(),
    enabled: boolean('enabled').notNull().default(true),
    captureMethod: text('capture_method', { enum: ['automatic', 'manual'] }).notNull().default('automatic'),
    instructions: text('instructions'),
    publishableKey: text('publishable_key'),
    secretKeyLast4: text('secret_key_last4'),
    secretKeyEncrypted: text('secret_key_encrypted'),
    webhookSecretEncrypted: text('webhook_secret_encrypted'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at'),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.name] }),
    check('payment_providers_name_check', sql`${t.name} in ('manual', 'stripe')`),
    check('payment_providers_capture_check', sql`${t.captureMethod} in ('automatic', 'manual')`),
  ],
);

/**
 * A payment of an order. `dueAction` is a provider call the service still owes (a refund or a
 * void decided in a transaction, made after its commit): settled once, by its idempotency key.
 */
export const payments = pgTable(
  'payments',
  {
    store: store(),
    id: id(),
    orderId: uuid('order_id').notNull(),
    provider: text('provider', { enum: ['manual', 'stripe'] }).notNull(),
    status: text('status', { enum: ['pending', 'authorized', 'succeeded', 'failed', 'cancelled'] }).notNull().default('pending'),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    currency: text('currency').notNull(),
    capturedAmount: bigint('captured_amount', { mode: 'number' }).notNull().default(0),
    refundedAmount: bigint('refunded_amount', { mode: 'number' }).notNull().default(0),
    intentId: text('intent_id'),
    clientSecret: text('client_secret'),
    instructions: text('instructions'),
    dueAction: text('due_action', { enum: ['refund', 'void'] }),
    createdAt: createdAt(),
    updatedAt: ts('updated_at'),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.id] }),
    foreignKey({ columns: [t.store, t.orderId], foreignColumns: [orders.store, orders.id] }),
    index('payments_store_order_idx').on(t.store, t.orderId),
    uniqueIndex('payments_store_intent_key').on(t.store, t.intentId).where(sql`${t.intentId} is not null`),
    index('payments_store_open_idx').on(t.store, t.createdAt).where(sql`${t.status} = 'pending' or ${t.dueAction} is not null`),
    check('payments_status_check', sql`${t.status} in ('pending', 'authorized', 'succeeded', 'failed', 'cancelled')`),
    check('payments_amounts_check', sql`${t.refundedAmount} >= 0 and ${t.refundedAmount} <= ${t.capturedAmount} and ${t.capturedAmount} <= ${t.amount}`),
  ],
);

/** A shipment of some of an order's units, with its tracking (lines: the products and quantities shipped). */
export const fulfillments = pgTable(
  'fulfillments',
  {
    store: store(),
    id: id(),
    orderId: uuid('order_id').notNull(),
    lines: jsonb('lines').$type<Array<{ productId: string; quantity: number }>>().notNull(),
    trackingNumber: text('tracking_number'),
    trackingUrl: text('tracking_url'),
    carrier: text('carrier'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.id] }),
    foreignKey({ columns: [t.store, t.orderId], foreignColumns: [orders.store, orders.id] }),
    index('fulfillments_store_order_idx').on(t.store, t.orderId),
  ],
);

/**
 * Money given back on an order. `parts` is how the amount was taken from the order's captured
 * payments (newest first); a Stripe part is `settled` once Stripe made it (its idempotency key is
 * the refund id and the payment id). The payments' `refundedAmount` counts a part from the start,
 * so two refunds can never give back more than was captured.
 */
export const refunds = pgTable(
  'refunds',
  {
    store: store(),
    id: id(),
    orderId: uuid('order_id').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    reason: text('reason'),
    lines: jsonb('lines').$type<Array<{ productId: string; quantity: number }>>().notNull(),
    restock: boolean('restock').notNull().default(false),
    parts: jsonb('parts').$type<Array<{ paymentId: string; amount: number; settled: boolean }>>().notNull(),
    status: text('status', { enum: ['pending', 'succeeded'] }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.id] }),
    foreignKey({ columns: [t.store, t.orderId], foreignColumns: [orders.store, orders.id] }),
    index('refunds_store_order_idx').on(t.store, t.orderId),
    index('refunds_pending_idx').on(t.store, t.createdAt).where(sql`${t.status} = 'pending'`),
    check('refunds_amount_check', sql`${t.amount} > 0`),
  ],
);

/** Stripe event ids already applied, per store: a repeated delivery changes nothing. */
export const paymentWebhookEvents = pgTable(
  'payment_webhook_events',
  {
    store: store(),
    eventId: text('event_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.store, t.eventId] })],
);
