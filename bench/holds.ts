/**
 * Checkout holds in the benchmark: carts to hold (`cart-hold` renews holds of 1-3 line carts), a
 * store with 1,000 active holds for the `*-held` order workloads, and the sellout with holds: half
 * of the buyers hold their cart first, then order; the run fails unless exactly the stock sells and
 * every buyer who held got their order.
 */
import type { BenchFixture } from './seed.js';

/** Per store (one per catalog size): the carts `cart-hold` holds again and again, and the 1,000 carts of the active holds while they are held. */
const holdCartsOf = new Map<string, string[]>();
const activeHoldsOf = new Map<string, string[]>();
/** The carts made for the active holds, per store: made once, held again after a release. */
const activeHoldCartsOf = new Map<string, string[]>();

/** The carts `cart-hold` holds in this fixture's store (made by `prepareHoldCarts`). */
export const holdCarts = (f: BenchFixture): string[] => holdCartsOf.get(f.store) ?? [];

async function call(base: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined };
}

/** Runs `work` for 0..n-1 with `concurrency` at a time. */
async function pool(n: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, async () => {
    while (next < n) await work(next++);
  }));
}

async function newCart(base: string, f: BenchFixture, lines: number, seed: number): Promise<string> {
  const products = Array.from({ length: lines }, (_, j) => ({ id: f.hotProductIds[(seed * 7 + j * 131) % f.hotProductIds.length]!, quantity: 1 + ((seed + j) % 2) }));
  const r = await call(base, f.storefront, 'POST', '/api/v1/carts', { products });
  if (r.status !== 201) throw new Error(`cart: ${r.status} ${JSON.stringify(r.json).slice(0, 200)}`);
  return r.json.cart.id as string;
}

/** 2,000 carts of 1-3 lines of the spread products, for `cart-hold`. */
export async function prepareHoldCarts(base: string, f: BenchFixture): Promise<void> {
  if (holdCartsOf.has(f.store)) return;
  const carts: string[] = [];
  await pool(2000, 20, async (i) => {
    carts.push(await newCart(base, f, 1 + (i % 3), i));
  });
  holdCartsOf.set(f.store, carts);
}

/** 1,000 more carts held (one line each, spread products), for the `*-held` order workloads; after a release, the same carts held again. */
export async function prepareActiveHolds(base: string, f: BenchFixture): Promise<void> {
  if (activeHoldsOf.has(f.store)) return;
  const made = activeHoldCartsOf.get(f.store);
  const carts: string[] = [];
  await pool(1000, 20, async (i) => {
    const id = made?.[i] ?? (await newCart(base, f, 1, i + 5000));
    const r = await call(base, f.storefront, 'POST', `/api/v1/carts/${id}/hold`);
    if (r.status !== 200) throw new Error(`hold: ${r.status} ${JSON.stringify(r.json).slice(0, 200)}`);
    carts.push(id);
  });
  activeHoldCartsOf.set(f.store, made ?? carts);
  activeHoldsOf.set(f.store, carts);
}

/** Ends the 1,000 active holds, so that the workload just before the next `*-held` one runs without them. */
export async function releaseActiveHolds(base: string, f: BenchFixture): Promise<void> {
  const carts = activeHoldsOf.get(f.store);
  if (!carts) return;
  await pool(carts.length, 20, async (i) => {
    const r = await call(base, f.storefront, 'DELETE', `/api/v1/carts/${carts[i]}/hold`);
    if (r.status !== 200) throw new Error(`release: ${r.status} ${JSON.stringify(r.json).slice(0, 200)}`);
  });
  activeHoldsOf.delete(f.store);
}

export interface HeldSelloutResult {
  stock: number;
  buyers: number;
  orders: number;
  refused: number;
  heldThenOrdered: number;
  heldButRefused: number;
  other: number;
  quantityLeft: number;
  held: number;
  seconds: number;
  passed: boolean;
}

/**
 * 3,000 buyers, 200 at a time, for 1,000 units: the odd ones make a cart, hold it and order it, the
 * even ones order directly. Exact when 1,000 orders are placed, everyone else is refused with 422,
 * every buyer whose hold was taken got their order, and nothing is left or held.
 */
export async function selloutWithHolds(base: string, f: BenchFixture): Promise<HeldSelloutResult> {
  const stock = 1000;
  const buyers = 3000;
  const p = await call(base, f.admin, 'POST', '/api/v1/admin/products', {
    name: 'Held sellout', slug: `held-sellout-${Date.now()}`, sku: 'HELD-SELLOUT', price: 100, quantity: stock, status: 'ACTIVE',
  });
  if (p.status !== 201) throw new Error(`sellout product: ${p.status}`);
  const productId = p.json.product.id as string;
  const order = `/api/v1/${f.customerId}/orders`;
  const result = { orders: 0, refused: 0, heldThenOrdered: 0, heldButRefused: 0, other: 0 };
  const started = performance.now();
  await pool(buyers, 200, async (i) => {
    if (i % 2 === 0) {
      const r = await call(base, f.customer, 'POST', order, { address: f.addressId, products: [{ id: productId, quantity: 1 }] });
      if (r.status === 201) result.orders++;
      else if (r.status === 422) result.refused++;
      else result.other++;
      return;
    }
    const cart = await call(base, f.storefront, 'POST', '/api/v1/carts', { products: [{ id: productId, quantity: 1 }] });
    if (cart.status === 422) return void result.refused++;
    if (cart.status !== 201) return void result.other++;
    const held = await call(base, f.storefront, 'POST', `/api/v1/carts/${cart.json.cart.id}/hold`);
    if (held.status === 422) return void result.refused++;
    if (held.status !== 200) return void result.other++;
    const r = await call(base, f.customer, 'POST', order, { id: cart.json.cart.id, address: f.addressId });
    if (r.status === 201) {
      result.orders++;
      result.heldThenOrdered++;
    } else result.heldButRefused++;
  });
  const seconds = Math.round((performance.now() - started) / 10) / 100;
  const product = (await call(base, f.admin, 'GET', `/api/v1/admin/products/${productId}`)).json.product as { quantity: number; held: number };
  const passed = result.orders === stock && result.refused === buyers - stock && result.heldButRefused === 0 && result.other === 0 && product.quantity === 0 && product.held === 0;
  return { stock, buyers, ...result, quantityLeft: product.quantity, held: product.held, seconds, passed };
}
