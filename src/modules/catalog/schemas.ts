/** Product and collection shapes of the contract; every module that shows a product uses these. */
import { Type, type Static, type TObject, type TOptional, type TSchema } from '@sinclair/typebox';
import { Nullable, NullableTimestamp, Offset, Limit, Slug, StringEnum, Timestamp, Uuid, named } from '../../lib/http-schemas.js';

export const ProductStatus = StringEnum(['DRAFT', 'ACTIVE'] as const, { description: 'DRAFT or ACTIVE' });

const Money = Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'smallest currency unit' });

/** Option names and values: no blank, no space at either end ("M" and "M " would look like one value). */
const TRIMMED = '^\\S(?:.*\\S)?$';
const OptionsWrite = Type.Unsafe<Record<string, string>>({
  type: 'object',
  maxProperties: 3,
  propertyNames: { type: 'string', minLength: 1, maxLength: 40, pattern: TRIMMED },
  additionalProperties: { type: 'string', minLength: 1, maxLength: 80, pattern: TRIMMED },
  description: 'option name to value, at most 3 (names 1..40, values 1..80 characters); one product per combination in a group, compared ignoring case',
  examples: [{ Size: 'M', Color: 'Blue' }],
});
const OptionsRead = Type.Unsafe<Record<string, string>>({
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'option name to value; a product keeps the order its admin wrote (order lines and events may not: use the group view for the order of names)',
  examples: [{ Size: 'M', Color: 'Blue' }],
});
/**
 * An https:// URL, or a path on this API's host beginning with one `/`. No whitespace and no
 * backslash anywhere: browsers read `/\host` and `//host` as another host.
 */
const IMAGE_URL = '^(?:https://[^\\s/?#\\\\]+[^\\s\\\\]*|/(?![/\\\\])[^\\s\\\\]*)$';
const ImageWrite = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, pattern: IMAGE_URL, description: 'https:// URL or a path beginning with /', examples: ['/api/images/linen-shirt-blue.svg'] }),
    alt: Type.Optional(Type.String({ maxLength: 300, default: '', description: 'text for those who cannot see the image' })),
  },
  { additionalProperties: false },
);
const ImageRead = Type.Object({
  url: Type.String({ description: 'https:// URL, or a path on the API\'s host', examples: ['/api/images/linen-shirt-blue.svg'] }),
  alt: Type.String({ examples: ['Blue linen shirt, front'] }),
});

interface FieldSpec {
  /** The field as the API shows it. */
  read: TSchema;
  /** The field as an admin writes it; absent for fields the server sets. */
  write?: TSchema;
  /** Whether POST /v1/admin/products requires it (else it is optional there). */
  required?: true;
}

/**
 * Every product field of the API, declared once: how it reads and how an admin writes it. The
 * product shape, the cart and order lines, both admin bodies and the views derive from this
 * list, and the record type and column list from the Drizzle table: a new field is one column in
 * src/db/schema.ts, one entry here, and a migration.
 */
const PRODUCT_FIELDS = {
  id: { read: Uuid('product id') },
  store: { read: Type.String({ description: 'slug of the store', examples: ['demo'] }) },
  status: { read: ProductStatus, write: ProductStatus },
  name: { read: Type.String({ examples: ['Linen shirt'] }), write: Type.String({ minLength: 1, maxLength: 255 }), required: true },
  slug: { read: Type.String({ examples: ['linen-shirt'] }), write: Slug(), required: true },
  description: {
    read: Type.String({ description: 'HTML', examples: ['<p>Breathable linen.</p>'] }),
    write: Type.String({ maxLength: 100_000, description: 'HTML' }),
  },
  price: { read: Type.Integer({ description: 'current unit price, in the smallest currency unit', examples: [4990] }), write: Money, required: true },
  originalPrice: { read: Nullable('integer', { description: 'price before discount, or null', examples: [5990] }), write: Type.Union([Money, Type.Null()]) },
  quantity: { read: Type.Integer({ description: 'available quantity', examples: [12] }), write: Type.Integer({ minimum: 0, maximum: 1_000_000_000 }), required: true },
  maxPerOrder: {
    read: Nullable('integer', { description: 'most units of it one cart line, hold or order line may have; null: no limit of its own (lines are at most 100000)', examples: [null] }),
    write: Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000_000 }), Type.Null()]),
  },
  sku: { read: Type.String({ examples: ['LS-001'] }), write: Type.String({ minLength: 1, maxLength: 255 }), required: true },
  group: {
    read: Nullable('string', { description: 'products with the same group are the variants of one item; null for none', examples: ['linen-shirt'] }),
    write: Type.Union([Slug('the item this product is a variant of; null takes it out of its group'), Type.Null()]),
  },
  options: { read: OptionsRead, write: OptionsWrite },
  images: {
    read: Type.Array(ImageRead, { description: 'in order; the first is the main one' }),
    write: Type.Array(ImageWrite, { maxItems: 10, description: 'at most 10, in order; the first is the main one' }),
  },
  taxCategory: {
    read: Nullable('string', { description: 'the tax category its rates are chosen by; null: the general rate', examples: ['books'] }),
    write: Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Null()], { description: 'a category of tax rates (1..40 characters), or null' }),
  },
  createdAt: { read: Timestamp() },
  updatedAt: { read: NullableTimestamp() },
  deletedAt: { read: NullableTimestamp() },
} satisfies Record<string, FieldSpec>;
type ProductFieldSpecs = typeof PRODUCT_FIELDS;
type WritableKey = { [K in keyof ProductFieldSpecs]: ProductFieldSpecs[K] extends { write: TSchema } ? K : never }[keyof ProductFieldSpecs];
type RequiredKey = { [K in keyof ProductFieldSpecs]: ProductFieldSpecs[K] extends { required: true } ? K : never }[keyof ProductFieldSpecs];
type WriteSchema<K extends WritableKey> = ProductFieldSpecs[K] extends { write: infer W extends TSchema } ? W : never;

function mapFields<R>(pick: (spec: FieldSpec, key: string) => R | undefined): Record<string, R> {
  const shape: Record<string, R> = {};
  for (const [key, spec] of Object.entries(PRODUCT_FIELDS as Record<string, FieldSpec>)) {
    const value = pick(spec, key);
    if (value !== undefined) shape[key] = value;
  }
  return shape;
}

/** Product fields shared by catalog products and cart and order lines. */
export const productFields = mapFields((spec) => spec.read) as { [K in keyof ProductFieldSpecs]: ProductFieldSpecs[K]['read'] };
export const PRODUCT_FIELD_NAMES = Object.keys(PRODUCT_FIELDS) as Array<keyof ProductFieldSpecs>;
export type ProductFieldsView = Static<TObject<typeof productFields>>;

const productWritable = mapFields((spec) => spec.write) as { [K in WritableKey]: WriteSchema<K> };
const productCreatable = mapFields((spec, key) => (spec.write && !spec.required ? Type.Optional(spec.write) : spec.write)) as {
  [K in WritableKey]: K extends RequiredKey ? WriteSchema<K> : TOptional<WriteSchema<K>>;
};

export const ProductCount = Type.Object({
  collections: Type.Integer({ description: 'non-deleted collections holding the product' }),
  orders: Type.Integer({ description: 'orders holding the product' }),
  variants: Type.Integer({ description: 'visible products of its group (itself included when visible); 0 without a group' }),
});

export const Product = named('Product', Type.Object({ ...productFields, _count: ProductCount }));
export type ProductView = Static<typeof Product>;

export const Collection = named('Collection', Type.Object({
  id: Uuid('collection id'),
  store: Type.String({ examples: ['demo'] }),
  name: Type.String({ examples: ['Summer'] }),
  slug: Type.String({ examples: ['summer'] }),
  description: Type.String({ description: 'HTML' }),
  createdAt: Timestamp(),
  updatedAt: NullableTimestamp(),
  deletedAt: NullableTimestamp(),
  _count: Type.Object({
    parents: Type.Integer({ description: 'non-deleted, non-archived parent collections' }),
    children: Type.Integer({ description: 'non-deleted, non-archived child collections' }),
    products: Type.Integer({ description: 'visible products' }),
  }),
}));

/** The admin sees the archived flag and the parents too. */
export const AdminCollection = named('AdminCollection', Type.Object({
  ...Collection.properties,
  archived: Type.Boolean(),
  parents: Type.Array(Uuid(), { description: 'ids of the parent collections' }),
}));
export type AdminCollectionView = Static<typeof AdminCollection>;

export const PRODUCT_SORTS = ['createdAt', '-createdAt', 'price', '-price', 'name', '-name'] as const;
export type ProductSort = (typeof PRODUCT_SORTS)[number];

const Price = (description: string) => Type.Integer({ minimum: 0, maximum: 2_147_483_647, description });
/** `q`: 1..200 characters, not blank. */
const SearchQuery = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  // No example: the docs page's "Try it out" would fill it in and search instead of listing.
  description: 'search words, e.g. "linen shir": all must match a word, or the start of one, of the name, sku or description (case and accents ignored; one-letter typos in name words of 5+ letters)',
});

export const ListProductsQuery = Type.Object(
  {
    collection: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'slug of a collection' })),
    q: Type.Optional(SearchQuery),
    minPrice: Type.Optional(Price('lowest price, inclusive')),
    maxPrice: Type.Optional(Price('highest price, inclusive')),
    inStock: Type.Optional(Type.Boolean({ description: 'true: quantity > 0; false: quantity = 0' })),
    limit: Type.Optional(Limit),
    // No default: `after` with any `offset` is refused, so its absence must stay visible.
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000, description: 'rows to skip (not with after)' })),
    after: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'the nextCursor of the previous page, with the same collection, group, collapse, q, filters and sort' })),
    sort: Type.Optional(StringEnum(PRODUCT_SORTS, { description: 'order of the list; default -createdAt, or relevance with q' })),
    group: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'only the variants of this group' })),
    collapse: Type.Optional(StringEnum(['group'] as const, { description: '`group`: each group once, as its first product in this order' })),
  },
  { additionalProperties: false },
);
export type ListProductsQuery = Static<typeof ListProductsQuery>;

export const PageQuery = Type.Object({ limit: Type.Optional(Limit), offset: Type.Optional(Offset) }, { additionalProperties: false });

export const ProductList = named('ProductList', Type.Object({
  products: Type.Array(Product),
  total: Type.Integer({ description: 'every match, not just the page' }),
  nextCursor: Nullable('string', { description: 'pass as after= for the next page; null when no match follows' }),
}));
export const ProductEnvelope = named('ProductEnvelope', Type.Object({ product: Product }));
export const CollectionList = named('CollectionList', Type.Object({ collections: Type.Array(Collection), total: Type.Integer() }));
/** A conditional GET whose If-None-Match names the current ETag: no body. */
export const NotModified = Type.Null({ description: 'Not Modified' });
export const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 255, description: 'product slug' }) });

// Admin bodies.
export const CreateProductBody = named('CreateProductBody', Type.Object(productCreatable, { additionalProperties: false }));
export type CreateProductBody = Static<typeof CreateProductBody>;
export const UpdateProductBody = named('UpdateProductBody', Type.Partial(Type.Object(productWritable), { additionalProperties: false, minProperties: 1 }));
export type UpdateProductBody = Static<typeof UpdateProductBody>;

export const AdminListProductsQuery = Type.Object(
  {
    limit: Type.Optional(Limit),
    // No default, as on the storefront list: `after` with any `offset` is refused.
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000, description: 'rows to skip (not with after)' })),
    after: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'the nextCursor of the previous page, with the same status, q and group: a page as fast at row 100,000 as at row 1' })),
    status: Type.Optional(ProductStatus),
    q: Type.Optional(SearchQuery),
    group: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'only the products of this group (any status), e.g. to edit an item\'s variants' })),
  },
  { additionalProperties: false },
);
export type AdminListProductsQuery = Static<typeof AdminListProductsQuery>;

const collectionWritable = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  slug: Slug(),
  description: Type.String({ maxLength: 100_000, description: 'HTML' }),
  parents: Type.Array(Uuid(), { maxItems: 100, uniqueItems: true, description: 'ids of parent collections' }),
};
export const CreateCollectionBody = named('CreateCollectionBody', Type.Object(
  {
    name: collectionWritable.name,
    slug: collectionWritable.slug,
    description: Type.Optional(collectionWritable.description),
    parents: Type.Optional(collectionWritable.parents),
  },
  { additionalProperties: false },
));
export type CreateCollectionBody = Static<typeof CreateCollectionBody>;
export const UpdateCollectionBody = named('UpdateCollectionBody', Type.Partial(Type.Object({ ...collectionWritable, archived: Type.Boolean() }), {
  additionalProperties: false,
  minProperties: 1,
}));
export type UpdateCollectionBody = Static<typeof UpdateCollectionBody>;

export const IdParams = Type.Object({ id: Uuid() });
export const CollectionProductParams = Type.Object({ id: Uuid('collection id'), pid: Uuid('product id') });
export const ProductRefBody = named('ProductRef', Type.Object({ id: Uuid('product id') }, { additionalProperties: false }));
/** The admin's product: `quantity` is the stock itself, and `held` what unexpired checkout holds keep of it. */
export const AdminProduct = named('AdminProduct', Type.Object({
  ...productFields,
  quantity: Type.Integer({ description: 'the stock (the storefront shows it less `held`)', examples: [12] }),
  held: Type.Integer({ description: 'units under checkout holds that have not expired', examples: [0] }),
  _count: ProductCount,
}));
export type AdminProductView = Static<typeof AdminProduct>;
export const AdminProductEnvelope = named('AdminProductEnvelope', Type.Object({ product: AdminProduct }));
export const AdminProductList = named('AdminProductList', Type.Object({
  products: Type.Array(AdminProduct),
  total: Type.Integer({ description: 'every match, not just the page' }),
  nextCursor: Nullable('string', { description: 'pass as after= for the next page; null when no match follows' }),
}));
export const AdminCollectionEnvelope = named('AdminCollectionEnvelope', Type.Object({ collection: AdminCollection }));
export const AdminCollectionList = named('AdminCollectionList', Type.Object({ collections: Type.Array(AdminCollection), total: Type.Integer() }));

/** At most this many variants in one save (POST /v1/admin/product-groups/:group/variants). */
export const MAX_VARIANTS_PER_SAVE = 100;
/** Every writable product field but `group` (the path names it), each optional: which a new variant needs is checked per entry. */
const variantWritable = Object.fromEntries(
  Object.entries(productWritable).filter(([key]) => key !== 'group').map(([key, schema]) => [key, Type.Optional(schema)]),
) as { [K in Exclude<WritableKey, 'group'>]: TOptional<WriteSchema<K>> };
export const VariantWrite = named('VariantWrite', Type.Object(
  {
    id: Type.Optional(Uuid('a product of this store to change (and put in the group); without it, a new product, which needs name, slug, sku, price and quantity')),
    ...variantWritable,
  },
  { additionalProperties: false },
));
export type VariantWrite = Static<typeof VariantWrite>;
export const SaveVariantsBody = named('SaveVariantsBody', Type.Object(
  {
    variants: Type.Array(VariantWrite, {
      minItems: 1,
      maxItems: MAX_VARIANTS_PER_SAVE,
      description: `1..${MAX_VARIANTS_PER_SAVE} products of the group, created (no id) or changed (id), all or none`,
    }),
  },
  { additionalProperties: false },
));
export type SaveVariantsBody = Static<typeof SaveVariantsBody>;
export const GroupParams = Type.Object({ group: Slug('the group (an item sold in variants)') });
export const SavedVariants = named('SavedVariants', Type.Object({
  group: Type.String({ examples: ['linen-shirt'] }),
  products: Type.Array(AdminProduct, { description: 'the saved products, in the order of the request' }),
}));
