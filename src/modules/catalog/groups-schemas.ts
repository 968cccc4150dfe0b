/** GET /v1/product-groups/:group: one item and its variants, as a product page shows it. */
import { Type, type Static } from '@sinclair/typebox';
import { named } from '../../lib/http-schemas.js';
import { Product } from './schemas.js';

export const GroupParams = Type.Object({ group: Type.String({ minLength: 1, maxLength: 255, description: 'the group, as products name it in `group`' }) });

export const ProductGroup = named('ProductGroup', Type.Object({
  slug: Type.String({ examples: ['linen-shirt'] }),
  options: Type.Array(
    Type.Object({
      name: Type.String({ examples: ['Size'] }),
      values: Type.Array(Type.String(), { examples: [['S', 'M', 'L']] }),
    }),
    { description: 'every option name of the products with every value, names and values in the order first met in `products`' },
  ),
  priceRange: Type.Object({ min: Type.Integer(), max: Type.Integer() }, { description: 'lowest and highest `price` of the products' }),
  inStock: Type.Boolean({ description: 'true when any product has quantity > 0' }),
  products: Type.Array(Product, { description: 'the visible products of the group, oldest first' }),
}));
export type ProductGroupView = Static<typeof ProductGroup>;

export const ProductGroupEnvelope = named('ProductGroupEnvelope', Type.Object({ group: ProductGroup }));
