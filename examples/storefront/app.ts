/**
 * The example storefront: a single page on the typed client (clients/typescript), served by the
 * shop's back end (backend.ts). Each view is a module of views/; this file only routes.
 */
import { config } from './shop.js';
import { clearMessage, show, showFlash } from './ui.js';
import { renderAccount, updateAccountLink } from './views/account.js';
import { renderCart, updateCartCount } from './views/cart.js';
import { renderProduct, renderShop } from './views/catalog.js';
import { renderCheckout } from './views/checkout.js';
import { renderOrder, renderOrders } from './views/orders.js';

async function route() {
  clearMessage();
  const [path = '/', query = ''] = location.hash.slice(1).split('?');
  const parts = path.split('/').filter(Boolean);
  try {
    if (parts[0] === 'p' && parts[1]) await renderProduct(decodeURIComponent(parts[1]));
    else if (parts[0] === 'cart') await renderCart();
    else if (parts[0] === 'checkout') await renderCheckout();
    else if (parts[0] === 'orders' && parts[1]) await renderOrder(parts[1], new URLSearchParams(query));
    else if (parts[0] === 'orders') await renderOrders();
    else if (parts[0] === 'account') renderAccount();
    else await renderShop(new URLSearchParams(query));
    showFlash();
  } catch {
    show('The shop cannot reach its API right now: try again in a moment.');
  }
  window.scrollTo(0, 0);
}

// Stripe sends the shopper back to `/?order=...&payment=...` (the return_url the order page gave it):
// that order's page, which syncs the payment before it shows the order.
const back = new URLSearchParams(location.search);
const [backOrder, backPayment] = [back.get('order'), back.get('payment')];
if (backOrder && backPayment) history.replaceState(null, '', `/#/orders/${encodeURIComponent(backOrder)}?sync=${encodeURIComponent(backPayment)}`);

document.title = config.storeName;
document.querySelector('.brand')!.textContent = config.storeName;
updateAccountLink();
window.addEventListener('hashchange', () => void route());
await Promise.all([route(), updateCartCount()]);
