/** The order confirmation and the order history, both read from the API for the current customer. */
import type { Order, ProductLine } from '../../../clients/typescript/src/index.js';
import { config, customer, me, storeSettings } from '../shop.js';
import { escape, explain, money, orderNumber, productImage, show, statusWords, view } from '../ui.js';
import { optionNamesOf, optionsText } from '../variants.js';
import { linesTable } from './cart.js';

const placedAt = (order: Order) => new Date(order.createdAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export async function renderOrder(id: string) {
  const buyer = customer();
  if (!buyer) return show('Sign in to see your orders.');
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
      ${o.discount ? `<div><dt>Discount ${escape(o.discount.code)}</dt><dd class="price" id="order-discount">−${money(o.discountTotal)}</dd></div>` : ''}
      ${o.shipping ? `<div><dt>Shipping (${escape(o.shipping.name)})</dt><dd class="price" id="order-shipping">${money(o.shippingTotal)}</dd></div>` : ''}
      ${o.taxLines.map((t) => `<div><dt>${escape(t.name)} ${t.rate / 100} %${storeSettings.pricesIncludeTax ? ' (included)' : ''}</dt><dd class="price order-tax">${money(t.amount)}</dd></div>`).join('')}
      <div><dt>Total</dt><dd class="price" id="order-total">${money(o.total)}</dd></div></dl>
    ${linesTable(o.products, false, optionNames)}
    ${paymentSection(o)}
    ${afterSaleSection(o)}
    <p>It ships to ${escape(a.street)} ${escape(a.number)}${a.complement ? `, ${escape(a.complement)}` : ''}, ${escape(a.city)} ${escape(a.state)} ${escape(a.zipcode)}, ${escape(a.country)}.</p>
    <div class="actions"><a class="button secondary" href="#/orders">All my orders</a><a class="button primary" href="#/">Keep shopping</a></div></div>`;
}

/**
 * How to pay a CREATED, unpaid order. The demo store takes money on delivery (the `manual`
 * provider): choosing it records a pending payment and shows the shop's instructions; the shop marks
 * the order paid when the money comes.
 */
function paymentSection(o: Order): string {
  const pending = o.payments.find((p) => p.provider === 'manual' && p.status === 'pending');
  if (pending) return `<section class="payment" id="payment"><h2>Payment</h2><p id="payment-instructions">${escape(pending.instructions ?? '')}</p></section>`;
  if (o.status !== 'CREATED' || o.paymentStatus !== 'unpaid') return '';
  return `<section class="payment" id="payment"><h2>Payment</h2><button class="button primary" id="pay-manual" data-order="${escape(o.id)}">Pay on delivery</button></section>`;
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

/** The "Pay on delivery" button: a manual payment, then its instructions in place of the button. */
document.addEventListener('click', (event) => {
  const button = (event.target as Element | null)?.closest<HTMLButtonElement>('#pay-manual');
  const buyer = customer();
  if (!button || !buyer) return;
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
