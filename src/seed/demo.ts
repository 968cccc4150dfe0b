/**
 * The demo store, seeded on an empty database: a small shop a person would believe, with a few
 * collections (one nested, one archived) and about 40 products, each with a picture and a line of
 * HTML description, among them one DRAFT, one in the archived collection and one sold out, and
 * four items sold in colours and sizes (product groups with options and pictures, one variant sold
 * out), and a discount code WELCOME10 (10 % off), so that every catalog rule, and a code in the
 * cart, can be tried by hand. The pictures are the project's own (assets/images, served at
 * /api/images/), so the demo works offline.
 */
import type { Database } from '../db/client.js';
import * as catalog from '../modules/catalog/admin-service.js';
import { createOwner, newPassword } from '../modules/staff/index.js';
import { createDiscount } from '../modules/discounts/index.js';
import { createShippingOption } from '../modules/shipping/index.js';
import { createTaxRate } from '../modules/taxes/index.js';
import { withRecordedEvents } from '../modules/events/index.js';
import { enableManualProvider } from '../modules/payments/index.js';
import { countStores, createStore, type CreatedStore } from '../modules/stores/index.js';

const COLLECTIONS = [
  { slug: 'apparel', name: 'Apparel', description: '<p>Clothes for every day.</p>' },
  { slug: 'shirts', name: 'Shirts', description: '<p>Linen, cotton and flannel shirts.</p>', parent: 'apparel' },
  { slug: 'accessories', name: 'Accessories', description: '<p>Bags, belts and hats.</p>' },
  { slug: 'home', name: 'Home', description: '<p>Things for the house.</p>' },
  { slug: 'last-season', name: 'Last season', description: '<p>Archived: its products are hidden.</p>', archived: true },
] as const;

/**
 * The single products: name, collection, price, a compare-at price a shop would print (or null),
 * and a line a shop would write. Each has its picture, assets/images/<slug>.svg
 * (scripts/demo-images.ts draws them).
 */
const ITEMS: Array<[name: string, collection: string, price: number, compareAt: number | null, about: string]> = [
  ['Oxford shirt', 'shirts', 5490, 6490, 'A button-down in soft oxford cotton that gets better with every wash.'],
  ['Flannel shirt', 'shirts', 5990, null, 'Brushed cotton flannel in a red check, warm enough for the first cold mornings.'],
  ['Denim shirt', 'shirts', 6490, null, 'Mid-weight denim with contrast stitching and two chest pockets.'],
  ['Chambray shirt', 'shirts', 4590, null, 'Light and breathable chambray, the shirt for long summer days.'],
  ['Polo shirt', 'shirts', 3990, null, 'Cotton piqué with a two-button placket and a collar that keeps its shape.'],
  ['Cotton hoodie', 'apparel', 6990, 8490, 'Heavy loopback cotton, a lined hood and a roomy front pocket.'],
  ['Rain jacket', 'apparel', 12990, null, 'Waterproof, taped seams and a hood that folds into the collar.'],
  ['Chino trousers', 'apparel', 7490, null, 'Stretch cotton twill with a straight leg, for the office and the weekend.'],
  ['Running shorts', 'apparel', 2990, null, 'Quick-drying shorts with a zipped back pocket for a key.'],
  ['Wool socks', 'apparel', 1290, null, 'Merino blend socks with a cushioned sole. Sold as a pair.'],
  ['Leather belt', 'accessories', 3490, 4490, 'Vegetable-tanned leather and a solid brass buckle.'],
  ['Canvas tote', 'accessories', 1990, null, 'Heavy cotton canvas with an inside pocket; carries a week of groceries.'],
  ['Beanie', 'accessories', 1790, null, 'A ribbed knit in soft wool with a pompom.'],
  ['Backpack', 'accessories', 8990, null, 'Twenty litres, a padded laptop sleeve and a front pocket for the small things.'],
  ['Wallet', 'accessories', 3990, null, 'A slim bifold in full-grain leather with six card slots.'],
  ['Linen napkins', 'home', 2290, 2990, 'A set of four in stonewashed linen, in natural tones.'],
  ['Scented candle', 'home', 1890, null, 'Soy wax with fig and cedar, about forty hours of burning.'],
  ['Throw blanket', 'home', 6990, null, 'A striped wool throw with fringed edges, for the sofa or the end of the bed.'],
  ['Teapot', 'home', 3590, null, 'Glazed stoneware with a steel infuser; pours four cups.'],
  ['Cutting board', 'home', 2790, null, 'Solid oak, oiled by hand, with a hole to hang it up.'],
  ['Desk lamp', 'home', 5990, 7490, 'An adjustable arm and a warm LED that lights a whole desk.'],
  ['Plant pot', 'home', 1590, null, 'Terracotta with a saucer, for herbs on a window sill.'],
  ['Notebook', 'home', 990, null, 'A5, dotted pages, lies flat when open.'],
  ['Water bottle', 'accessories', 2190, null, 'Insulated steel: cold for a day, hot for half of one.'],
  ['Umbrella', 'accessories', 2890, null, 'Compact, with a wind-proof frame that folds to the length of a forearm.'],
  ['Old raincoat', 'last-season', 4990, 6990, 'Last season\'s waxed cotton raincoat.'],
];

/**
 * Items sold in colours (and sizes): one product per combination, sharing a group. Each colour
 * has its picture; a larger size costs `larger` more per step; `soldOut` names a variant with no stock.
 */
const GROUPS: Array<{ group: string; name: string; collection: string; price: number; colours: string[]; sizes?: string[]; larger?: number; soldOut?: string; detail?: string; about: string }> = [
  { group: 'linen-shirt', name: 'Linen shirt', collection: 'shirts', price: 4990, colours: ['White', 'Blue', 'Sand'], sizes: ['S', 'M', 'L'], larger: 200, soldOut: 'Blue L', detail: 'linen-weave.svg', about: 'Washed European linen, cool on hot days and softer every time it is worn.' },
  { group: 'wool-sweater', name: 'Wool sweater', collection: 'apparel', price: 8990, colours: ['Grey', 'Navy'], sizes: ['M', 'L'], larger: 500, about: 'A crew neck in lambswool, knitted to keep its shape for years.' },
  { group: 'sun-hat', name: 'Sun hat', collection: 'accessories', price: 2490, colours: ['Natural', 'Black'], about: 'Woven paper straw with a wide brim that packs flat.' },
  { group: 'ceramic-mug', name: 'Ceramic mug', collection: 'home', price: 1490, colours: ['White', 'Sage'], sizes: ['300 ml', '450 ml'], larger: 300, about: 'Hand-glazed stoneware, safe in the dishwasher and the microwave.' },
];

const slugify = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
/** A shop's few lines: what it is, nothing the page already shows (its name, price or SKU). */
const describe = (about: string) => `<p>${about}</p>`;

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
          quantity: label === item.soldOut ? 0 : 2 + ((slug.length * 7 + step * 5) % 12), description: describe(item.about),
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
    for (const [index, [name, collection, price, compareAt, about]] of ITEMS.entries()) {
      const slug = slugify(name);
      const { product } = await catalog.createProduct(tx, record, store, {
        name,
        slug,
        sku: `DEMO-${String(index + 1).padStart(3, '0')}`,
        price,
        originalPrice: compareAt,
        // One sold out (the chambray shirt), one still a draft (the notebook).
        quantity: slug === 'chambray-shirt' ? 0 : 5 + ((index * 7) % 40),
        status: slug === 'notebook' ? 'DRAFT' : 'ACTIVE',
        description: describe(about),
        images: [{ url: `/api/images/${slug}.svg`, alt: name }],
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
  await seedShippingAndTaxes(db, store);
  await enableDemoPayments(db, store);
  // The dashboard's first owner; the password is printed once with the tokens.
  const password = newPassword();
  await db.transaction((tx) => createOwner(tx, store, DEMO_OWNER_EMAIL, password));
  return { ...created, owner: { email: DEMO_OWNER_EMAIL, password } };
}

/**
 * How the demo store ships and taxes (prices in USD, without tax): Standard, free from 100.00, and
 * Express; rates for a few countries and one US state, so a checkout shows shipping and tax.
 */
async function seedShippingAndTaxes(db: Database, store: string): Promise<void> {
  await db.transaction(async (tx) => {
    await createShippingOption(tx, store, { name: 'Standard', price: 500, freeAbove: 10000 });
    await createShippingOption(tx, store, { name: 'Express', price: 1500 });
    for (const rate of [
      { country: 'BR', rate: 1700, name: 'ICMS' },
      { country: 'DE', rate: 1900, name: 'VAT' },
      { country: 'FR', rate: 2000, name: 'TVA' },
      { country: 'GB', rate: 2000, name: 'VAT' },
      { country: 'US', region: 'CA', rate: 725, name: 'Sales tax' },
    ]) {
      await createTaxRate(tx, store, rate);
    }
  });
}

/** The demo store takes money the simplest way: the manual provider, paid on delivery. */
async function enableDemoPayments(db: Database, store: string): Promise<void> {
  await enableManualProvider(db, store, 'Pay on delivery');
}
