/**
 * The page's connection to the shop: its settings, the two API clients, and who is shopping.
 * The public storefront token reads the catalog and keeps the cart; a customer token reaches that
 * customer's own addresses and orders. A customer is either signed in (the shop's back end minted
 * the token, see backend.ts) or a guest (a guest session started by the page at checkout).
 */
import { createStorefrontClient, type Problem } from '../../clients/typescript/src/index.js';

export interface PageConfig {
  storefrontToken: string;
  storeName: string;
  signIn: boolean;
}

export interface Customer {
  customerId: string;
  secret: string;
  /** Set when signed in; a guest has none. */
  email?: string;
}

export const config = (await (await fetch('/config.json')).json()) as PageConfig;
// The back end forwards the API's paths, so the page calls its own origin.
export const shop = createStorefrontClient({ baseUrl: location.origin, token: config.storefrontToken });
// The store's currency (prices are integers in its smallest unit) and whether its prices hold the tax.
export const storeSettings = (await shop.GET('/api/v1/store')).data?.store ?? { currency: 'USD', pricesIncludeTax: false };
// The store's enabled payment providers: `manual` with its instructions, `stripe` with its publishable key.
export const paymentProviders = 'paymentProviders' in storeSettings ? storeSettings.paymentProviders : [];
export const me = createStorefrontClient({ baseUrl: location.origin, token: () => customer()?.secret });

// Like a session cookie: the customer's token and the cart id live in this browser; the orders do not.
const stored = <T>(key: string): T | undefined => JSON.parse(localStorage.getItem(key) ?? 'null') ?? undefined;
const remember = (key: string, value: unknown) => (value === undefined ? localStorage.removeItem(key) : localStorage.setItem(key, JSON.stringify(value)));

export const customer = () => stored<Customer>('customer');
export const cartId = () => stored<string>('cartId');
export const rememberCart = (id: string | undefined) => remember('cartId', id);
export const forgetCustomer = () => remember('customer', undefined);

/** DEMO sign-in through the shop's back end: it answers a customer token for this email's customer. */
export async function signIn(email: string): Promise<string | undefined> {
  const response = await fetch('/shop/sign-in', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
  const answer = (await response.json()) as Customer & { detail?: string };
  if (!response.ok) return answer.detail ?? 'Sign-in failed.';
  remember('customer', { customerId: answer.customerId, secret: answer.secret, email: answer.email });
  return undefined;
}

/** Signs out: the API revokes the token at once, then the browser forgets it. */
export async function signOut() {
  if (customer()) await me.DELETE('/api/v1/customer-tokens/current');
  forgetCustomer();
}

/** The customer who checks out: the signed-in one, or a new guest session. */
export async function checkoutCustomer(): Promise<Customer | { problem: Partial<Problem> | undefined }> {
  const existing = customer();
  if (existing) return existing;
  const { data, error } = await shop.POST('/api/v1/guest-sessions');
  if (!data) return { problem: error };
  const guest = { customerId: data.customerId, secret: data.secret };
  remember('customer', guest);
  return guest;
}
