/** Checkout: who is buying (signed in, or a guest), the delivery address, and the order from the cart. */
import type { AddressInput } from '../../../clients/typescript/src/index.js';
import { checkoutCustomer, config, customer, forgetCustomer, me, rememberCart } from '../shop.js';
import { escape, explain, money, show, view } from '../ui.js';
import { productLabel } from '../variants.js';
import { currentCart, updateCartCount } from './cart.js';
import { holdPlaceholder, startHold } from './hold.js';

const ADDRESS_FIELDS: Array<[name: keyof AddressInput, label: string, required: boolean]> = [
  ['street', 'Street', true], ['number', 'Number', true], ['complement', 'Apartment, suite (optional)', false],
  ['neightborhood', 'Neighborhood (optional)', false], ['city', 'City', true], ['state', 'State', true],
  ['zipcode', 'Postal code', true], ['country', 'Country', true],
];

export async function renderCheckout() {
  const cart = await currentCart();
  if (!cart) return void (location.hash = '#/cart');
  const who = customer()?.email
    ? `<p>Signed in as <strong>${escape(customer()!.email!)}</strong>.</p>`
    : `<p>You check out as a guest.${config.signIn ? ' <a href="#/account">Sign in</a> to find your orders again later.' : ''}</p>`;
  const inputs = ADDRESS_FIELDS.map(([name, label, required]) => `<label class="field">${label}<input class="input" name="${name}" ${required ? 'required' : ''}></label>`).join('');
  // The checkout hold (views/hold.ts): the cart's items are kept for the shopper while they pay.
  view.innerHTML = `<h1>Checkout</h1>${who}${holdPlaceholder()}
    <form id="address" class="form"><h2>Delivery address</h2><div class="fields">${inputs}</div>
    ${cart.discount && cart.discountTotal > 0 ? `<p>Discount ${escape(cart.discount.code)}: <span class="price">−${money(cart.discountTotal)}</span></p>` : ''}
    <p>Total to pay: <span class="price" id="checkout-total">${money(cart.total)}</span></p>
    <button class="button primary" type="submit">Place order</button></form>`;
  await startHold(cart);
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
      body: { id: cart.id, address: address.data.address.id },
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
