/** The shop window: the product grid with collections and search, and the product page. */
import type { Product, operations } from '../../../clients/typescript/src/index.js';
import { shop } from '../shop.js';
import { escape, explain, priceText, productImage, show, stockText, view } from '../ui.js';
import { addToCart } from './cart.js';

type ProductQuery = NonNullable<operations['listProducts']['parameters']['query']>;

function card(p: Product): string {
  return `<a class="card" href="#/p/${escape(p.slug)}" data-product="${escape(p.slug)}">
    ${productImage(p)}
    <h3>${escape(p.name)}</h3>
    <p>${priceText(p)}</p><p>${stockText(p)}</p></a>`;
}

export async function renderShop(params: URLSearchParams) {
  const collection = params.get('collection') ?? undefined;
  const q = params.get('q') ?? undefined;
  const query: ProductQuery = { limit: 48, ...(collection ? { collection } : {}), ...(q ? { q } : {}) };
  const [{ data: collections, error: collectionsError }, listed] = await Promise.all([
    shop.GET('/api/v1/collections'),
    shop.GET('/api/v1/products', { params: { query } }),
  ]);
  if (!collections || !listed.data) return show(explain(collectionsError ?? listed.error));
  const chips = [`<button class="chip" data-collection="" aria-pressed="${!collection}">All</button>`]
    .concat(collections.collections.map((c) => `<button class="chip" data-collection="${escape(c.slug)}" aria-pressed="${c.slug === collection}">${escape(c.name)}</button>`))
    .join('');
  const found = q ? `<p class="muted">${listed.data.total} found for “${escape(q)}”</p>` : '';
  view.innerHTML = `<div class="toolbar"><div class="chips">${chips}</div>
      <form id="search" role="search"><input class="input" name="q" type="search" placeholder="Search products" aria-label="Search products" value="${escape(q ?? '')}"></form></div>
    ${found}<div class="grid">${listed.data.products.map(card).join('') || '<p>No products here.</p>'}</div>`;
  view.querySelectorAll<HTMLButtonElement>('[data-collection]').forEach((b) =>
    b.addEventListener('click', () => (location.hash = b.dataset.collection ? `#/?collection=${b.dataset.collection}` : '#/')),
  );
  view.querySelector<HTMLFormElement>('#search')!.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = new FormData(event.target as HTMLFormElement).get('q');
    location.hash = `#/?${new URLSearchParams({ ...(collection ? { collection } : {}), ...(value ? { q: String(value) } : {}) })}`;
  });
}

// Where a variant picker goes once products have `group` and `options` (a Size or a Color among the
// products of one group, from GET /v1/product-groups/:group): it picks which product is added.
function productChoices(_product: Product): string {
  return '';
}

export async function renderProduct(slug: string) {
  const { data, error } = await shop.GET('/api/v1/products/{slug}', { params: { path: { slug } } });
  if (!data) return show(error?.code === 'NOT_FOUND' ? 'This product does not exist or is no longer sold.' : explain(error));
  const p = data.product;
  const soldOut = p.quantity === 0;
  view.innerHTML = `<p><a href="#/" class="back">← All products</a></p><article class="product">
    ${productImage(p, 'large')}
    <div class="details"><h1>${escape(p.name)}</h1><p class="big">${priceText(p)}</p><p>${stockText(p)}</p>
      ${productChoices(p)}
      <div class="buy"><label class="field inline">Quantity <input class="input qty" id="quantity" type="number" min="1" max="${Math.max(p.quantity, 1)}" value="1" ${soldOut ? 'disabled' : ''}></label>
      <button class="button primary" id="add" ${soldOut ? 'disabled' : ''}>${soldOut ? 'Sold out' : 'Add to cart'}</button></div>
      <div class="description">${p.description}</div>
      <p class="muted">SKU ${escape(p.sku)}</p></div></article>`;
  document.getElementById('add')!.addEventListener('click', async () => {
    const quantity = Number((document.getElementById('quantity') as HTMLInputElement).value);
    await addToCart(p, quantity);
  });
}
