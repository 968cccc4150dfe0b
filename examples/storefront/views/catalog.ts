/** The shop window: the product grid with collections and search, and the product page with its variant picker. */
import type { Product, operations } from '../../../clients/typescript/src/index.js';
import { shop } from '../shop.js';
import { escape, explain, imageTag, money, priceText, show, stockText, view } from '../ui.js';
import { chooseValue, loadGroups, optionsText, valueState, variantToShow, type ProductGroup, type ValueState } from '../variants.js';
import { addToCart } from './cart.js';

type ProductQuery = NonNullable<operations['listProducts']['parameters']['query']>;

const productHref = (p: Product) => `#/p/${encodeURIComponent(p.slug)}`;

/** A card: a product, or an item of several variants (with its price range and its stock in all of them). */
function card(p: Product, group: ProductGroup | undefined): string {
  const { min, max } = group?.priceRange ?? { min: p.price, max: p.price };
  const price = min === max ? priceText(p) : `<span class="price">${money(min)} – ${money(max)}</span>`;
  const quantity = group ? group.products.reduce((sum, v) => sum + v.quantity, 0) : p.quantity;
  const opens = group ? variantToShow(group, p) : p;
  return `<a class="card" href="${productHref(opens)}" data-product="${escape(p.slug)}"${p.group ? ` data-group="${escape(p.group)}"` : ''}>
    ${imageTag(p.images[0], p.name)}
    <h3>${escape(p.name)}</h3>
    <p>${price}</p><p>${stockText({ quantity })}</p></a>`;
}

export async function renderShop(params: URLSearchParams) {
  const collection = params.get('collection') ?? undefined;
  const q = params.get('q') ?? undefined;
  // One card per item: the variants of a group are one entry (the first in the list's order).
  const query: ProductQuery = { limit: 48, collapse: 'group', ...(collection ? { collection } : {}), ...(q ? { q } : {}) };
  const [{ data: collections, error: collectionsError }, listed] = await Promise.all([
    shop.GET('/api/v1/collections'),
    shop.GET('/api/v1/products', { params: { query } }),
  ]);
  if (!collections || !listed.data) return show(explain(collectionsError ?? listed.error));
  // An entry carries its own price only: the range of an item of several variants is in its group view.
  const groups = await loadGroups(listed.data.products.filter((p) => p._count.variants > 1).map((p) => p.group));
  const chips = [`<button class="chip" data-collection="" aria-pressed="${!collection}">All</button>`]
    .concat(collections.collections.map((c) => `<button class="chip" data-collection="${escape(c.slug)}" aria-pressed="${c.slug === collection}">${escape(c.name)}</button>`))
    .join('');
  const found = q ? `<p class="muted">${listed.data.total} found for “${escape(q)}”</p>` : '';
  const cards = listed.data.products.map((p) => card(p, p.group ? groups.get(p.group) : undefined));
  view.innerHTML = `<div class="toolbar"><div class="chips">${chips}</div>
      <form id="search" role="search"><input class="input" name="q" type="search" placeholder="Search products" aria-label="Search products" value="${escape(q ?? '')}"></form></div>
    ${found}<div class="grid">${cards.join('') || '<p>No products here.</p>'}</div>`;
  view.querySelectorAll<HTMLButtonElement>('[data-collection]').forEach((b) =>
    b.addEventListener('click', () => (location.hash = b.dataset.collection ? `#/?collection=${b.dataset.collection}` : '#/')),
  );
  view.querySelector<HTMLFormElement>('#search')!.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = new FormData(event.target as HTMLFormElement).get('q');
    location.hash = `#/?${new URLSearchParams({ ...(collection ? { collection } : {}), ...(value ? { q: String(value) } : {}) })}`;
  });
}

const UNAVAILABLE: Record<Exclude<ValueState, 'available'>, string> = { 'sold-out': 'sold out', missing: 'not available' };

/**
 * The variant picker: one group of radio buttons per option name, in the group's order. A value is
 * disabled when no variant in stock has it together with the values chosen above it (sold out, or
 * no such combination); the chosen variant's values stay checked even when it is sold out.
 */
function productChoices(chosen: Product, group: ProductGroup | undefined): string {
  if (!group) return '';
  return group.options
    .map(({ name, values }, index) => {
      const radios = values.map((value, v) => {
        const state = valueState(group, chosen, index, value);
        const why = state === 'available' ? '' : `<span class="visually-hidden"> (${UNAVAILABLE[state]})</span>`;
        return `<label class="value"><input type="radio" name="option-${index}" id="option-${index}-${v}" value="${escape(value)}" data-option="${index}"
          ${chosen.options[name] === value ? 'checked' : ''} ${state === 'available' ? '' : 'disabled'}><span class="chip">${escape(value)}${why}</span></label>`;
      });
      const current = chosen.options[name];
      return `<fieldset class="picker"><legend>${escape(name)}${current ? `: <strong>${escape(current)}</strong>` : ''}</legend><div class="values">${radios.join('')}</div></fieldset>`;
    })
    .join('');
}

/** The chosen variant's pictures: the one shown large, and a button per picture when there are several. */
function gallery(p: Product, shown: number): string {
  const main = imageTag(p.images[shown], p.name, 'large');
  if (p.images.length < 2) return `<div class="gallery">${main}</div>`;
  const thumbs = p.images.map(
    (image, i) => `<button type="button" class="thumb-button" id="picture-${i}" data-picture="${i}" aria-pressed="${i === shown}">${imageTag(image, p.name, 'thumb')}</button>`,
  );
  return `<div class="gallery">${main}<div class="thumbs" role="group" aria-label="Pictures">${thumbs.join('')}</div></div>`;
}

/** The page of `p`, one variant of `group` when it has one: drawn once, its parts redrawn as the shopper chooses. */
function showProduct(p: Product, group: ProductGroup | undefined) {
  let chosen = p;
  let picture = 0;
  view.innerHTML = `<p><a href="#/" class="back">← All products</a></p><article class="product"><div id="gallery"></div>
    <div class="details"><h1 id="name"></h1><div id="variant" aria-live="polite"></div><div id="choices"></div>
      <div class="buy"><label class="field inline">Quantity <input class="input qty" id="quantity" type="number" min="1" value="1"></label>
      <button class="button primary" id="add">Add to cart</button></div><div id="about"></div></div></article>`;
  const part = (id: string) => document.getElementById(id)!;
  const quantity = part('quantity') as HTMLInputElement;
  const add = part('add') as HTMLButtonElement;
  // `focus` names the control that keeps the focus once its part is redrawn.
  const draw = (focus?: string) => {
    const soldOut = chosen.quantity === 0;
    const options = group ? optionsText(chosen.options, group.options.map((o) => o.name)) : '';
    part('name').textContent = chosen.name;
    part('gallery').innerHTML = gallery(chosen, picture);
    part('variant').innerHTML = `<p class="big">${options ? `<span class="visually-hidden">${escape(options)}: </span>` : ''}${priceText(chosen)}</p><p>${stockText(chosen)}</p>`;
    part('choices').innerHTML = productChoices(chosen, group);
    quantity.max = String(Math.max(chosen.quantity, 1));
    quantity.value = String(Math.max(1, Math.min(Number(quantity.value) || 1, chosen.quantity)));
    quantity.disabled = add.disabled = soldOut;
    add.textContent = soldOut ? 'Sold out' : 'Add to cart';
    part('about').innerHTML = `<div class="description">${chosen.description}</div><p class="muted">SKU ${escape(chosen.sku)}</p>`;
    if (focus) document.getElementById(focus)?.focus();
  };
  add.addEventListener('click', () => void addToCart(chosen, Number(quantity.value)));
  part('gallery').addEventListener('click', (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('[data-picture]');
    if (!button) return;
    picture = Number(button.dataset.picture);
    draw(button.id);
  });
  part('choices').addEventListener('change', (event) => {
    const radio = event.target as HTMLInputElement;
    const next = group && chooseValue(group, chosen, Number(radio.dataset.option), radio.value);
    if (!next) return;
    chosen = next;
    picture = 0;
    // The address names the variant, so a link or a reload shows the same one; no history entry per click.
    history.replaceState(null, '', productHref(chosen));
    draw(radio.id);
  });
  draw();
}

export async function renderProduct(slug: string) {
  const { data, error } = await shop.GET('/api/v1/products/{slug}', { params: { path: { slug } } });
  if (!data) return show(error?.code === 'NOT_FOUND' ? 'This product does not exist or is no longer sold.' : explain(error));
  const p = data.product;
  const group = p.group ? (await loadGroups([p.group])).get(p.group) : undefined;
  // A product that left its group between the two reads is shown on its own.
  const variant = group?.products.find((v) => v.id === p.id);
  showProduct(variant ?? p, variant ? group : undefined);
}
