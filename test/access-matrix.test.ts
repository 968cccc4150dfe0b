/**
 * The authorization matrix: every operation of the OpenAPI document, called with every kind of
 * credential, answers what the access table (docs/api.md, "Tokens and access") says: 401 for no, a malformed,
 * a revoked or an expired credential; 403 for a caller the route does not admit; anything but
 * 401/403 (and never a 400 or a 5xx: the inputs are valid) for one it admits. A route with no entry
 * in the table fails here (and the app refuses to start).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { accessOf, type Access, type Caller } from '../src/plugins/access-table.js';
import { ROOT_TOKEN, startTestApp } from './support/app.js';
import { createStore, mintCustomerToken } from './support/factories.js';
import { ADDRESS } from './support/shop.js';
import { STAFF_PASSWORD, staffMember } from './support/staff.js';

const t = await startTestApp();
const A = await createStore(t);
const B = await createStore(t);
const customerA = randomUUID();
const customerB = randomUUID();

// Identity-provider JWTs for store A, with an inline JWK Set.
const keys = await generateKeyPair('ES256');
const issuer = `https://matrix-${randomUUID().slice(0, 8)}.example/`;
const customerAuth = { issuer, audience: 'matrix', jwks: { keys: [{ ...(await exportJWK(keys.publicKey)), kid: 'k1' }] } };
assert.equal((await t.request('PUT', '/api/v1/admin/customer-auth', { token: A.admin, body: customerAuth })).status, 200);
const jwtFor = (sub: string) =>
  new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer(issuer).setAudience('matrix').setSubject(sub).setExpirationTime('5m').sign(keys.privateKey);

const revoked = await t.request('POST', '/api/v1/admin/tokens', { token: A.admin, body: { kind: 'server' } });
await t.request('DELETE', `/api/v1/admin/tokens/${revoked.json.token.id}`, { token: A.admin });
const expired = await mintCustomerToken(t, A, customerA);
await t.database.db.execute(sql`update tokens set expires_at = now() - interval '1 second' where id = ${expired.id}`);

interface Credential {
  name: string;
  /** The caller the table knows it as; undefined for a credential that must be refused (401). */
  caller?: Caller;
  /** The customer its path names (`:customer`). */
  pathCustomer: string;
  /** Whether `own-path` admits it: its subject is the path's customer. */
  ownPath?: boolean;
  isJwt?: boolean;
  /** Fresh per request: some routes revoke the credential that calls them. */
  authorization(): Promise<string | undefined>;
}

const bearer = (token: string) => `Bearer ${token}`;

/**
 * A staff member's session, signed in again only once a route ended it: signing in hashes a
 * password (scrypt, about 0.1 s), and doing so for every call took two thirds of this file's time.
 */
function liveSession(store: typeof A, role: 'owner' | 'staff'): () => Promise<string> {
  let secret: string | undefined;
  return async () => {
    if (secret && (await t.request('GET', '/api/v1/admin/products?limit=1', { token: secret })).status === 401) secret = undefined;
    secret ??= (await staffMember(t, store, role)).secret;
    return bearer(secret);
  };
}
/** An owner's session that was signed out: it stays ended. */
let endedSession: string | undefined;
async function signedOutSession(): Promise<string> {
  if (!endedSession) {
    const member = await staffMember(t, A, 'owner');
    assert.equal((await t.request('DELETE', '/api/v1/staff/sessions/current', { token: member.secret })).status, 200);
    endedSession = member.secret;
  }
  return endedSession;
}
const credentials: Credential[] = [
  { name: 'none', pathCustomer: customerA, authorization: async () => undefined },
  { name: 'malformed', pathCustomer: customerA, authorization: async () => 'Basic dXNlcjpwYXNz' },
  { name: 'unknown', pathCustomer: customerA, authorization: async () => bearer(`sf_${A.slug}_${'x'.repeat(43)}`) },
  { name: 'revoked', pathCustomer: customerA, authorization: async () => bearer(revoked.json.secret) },
  { name: 'expired', pathCustomer: customerA, authorization: async () => bearer(expired.secret) },
  { name: 'storefront', caller: 'storefront', pathCustomer: customerA, authorization: async () => bearer(A.storefront) },
  { name: 'customer A on A\'s path', caller: 'customer', pathCustomer: customerA, ownPath: true, authorization: async () => bearer((await mintCustomerToken(t, A, customerA)).secret) },
  { name: 'customer A on B\'s path', caller: 'customer', pathCustomer: customerB, ownPath: false, authorization: async () => bearer((await mintCustomerToken(t, A, customerA)).secret) },
  {
    name: 'guest', caller: 'customer', pathCustomer: '', ownPath: true,
    authorization: async () => {
      const session = await t.request('POST', '/api/v1/guest-sessions', { token: A.storefront });
      guestCustomer = session.json.customerId;
      return bearer(session.json.secret);
    },
  },
  { name: 'JWT', caller: 'customer', pathCustomer: customerA, ownPath: true, isJwt: true, authorization: async () => bearer(await jwtFor(customerA)) },
  { name: 'JWT on another path', caller: 'customer', pathCustomer: customerB, ownPath: false, isJwt: true, authorization: async () => bearer(await jwtFor(customerA)) },
  { name: 'server', caller: 'server', pathCustomer: customerA, authorization: async () => bearer(A.server) },
  { name: 'admin', caller: 'admin', pathCustomer: customerA, authorization: async () => bearer(A.admin) },
  { name: 'another store\'s admin', caller: 'admin', pathCustomer: customerA, authorization: async () => bearer(B.admin) },
  { name: 'another store\'s customer', caller: 'customer', pathCustomer: customerA, ownPath: false, authorization: async () => bearer((await mintCustomerToken(t, B, customerB)).secret) },
  { name: 'root', caller: 'root', pathCustomer: customerA, authorization: async () => bearer(ROOT_TOKEN) },
  // Staff sessions, kept while they last: some routes end the session that calls them.
  { name: 'owner session', caller: 'owner', pathCustomer: customerA, authorization: liveSession(A, 'owner') },
  { name: 'staff session', caller: 'staff', pathCustomer: customerA, authorization: liveSession(A, 'staff') },
  { name: 'another store\'s staff session', caller: 'staff', pathCustomer: customerA, authorization: liveSession(B, 'staff') },
  { name: 'ended session', pathCustomer: customerA, authorization: async () => bearer(await signedOutSession()) },
];
let guestCustomer = '';

/** A valid body for each operation that takes one (the matrix checks authorization, not validation). */
const BODIES: Record<string, () => unknown> = {
  'POST /api/v1/carts': () => ({ products: [{ id: randomUUID(), quantity: 1 }] }),
  'POST /api/v1/carts/:id/products': () => ({ id: randomUUID(), quantity: 1 }),
  'PATCH /api/v1/carts/:id/products/:pid': () => ({ quantity: 1 }),
  'POST /api/v1/carts/:id/discount': () => ({ code: 'WELCOME10' }),
  'POST /api/v1/:customer/addresses': () => ({ address: ADDRESS }),
  'POST /api/v1/:customer/orders': () => ({ address: randomUUID(), products: [{ id: randomUUID(), quantity: 1 }] }),
  'POST /api/v1/customer-tokens': () => ({ customerId: randomUUID() }),
  'POST /api/v1/admin/stores': () => ({ slug: `m-${randomUUID().slice(0, 8)}` }),
  'POST /api/v1/admin/tokens': () => ({ kind: 'storefront' }),
  'PUT /api/v1/admin/customer-auth': () => customerAuth,
  'POST /api/v1/admin/products': () => ({ name: 'P', slug: `p-${randomUUID().slice(0, 8)}`, sku: 'S', price: 1, quantity: 1 }),
  'PATCH /api/v1/admin/products/:id': () => ({ price: 2 }),
  'POST /api/v1/admin/product-groups/:group/variants': () => ({ variants: [{ name: 'P', slug: `v-${randomUUID().slice(0, 8)}`, sku: 'S', price: 1, quantity: 1, options: { Size: 'M' } }] }),
  'POST /api/v1/admin/collections': () => ({ name: 'C', slug: `c-${randomUUID().slice(0, 8)}` }),
  'PATCH /api/v1/admin/collections/:id': () => ({ name: 'C2' }),
  'POST /api/v1/admin/collections/:id/products': () => ({ id: randomUUID() }),
  'PATCH /api/v1/admin/orders/:id': () => ({ status: 'PAID' }),
  'POST /api/v1/admin/orders/:id/fulfillments': () => ({ trackingNumber: 'T1' }),
  'POST /api/v1/admin/orders/:id/refunds': () => ({ amount: 1 }),
  'POST /api/v1/admin/discounts': () => ({ code: `M${randomUUID().slice(0, 8)}`, type: 'fixed', value: 1 }),
  'PATCH /api/v1/admin/discounts/:id': () => ({ value: 2 }),
  'PATCH /api/v1/admin/store': () => ({ pricesIncludeTax: false }),
  'PUT /api/v1/carts/:id/shipping': () => ({ optionId: randomUUID(), country: 'US' }),
  'POST /api/v1/admin/tax-rates': () => ({ country: 'US', region: `R${randomUUID().slice(0, 8)}`, rate: 825, name: 'Sales tax' }),
  'PATCH /api/v1/admin/tax-rates/:id': () => ({ rate: 800 }),
  'POST /api/v1/admin/shipping-options': () => ({ name: 'Standard', price: 500, active: false }),
  'PATCH /api/v1/admin/shipping-options/:id': () => ({ price: 600 }),
  // A loopback URL: refused (422) without any lookup or traffic, after authorization.
  'POST /api/v1/admin/webhooks': () => ({ url: 'https://127.0.0.1/orders', events: ['order.created'] }),
  'PATCH /api/v1/admin/webhooks/:id': () => ({ description: 'd' }),
  'PUT /api/v1/admin/payment-providers/manual': () => ({ instructions: 'Pay on delivery' }),
  'PUT /api/v1/admin/payment-providers/stripe': () => ({ secretKey: 'sk_test_matrix00', publishableKey: 'pk_test_matrix00', webhookSecret: 'whsec_matrix00' }),
  'POST /api/v1/:customer/orders/:id/payments': () => ({ provider: 'manual' }),
  'POST /api/v1/admin/staff': () => ({ email: `m-${randomUUID().slice(0, 8)}@shop.example`, role: 'staff' }),
  'PATCH /api/v1/admin/staff/:id': () => ({ role: 'staff' }),
  'PUT /api/v1/staff/password': () => ({ current: STAFF_PASSWORD, password: `${STAFF_PASSWORD} renewed` }),
};

function expected(access: Exclude<Access, 'public'>, credential: Credential): 401 | 403 | 'admitted' {
  if (!credential.caller) return 401;
  const grant = access[credential.caller];
  if (!grant) return 403;
  if (credential.caller !== 'customer' || grant === 'any') return 'admitted';
  if (grant === 'own-path') return credential.ownPath ? 'admitted' : 403;
  return credential.isJwt ? 403 : 'admitted';
}

interface Operation {
  method: string;
  pattern: string;
  path: string;
  parameters?: Array<{ in: string; name: string; required?: boolean; schema?: { type?: string } }>;
  requestBody?: unknown;
}

const document = (await t.request('GET', '/api/openapi.json')).json as { paths: Record<string, Record<string, Omit<Operation, 'method' | 'pattern' | 'path'>>> };
const operations: Operation[] = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ ...operation, method: method.toUpperCase(), path, pattern: path.replace(/\{(\w+)\}/g, ':$1') })),
);

test('the OpenAPI document lists every route of the access table, and the table has an entry for every operation', () => {
  assert.ok(operations.length >= 40, `${operations.length} operations`);
  for (const op of operations) assert.ok(accessOf(op.method, op.pattern), `${op.method} ${op.pattern} has no entry in src/plugins/access-table.ts`);
});

test('every operation, every credential: the status the access table gives', async () => {
  const mismatches: string[] = [];
  let calls = 0;
  for (const op of operations) {
    const access = accessOf(op.method, op.pattern);
    if (!access || access === 'public') continue;
    const key = `${op.method} ${op.pattern}`;
    if (op.requestBody && !BODIES[key]) {
      mismatches.push(`${key}: no sample body in the matrix test`);
      continue;
    }
    for (const credential of credentials) {
      const authorization = await credential.authorization();
      const customer = credential.name === 'guest' ? guestCustomer : credential.pathCustomer;
      let url = op.path.replace('{customer}', customer).replace(/\{(\w+)\}/g, (_, name: string) => (name === 'name' ? 'manual' : op.path.includes('{slug}') ? 'no-such-product' : randomUUID()));
      const required = (op.parameters ?? []).filter((p) => p.in === 'query' && p.required);
      if (required.length > 0) url += `?${required.map((p) => `${p.name}=${p.schema?.type === 'integer' ? 10 : randomUUID()}`).join('&')}`;
      const body = BODIES[key]?.();
      const r = await t.request(op.method, url, { body, headers: authorization ? { authorization } : {} });
      calls++;
      const want = expected(access, credential);
      const ok = want === 'admitted' ? ![400, 401, 403].includes(r.status) && r.status < 500 : r.status === want;
      if (!ok) mismatches.push(`${key} with ${credential.name}: ${r.status} (${r.json?.detail ?? ''}), expected ${want}`);
      // Turning the identity provider off would end the JWT credential's life: turn it back on.
      if (key === 'DELETE /api/v1/admin/customer-auth' && r.status === 200) await t.request('PUT', '/api/v1/admin/customer-auth', { token: A.admin, body: customerAuth });
    }
  }
  assert.deepEqual(mismatches, []);
  console.log(`# access matrix: ${calls} calls, ${operations.length} operations x ${credentials.length} credentials`);
});
