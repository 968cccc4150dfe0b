/**
 * The checkout hold: when checkout opens, the page holds the cart (POST /v1/carts/:id/hold) so that
 * nobody else can buy its items while the shopper pays, and counts down to `heldUntil`. The shopper
 * may keep them longer (holding again renews); when the time runs out the page says so and offers
 * to hold them again, which the API refuses (with what is left) if someone bought them meanwhile.
 */
import type { Cart } from '../../../clients/typescript/src/index.js';
import { shop } from '../shop.js';
import { escape, explain } from '../ui.js';
import { productLabel } from '../variants.js';

let ticking: ReturnType<typeof setInterval> | undefined;

const left = (until: string) => Math.max(0, Math.ceil((Date.parse(until) - Date.now()) / 1000));
const clock = (seconds: number) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;

/** The notice's place on the checkout page; `startHold` fills it. */
export const holdPlaceholder = () => '<div id="hold" class="hold" role="status"></div>';

/** Holds the cart and shows the countdown in #hold; answers whether the items are held. */
export async function startHold(cart: Cart): Promise<boolean> {
  const box = document.getElementById('hold');
  if (!box) return false;
  clearInterval(ticking);
  const names = new Map(cart.products.map((l) => [l.id, productLabel(l)]));
  const { data, error } = await shop.POST('/api/v1/carts/{id}/hold', { params: { path: { id: cart.id } } });
  if (!data) {
    box.dataset.state = 'refused';
    box.innerHTML = `<p>We could not keep your items for you: ${escape(explain(error, names))} Change your cart, or try again.</p>
      <button class="button secondary" id="hold-again" type="button">Try again</button>`;
    document.getElementById('hold-again')!.addEventListener('click', () => void startHold(cart));
    return false;
  }
  const until = data.cart.heldUntil!;
  const render = () => {
    if (!document.body.contains(box)) return void clearInterval(ticking);
    const seconds = left(until);
    if (seconds > 0) {
      box.dataset.state = 'held';
      // The sentence is one flex item: the time and its full stop stay together.
      box.innerHTML = `<p><span>Your items are reserved for you for <strong id="hold-left">${clock(seconds)}</strong>.</span>
        <button class="button secondary" id="hold-renew" type="button">Keep them longer</button></p>`;
      document.getElementById('hold-renew')!.addEventListener('click', () => void startHold(cart));
      return;
    }
    clearInterval(ticking);
    box.dataset.state = 'lapsed';
    box.innerHTML = `<p><span>We could not keep your items any longer: someone else may buy them now.</span>
      <button class="button secondary" id="hold-again" type="button">Reserve them again</button></p>`;
    document.getElementById('hold-again')!.addEventListener('click', () => void startHold(cart));
  };
  render();
  ticking = setInterval(render, 1000);
  // Back to the shop or the cart without ordering: give the items back at once (an order ends the hold itself).
  const leave = () => {
    window.removeEventListener('hashchange', leave);
    if (!location.hash.startsWith('#/checkout') && !location.hash.startsWith('#/orders')) void endHold(cart.id);
  };
  window.addEventListener('hashchange', leave);
  return true;
}

/** Ends the hold when the shopper leaves checkout without ordering: the items are everyone's again. */
export async function endHold(cartId: string): Promise<void> {
  clearInterval(ticking);
  await shop.DELETE('/api/v1/carts/{id}/hold', { params: { path: { id: cartId } } });
}
