/** The order confirmation and the order history, both read from the API for the current customer. */
import type { Order, ProductLine } from '../../../clients/typescript/src/index.js';
import { config, customer, me, paymentProviders, storeSettings } from '../shop.js';
import { escape, explain, money, orderNumber, productImage, show, statusWords, view } from '../ui.js';
import { optionNamesOf, optionsText } from '../variants.js';
import { linesTable } from './cart.js';

const placedAt = (order: Order) => new Date(order.createdAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/**
 * One order of the customer. `?sync=<paymentId>`: the shopper is back from paying with Stripe, so
 * the page asks the API to sync that payment with Stripe first (a webhook may not have come yet),
 * and the order shows as paid the moment Stripe says so.
 */
export async function renderOrder(id: string, query = new URLSearchParams()) {
  const buyer = customer();
  if (!buyer) return show('Sign in to see your orders.');
  const syncing = query.get('sync');
  if (syncing) {
    const synced = await me.POST('/api/v1/{customer}/orders/{id}/payments/{paymentId}/sync', { params: { path: { customer: buyer.customerId, id, paymentId: syncing } } });
    if (synced.error) show(`We could not confirm your payment yet: ${explain(synced.error)}`);
  }
  const { data, error } = await me.GET('/api/v1/{customer}/orders/{id}', { params: { path: { customer: buyer.customerId, id } } });
  if (!data) return show(error?.code === 'NOT_FOUND' ? 'This order is not one of yours.' : explain(error));
  const o = data.order;
  const a = o.address;
  const optionNames = await optionNamesOf(o.products);
  view.innerHTML = `<div class="confirmation" id="confirmation">
    <h1>Thank you for your order!</h1>
    <dl class="facts"><div><dt>Order number</dt><dd id="order-number">${orderNumber(o)}</dd></div>
      <div><dt>Placed</dt><dd>${placedAt(o)}</dd></div>
      <div><dt>Status</dt><dd id="order-status">${statusWords(o.status)}</dd></div>
      <div><dt>Payment</dt><dd id="payment-status">${escape(o.paymentStatus.replaceAll('_', ' '))}</dd></div>
      ${o.discount ? `<div><dt>Discount ${escape(o.discount.code)}</dt><dd class="price" id="order-discount">−${money(o.discountTotal)}</dd></div>` : ''}
      ${o.shipping ? `<div><dt>Shipping (${escape(o.shipping.name)})</dt><dd class="price" id="order-shipping">${money(o.shippingTotal)}</dd></div>` : ''}
      ${o.taxLines.map((t) => `<div><dt>${escape(t.name)} ${t.rate / 100} %${storeSettings.pricesIncludeTax ? ' (included)' : ''}</dt><dd class="price order-tax">${money(t.amount)}</dd></div>`).join('')}
      <div><dt>Total</dt><dd class="price" id="order-total">${money(o.total)}</dd></div></dl>
    ${linesTable(o.products, false, optionNames)}
    ${paymentSection(o)}
    ${afterSaleSection(o)}
    <p id="order-address">It ships to ${escape(a.street)} ${escape(a.number)}${a.complement ? `, ${escape(a.complement)}` : ''}${a.neightborhood ? `, ${escape(a.neightborhood)}` : ''}, ${escape(a.city)} ${escape(a.state)} ${escape(a.zipcode)}, ${escape(a.country)}.</p>
    <div class="actions"><a class="button secondary" href="#/orders">All my orders</a><a class="button primary" href="#/">Keep shopping</a></div></div>`;
}

/**
 * How to pay a CREATED, unpaid order, with the providers the store enabled. `manual` (the demo
 * store's "Pay on delivery") records a pending payment and shows the shop's instructions; the shop
 * marks the order paid when the money comes. `stripe` ("Pay by card") confirms the payment's intent
 * with Stripe.js, which brings the shopper back to this order's page.
 */
function paymentSection(o: Order): string {
  const pending = o.payments.find((p) => p.provider === 'manual' && p.status === 'pending');
  if (pending) return `<section class="payment" id="payment"><h2>Payment</h2><p id="payment-instructions">${escape(pending.instructions ?? '')}</p></section>`;
  if (o.status !== 'CREATED' || o.paymentStatus !== 'unpaid') return '';
  const buttons = paymentProviders.map((p) =>
    p.name === 'manual' ? `<button class="button primary" id="pay-manual" data-order="${escape(o.id)}">Pay on delivery</button>`
    : p.name === 'stripe' && p.publishableKey ? `<button class="button primary" id="pay-stripe" data-order="${escape(o.id)}">Pay by card</button>`
    : '');
  if (!buttons.some(Boolean)) return '';
  return `<section class="payment" id="payment"><h2>Payment</h2><div class="actions">${buttons.join('')}</div></section>`;
}

/** The part of Stripe.js the page uses (https://js.stripe.com/v3/ defines `Stripe`). */
interface StripeJs {
  elements(options: { clientSecret: string }): { create(type: 'payment'): { mount(selector: string): void } };
  confirmPayment(options: { elements: unknown; confirmParams: { return_url: string } }): Promise<{ error?: { message?: string } }>;
}
declare global {
  interface Window {
    Stripe?: (publishableKey: string) => StripeJs;
  }
}

/** Stripe.js, loaded from Stripe the first time a shopper pays by card (already there when the page defines it). */
async function stripeJs(publishableKey: string): Promise<StripeJs> {
  if (!window.Stripe) {
    await new Promise<void>((resolve, reject) => {
      const script = Object.assign(document.createElement('script'), { src: 'https://js.stripe.com/v3/', onload: () => resolve(), onerror: () => reject(new Error('Stripe.js did not load')) });
      document.head.append(script);
    });
  }
  return window.Stripe!(publishableKey);
}

/**
 * "Pay by card": a Stripe payment of the balance (its intent's client secret), Stripe's payment form,
 * and the confirmation, which sends the shopper to Stripe's checks (3-D Secure) if need be and then
 * back to `/?order=...&payment=...`.
 */
async function payByCard(button: HTMLButtonElement, customerId: string) {
  const section = document.getElementById('payment')!;
  const orderId = button.dataset.order!;
  const stripe = paymentProviders.find((p) => p.name === 'stripe');
  const { data, error } = await me.POST('/api/v1/{customer}/orders/{id}/payments', { params: { path: { customer: customerId, id: orderId } }, body: { provider: 'stripe' } });
  const clientSecret = data?.payment.clientSecret;
  if (!data || !clientSecret || !stripe?.publishableKey) return void (section.innerHTML = `<h2>Payment</h2><p class="error">${escape(explain(error))}</p>`);
  try {
    const js = await stripeJs(stripe.publishableKey);
    const elements = js.elements({ clientSecret });
    section.innerHTML = `<h2>Payment</h2><div id="card-form"></div><p class="error" id="payment-error" hidden></p>
      <div class="actions"><button class="button primary" id="pay-confirm">Pay ${money(data.payment.amount)}</button></div>`;
    elements.create('payment').mount('#card-form');
    const confirm = document.getElementById('pay-confirm') as HTMLButtonElement;
    confirm.addEventListener('click', () => {
      confirm.disabled = true;
      const returnUrl = `${location.origin}/?order=${encodeURIComponent(orderId)}&payment=${encodeURIComponent(data.payment.id)}`;
      void js.confirmPayment({ elements, confirmParams: { return_url: returnUrl } }).then((result) => {
        // On success Stripe.js navigates away; an answer here is a refusal (a declined card, a wrong number).
        const message = document.getElementById('payment-error')!;
        message.textContent = result.error?.message ?? 'The payment did not go through.';
        message.hidden = false;
        confirm.disabled = false;
      });
    });
  } catch {
    section.innerHTML = '<h2>Payment</h2><p class="error">Card payments cannot be loaded right now: try again in a moment.</p>';
  }
}

/** What happened after the sale: each shipment with its tracking link, and money given back. */
function afterSaleSection(o: Order): string {
  const name = (productId: string) => escape(o.products.find((p) => p.id === productId)?.name ?? 'an item');
  const units = (lines: Array<{ productId: string; quantity: number }>) => lines.map((l) => `${l.quantity} × ${name(l.productId)}`).join(', ');
  // Only http(s) links are followed: the URL is the shop's, but it is still text from elsewhere.
  const tracking = (f: Order['fulfillments'][number]) => {
    const label = escape([f.carrier, f.trackingNumber].filter(Boolean).join(' ') || 'Track the parcel');
    if (f.trackingUrl && /^https?:\/\//.test(f.trackingUrl)) return ` — <a class="tracking" href="${escape(f.trackingUrl)}" target="_blank" rel="noopener noreferrer">${label}</a>`;
    return f.trackingNumber || f.carrier ? ` — ${label}` : '';
  };
  const shipments = o.fulfillments.map((f) => `<li class="shipment">Shipped ${new Date(f.createdAt).toLocaleDateString()}: ${units(f.lines)}${tracking(f)}</li>`);
  const refunds = o.refunds.map((r) => `<li class="refund">${money(r.amount)} refunded${r.reason ? ` (${escape(r.reason)})` : ''}${r.lines.length ? `: ${units(r.lines)}${r.restock ? ', returned' : ''}` : ''}${r.status === 'pending' ? ' — on its way' : ''}</li>`);
  return [
    shipments.length ? `<section id="shipments"><h2>Shipping</h2><ul>${shipments.join('')}</ul></section>` : '',
    refunds.length ? `<section id="refunds"><h2>Refunds</h2><ul>${refunds.join('')}</ul></section>` : '',
  ].join('');
}

/** The payment buttons: "Pay on delivery" shows the instructions in place of the buttons; "Pay by card" opens the card form. */
document.addEventListener('click', (event) => {
  const target = event.target as Element | null;
  const buyer = customer();
  if (!buyer) return;
  const card = target?.closest<HTMLButtonElement>('#pay-stripe');
  if (card) {
    card.disabled = true;
    return void payByCard(card, buyer.customerId);
  }
  const button = target?.closest<HTMLButtonElement>('#pay-manual');
  if (!button) return;
  button.disabled = true;
  void me
    .POST('/api/v1/{customer}/orders/{id}/payments', { params: { path: { customer: buyer.customerId, id: button.dataset.order! } }, body: { provider: 'manual' } })
    .then(({ data, error }) => {
      const section = document.getElementById('payment')!;
      section.innerHTML = data
        ? `<h2>Payment</h2><p id="payment-instructions">${escape(data.payment.instructions ?? '')}</p>`
        : `<h2>Payment</h2><p class="error">${escape(explain(error))}</p>`;
    });
});

export async function renderOrders() {
  const buyer = customer();
  const signInHint = config.signIn ? ' <a href="#/account">Sign in</a> to see the orders of your account.' : '';
  if (!buyer) return void (view.innerHTML = `<h1>My orders</h1><p>No orders in this browser yet.${signInHint}</p>`);
  const { data, error } = await me.GET('/api/v1/{customer}/orders', { params: { path: { customer: buyer.customerId }, query: { limit: 50 } } });
  if (!data) return show(explain(error));
  const who = buyer.email ? `<p class="muted">Orders of ${escape(buyer.email)}.</p>` : `<p class="muted">Orders of this guest session.${signInHint}</p>`;
  if (data.orders.length === 0) return void (view.innerHTML = `<h1>My orders</h1>${who}<p>No orders yet.</p>`);
  const optionNames = await optionNamesOf(data.orders.flatMap((o) => o.products));
  const item = (l: ProductLine) => {
    const options = optionsText(l.options, optionNames.get(l.group ?? ''));
    return `<li class="item">${productImage(l, 'thumb')}<span>${l.order.quantity} × ${escape(l.name)}${options ? ` <span class="options">${escape(options)}</span>` : ''}</span></li>`;
  };
  const rows = data.orders.map(
    (o) => `<tr><td><a href="#/orders/${o.id}">${orderNumber(o)}</a></td><td>${placedAt(o)}</td>
      <td><ul class="order-items">${o.products.map(item).join('')}</ul></td><td class="num">${money(o.total)}</td><td>${statusWords(o.status)}</td></tr>`,
  );
  view.innerHTML = `<h1>My orders</h1>${who}<table class="lines" id="orders"><thead><tr><th>Order</th><th>Placed</th><th>Items</th><th class="num">Total</th><th>Status</th></tr></thead>
    <tbody>${rows.join('')}</tbody></table>`;
}
