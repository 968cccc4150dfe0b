/**
 * Variants on the page: the products of one `group` differ by their `options` ({Color: 'Blue',
 * Size: 'M'}). The group view (GET /v1/product-groups/:group) lists them with the option names and
 * values in the shop's order; this module answers which product a choice names, which values can
 * still be chosen, and how a line's options read ("Blue / M").
 */
import type { components, Product } from '../../clients/typescript/src/index.js';
import { shop } from './shop.js';

export type ProductGroup = components['schemas']['ProductGroup'];

/** How a value stands given the values chosen before it: some variant in stock, all sold out, or none. */
export type ValueState = 'available' | 'sold-out' | 'missing';

/** The group views of these groups, fetched at once (the API caches them; the browser revalidates by ETag); a group gone is left out. */
export async function loadGroups(groups: Iterable<string | null>): Promise<Map<string, ProductGroup>> {
  const slugs = [...new Set([...groups].filter((g): g is string => g !== null))];
  const answers = await Promise.all(slugs.map((group) => shop.GET('/api/v1/product-groups/{group}', { params: { path: { group } } })));
  return new Map(answers.flatMap((a) => (a.data ? [[a.data.group.slug, a.data.group] as const] : [])));
}

const sameUpTo = (names: string[], a: Product['options'], b: Product['options']) => names.every((name) => a[name] === b[name]);
const namesOf = (group: ProductGroup) => group.options.map((o) => o.name);

/**
 * Whether `value` of the option at `index` can be chosen: it is weighed with the values chosen
 * for the options before it only (Color, then Size), so every variant in stock stays one click per
 * option away and a choice never leads into a corner.
 */
export function valueState(group: ProductGroup, chosen: Product, index: number, value: string): ValueState {
  const earlier = namesOf(group).slice(0, index);
  const name = group.options[index]!.name;
  const matches = group.products.filter((p) => p.options[name] === value && sameUpTo(earlier, p.options, chosen.options));
  if (matches.length === 0) return 'missing';
  return matches.some((p) => p.quantity > 0) ? 'available' : 'sold-out';
}

/**
 * The variant the shopper gets by choosing `value` for the option at `index`: the product with
 * exactly that combination, even sold out (the page says so, rather than changing another choice
 * unasked); when it does not exist, the variant with this value and the earlier ones that is in
 * stock and keeps the most later choices.
 */
export function chooseValue(group: ProductGroup, chosen: Product, index: number, value: string): Product | undefined {
  const names = namesOf(group);
  const wanted = { ...chosen.options, [names[index]!]: value };
  const exact = group.products.find((p) => sameUpTo(names, p.options, wanted));
  if (exact) return exact;
  const later = names.slice(index + 1);
  const score = (p: Product) => (p.quantity > 0 ? 100 : 0) + later.filter((name) => p.options[name] === wanted[name]).length;
  const candidates = group.products.filter((p) => sameUpTo(names.slice(0, index + 1), p.options, wanted));
  return candidates.reduce<Product | undefined>((best, p) => (!best || score(p) > score(best) ? p : best), undefined);
}

/**
 * The variant a grid card opens: its own product when in stock, else the variant in stock that
 * shares its earliest options (a Blue one for a sold-out Blue L: Color before Size, in the group's order).
 */
export function variantToShow(group: ProductGroup, product: Product): Product {
  if (product.quantity > 0) return product;
  const names = namesOf(group);
  const shared = (p: Product) => names.reduce((score, name, i) => score + (p.options[name] === product.options[name] ? 2 ** (names.length - i) : 0), 0);
  const inStock = group.products.filter((p) => p.quantity > 0);
  return inStock.reduce<Product | undefined>((best, p) => (!best || shared(p) > shared(best) ? p : best), undefined) ?? product;
}

/**
 * Options as a shopper reads them, "Blue / M": in the order of `names` (the group's), then any
 * other. Order lines come back as JSON documents that do not keep the order of names, so an order
 * passes its groups' names; a cart line keeps the order its admin wrote.
 */
export function optionsText(options: Product['options'], names: readonly string[] = []): string {
  const ordered = [...names.filter((name) => name in options), ...Object.keys(options).filter((name) => !names.includes(name))];
  return ordered.map((name) => options[name]).join(' / ');
}

/** A product's name with its options, for messages: "Linen shirt (Blue / M)". */
export function productLabel(product: Pick<Product, 'name' | 'options'>): string {
  const options = optionsText(product.options);
  return options ? `${product.name} (${options})` : product.name;
}

/** The order of option names of each group among these lines, from the group views; for order lines. */
export async function optionNamesOf(lines: Array<Pick<Product, 'group'>>): Promise<Map<string, string[]>> {
  const groups = await loadGroups(lines.map((l) => l.group));
  return new Map([...groups].map(([slug, group]) => [slug, namesOf(group)]));
}
