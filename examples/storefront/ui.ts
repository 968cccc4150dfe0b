/** What every view shares: money, escaping, the message bar, product images, and words for shoppers. */
import type { Problem, Product } from '../../clients/typescript/src/index.js';
import { storeSettings } from './shop.js';

export const view = document.getElementById('view')!;
const message = document.getElementById('message')!;

// In the store's currency: 4990 is $49.90 in USD, ¥4,990 in JPY (its smallest unit is the yen).
const currency = new Intl.NumberFormat('en-US', { style: 'currency', currency: storeSettings.currency });
const unit = 10 ** (currency.resolvedOptions().maximumFractionDigits ?? 2);
export const money = (amount: number) => currency.format(amount / unit);
export const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function show(text: string, kind: 'error' | 'ok' = 'error') {
  message.textContent = text;
  message.className = kind === 'ok' ? 'ok' : '';
  message.hidden = false;
}

export function clearMessage() {
  message.hidden = true;
}

let flashed: string | undefined;
/** A confirmation shown on the next page, once the navigation that follows it is done. */
export function flash(text: string) {
  flashed = text;
}
export function showFlash() {
  if (flashed) show(flashed, 'ok');
  flashed = undefined;
}

export type ProductImage = Product['images'][number];
// A size is a class of its own: not 'card', which is the grid's card around the picture.
type ImageSize = 'tile' | 'large' | 'thumb';

/**
 * One picture, or a neutral placeholder with the name's initial when there is none (or it fails to
 * load). A url is https, or a path on the API's host: the page asks its own origin for it and the
 * shop's back end forwards it to the API, as it forwards the API calls, whichever service it runs against.
 */
export function imageTag(image: ProductImage | undefined, name: string, size: ImageSize = 'tile'): string {
  const placeholder = `<div class="image placeholder ${size}" role="img" aria-label="${escape(name)}: no picture yet"><span>${escape(name.slice(0, 1).toUpperCase())}</span></div>`;
  if (!image || !/^(https:\/\/|\/(?!\/))/.test(image.url)) return placeholder;
  return `<img class="image ${size}" src="${escape(image.url)}" alt="${escape(image.alt || name)}" loading="lazy" onerror="this.outerHTML=this.nextElementSibling.innerHTML"><template>${placeholder}</template>`;
}

/** The product's main image (its first), or the placeholder. */
export const productImage = (product: Pick<Product, 'name' | 'images'>, size: ImageSize = 'tile') => imageTag(product.images[0], product.name, size);

export const priceText = (p: { price: number; originalPrice: number | null }) =>
  `<span class="price">${money(p.price)}</span>${p.originalPrice && p.originalPrice > p.price ? ` <span class="was">${money(p.originalPrice)}</span>` : ''}`;

export const stockText = (p: Pick<Product, 'quantity'>) =>
  p.quantity > 0
    ? `<span class="stock" data-stock="${p.quantity}">${p.quantity <= 5 ? `Only ${p.quantity} left` : 'In stock'}</span>`
    : '<span class="soldout" data-stock="0">Sold out</span>';

/** An order's number as a shopper reads it aloud: the start of its id. */
/** What a shopper quotes: the order's number in its store. */
export const orderNumber = (order: { number: number }) => `#${order.number}`;

const STATUS_WORDS: Record<string, string> = {
  CREATED: 'Received: we are preparing it',
  PAID: 'Paid: getting ready to ship',
  FULFILLED: 'Shipped',
  CANCELLED: 'Cancelled',
};
export const statusWords = (status: string) => STATUS_WORDS[status] ?? status.toLowerCase();

/** Why a discount code is refused, in words (the problem's `reason`). */
const DISCOUNT_WORDS: Record<string, string> = {
  unknown: 'We do not know that discount code: check its spelling.',
  inactive: 'This discount code is not active at the moment.',
  not_started: 'This discount code is not valid yet.',
  expired: 'This discount code has expired.',
  used_up: 'This discount code has been used up.',
  min_subtotal: 'Your cart is below the minimum for this discount code.',
  no_eligible_products: 'None of the items in your cart are eligible for this discount code.',
  already_used: 'You have already used this discount code: remove it from your cart to order.',
};

type ErrorEntry = { productId?: string; available?: number; code?: string };

/** A problem as a sentence a shopper understands. */
export function explain(problem: Partial<Problem> | undefined, names: Map<string, string> = new Map()): string {
  const entries = (problem?.errors ?? []) as ErrorEntry[];
  const name = (id?: string) => names.get(id ?? '') ?? 'This product';
  const line = (e: ErrorEntry) =>
    e.code === 'INSUFFICIENT_STOCK' && (e.available ?? 0) > 0
      ? `Only ${e.available} left of ${name(e.productId)}.`
      : e.code === 'INSUFFICIENT_STOCK' ? `${name(e.productId)} is sold out.` : `${name(e.productId)} is no longer available.`;
  switch (problem?.code) {
    case 'INSUFFICIENT_STOCK':
    case 'PRODUCT_UNAVAILABLE':
      return entries.length ? entries.map(line).join(' ') : 'This product is sold out or no longer available.';
    case 'DISCOUNT_NOT_APPLICABLE':
      return DISCOUNT_WORDS[problem.reason ?? ''] ?? 'This discount code cannot be used.';
    case 'SHIPPING_REQUIRED':
      return 'Please choose a shipping option.';
    case 'SHIPPING_NOT_AVAILABLE':
      return 'This shipping option does not deliver to that address: please choose another.';
    case 'CART_EXPIRED':
    case 'CART_NOT_PENDING':
      return 'Your cart expired or was already ordered; it has been emptied.';
    case 'UNAUTHORIZED':
      return 'Your session ended: please sign in again.';
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
