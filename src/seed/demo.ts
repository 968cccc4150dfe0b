/**
 * The demo store, seeded on an empty database: a few collections (one nested, one archived) and
 * about 40 products with HTML descriptions, among them one DRAFT, one in the archived collection
 * and one sold out, and four items sold in colours and sizes (product groups with options and
 * pictures, one variant sold out), and a discount code WELCOME10 (10 % off), so that every catalog
 * rule, and a code in the cart, can be tried by hand. The pictures
 * are the project's own (assets/images, served at /api/images/), so the demo works offline.
 */
import type { Database } from '../db/client.js';
import * as catalog from '../modules/catalog/admin-service.js';
import { createOwner, newPassword } from '../modules/staff/index.js';
import { createDiscount } from '../modules/discounts/index.js';
import { withRecordedEvents } from '../modules/events/index.js';
import { countStores, createStore, type CreatedStore } from '../modules/stores/index.js';

const COLLECTIONS = [
  { slug: 'apparel', name: 'Apparel', description: '<p>Clothes for every day.</p>' },
  { slug: 'shirts', name: 'Shirts', description: '<p>Linen, cotton and flannel shirts.</p>', parent: 'apparel' },
  { slug: 'accessories', name: 'Accessories', description: '<p>Bags, belts and hats.</p>' },
  { slug: 'home', name: 'Home', description: '<p>Things for the house.</p>' },
  { slug: 'last-season', name: 'Last season', description: '<p>Archived: its products are hidden.</p>', archived: true },
] as const;

const ITEMS: Array<[name: string, collection: string, price: number]> = [
  ['Oxford shirt', 'shirts', 5490], ['Flannel shirt', 'shirts', 5990],
  ['Denim shirt', 'shirts', 6490], ['Chambray shirt', 'shirts', 4590], ['Polo shirt', 'shirts', 3990],
  ['Cotton hoodie', 'apparel', 6990], ['Rain jacket', 'apparel', 12990],
  ['Chino trousers', 'apparel', 7490], ['Running shorts', 'apparel', 2990], ['Wool socks', 'apparel', 1290],
  ['Leather belt', 'accessories', 3490], ['Canvas tote', 'accessories', 1990],
  ['Beanie', 'accessories', 1790], ['Backpack', 'accessories', 8990], ['Wallet', 'accessories', 3990],
  ['Linen napkins', 'home', 2290], ['Scented candle', 'home', 1890],
  ['Throw blanket', 'home', 6990], ['Teapot', 'home', 3590], ['Cutting board', 'home', 2790],
  ['Desk lamp', 'home', 5990], ['Plant pot', 'home', 1590], ['Notebook', 'home', 990],
  ['Water bottle', 'accessories', 2190], ['Umbrella', 'accessories', 2890], ['Old raincoat', 'last-season', 4990],
];

/**
 * Items sold in colours (and sizes): one product per combination, sharing a group. Each colour
 * has its picture; a larger size costs `larger` more per step; `soldOut` names a variant with no stock.
 */
const GROUPS: Array<{ group: string; name: string; collection: string; price: number; colours: string[]; sizes?: string[]; larger?: number; soldOut?: string; detail?: string }> = [
  { group: 'linen-shirt', name: 'Linen shirt', collection: 'shirts', price: 4990, colours: ['White', 'Blue', 'Sand'], sizes: ['S', 'M', 'L'], larger: 200, soldOut: 'Blue L', detail: 'linen-weave.svg' },
  { group: 'wool-sweater', name: 'Wool sweater', collection: 'apparel', price: 8990, colours: ['Grey', 'Navy'], sizes: ['M', 'L'], larger: 500 },
  { group: 'sun-hat', name: 'Sun hat', collection: 'accessories', price: 2490, colours: ['Natural', 'Black'] },
  { group: 'ceramic-mug', name: 'Ceramic mug', collection: 'home', price: 1490, colours: ['White', 'Sage'], sizes: ['300 ml', '450 ml'], larger: 300 },
];

const slugify = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
const describe = (name: string, sku: string) => `<h2>${name}</h2><p>A demo product: <strong>${name.toLowerCase()}</strong>, made to last.</p><ul><li>SKU ${sku}</li></ul>`;

/** Every variant of the demo's groups, as admin create bodies with their collection. */
function variantsOf(item: (typeof GROUPS)[number]) {
  return item.colours.flatMap((colour) =>
    (item.sizes ?? [undefined]).map((size, step) => {
      const slug = slugify([item.group, colour, size].filter(Boolean).join(' '));
      const sku = `DEMO-${slug.toUpperCase()}`;
      const label = [colour, size].filter(Boolean).join(' ');
      const options: Record<string, string> = size ? { Color: colour, Size: size } : { Color: colour };
      const images = [{ url: `/api/images/${item.group}-${colour.toLowerCase()}.svg`, alt: `${item.name}, ${colour.toLowerCase()}` }];
      if (item.detail) images.push({ url: `/api/images/${item.detail}`, alt: `${item.name}: the fabric up close` });
      return {
        collection: item.collection,
        body: {
          name: item.name, slug, sku, status: 'ACTIVE' as const, price: item.price + step * (item.larger ?? 0), originalPrice: null,
          quantity: label === item.soldOut ? 0 : 2 + ((slug.length * 7 + step * 5) % 12), description: describe(item.name, sku),
          group: item.group, options, images,
        },
      };
    }),
  );
}

/** Seeds the demo store when the database has no store yet; answers its tokens, or undefined. */
export const DEMO_OWNER_EMAIL = 'owner@demo.example';

export type SeededStore = CreatedStore & { owner: { email: string; password: string } };

export async function seedDemoStore(db: Database): Promise<SeededStore | undefined> {
  if ((await countStores(db)) > 0) return undefined;
  const created = await createStore(db, 'demo', 'Demo store');
  const store = created.store.slug;
  const collectionIds = await withRecordedEvents(db, store, async (tx, record) => {
    const ids = new Map<string, string>();
    for (const c of COLLECTIONS) {
      const parents = 'parent' in c ? [ids.get(c.parent)!] : undefined;
      const { collection } = await catalog.createCollection(tx, record, store, { slug: c.slug, name: c.name, description: c.description, parents });
      ids.set(c.slug, collection.id);
    }
    for (const [index, [name, collection, price]] of ITEMS.entries()) {
      const slug = slugify(name);
      const { product } = await catalog.createProduct(tx, record, store, {
        name,
        slug,
        sku: `DEMO-${String(index + 1).padStart(3, '0')}`,
        price,
        originalPrice: index % 5 === 0 ? Math.round(price * 1.25) : null,
        // One sold out (the chambray shirt), one still a draft (the notebook).
        quantity: slug === 'chambray-shirt' ? 0 : 5 + ((index * 7) % 40),
        status: slug === 'notebook' ? 'DRAFT' : 'ACTIVE',
        description: describe(name, `DEMO-${index + 1}`),
      });
      await catalog.addProductToCollection(tx, record, store, ids.get(collection)!, product.id);
    }
    // Archived once its products are in: products only it holds leave the storefront.
    await catalog.updateCollection(tx, record, store, ids.get('last-season')!, { archived: true });
    return ids;
  });
  // A group lists its variants oldest first, and its option values in that order (S, M, L): each
  // variant gets its own transaction, a millisecond apart, since a transaction's products share
  // one creation time and would fall back to the order of their random ids.
  for (const { collection, body } of GROUPS.flatMap(variantsOf)) {
    await new Promise((resolve) => setTimeout(resolve, 2));
    await withRecordedEvents(db, store, async (tx, record) => {
      const { product } = await catalog.createProduct(tx, record, store, body);
      await catalog.addProductToCollection(tx, record, store, collectionIds.get(collection)!, product.id);
    });
  }
  await db.transaction((tx) => createDiscount(tx, store, { code: 'WELCOME10', type: 'percentage', value: 10 }));
  // The dashboard's first owner; the password is printed once with the tokens.
  const password = newPassword();
  await db.transaction((tx) => createOwner(tx, store, DEMO_OWNER_EMAIL, password));
  return { ...created, owner: { email: DEMO_OWNER_EMAIL, password } };
}
