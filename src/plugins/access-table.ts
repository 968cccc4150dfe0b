/**
 * Who may call each route: the table of docs/api.md, "Tokens and access", declared once.
 * Every route under /api/v1 must have an entry (the app refuses to start otherwise), and the
 * authorization matrix test walks every route of the OpenAPI document against this table.
 */

/** The kinds of caller a credential names. Guest sessions and identity-provider JWTs are `customer`. */
export type Caller = 'storefront' | 'customer' | 'server' | 'admin' | 'root';

/**
 * - `any`: this caller may call the route (for any customer of its store);
 * - `own-path`: a customer credential, only when the path's `:customer` is its subject;
 * - `own-token`: a customer token (not a JWT: signing out is the identity provider's).
 */
export type Grant = 'any' | 'own-path' | 'own-token';

/** `public`: no token needed (operations routes). */
export type Access = 'public' | Readonly<Partial<Record<Caller, Grant>>>;

const catalogAndCarts: Access = { storefront: 'any', customer: 'any', server: 'any', admin: 'any' };
const guestSessions: Access = { storefront: 'any', server: 'any', admin: 'any' };
const customerData: Access = { customer: 'own-path', server: 'any', admin: 'any' };
const customerTokens: Access = { server: 'any', admin: 'any' };
const currentCustomerToken: Access = { customer: 'own-token' };
const adminApi: Access = { admin: 'any' };
const platform: Access = { root: 'any' };

export const ROUTE_ACCESS: Readonly<Record<string, Access>> = {
  'GET /api/health': 'public',
  'GET /api/ready': 'public',

  'GET /api/v1/products': catalogAndCarts,
  'GET /api/v1/products/:slug': catalogAndCarts,
  'GET /api/v1/product-groups/:group': catalogAndCarts,
  'GET /api/v1/collections': catalogAndCarts,
  'GET /api/v1/store': catalogAndCarts,
  'GET /api/v1/carts/:id/shipping-options': catalogAndCarts,
  'PUT /api/v1/carts/:id/shipping': catalogAndCarts,
  'DELETE /api/v1/carts/:id/shipping': catalogAndCarts,
  'POST /api/v1/carts': catalogAndCarts,
  'GET /api/v1/carts/:id': catalogAndCarts,
  'POST /api/v1/carts/:id/products': catalogAndCarts,
  'PATCH /api/v1/carts/:id/products/:pid': catalogAndCarts,
  'DELETE /api/v1/carts/:id/products/:pid': catalogAndCarts,
  'POST /api/v1/carts/:id/discount': catalogAndCarts,
  'DELETE /api/v1/carts/:id/discount': catalogAndCarts,
  'POST /api/v1/carts/:id/hold': catalogAndCarts,
  'DELETE /api/v1/carts/:id/hold': catalogAndCarts,

  'POST /api/v1/guest-sessions': guestSessions,

  'POST /api/v1/:customer/addresses': customerData,
  'GET /api/v1/:customer/addresses': customerData,
  'POST /api/v1/:customer/orders': customerData,
  'GET /api/v1/:customer/orders': customerData,
  'GET /api/v1/:customer/orders/:id': customerData,
  'POST /api/v1/:customer/orders/:id/payments': customerData,
  'POST /api/v1/:customer/orders/:id/payments/:paymentId/sync': customerData,
  // Stripe's webhooks: the signature over the body is the credential.
  'POST /api/v1/payment-webhooks/stripe/:store': 'public',

  'POST /api/v1/customer-tokens': customerTokens,
  'DELETE /api/v1/customer-tokens': customerTokens,
  'DELETE /api/v1/customer-tokens/:id': customerTokens,
  'DELETE /api/v1/customer-tokens/current': currentCustomerToken,

  'POST /api/v1/admin/stores': platform,
  'GET /api/v1/admin/tokens': adminApi,
  'POST /api/v1/admin/tokens': adminApi,
  'DELETE /api/v1/admin/tokens/:id': adminApi,
  'GET /api/v1/admin/customer-auth': adminApi,
  'PUT /api/v1/admin/customer-auth': adminApi,
  'DELETE /api/v1/admin/customer-auth': adminApi,
  'GET /api/v1/admin/products': adminApi,
  'POST /api/v1/admin/products': adminApi,
  'GET /api/v1/admin/products/:id': adminApi,
  'PATCH /api/v1/admin/products/:id': adminApi,
  'DELETE /api/v1/admin/products/:id': adminApi,
  'GET /api/v1/admin/discounts': adminApi,
  'POST /api/v1/admin/discounts': adminApi,
  'GET /api/v1/admin/discounts/:id': adminApi,
  'PATCH /api/v1/admin/discounts/:id': adminApi,
  'DELETE /api/v1/admin/discounts/:id': adminApi,
  'GET /api/v1/admin/collections': adminApi,
  'POST /api/v1/admin/collections': adminApi,
  'GET /api/v1/admin/collections/:id': adminApi,
  'PATCH /api/v1/admin/collections/:id': adminApi,
  'DELETE /api/v1/admin/collections/:id': adminApi,
  'POST /api/v1/admin/collections/:id/products': adminApi,
  'DELETE /api/v1/admin/collections/:id/products/:pid': adminApi,
  'PATCH /api/v1/admin/store': adminApi,
  'GET /api/v1/admin/tax-rates': adminApi,
  'POST /api/v1/admin/tax-rates': adminApi,
  'GET /api/v1/admin/tax-rates/:id': adminApi,
  'PATCH /api/v1/admin/tax-rates/:id': adminApi,
  'DELETE /api/v1/admin/tax-rates/:id': adminApi,
  'GET /api/v1/admin/shipping-options': adminApi,
  'POST /api/v1/admin/shipping-options': adminApi,
  'GET /api/v1/admin/shipping-options/:id': adminApi,
  'PATCH /api/v1/admin/shipping-options/:id': adminApi,
  'DELETE /api/v1/admin/shipping-options/:id': adminApi,
  'GET /api/v1/admin/orders': adminApi,
  'GET /api/v1/admin/orders/:id': adminApi,
  'PATCH /api/v1/admin/orders/:id': adminApi,
  'POST /api/v1/admin/orders/:id/fulfillments': adminApi,
  'POST /api/v1/admin/orders/:id/refunds': adminApi,
  'GET /api/v1/admin/events': adminApi,
  'GET /api/v1/admin/payment-providers': adminApi,
  'PUT /api/v1/admin/payment-providers/manual': adminApi,
  'PUT /api/v1/admin/payment-providers/stripe': adminApi,
  'DELETE /api/v1/admin/payment-providers/:name': adminApi,
  'GET /api/v1/admin/webhooks': adminApi,
  'POST /api/v1/admin/webhooks': adminApi,
  'GET /api/v1/admin/webhooks/:id': adminApi,
  'PATCH /api/v1/admin/webhooks/:id': adminApi,
  'DELETE /api/v1/admin/webhooks/:id': adminApi,
  'POST /api/v1/admin/webhooks/:id/rotate-secret': adminApi,
  'POST /api/v1/admin/webhooks/:id/test': adminApi,
  'GET /api/v1/admin/webhooks/:id/deliveries': adminApi,
  'POST /api/v1/admin/webhooks/:id/deliveries/:deliveryId/retry': adminApi,
};

/** The entry of a route, by its method and URL pattern as registered (HEAD follows GET). */
export function accessOf(method: string, url: string): Access | undefined {
  return ROUTE_ACCESS[`${method === 'HEAD' ? 'GET' : method} ${url}`];
}

const CALLER_NAMES: Record<Caller, Record<Grant, string>> = {
  customer: { any: 'a customer credential', 'own-path': 'a customer credential of this customer', 'own-token': 'a customer token (not a JWT)' },
  storefront: { any: 'a storefront token', 'own-path': '', 'own-token': '' },
  server: { any: 'a server token', 'own-path': '', 'own-token': '' },
  admin: { any: 'an admin token', 'own-path': '', 'own-token': '' },
  root: { any: 'the root token', 'own-path': '', 'own-token': '' },
};

/** Which credentials a route needs, for a 403's detail: "a server token or an admin token". */
export function describeAccess(access: Exclude<Access, 'public'>): string {
  const names = (Object.entries(access) as Array<[Caller, Grant]>).map(([caller, grant]) => CALLER_NAMES[caller][grant]);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : (names[0] ?? 'no credential');
}
