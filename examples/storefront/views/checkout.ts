/**
 * Checkout: who is buying (signed in, or a guest), their contact details and delivery address, the
 * shipping options for the country entered, what they will pay (subtotal, discount, shipping, tax,
 * total, as the API computes it), and the order from the cart.
 */
import type { AddressInput, Cart } from '../../../clients/typescript/src/index.js';
import { checkoutCustomer, config, customer, forgetCustomer, me, rememberCart, shop, storeSettings } from '../shop.js';
import { escape, explain, money, show, view } from '../ui.js';
import { productLabel } from '../variants.js';
import { currentCart, updateCartCount } from './cart.js';
import { holdPlaceholder, startHold } from './hold.js';

const ADDRESS_FIELDS: Array<[name: keyof AddressInput, label: string, required: boolean]> = [
  ['name', 'Full name', true], ['phone', 'Phone (optional)', false],
  ['street', 'Street', true], ['number', 'Number', true], ['complement', 'Apartment, suite (optional)', false],
  ['neightborhood', 'Neighborhood (optional)', false], ['city', 'City', true], ['state', 'State', true],
  ['zipcode', 'Postal code', true], ['country', 'Country (two letters, e.g. US)', true],
];

/** What the shopper will pay, line by line, from the cart as the API answered it. */
function summary(cart: Cart): string {
  const row = (label: string, id: string, amount: string) => `<p>${label} <span class="price" id="${id}">${amount}</span></p>`;
  const taxes = cart.taxLines.map((t) => row(`${escape(t.name)} ${t.rate / 100} %${storeSettings.pricesIncludeTax ? ' (included)' : ''}`, `checkout-tax-${t.rate}`, money(t.amount))).join('');
  return '<div>' + row('Subtotal', 'checkout-subtotal', money(cart.price)) +
    (cart.discount && cart.discountTotal > 0 ? row(`Discount ${escape(cart.discount.code)}`, 'checkout-discount', `−${money(cart.discountTotal)}`) : '') +
    (cart.shipping ? row(`Shipping (${escape(cart.shipping.name)})`, 'checkout-shipping', money(cart.shippingTotal)) : '') +
    (cart.shipping ? `${taxes}${row('Tax', 'checkout-tax', money(cart.taxTotal))}` : '<p class="muted">Shipping and tax are added once you choose a shipping option.</p>') +
    `<p><strong>Total to pay</strong> <span class="price" id="checkout-total">${money(cart.total)}</span></p></div>`;
}

/**
 * The shipping options for the country entered, and the one chosen (the cart is then taxed for it).
 * `data-state` says where it is: `none` (no country yet), `ready` (options listed), `chosen`.
 */
function shippingChooser(cart: Cart, form: HTMLFormElement) {
  const box = document.getElementById('shipping')!;
  const totals = document.getElementById('totals')!;
  const field = (name: string) => (form.elements.namedItem(name) as HTMLInputElement).value.trim();
  let asked = '';
  const list = async () => {
    const country = field('country').toUpperCase();
    if (!/^[A-Z]{2}$/.test(country)) return void ((box.dataset.state = 'none'), (box.innerHTML = ''));
    if (country === asked) return;
    asked = country;
    const { data, error } = await shop.GET('/api/v1/carts/{id}/shipping-options', { params: { path: { id: cart.id }, query: { country } } });
    if (!data) return show(explain(error));
    box.innerHTML = data.shippingOptions.length === 0
      ? '<p class="muted">No shipping needed.</p>'
      : `<fieldset><legend>Shipping</legend>${data.shippingOptions
        .map((o) => `<label class="choice"><input type="radio" name="shipping" value="${o.id}"> ${escape(o.name)} <span class="price">${o.amount === 0 ? 'free' : money(o.amount)}</span></label>`)
        .join('')}</fieldset>`;
    box.dataset.state = 'ready';
  };
  (form.elements.namedItem('country') as HTMLInputElement).addEventListener('input', () => void list());
  box.addEventListener('change', async (event) => {
    const input = event.target as HTMLInputElement;
    if (input.name !== 'shipping') return;
    const region = field('state');
    const { data, error } = await shop.PUT('/api/v1/carts/{id}/shipping', {
      params: { path: { id: cart.id } },
      body: { optionId: input.value, country: field('country').toUpperCase(), ...(region ? { region } : {}) },
    });
    if (!data) return show(explain(error));
    totals.innerHTML = summary(data.cart);
    box.dataset.state = 'chosen';
  });
}

export async function renderCheckout() {
  const cart = await currentCart();
  if (!cart) return void (location.hash = '#/cart');
  const who = customer()?.email
    ? `<p>Signed in as <strong>${escape(customer()!.email!)}</strong>.</p>`
    : `<p>You check out as a guest.${config.signIn ? ' <a href="#/account">Sign in</a> to find your orders again later.' : ''}</p>`;
  const inputs = ADDRESS_FIELDS.map(([name, label, required]) => `<label class="field">${label}<input class="input" name="${name}" ${required ? 'required' : ''}></label>`).join('');
  // The checkout hold (views/hold.ts): the cart's items are kept for the shopper while they pay.
  view.innerHTML = `<h1>Checkout</h1>${who}${holdPlaceholder()}
    <form id="address" class="form"><h2>Contact</h2><div class="fields"><label class="field">Email<input class="input" name="email" type="email" required></label></div>
    <h2>Delivery address</h2><div class="fields">${inputs}</div>
    <div id="shipping" data-state="none"></div>
    <div class="summary" id="totals">${summary(cart)}</div>
    <button class="button primary" type="submit">Place order</button></form>`;
  await startHold(cart);
  const form = document.getElementById('address') as HTMLFormElement;
  shippingChooser(cart, form);
  document.getElementById('address')!.addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const value = (name: string) => String(form.get(name) ?? '').trim();
    const buyer = await checkoutCustomer();
    if ('problem' in buyer) return show(explain(buyer.problem));
    const path = { customer: buyer.customerId };
    const address = await me.POST('/api/v1/{customer}/addresses', {
      params: { path, header: { 'Idempotency-Key': crypto.randomUUID() } },
      body: { address: Object.fromEntries(ADDRESS_FIELDS.map(([name]) => [name, value(name)])) as AddressInput },
    });
    if (!address.data) {
      if (address.error?.code === 'UNAUTHORIZED') forgetCustomer();
      return show(explain(address.error));
    }
    const names = new Map(cart.products.map((l) => [l.id, productLabel(l)]));
    const placed = await me.POST('/api/v1/{customer}/orders', {
      params: { path, header: { 'Idempotency-Key': crypto.randomUUID() } },
      body: { id: cart.id, address: address.data.address.id, email: value('email') },
    });
    if (!placed.data) {
      if (placed.error?.code === 'CART_EXPIRED' || placed.error?.code === 'CART_NOT_PENDING') rememberCart(undefined);
      return show(explain(placed.error, names));
    }
    rememberCart(undefined);
    await updateCartCount();
    location.hash = `#/orders/${placed.data.order.id}`;
  });
}
