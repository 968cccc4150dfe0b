/** The cart: adding to it, its lines with unit prices, quantities and totals, and the count in the header. */
import type { Cart, Product, ProductLine } from '../../../clients/typescript/src/index.js';
import { cartId, rememberCart, shop } from '../shop.js';
import { escape, explain, money, productImage, show, view } from '../ui.js';
import { optionsText, productLabel } from '../variants.js';

/** The shopper's cart while it can still change, or undefined (none, expired or ordered). */
export async function currentCart(): Promise<Cart | undefined> {
  const id = cartId();
  if (!id) return undefined;
  const { data } = await shop.GET('/api/v1/carts/{id}', { params: { path: { id } } });
  if (data?.cart.status === 'PENDING' && !data.cart.deletedAt) return data.cart;
  rememberCart(undefined);
  return undefined;
}

export async function updateCartCount(cart?: Cart) {
  const current = cart ?? (await currentCart());
  document.getElementById('cart-count')!.textContent = String(current?.products.reduce((n, p) => n + p.order.quantity, 0) ?? 0);
}

export async function addToCart(product: Product, quantity: number) {
  const names = new Map([[product.id, productLabel(product)]]);
  const id = cartId();
  const line = { id: product.id, quantity };
  const result = id
    ? await shop.POST('/api/v1/carts/{id}/products', { params: { path: { id } }, body: line })
    : await shop.POST('/api/v1/carts', { params: { header: { 'Idempotency-Key': crypto.randomUUID() } }, body: { products: [line] } });
  if (!result.data) {
    if (result.error?.code === 'CART_EXPIRED' || result.error?.code === 'CART_NOT_PENDING' || result.error?.code === 'NOT_FOUND') {
      rememberCart(undefined);
      if (result.error.code === 'NOT_FOUND') return addToCart(product, quantity);
    }
    return show(explain(result.error, names));
  }
  const warnings = ('warnings' in result.data ? (result.data.warnings ?? []) : []) as Array<{ code: string; productId: string; available: number }>;
  if (warnings.length > 0) return show(explain({ code: warnings[0]!.code, errors: warnings }, names));
  rememberCart(result.data.cart.id);
  await updateCartCount(result.data.cart);
  show(`Added ${quantity} × ${productLabel(product)} to your cart.`, 'ok');
}

/**
 * Lines with their picture and options, unit price, quantity and line total; editable in the cart,
 * read-only on an order. `optionNames` orders each group's option names (see optionsText).
 */
export function linesTable(lines: ProductLine[], editable: boolean, optionNames = new Map<string, string[]>()): string {
  const rows = lines.map((l) => {
    // A cart line's `price` is the product's current unit price; an order line's, the price paid.
    const quantity = editable
      ? `<input class="input qty" type="number" min="0" value="${l.order.quantity}" data-quantity="${l.id}" aria-label="Quantity of ${escape(productLabel(l))}">`
      : String(l.order.quantity);
    const options = optionsText(l.options, optionNames.get(l.group ?? ''));
    // `each`: the unit price under the name, shown only where a phone has no room for its column.
    return `<tr data-line="${l.id}"><td><div class="item">${productImage(l, 'thumb')}<span>${escape(l.name)}${options ? `<span class="options">${escape(options)}</span>` : ''}<span class="each">${money(l.price)} each</span></span></div></td>
      <td class="num">${money(l.price)}</td><td class="num">${quantity}</td><td class="num">${money(l.order.price)}</td>
      ${editable ? `<td><button class="button secondary small" data-remove="${l.id}">Remove</button></td>` : ''}</tr>`;
  });
  return `<table class="lines"><thead><tr><th>Item</th><th class="num">Unit price</th><th class="num">Quantity</th><th class="num">Total</th>${editable ? '<th></th>' : ''}</tr></thead>
    <tbody>${rows.join('')}</tbody></table>`;
}

/**
 * Subtotal, the discount code (a field to enter one, or the one applied with what it takes off) and
 * the total to pay. A code that stopped applying stays on the cart at 0: the shopper is told why
 * only when ordering, so the cart says so plainly and offers to remove it.
 */
function cartSummary(cart: Cart): string {
  const code = cart.discount
    ? `<p id="discount">Code <strong>${escape(cart.discount.code)}</strong>${cart.discount.amount > 0 ? '' : ' (does not apply to this cart)'}
        <span class="price">−${money(cart.discountTotal)}</span> <button class="button secondary small" id="remove-code">Remove</button></p>`
    : `<form id="discount-form" class="inline"><label>Discount code <input class="input code" name="code" autocomplete="off" maxlength="40"></label>
        <button class="button secondary small" type="submit">Apply</button></form>`;
  return `<div class="summary"><div><p>Subtotal <span class="price" id="subtotal">${money(cart.price)}</span></p>${code}
    <p><strong>Total</strong> <span class="price" id="total">${money(cart.total)}</span></p></div></div>`;
}

export async function renderCart() {
  const cart = await currentCart();
  await updateCartCount(cart);
  if (!cart) {
    view.innerHTML = '<h1>Your cart</h1><p>Your cart is empty. <a href="#/">Keep shopping</a>.</p>';
    return;
  }
  const names = new Map(cart.products.map((l) => [l.id, productLabel(l)]));
  view.innerHTML = `<h1>Your cart</h1>${linesTable(cart.products, true)}${cartSummary(cart)}
    <div class="actions"><a class="button secondary" href="#/">Keep shopping</a><button class="button primary" id="checkout">Check out</button></div>`;
  view.querySelectorAll<HTMLInputElement>('[data-quantity]').forEach((input) =>
    input.addEventListener('change', async () => {
      const r = await shop.PATCH('/api/v1/carts/{id}/products/{pid}', { params: { path: { id: cart.id, pid: input.dataset.quantity! } }, body: { quantity: Number(input.value) } });
      if (r.error) show(explain(r.error, names));
      await renderCart();
    }),
  );
  view.querySelectorAll<HTMLButtonElement>('[data-remove]').forEach((button) =>
    button.addEventListener('click', async () => {
      const r = await shop.DELETE('/api/v1/carts/{id}/products/{pid}', { params: { path: { id: cart.id, pid: button.dataset.remove! } } });
      if (r.error) show(explain(r.error, names));
      await renderCart();
    }),
  );
  document.getElementById('discount-form')?.addEventListener('submit', async (event) => {
    event.preventDefault();
    const code = String(new FormData(event.target as HTMLFormElement).get('code') ?? '').trim();
    if (!code) return;
    const r = await shop.POST('/api/v1/carts/{id}/discount', { params: { path: { id: cart.id } }, body: { code } });
    await renderCart();
    if (r.error) show(explain(r.error, names));
    else show(`Code ${r.data?.cart.discount?.code ?? code.toUpperCase()} applied.`, 'ok');
  });
  document.getElementById('remove-code')?.addEventListener('click', async () => {
    const r = await shop.DELETE('/api/v1/carts/{id}/discount', { params: { path: { id: cart.id } } });
    if (r.error) show(explain(r.error, names));
    await renderCart();
  });
  document.getElementById('checkout')!.addEventListener('click', () => (location.hash = '#/checkout'));
}
