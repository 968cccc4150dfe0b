/** A product group as a storefront's product page reads it: variants, their options, prices and stock. */
import type { Database } from '../../db/client.js';
import { AppError } from '../../plugins/errors.js';
import { listGroupProducts } from './groups-repository.js';
import type { ProductGroupView } from './groups-schemas.js';
import type { ProductView } from './schemas.js';
import { productView } from './views.js';
import { lessHeld } from './held.js';

/** Option names with their values, each in the order first met in the products. */
function optionsOf(products: ProductView[]): ProductGroupView['options'] {
  const values = new Map<string, Set<string>>();
  for (const product of products) {
    for (const [name, value] of Object.entries(product.options)) {
      let seen = values.get(name);
      if (!seen) values.set(name, (seen = new Set()));
      seen.add(value);
    }
  }
  return [...values].map(([name, seen]) => ({ name, values: [...seen] }));
}

/** The group's visible products, its options, price range and stock; 404 when none is visible. */
export async function getProductGroup(db: Database, store: string, group: string, held = false): Promise<{ group: ProductGroupView }> {
  const products = (await lessHeld(db, store, await listGroupProducts(db, store, group), held)).map(productView);
  if (products.length === 0) throw new AppError('NOT_FOUND', `product group "${group.slice(0, 100)}" has no visible product`);
  const prices = products.map((p) => p.price);
  return {
    group: {
      slug: group,
      options: optionsOf(products),
      priceRange: { min: Math.min(...prices), max: Math.max(...prices) },
      inStock: products.some((p) => p.quantity > 0),
      products,
    },
  };
}
