/**
 * The example storefront: a single page on the typed client (clients/typescript). The public
 * storefront token reads the catalog and keeps the cart; checkout starts a guest session and uses
 * its customer token for the customer's own routes (addresses, orders).
 */
import { createStorefrontClient, type Cart, type Order, type Problem, type Product, type operations } from '../../clients/typescript/src/index.js';

interface Settings {
  apiUrl: string;
  storefrontToken: string;
}
interface Session {
  customerId: string;
  secret: string;
}

const settings = (await (await fetch('/config.json')).json()) as Settings;
const shop = createStorefrontClient({ baseUrl: settings.apiUrl, token: settings.storefrontToken });
const me = createStorefrontClient({ baseUrl: settings.apiUrl, token: () => session()?.secret });

const view = document.getElementById('view')!;
const message = document.getElementById('message')!;
const money = (cents: number) => `$${(cents / 100).toFixed(2)}`;
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// The cart id and the guest session live in this browser only.
const stored = <T>(key: string): T | undefined => JSON.parse(localStorage.getItem(key) ?? 'null') ?? undefined;
const session = () => stored<Session>('session');
const cartId = () => stored<string>('cartId');
const remember = (key: string, value: unknown) => (value === undefined ? localStorage.removeItem(key) : localStorage.setItem(key, JSON.stringify(value)));

function show(text: string, kind: 'error' | 'ok' = 'error') {
  message.textContent = text;
  message.className = kind === 'ok' ? 'ok' : '';
  message.hidden = false;
}

/** A problem as a sentence a shopper understands. */
function explain(problem: Partial<Problem> | undefined, names: Map<string, string> = new Map()): string {
  const entries = (problem?.errors ?? []) as Array<{ productId?: string; available?: number; code?: string }>;
  const name = (id?: string) => names.get(id ?? '') ?? 'This product';
  const line = (e: { productId?: string; available?: number; code?: string }) =>
    e.code === 'INSUFFICIENT_STOCK' && (e.available ?? 0) > 0
      ? `Only ${e.available} left of ${name(e.productId)}.`
      : e.code === 'INSUFFICIENT_STOCK' ? `${name(e.productId)} is sold out.` : `${name(e.productId)} is no longer available.`;
  switch (problem?.code) {
    case 'INSUFFICIENT_STOCK':
    case 'PRODUCT_UNAVAILABLE':
      return entries.length ? entries.map(line).join(' ') : 'This product is sold out or no longer available.';
    case 'CART_EXPIRED':
    case 'CART_NOT_PENDING':
      return 'Your cart expired or was already ordered; it has been emptied.';
    case 'RATE_LIMITED':
      return 'Too many requests: wait a moment and try again.';
    case 'SERVICE_UNAVAILABLE':
      return 'The shop is briefly unavailable: try again in a moment.';
    case 'VALIDATION_FAILED':
      return `Please check your input: ${problem.detail}`;
    default:
      return problem?.detail ? `Something went wrong: ${problem.detail}` : 'Something went wrong: is the API running?';
  }
}

async function updateCartCount() {
  const id = cartId();
  let count = 0;
  if (id) {
    const { data } = await shop.GET('/api/v1/carts/{id}', { params: { path: { id } } });
    if (data?.cart.status === 'PENDING') count = data.cart.products.reduce((n, p) => n + p.order.quantity, 0);
    else remember('cartId', undefined);
  }
  document.getElementById('cart-count')!.textContent = String(count);
}

const stockText = (p: Product) => (p.quantity > 0 ? `<span class="stock" data-stock="${p.quantity}">${p.quantity} in stock</span>` : '<span class="soldout" data-stock="0">Sold out</span>');
const priceText = (p: { price: number; originalPrice: number | null }) =>
  `<span class="price">${money(p.price)}</span>${p.originalPrice ? `<span class="was">${money(p.originalPrice)}</span>` : ''}`;

type ProductQuery = NonNullable<operations['listProducts']['parameters']['query']> & { q?: string };
let searchSupported: boolean | undefined;

async function renderShop(params: URLSearchParams) {
  const collection = params.get('collection') ?? undefined;
  const q = params.get('q') ?? undefined;
  const [{ data: collections, error: collectionsError }, listed] = await Promise.all([
    shop.GET('/api/v1/collections'),
    (async () => {
      const query: ProductQuery = { limit: 48, ...(collection ? { collection } : {}), ...(q && searchSupported !== false ? { q } : {}) };
      return shop.GET('/api/v1/products', { params: { query } });
    })(),
  ]);
  // Search needs `q` on GET /v1/products; a service without it refuses the parameter: hide the box.
  if (q && listed.error?.code === 'VALIDATION_FAILED') {
    searchSupported = false;
    return renderShop(new URLSearchParams(collection ? { collection } : {}));
  }
  if (!collections || !listed.data) return show(explain(collectionsError ?? listed.error));
  const buttons = [`<button data-collection="" aria-pressed="${!collection}">All</button>`]
    .concat(collections.collections.map((c) => `<button data-collection="${escape(c.slug)}" aria-pressed="${c.slug === collection}">${escape(c.name)}</button>`))
    .join('');
  const search = searchSupported === false ? '' : `<form id="search"><input class="search" name="q" type="search" placeholder="Search products" value="${escape(q ?? '')}"></form>`;
  view.innerHTML = `<div class="filters">${buttons}${search}</div>
    <div class="grid">${listed.data.products
      .map((p) => `<div class="card" data-product="${escape(p.slug)}"><a href="#/p/${escape(p.slug)}"><h3>${escape(p.name)}</h3></a><p>${priceText(p)}</p><p>${stockText(p)}</p></div>`)
      .join('') || '<p>No products here.</p>'}</div>`;
  view.querySelectorAll<HTMLButtonElement>('[data-collection]').forEach((b) =>
    b.addEventListener('click', () => (location.hash = b.dataset.collection ? `#/?collection=${b.dataset.collection}` : '#/')),
  );
  view.querySelector<HTMLFormElement>('#search')?.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = new FormData(event.target as HTMLFormElement).get('q');
    location.hash = `#/?${new URLSearchParams({ ...(collection ? { collection } : {}), ...(value ? { q: String(value) } : {}) })}`;
  });
}

async function renderProduct(slug: string) {
  const { data, error } = await shop.GET('/api/v1/products/{slug}', { params: { path: { slug } } });
  if (!data) return show(error?.code === 'NOT_FOUND' ? 'This product does not exist or is no longer sold.' : explain(error));
  const p = data.product;
  view.innerHTML = `<article><h1>${escape(p.name)}</h1><p>${priceText(p)}</p><p>${stockText(p)}</p><div>${p.description}</div>
    <p><label>Quantity <input id="quantity" type="number" min="1" value="1" ${p.quantity === 0 ? 'disabled' : ''}></label></p>
    <button class="primary" id="add" ${p.quantity === 0 ? 'disabled' : ''}>${p.quantity === 0 ? 'Sold out' : 'Add to cart'}</button></article>`;
  document.getElementById('add')!.addEventListener('click', async () => {
    const quantity = Number((document.getElementById('quantity') as HTMLInputElement).value);
    await addToCart(p, quantity);
  });
}

async function addToCart(product: Product, quantity: number) {
  const names = new Map([[product.id, product.name]]);
  const id = cartId();
  const line = { id: product.id, quantity };
  const result = id
    ? await shop.POST('/api/v1/carts/{id}/products', { params: { path: { id } }, body: line })
    : await shop.POST('/api/v1/carts', { params: { header: { 'Idempotency-Key': crypto.randomUUID() } }, body: { products: [line] } });
  if (!result.data) {
    if (result.error?.code === 'CART_EXPIRED' || result.error?.code === 'CART_NOT_PENDING' || result.error?.code === 'NOT_FOUND') {
      remember('cartId', undefined);
      if (result.error.code === 'NOT_FOUND') return addToCart(product, quantity);
    }
    return show(explain(result.error, names));
  }
  const warnings = ('warnings' in result.data ? (result.data.warnings ?? []) : []) as Array<{ code: string; productId: string; available: number }>;
  if (warnings.length > 0) return show(explain({ code: warnings[0]!.code, errors: warnings }, names));
  remember('cartId', result.data.cart.id);
  await updateCartCount();
  show(`Added ${quantity} × ${product.name} to your cart.`, 'ok');
}

function cartTable(lines: Cart['products'] | Order['products'], editable: boolean) {
  return `<table><tr><th>Product</th><th>Quantity</th><th>Price</th>${editable ? '<th></th>' : ''}</tr>${lines
    .map((l) => `<tr data-line="${l.id}"><td>${escape(l.name)}</td><td>${editable ? `<input type="number" min="0" value="${l.order.quantity}" data-quantity="${l.id}">` : l.order.quantity}</td><td>${money(l.order.price)}</td>${editable ? `<td><button data-remove="${l.id}">Remove</button></td>` : ''}</tr>`)
    .join('')}</table>`;
}

async function renderCart() {
  const id = cartId();
  const { data, error } = id ? await shop.GET('/api/v1/carts/{id}', { params: { path: { id } } }) : { data: undefined, error: undefined };
  if (error && error.code !== 'NOT_FOUND') return show(explain(error));
  const cart = data?.cart.status === 'PENDING' ? data.cart : undefined;
  if (!cart) {
    remember('cartId', undefined);
    view.innerHTML = '<h1>Your cart</h1><p>Your cart is empty. <a href="#/">Keep shopping</a>.</p>';
    return;
  }
  const names = new Map(cart.products.map((l) => [l.id, l.name]));
  view.innerHTML = `<h1>Your cart</h1>${cartTable(cart.products, true)}<p>Total: <span class="price" id="total">${money(cart.price)}</span></p>
    <button class="primary" id="checkout">Check out</button>`;
  view.querySelectorAll<HTMLInputElement>('[data-quantity]').forEach((input) =>
    input.addEventListener('change', async () => {
      const r = await shop.PATCH('/api/v1/carts/{id}/products/{pid}', { params: { path: { id: cart.id, pid: input.dataset.quantity! } }, body: { quantity: Number(input.value) } });
      if (r.error) show(explain(r.error, names));
      await Promise.all([renderCart(), updateCartCount()]);
    }),
  );
  view.querySelectorAll<HTMLButtonElement>('[data-remove]').forEach((button) =>
    button.addEventListener('click', async () => {
      const r = await shop.DELETE('/api/v1/carts/{id}/products/{pid}', { params: { path: { id: cart.id, pid: button.dataset.remove! } } });
      if (r.error) show(explain(r.error, names));
      await Promise.all([renderCart(), updateCartCount()]);
    }),
  );
  document.getElementById('checkout')!.addEventListener('click', () => (location.hash = '#/checkout'));
}

/** The guest session of this browser, started on first checkout with the storefront token. */
async function ensureSession(): Promise<Session | undefined> {
  const existing = session();
  if (existing) return existing;
  const { data, error } = await shop.POST('/api/v1/guest-sessions');
  if (!data) return void show(explain(error));
  const started = { customerId: data.customerId, secret: data.secret };
  remember('session', started);
  return started;
}

function renderCheckout() {
  const id = cartId();
  if (!id) return void (location.hash = '#/cart');
  const field = (name: string, label: string, required = true) => `<label>${label} <input name="${name}" ${required ? 'required' : ''}></label>`;
  view.innerHTML = `<h1>Checkout</h1><p>No account needed: you check out as a guest.</p><form id="address">
    ${field('street', 'Street')}${field('number', 'Number')}${field('complement', 'Complement', false)}${field('neightborhood', 'Neighborhood', false)}
    ${field('city', 'City')}${field('state', 'State')}${field('zipcode', 'Postal code')}${field('country', 'Country')}
    <button class="primary" type="submit">Place order</button></form>`;
  document.getElementById('address')!.addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const value = (name: string) => String(form.get(name) ?? '');
    const guest = await ensureSession();
    if (!guest) return;
    const customer = { customer: guest.customerId };
    const address = await me.POST('/api/v1/{customer}/addresses', {
      params: { path: customer, header: { 'Idempotency-Key': crypto.randomUUID() } },
      body: { address: { street: value('street'), number: value('number'), complement: value('complement'), neightborhood: value('neightborhood'), city: value('city'), state: value('state'), zipcode: value('zipcode'), country: value('country') } },
    });
    if (!address.data) {
      if (address.error?.code === 'UNAUTHORIZED') remember('session', undefined);
      return show(explain(address.error));
    }
    const { data: cart } = await shop.GET('/api/v1/carts/{id}', { params: { path: { id } } });
    const names = new Map((cart?.cart.products ?? []).map((l) => [l.id, l.name]));
    const placed = await me.POST('/api/v1/{customer}/orders', {
      params: { path: customer, header: { 'Idempotency-Key': crypto.randomUUID() } },
      body: { id, address: address.data.address.id },
    });
    if (!placed.data) {
      if (placed.error?.code === 'CART_EXPIRED' || placed.error?.code === 'CART_NOT_PENDING') remember('cartId', undefined);
      return show(explain(placed.error, names));
    }
    remember('cartId', undefined);
    await updateCartCount();
    location.hash = `#/orders/${placed.data.order.id}`;
  });
}

async function renderOrder(id: string) {
  const guest = session();
  if (!guest) return show('This order belongs to another browser session.');
  const { data, error } = await me.GET('/api/v1/{customer}/orders/{id}', { params: { path: { customer: guest.customerId, id } } });
  if (!data) return show(explain(error));
  const o = data.order;
  view.innerHTML = `<h1>Thank you!</h1><p id="confirmation">Order <code>${o.id}</code> is placed (${o.status}).</p>${cartTable(o.products, false)}
    <p>Total: <span class="price">${money(o.price)}</span></p><p>Ships to ${escape(o.address.street)} ${escape(o.address.number)}, ${escape(o.address.city)}.</p>
    <p><a href="#/orders">All my orders</a> · <a href="#/">Keep shopping</a></p>`;
}

async function renderOrders() {
  const guest = session();
  if (!guest) return void (view.innerHTML = '<h1>My orders</h1><p>No orders yet.</p>');
  const { data, error } = await me.GET('/api/v1/{customer}/orders', { params: { path: { customer: guest.customerId } } });
  if (!data) return show(explain(error));
  view.innerHTML = `<h1>My orders</h1>${data.orders.length === 0 ? '<p>No orders yet.</p>' : `<table id="orders"><tr><th>Order</th><th>Placed</th><th>Items</th><th>Total</th><th>Status</th></tr>${data.orders
    .map((o) => `<tr><td><a href="#/orders/${o.id}">${o.id.slice(0, 8)}</a></td><td>${new Date(o.createdAt).toLocaleString()}</td><td>${o.products.map((l) => `${l.order.quantity} × ${escape(l.name)}`).join(', ')}</td><td>${money(o.price)}</td><td>${o.status}</td></tr>`)
    .join('')}</table>`}`;
}

async function route() {
  message.hidden = true;
  const [path = '/', query = ''] = location.hash.slice(1).split('?');
  const parts = path.split('/').filter(Boolean);
  try {
    if (parts[0] === 'p' && parts[1]) await renderProduct(decodeURIComponent(parts[1]));
    else if (parts[0] === 'cart') await renderCart();
    else if (parts[0] === 'checkout') renderCheckout();
    else if (parts[0] === 'orders' && parts[1]) await renderOrder(parts[1]);
    else if (parts[0] === 'orders') await renderOrders();
    else await renderShop(new URLSearchParams(query));
  } catch {
    show('The shop cannot reach its API right now: try again in a moment.');
  }
}

window.addEventListener('hashchange', () => void route());
await Promise.all([route(), updateCartCount()]);
