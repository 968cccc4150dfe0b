/** Product and collection shapes of the contract; every module that shows a product uses these. */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, NullableTimestamp, Offset, Limit, Slug, StringEnum, Timestamp, Uuid } from '../../lib/http-schemas.js';

export const ProductStatus = StringEnum(['DRAFT', 'ACTIVE'] as const, { description: 'DRAFT or ACTIVE' });

/** Product fields shared by catalog products and cart and order lines. */
export const productFields = {
  id: Uuid('product id'),
  store: Type.String({ description: 'slug of the store', examples: ['demo'] }),
  status: ProductStatus,
  name: Type.String({ examples: ['Linen shirt'] }),
  slug: Type.String({ examples: ['linen-shirt'] }),
  description: Type.String({ description: 'HTML', examples: ['<p>Breathable linen.</p>'] }),
  price: Type.Integer({ description: 'current unit price, in the smallest currency unit', examples: [4990] }),
  originalPrice: Nullable('integer', { description: 'price before discount, or null', examples: [5990] }),
  quantity: Type.Integer({ description: 'available quantity', examples: [12] }),
  sku: Type.String({ examples: ['LS-001'] }),
  createdAt: Timestamp(),
  updatedAt: NullableTimestamp(),
  deletedAt: NullableTimestamp(),
};

export const ProductCount = Type.Object({
  collections: Type.Integer({ description: 'non-deleted collections holding the product' }),
  orders: Type.Integer({ description: 'orders holding the product' }),
});

export const Product = Type.Object({ ...productFields, _count: ProductCount });
export type ProductView = Static<typeof Product>;

export const Collection = Type.Object({
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
});

/** The admin sees the archived flag and the parents too. */
export const AdminCollection = Type.Object({
  ...Collection.properties,
  archived: Type.Boolean(),
  parents: Type.Array(Uuid(), { description: 'ids of the parent collections' }),
});
export type AdminCollectionView = Static<typeof AdminCollection>;

export const PRODUCT_SORTS = ['createdAt', '-createdAt', 'price', '-price', 'name', '-name'] as const;
export type ProductSort = (typeof PRODUCT_SORTS)[number];

export const ListProductsQuery = Type.Object(
  {
    collection: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'slug of a collection' })),
    limit: Type.Optional(Limit),
    offset: Type.Optional(Offset),
    sort: Type.Optional(StringEnum(PRODUCT_SORTS, { default: '-createdAt', description: 'order of the list' })),
  },
  { additionalProperties: false },
);
export type ListProductsQuery = Static<typeof ListProductsQuery>;

export const PageQuery = Type.Object({ limit: Type.Optional(Limit), offset: Type.Optional(Offset) }, { additionalProperties: false });

export const ProductList = Type.Object({ products: Type.Array(Product), total: Type.Integer({ description: 'every match, not just the page' }) });
export const ProductEnvelope = Type.Object({ product: Product });
export const CollectionList = Type.Object({ collections: Type.Array(Collection), total: Type.Integer() });
export const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 255, description: 'product slug' }) });

// Admin bodies.
const Money = Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'smallest currency unit' });
const productWritable = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  slug: Slug(),
  sku: Type.String({ minLength: 1, maxLength: 255 }),
  price: Money,
  quantity: Type.Integer({ minimum: 0, maximum: 1_000_000_000 }),
  description: Type.String({ maxLength: 100_000, description: 'HTML' }),
  originalPrice: Type.Union([Money, Type.Null()]),
  status: ProductStatus,
};
export const CreateProductBody = Type.Object(
  {
    name: productWritable.name,
    slug: productWritable.slug,
    sku: productWritable.sku,
    price: productWritable.price,
    quantity: productWritable.quantity,
    description: Type.Optional(productWritable.description),
    originalPrice: Type.Optional(productWritable.originalPrice),
    status: Type.Optional(productWritable.status),
  },
  { additionalProperties: false },
);
export type CreateProductBody = Static<typeof CreateProductBody>;
export const UpdateProductBody = Type.Partial(Type.Object(productWritable), { additionalProperties: false, minProperties: 1 });
export type UpdateProductBody = Static<typeof UpdateProductBody>;

export const AdminListProductsQuery = Type.Object(
  { limit: Type.Optional(Limit), offset: Type.Optional(Offset), status: Type.Optional(ProductStatus) },
  { additionalProperties: false },
);
export type AdminListProductsQuery = Static<typeof AdminListProductsQuery>;

const collectionWritable = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  slug: Slug(),
  description: Type.String({ maxLength: 100_000, description: 'HTML' }),
  parents: Type.Array(Uuid(), { maxItems: 100, uniqueItems: true, description: 'ids of parent collections' }),
};
export const CreateCollectionBody = Type.Object(
  {
    name: collectionWritable.name,
    slug: collectionWritable.slug,
    description: Type.Optional(collectionWritable.description),
    parents: Type.Optional(collectionWritable.parents),
  },
  { additionalProperties: false },
);
export type CreateCollectionBody = Static<typeof CreateCollectionBody>;
export const UpdateCollectionBody = Type.Partial(Type.Object({ ...collectionWritable, archived: Type.Boolean() }), {
  additionalProperties: false,
  minProperties: 1,
});
export type UpdateCollectionBody = Static<typeof UpdateCollectionBody>;

export const IdParams = Type.Object({ id: Uuid() });
export const CollectionProductParams = Type.Object({ id: Uuid('collection id'), pid: Uuid('product id') });
export const ProductRefBody = Type.Object({ id: Uuid('product id') }, { additionalProperties: false });
export const AdminProductEnvelope = ProductEnvelope;
export const AdminProductList = ProductList;
export const AdminCollectionEnvelope = Type.Object({ collection: AdminCollection });
export const AdminCollectionList = Type.Object({ collections: Type.Array(AdminCollection), total: Type.Integer() });
