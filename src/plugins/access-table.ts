/**
 * Who may call each route: the table of docs/api.md, "Tokens and access", declared once.
 * Every route under /api/v1 must have an entry (the app refuses to start otherwise), and the
 * authorization matrix test walks every route of the OpenAPI document against this table.
 */

/**
 * The kinds of caller a credential names. Guest sessions and identity-provider JWTs are `customer`;
 * a staff session is `owner` or `staff`, by the person's role.
 */
export type Caller = 'storefront' | 'customer' | 'server' | 'admin' | 'root' | 'owner' | 'staff';

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
/**
 * The admin API, by the role it needs. An admin token has the owner's rights. A new admin route
 * takes `ownerOnly` (tokens, staff, payment providers, webhooks, events, store settings) or
 * `staffWork` (the catalog, collections, orders with fulfilment and refunds, discounts, shipping
 * options, tax rates, images); the role test walks this table, so nothing else needs to change.
 */
export const ownerOnly: Access = { admin: 'any', owner: 'any' };
export const staffWork: Access = { admin: 'any', owner: 'any', staff: 'any' };
/** Older name of `ownerOnly`, kept so an entry written before staff accounts stays owner-only. */
export const adminApi: Access = ownerOnly;
/** A staff member's own session (either role). */
const staffSession: Access = { owner: 'any', staff: 'any' };
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
  'GET /api/v1/admin/tokens': ownerOnly,
  'POST /api/v1/admin/tokens': ownerOnly,
  'DELETE /api/v1/admin/tokens/:id': ownerOnly,
  'GET /api/v1/admin/customer-auth': ownerOnly,
  'PUT /api/v1/admin/customer-auth': ownerOnly,
  'DELETE /api/v1/admin/customer-auth': ownerOnly,
  'GET /api/v1/admin/products': staffWork,
  'POST /api/v1/admin/products': staffWork,
  'GET /api/v1/admin/products/:id': staffWork,
  'PATCH /api/v1/admin/products/:id': staffWork,
  'DELETE /api/v1/admin/products/:id': staffWork,
  'POST /api/v1/admin/product-groups/:group/variants': staffWork,
  'GET /api/v1/admin/discounts': staffWork,
  'POST /api/v1/admin/discounts': staffWork,
  'GET /api/v1/admin/discounts/:id': staffWork,
  'PATCH /api/v1/admin/discounts/:id': staffWork,
  'DELETE /api/v1/admin/discounts/:id': staffWork,
  'GET /api/v1/admin/collections': staffWork,
  'POST /api/v1/admin/collections': staffWork,
  'GET /api/v1/admin/collections/:id': staffWork,
  'PATCH /api/v1/admin/collections/:id': staffWork,
  'DELETE /api/v1/admin/collections/:id': staffWork,
  'POST /api/v1/admin/collections/:id/products': staffWork,
  'DELETE /api/v1/admin/collections/:id/products/:pid': staffWork,
  'PATCH /api/v1/admin/store': ownerOnly,
  'GET /api/v1/admin/tax-rates': staffWork,
  'POST /api/v1/admin/tax-rates': staffWork,
  'GET /api/v1/admin/tax-rates/:id': staffWork,
  'PATCH /api/v1/admin/tax-rates/:id': staffWork,
  'DELETE /api/v1/admin/tax-rates/:id': staffWork,
  'GET /api/v1/admin/shipping-options': staffWork,
  'POST /api/v1/admin/shipping-options': staffWork,
  'GET /api/v1/admin/shipping-options/:id': staffWork,
  'PATCH /api/v1/admin/shipping-options/:id': staffWork,
  'DELETE /api/v1/admin/shipping-options/:id': staffWork,
  'GET /api/v1/admin/orders': staffWork,
  'GET /api/v1/admin/orders/:id': staffWork,
  'PATCH /api/v1/admin/orders/:id': staffWork,
  'POST /api/v1/admin/orders/:id/fulfillments': staffWork,
  'POST /api/v1/admin/orders/:id/refunds': staffWork,
  'GET /api/v1/admin/events': ownerOnly,
  'GET /api/v1/admin/payment-providers': ownerOnly,
  'PUT /api/v1/admin/payment-providers/manual': ownerOnly,
  'PUT /api/v1/admin/payment-providers/stripe': ownerOnly,
  'DELETE /api/v1/admin/payment-providers/:name': ownerOnly,
  'GET /api/v1/admin/webhooks': ownerOnly,
  'POST /api/v1/admin/webhooks': ownerOnly,
  'GET /api/v1/admin/webhooks/:id': ownerOnly,
  'PATCH /api/v1/admin/webhooks/:id': ownerOnly,
  'DELETE /api/v1/admin/webhooks/:id': ownerOnly,
  'POST /api/v1/admin/webhooks/:id/rotate-secret': ownerOnly,
  'POST /api/v1/admin/webhooks/:id/test': ownerOnly,
  'GET /api/v1/admin/webhooks/:id/deliveries': ownerOnly,
  'POST /api/v1/admin/webhooks/:id/deliveries/:deliveryId/retry': ownerOnly,
  'GET /api/v1/admin/staff': ownerOnly,
  'POST /api/v1/admin/staff': ownerOnly,
  'PATCH /api/v1/admin/staff/:id': ownerOnly,
  'DELETE /api/v1/admin/staff/:id': ownerOnly,
  'POST /api/v1/admin/images': staffWork,

  'POST /api/v1/staff/invitations/accept': 'public',
  'POST /api/v1/staff/sessions': 'public',
  'GET /api/v1/staff/sessions/current': staffSession,
  'DELETE /api/v1/staff/sessions/current': staffSession,
  'PUT /api/v1/staff/password': staffSession,
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
  owner: { any: "an owner's session", 'own-path': '', 'own-token': '' },
  staff: { any: "a staff member's session", 'own-path': '', 'own-token': '' },
};

/** Which credentials a route needs, for a 403's detail: "a server token or an admin token". */
export function describeAccess(access: Exclude<Access, 'public'>): string {
  const names = (Object.entries(access) as Array<[Caller, Grant]>).map(([caller, grant]) => CALLER_NAMES[caller][grant]);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : (names[0] ?? 'no credential');
}
