/**
 * Staff accounts (docs/dashboard.md): invitations (once, 7 days), sign-in and its limits (shared by
 * processes through the database), sessions (sign-out, a password change and disabling end them),
 * roles (the access matrix walks every route; here the owner-only rules), the last-owner rule under
 * concurrent requests, and the actor on events.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { startAppOn, startTestApp, type TestApp } from './support/app.js';
import { assertProblem, createProduct, createStore, mintCustomerToken, type TestStore } from './support/factories.js';
import { createAddress, placeOrder } from './support/shop.js';
import { STAFF_PASSWORD, staffMember } from './support/staff.js';
import { withRecordedEvents } from '../src/modules/events/index.js';

// Each test signs in from its own client address (X-Forwarded-For through one trusted proxy).
const t = await startTestApp({ TRUST_PROXY: '1' });
const from = (ip: string) => ({ 'x-forwarded-for': ip });
let nextIp = 1;
const newClient = () => from(`10.36.${Math.floor(nextIp / 250)}.${(nextIp++ % 250) + 1}`);

const signIn = (app: TestApp, body: Record<string, unknown>, client: Record<string, string>) => app.request('POST', '/api/v1/staff/sessions', { body, headers: client });

test('an owner invites; the invitation works once, for 7 days; emails are unique per store whatever their case', async () => {
  const s = await createStore(t);
  const invited = await t.request('POST', '/api/v1/admin/staff', { token: s.admin, body: { email: 'Ana@Shop.example', role: 'staff' } });
  assert.equal(invited.status, 201, invited.text);
  assert.equal(invited.json.staff.status, 'invited');
  assert.equal(invited.json.staff.lastSignInAt, null);
  const days = (Date.parse(invited.json.invitation.expiresAt) - Date.now()) / 86_400_000;
  assert.ok(days > 6.99 && days <= 7, `${days} days`);
  assert.match(invited.json.invitation.url, /^\/admin\//);
  assertProblem(await t.request('POST', '/api/v1/admin/staff', { token: s.admin, body: { email: 'ana@shop.EXAMPLE', role: 'owner' } }), 409, 'CONFLICT');

  const short = await t.request('POST', '/api/v1/staff/invitations/accept', { body: { secret: invited.json.invitation.secret, password: 'too short' } });
  assertProblem(short, 400, 'VALIDATION_FAILED');
  const accepted = await t.request('POST', '/api/v1/staff/invitations/accept', { body: { secret: invited.json.invitation.secret, password: STAFF_PASSWORD } });
  assert.equal(accepted.status, 201, accepted.text);
  assert.equal(accepted.json.session.role, 'staff');
  assert.match(accepted.json.secret, new RegExp(`^stf_${s.slug}_`));
  const again = await t.request('POST', '/api/v1/staff/invitations/accept', { body: { secret: invited.json.invitation.secret, password: `${STAFF_PASSWORD}!` } });
  assertProblem(again, 401, 'UNAUTHORIZED');
  const list = (await t.request('GET', '/api/v1/admin/staff', { token: s.admin })).json;
  assert.equal(list.total, 1);
  assert.equal(list.staff[0].status, 'active');
  assert.equal(JSON.stringify(list).includes('hash'), false, 'no hash is ever answered');

  // An expired invitation is refused like a used one.
  const late = await t.request('POST', '/api/v1/admin/staff', { token: s.admin, body: { email: 'late@shop.example', role: 'staff' } });
  await t.database.db.execute(sql`update staff set invitation_expires_at = now() - interval '1 second' where id = ${late.json.staff.id}`);
  assertProblem(await t.request('POST', '/api/v1/staff/invitations/accept', { body: { secret: late.json.invitation.secret, password: STAFF_PASSWORD } }), 401, 'UNAUTHORIZED');
  // Another store's admin sees none of it.
  const other = await createStore(t);
  assert.equal((await t.request('GET', '/api/v1/admin/staff', { token: other.admin })).json.total, 0);
  assertProblem(await t.request('PATCH', `/api/v1/admin/staff/${list.staff[0].id}`, { token: other.admin, body: { role: 'owner' } }), 404, 'NOT_FOUND');
});

test('sign-in: a session for the admin API; a wrong store, email or password is the same 401; sign-out ends the session', async () => {
  const s = await createStore(t);
  const member = await staffMember(t, s, 'staff');
  const client = newClient();
  const ok = await signIn(t, { store: s.slug, email: member.email.toUpperCase(), password: STAFF_PASSWORD }, client);
  assert.equal(ok.status, 201, ok.text);
  const hours = (Date.parse(ok.json.session.expiresAt) - Date.now()) / 3_600_000;
  assert.ok(hours > 11.99 && hours <= 12, `${hours} hours`);
  assert.equal((await t.request('GET', '/api/v1/admin/products', { token: ok.json.secret })).status, 200);
  const me = await t.request('GET', '/api/v1/staff/sessions/current', { token: ok.json.secret });
  assert.equal(me.json.session.email, member.email);

  const refusals = await Promise.all([
    signIn(t, { store: s.slug, email: member.email, password: 'wrong password!' }, newClient()),
    signIn(t, { store: s.slug, email: 'nobody@shop.example', password: STAFF_PASSWORD }, newClient()),
    signIn(t, { store: 'no-such-store', email: member.email, password: STAFF_PASSWORD }, newClient()),
  ]);
  for (const r of refusals) assertProblem(r, 401, 'UNAUTHORIZED');
  const bodies = refusals.map((r) => ({ ...r.json, instance: undefined }));
  assert.deepEqual(bodies[1], bodies[0]);
  assert.deepEqual(bodies[2], bodies[0]);

  assert.equal((await t.request('DELETE', '/api/v1/staff/sessions/current', { token: ok.json.secret })).status, 200);
  assertProblem(await t.request('GET', '/api/v1/admin/products', { token: ok.json.secret }), 401, 'UNAUTHORIZED');
  assert.equal((await t.request('GET', '/api/v1/admin/products', { token: member.secret })).status, 200, 'the other session lives on');
  // A session past its 12 hours is refused.
  await t.database.db.execute(sql`update staff_sessions set expires_at = now() - interval '1 second' where staff_id = ${member.id}`);
  assertProblem(await t.request('GET', '/api/v1/admin/products', { token: member.secret }), 401, 'UNAUTHORIZED');
});

test('a password change ends every session of the person; disabling ends them and refuses sign-in', async () => {
  const s = await createStore(t);
  const member = await staffMember(t, s, 'staff');
  const second = await signIn(t, { store: s.slug, email: member.email, password: STAFF_PASSWORD }, newClient());
  const wrong = await t.request('PUT', '/api/v1/staff/password', { token: member.secret, body: { current: 'not my password', password: 'a brand new password' } });
  assertProblem(wrong, 400, 'VALIDATION_FAILED');
  assert.equal(wrong.json.errors[0].field, '/current');
  const changed = await t.request('PUT', '/api/v1/staff/password', { token: member.secret, body: { current: STAFF_PASSWORD, password: 'a brand new password' } });
  assert.equal(changed.status, 200, changed.text);
  for (const secret of [member.secret, second.json.secret]) assertProblem(await t.request('GET', '/api/v1/admin/products', { token: secret }), 401, 'UNAUTHORIZED');
  assertProblem(await signIn(t, { store: s.slug, email: member.email, password: STAFF_PASSWORD }, newClient()), 401, 'UNAUTHORIZED');
  const fresh = await signIn(t, { store: s.slug, email: member.email, password: 'a brand new password' }, newClient());
  assert.equal(fresh.status, 201);

  const disabled = await t.request('PATCH', `/api/v1/admin/staff/${member.id}`, { token: s.admin, body: { disabled: true } });
  assert.equal(disabled.json.staff.status, 'disabled');
  assertProblem(await t.request('GET', '/api/v1/admin/products', { token: fresh.json.secret }), 401, 'UNAUTHORIZED');
  assertProblem(await signIn(t, { store: s.slug, email: member.email, password: 'a brand new password' }, newClient()), 401, 'UNAUTHORIZED');
  const enabled = await t.request('PATCH', `/api/v1/admin/staff/${member.id}`, { token: s.admin, body: { disabled: false } });
  assert.equal(enabled.json.staff.status, 'active');
  assert.equal((await signIn(t, { store: s.slug, email: member.email, password: 'a brand new password' }, newClient())).status, 201);
});

test('roles: staff reach the catalog, orders and discounts but not tokens, staff, webhooks or events; owners reach all', async () => {
  const s = await createStore(t);
  const member = await staffMember(t, s, 'staff');
  const owner = await staffMember(t, s, 'owner');
  for (const url of ['/api/v1/admin/products', '/api/v1/admin/collections', '/api/v1/admin/orders', '/api/v1/admin/discounts']) {
    assert.equal((await t.request('GET', url, { token: member.secret })).status, 200, url);
  }
  for (const url of ['/api/v1/admin/tokens', '/api/v1/admin/staff', '/api/v1/admin/webhooks', '/api/v1/admin/events']) {
    const r = await t.request('GET', url, { token: member.secret });
    assertProblem(r, 403, 'FORBIDDEN');
    assert.match(r.json.detail, /staff member's session/);
    assert.equal((await t.request('GET', url, { token: owner.secret })).status, 200, url);
  }
  assertProblem(await t.request('POST', '/api/v1/admin/staff', { token: member.secret, body: { email: 'x@shop.example', role: 'owner' } }), 403, 'FORBIDDEN');
  // A session is not a storefront credential, nor valid in another store.
  const other = await createStore(t);
  assert.equal((await t.request('GET', `/api/v1/admin/products/${(await createProduct(t, other)).id}`, { token: owner.secret })).status, 404);
  // Demoted at once: the session's next request has the new role (another owner remains).
  await staffMember(t, s, 'owner');
  await t.request('PATCH', `/api/v1/admin/staff/${owner.id}`, { token: s.admin, body: { role: 'staff' } });
  assertProblem(await t.request('GET', '/api/v1/admin/staff', { token: owner.secret }), 403, 'FORBIDDEN');
});

test('the last active owner cannot be removed, disabled or demoted, also when two owners demote each other at once', async () => {
  const s = await createStore(t);
  const a = await staffMember(t, s, 'owner');
  for (const [method, body] of [['PATCH', { role: 'staff' }], ['PATCH', { disabled: true }], ['DELETE', undefined]] as const) {
    assertProblem(await t.request(method, `/api/v1/admin/staff/${a.id}`, { token: a.secret, body }), 409, 'CONFLICT');
  }
  const b = await staffMember(t, s, 'owner');
  const raced = await Promise.all([
    t.request('PATCH', `/api/v1/admin/staff/${a.id}`, { token: b.secret, body: { role: 'staff' } }),
    t.request('PATCH', `/api/v1/admin/staff/${b.id}`, { token: s.admin, body: { role: 'staff' } }),
  ]);
  assert.deepEqual(raced.map((r) => r.status).sort(), [200, 409]);
  const owners = (await t.request('GET', '/api/v1/admin/staff', { token: s.admin })).json.staff.filter((p: { role: string; status: string }) => p.role === 'owner' && p.status === 'active');
  assert.equal(owners.length, 1);
  // A staff member (not an owner) can be removed freely.
  const member = await staffMember(t, s, 'staff');
  assert.equal((await t.request('DELETE', `/api/v1/admin/staff/${member.id}`, { token: s.admin })).status, 200);
  assertProblem(await t.request('GET', '/api/v1/admin/products', { token: member.secret }), 401, 'UNAUTHORIZED');
});

test('sign-in limits: 5 failures per store and email, 20 per client, 429 with Retry-After, counted exactly under concurrency and across processes', async () => {
  const s = await createStore(t);
  const member = await staffMember(t, s, 'staff');
  const second = await startAppOn(t.database, { TRUST_PROXY: '1' });
  // Ten wrong guesses at once, half through another process: exactly five are checked.
  const guesses = await Promise.all(Array.from({ length: 10 }, (_, i) => signIn(i % 2 ? second : t, { store: s.slug, email: member.email, password: `wrong guess ${i}` }, newClient())));
  assert.deepEqual(guesses.map((r) => r.status).sort(), [401, 401, 401, 401, 401, 429, 429, 429, 429, 429]);
  // Now even the right password waits, whichever process is asked; another email is not affected.
  const locked = await signIn(second, { store: s.slug, email: member.email, password: STAFF_PASSWORD }, newClient());
  assertProblem(locked, 429, 'RATE_LIMITED');
  const retryAfter = Number(locked.headers['retry-after']);
  assert.ok(retryAfter > 800 && retryAfter <= 900, `Retry-After ${retryAfter}`);
  const colleague = await staffMember(t, s, 'staff');
  assert.equal((await signIn(t, { store: s.slug, email: colleague.email, password: STAFF_PASSWORD }, newClient())).status, 201);

  // One client: 20 failures over many emails, then even a right password from it is 429.
  const client = newClient();
  const spread = await Promise.all(Array.from({ length: 24 }, (_, i) => signIn(i % 2 ? second : t, { store: s.slug, email: `guess${i}@shop.example`, password: 'wrong password' }, client)));
  assert.equal(spread.filter((r) => r.status === 401).length, 20);
  assert.equal(spread.filter((r) => r.status === 429).length, 4);
  assertProblem(await signIn(t, { store: s.slug, email: colleague.email, password: STAFF_PASSWORD }, client), 429, 'RATE_LIMITED');
  // A success is not a failure: five good sign-ins in a row are all fine.
  for (let i = 0; i < 6; i++) assert.equal((await signIn(t, { store: s.slug, email: colleague.email, password: STAFF_PASSWORD }, newClient())).status, 201);
});

test('every event names its actor: a staff member, a token, a customer, or the system', async () => {
  const s = await createStore(t);
  const member = await staffMember(t, s, 'staff');
  const byStaff = await t.request('POST', '/api/v1/admin/products', { token: member.secret, body: { name: 'By staff', slug: 'by-staff', sku: 'S1', price: 100, quantity: 5, status: 'ACTIVE' } });
  assert.equal(byStaff.status, 201, byStaff.text);
  const byToken = await createProduct(t, s, { slug: 'by-token' });
  const { customer, address } = await createAddress(t, s);
  const customerToken = await mintCustomerToken(t, s, customer);
  const order = await placeOrder(t, s, customer, { address: address.id, products: [{ id: byToken.id, quantity: 1 }] }, {}, customerToken.secret);
  assert.equal(order.status, 201, order.text);
  // A command that opens its own transactions (it may call a payment provider) records as its caller too.
  const paid = await t.request('PATCH', `/api/v1/admin/orders/${order.json.order.id}`, { token: member.secret, body: { status: 'PAID' } });
  assert.equal(paid.status, 200, paid.text);
  await withRecordedEvents(t.database.db, s.slug, async (_tx, record) => record('collection.deleted', { collection: { id: randomUUID() } }));
  const tokens = (await t.request('GET', '/api/v1/admin/tokens', { token: s.admin })).json.tokens as Array<{ id: string; kind: string }>;
  const events = (await t.request('GET', '/api/v1/admin/events?limit=500', { token: s.admin })).json.events as Array<{ type: string; actor: unknown; data: { product?: { slug: string } } }>;
  const find = (type: string, slug?: string) => events.find((e) => e.type === type && (!slug || e.data.product?.slug === slug))!;
  assert.deepEqual(find('product.created', 'by-staff').actor, { type: 'staff', id: member.id, email: member.email });
  const tokenActor = find('product.created', 'by-token').actor as { type: string; id: string };
  assert.equal(tokenActor.type, 'token');
  assert.ok(tokens.some((tk) => tk.kind === 'admin' && tk.id === tokenActor.id), 'the admin token that made it');
  assert.deepEqual(find('order.created').actor, { type: 'customer', id: customer });
  assert.deepEqual(find('order.paid').actor, { type: 'staff', id: member.id, email: member.email });
  assert.deepEqual(find('collection.deleted').actor, { type: 'system' });
  for (const e of events) assert.ok(e.actor, `${e.type} has an actor`);
});

export type { TestStore };
