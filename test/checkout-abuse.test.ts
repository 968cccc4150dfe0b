/**
 * The public checkout under abuse, tried the way a hostile client with only the public storefront
 * token would: many carts and holds from one client, renewals that never end, unpaid orders, a
 * rotating X-Forwarded-For behind a trusted proxy, guessed discount codes, a new guest session per
 * order for a once-per-customer code, lines past their bounds, text that is not Unicode. The app
 * trusts 127.0.0.1 (the test client's socket) as its proxy, so X-Forwarded-For names the client;
 * two server processes share the per-client counts in test/checkout-abuse-processes.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startAppOn, startTestApp, type Reply } from './support/app.js';
import { assertProblem, createProduct, createStore, type TestStore } from './support/factories.js';
import { ADDRESS, createAddress, stockOf } from './support/shop.js';
import { logBuffer } from './support/log-buffer.js';
import { wellInsideAMinute } from './support/clock.js';
import { loadConfig, ConfigError } from '../src/plugins/config.js';

const LIMITS = { TRUST_PROXY: '127.0.0.1', HOLDS_PER_CLIENT: '3', UNPAID_ORDERS_PER_CLIENT: '3', DISCOUNT_ATTEMPTS_PER_MINUTE: '10' };
const t = await startTestApp(LIMITS);

/** Headers of a request from client address `ip`, as the trusted proxy forwards it. */
const from = (ip: string) => ({ 'x-forwarded-for': ip });

async function newCart(s: TestStore, products: Array<{ id: string; quantity: number }>, ip = '203.0.113.1') {
  const r = await t.request('POST', '/api/v1/carts', { token: s.storefront, body: { products }, headers: from(ip) });
  assert.equal(r.status, 201, r.text);
  return r.json.cart as { id: string; expiresAt: string; heldUntil: string | null };
}

const hold = (s: TestStore, cartId: string, ip: string, token = s.storefront) => t.request('POST', `/api/v1/carts/${cartId}/hold`, { token, headers: from(ip) });
const shownQuantity = async (s: TestStore, productId: string) => (await t.request('GET', '/api/v1/products?limit=100', { token: s.storefront })).json.products.find((p: { id: string }) => p.id === productId).quantity as number;

/** A guest session (its own customer id) with an address, started from client `ip`. */
async function guest(s: TestStore, ip: string) {
  const session = await t.request('POST', '/api/v1/guest-sessions', { token: s.storefront, headers: from(ip) });
  assert.equal(session.status, 201, session.text);
  const { customerId, secret } = session.json as { customerId: string; secret: string };
  const address = await t.request('POST', `/api/v1/${customerId}/addresses`, { token: secret, body: { address: ADDRESS }, headers: from(ip) });
  assert.equal(address.status, 201, address.text);
  return { customerId, token: secret, addressId: address.json.address.id as string };
}

const order = (g: { customerId: string; token: string; addressId: string }, ip: string, body: Record<string, unknown>) =>
  t.request('POST', `/api/v1/${g.customerId}/orders`, { token: g.token, body: { address: g.addressId, ...body }, headers: from(ip) });

function assertLimit(r: Reply, productId: string, requested: number, maxPerOrder: number) {
  assertProblem(r, 422, 'QUANTITY_LIMIT_EXCEEDED');
  assert.deepEqual(r.json.errors, [{ productId, requested, maxPerOrder }]);
}

test('maxPerOrder: a cart line, an addition, a PATCH, a hold and an order line over it are 422 QUANTITY_LIMIT_EXCEEDED and change nothing', async () => {
  const s = await createStore(t);
  const p = await createProduct(t, s, { quantity: 1000 });
  assert.equal(p.maxPerOrder, null, 'no limit of its own by default');
  const set = await t.request('PATCH', `/api/v1/admin/products/${p.id}`, { token: s.admin, body: { maxPerOrder: 2 } });
  assert.equal(set.status, 200, set.text);
  assert.equal(set.json.product.maxPerOrder, 2);
  for (const bad of [0, -1, 1.5, '2']) assertProblem(await t.request('PATCH', `/api/v1/admin/products/${p.id}`, { token: s.admin, body: { maxPerOrder: bad } }), 400, 'VALIDATION_FAILED');
  assert.equal((await t.request('GET', `/api/v1/products/${p.slug}`, { token: s.storefront })).json.product.maxPerOrder, 2, 'the storefront sees it');

  assertLimit(await t.request('POST', '/api/v1/carts', { token: s.storefront, body: { products: [{ id: p.id, quantity: 3 }] } }), p.id, 3, 2);
  assertLimit(await t.request('POST', '/api/v1/carts', { token: s.storefront, body: { products: [{ id: p.id, quantity: 1 }, { id: p.id, quantity: 2 }] } }), p.id, 3, 2);
  const cart = await newCart(s, [{ id: p.id, quantity: 2 }]);
  assertLimit(await t.request('POST', `/api/v1/carts/${cart.id}/products`, { token: s.storefront, body: { id: p.id, quantity: 1 } }), p.id, 3, 2);
  assertLimit(await t.request('PATCH', `/api/v1/carts/${cart.id}/products/${p.id}`, { token: s.storefront, body: { quantity: 3 } }), p.id, 3, 2);
  // Lowered after the line was added: the hold and the order refuse the line, the cart keeps it.
  await t.request('PATCH', `/api/v1/admin/products/${p.id}`, { token: s.admin, body: { maxPerOrder: 1 } });
  assertLimit(await hold(s, cart.id, '203.0.113.1'), p.id, 2, 1);
  const { customer, address } = await createAddress(t, s);
  assertLimit(await t.request('POST', `/api/v1/${customer}/orders`, { token: s.server, body: { id: cart.id, address: address.id } }), p.id, 2, 1);
  assertLimit(await t.request('POST', `/api/v1/${customer}/orders`, { token: s.server, body: { address: address.id, products: [{ id: p.id, quantity: 2 }] } }), p.id, 2, 1);
  const read = (await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront })).json.cart;
  assert.deepEqual([read.heldUntil, read.products[0].order.quantity], [null, 2]);
  assert.equal(await stockOf(t, s, p.id), 1000, 'nothing was taken');
  // null lifts it.
  await t.request('PATCH', `/api/v1/admin/products/${p.id}`, { token: s.admin, body: { maxPerOrder: null } });
  assert.equal((await t.request('POST', `/api/v1/${customer}/orders`, { token: s.server, body: { address: address.id, products: [{ id: p.id, quantity: 5 }] } })).status, 201);
});

test('lines are 1..100000 units after summing on every route; the largest order totals exactly (far below 2^53)', async () => {
  const s = await createStore(t);
  const p = await createProduct(t, s, { quantity: 1_000_000_000, price: 100_000_000 });
  assertLimit(await t.request('POST', '/api/v1/carts', { token: s.storefront, body: { products: [{ id: p.id, quantity: 60_000 }, { id: p.id, quantity: 40_001 }] } }), p.id, 100_001, 100_000);
  const cart = await newCart(s, [{ id: p.id, quantity: 100_000 }]);
  // The attack: 100 additions of 100000 made one line of 10,000,000.
  const adds = await Promise.all(Array.from({ length: 10 }, () => t.request('POST', `/api/v1/carts/${cart.id}/products`, { token: s.storefront, body: { id: p.id, quantity: 100_000 } })));
  for (const r of adds) assertLimit(r, p.id, 200_000, 100_000);
  assert.equal((await t.request('GET', `/api/v1/carts/${cart.id}`, { token: s.storefront })).json.cart.products[0].order.quantity, 100_000);
  const { customer, address } = await createAddress(t, s);
  assertLimit(
    await t.request('POST', `/api/v1/${customer}/orders`, { token: s.server, body: { address: address.id, products: [{ id: p.id, quantity: 100_000 }, { id: p.id, quantity: 1 }] } }),
    p.id, 100_001, 100_000,
  );
  const placed = await t.request('POST', `/api/v1/${customer}/orders`, { token: s.server, body: { id: cart.id, address: address.id } });
  assert.equal(placed.status, 201, placed.text);
  assert.equal(placed.json.order.total, 10_000_000_000_000, 'price 10^8 x 100000 units, exact');
  const stored = (await t.request('GET', `/api/v1/${customer}/orders/${placed.json.order.id}`, { token: s.server })).json.order;
  assert.deepEqual([stored.price, stored.total], [placed.json.order.price, placed.json.order.total], 'the stored total is the answered one');
  // 100 lines of the largest line and price: 10^15, still an exact integer (2^53 is about 9 x 10^15).
  assert.ok(100 * 100_000 * 100_000_000 < Number.MAX_SAFE_INTEGER);
});

test('HOLDS_PER_CLIENT: 20 carts from one client race to hold; 3 hold, the rest are 429 with Retry-After; renewals and other clients are not refused', async () => {
  const s = await createStore(t);
  const p = await createProduct(t, s, { quantity: 1000 });
  const attacker = '203.0.113.10';
  const carts = await Promise.all(Array.from({ length: 20 }, () => newCart(s, [{ id: p.id, quantity: 50 }], attacker)));
  const answers = await Promise.all(carts.map((c) => hold(s, c.id, attacker)));
  const held = answers.filter((r) => r.status === 200);
  assert.equal(held.length, 3, answers.map((r) => r.status).join(','));
  for (const r of answers.filter((a) => a.status !== 200)) {
    assertProblem(r, 429, 'RATE_LIMITED');
    assert.ok(Number(r.headers['retry-after']) >= 1, 'Retry-After: when its first hold ends');
  }
  assert.equal(await shownQuantity(s, p.id), 1000 - 150, 'one client keeps 3 x 50 units, not 1000');
  // Renewing a cart it holds is not a new hold.
  const heldIds = carts.filter((_, i) => answers[i]!.status === 200).map((c) => c.id);
  for (const id of heldIds) assert.equal((await hold(s, id, attacker)).status, 200);
  // The same carts from another client address are that client's holds.
  const other = carts.find((c) => !heldIds.includes(c.id))!;
  assert.equal((await hold(s, other.id, '198.51.100.20')).status, 200, 'another client holds its own');
  // A secret token (the shop's back end) is not counted.
  const byServer = carts.filter((c) => !heldIds.includes(c.id) && c.id !== other.id).slice(0, 5);
  for (const c of byServer) assert.equal((await hold(s, c.id, attacker, s.server)).status, 200);
  // A release frees a place at once.
  assertProblem(await hold(s, carts.find((c) => !heldIds.includes(c.id) && c.id !== other.id && !byServer.includes(c))!.id, attacker), 429, 'RATE_LIMITED');
  assert.equal((await t.request('DELETE', `/api/v1/carts/${heldIds[0]}/hold`, { token: s.storefront, headers: from(attacker) })).status, 200);
  assert.equal((await hold(s, carts.find((c) => !heldIds.includes(c.id) && c.id !== other.id && !byServer.includes(c))!.id, attacker)).status, 200);
  const admin = (await t.request('GET', `/api/v1/admin/products/${p.id}`, { token: s.admin })).json.product;
  assert.equal(admin.held, (3 + 1 + 5) * 50, 'what is held adds up: 3 of the attacker, 1 of another client, 5 of the server token');
});

test('a rotating X-Forwarded-For behind TRUST_PROXY=<proxy address> is one client: 60 holds, 60 guesses, 20 orders with new addresses each', async () => {
  const s = await createStore(t);
  const p = await createProduct(t, s, { quantity: 10_000 });
  // The proxy appends the address it saw; what the client wrote before it is not trusted.
  const rotating = (i: number) => `10.${i >> 8}.${i & 255}.1, 198.51.100.66`;
  const carts = await Promise.all(Array.from({ length: 60 }, (_, i) => newCart(s, [{ id: p.id, quantity: 1 }], rotating(i))));
  const holds = await Promise.all(carts.map((c, i) => t.request('POST', `/api/v1/carts/${c.id}/hold`, { token: s.storefront, headers: { 'x-forwarded-for': rotating(i) } })));
  assert.equal(holds.filter((r) => r.status === 200).length, 3, 'one client, whatever it forwards');
  const guesses = [];
  for (let i = 0; i < 60; i++) guesses.push(await t.request('POST', `/api/v1/carts/${carts[0]!.id}/discount`, { token: s.storefront, body: { code: `GUESS${i}` }, headers: { 'x-forwarded-for': rotating(i) } }));
  assert.equal(guesses.filter((r) => r.status === 422).length, 10);
  assert.equal(guesses.filter((r) => r.status === 429).length, 50);
  const orders = [];
  for (let i = 0; i < 20; i++) {
    const g = await guest(s, rotating(i));
    orders.push(await order(g, rotating(i), { products: [{ id: p.id, quantity: 1 }] }));
  }
  assert.equal(orders.filter((r) => r.status === 201).length, 3, 'UNPAID_ORDERS_PER_CLIENT, whatever it forwards');
  // Behind TRUST_PROXY=true any forwarded address would be believed: the start refuses it.
  assert.throws(() => loadConfig({ TRUST_PROXY: 'true' }), ConfigError);
});

test('UNPAID_ORDERS_PER_CLIENT: 10 guest sessions of one client race to order; 3 are placed, 7 are 429; a cancel frees a place; secret tokens are not counted', async () => {
  const s = await createStore(t);
  const p = await createProduct(t, s, { quantity: 100 });
  const attacker = '203.0.113.30';
  const guests = await Promise.all(Array.from({ length: 10 }, () => guest(s, attacker)));
  const answers = await Promise.all(guests.map((g) => order(g, attacker, { products: [{ id: p.id, quantity: 5 }] })));
  const placed = answers.filter((r) => r.status === 201);
  assert.equal(placed.length, 3, answers.map((r) => r.status).join(','));
  for (const r of answers.filter((a) => a.status !== 201)) {
    assertProblem(r, 429, 'RATE_LIMITED');
    assert.ok(r.headers['retry-after']);
  }
  assert.equal(await stockOf(t, s, p.id), 100 - 15, 'the refused orders took nothing');
  // Cancelled (or, with payments, paid): the place is free again, counted from the orders' status.
  const cancel = await t.request('PATCH', `/api/v1/admin/orders/${placed[0]!.json.order.id}`, { token: s.admin, body: { status: 'CANCELLED' } });
  assert.equal(cancel.status, 200, cancel.text);
  const refilled = await order(guests[9]!, attacker, { products: [{ id: p.id, quantity: 1 }] });
  assert.equal(refilled.status, 201, refilled.text);
  // A 429 is not an Idempotency-Key's answer: once a place is free, the same key places the order.
  const keyed = () => t.request('POST', `/api/v1/${guests[8]!.customerId}/orders`, {
    token: guests[8]!.token, body: { address: guests[8]!.addressId, products: [{ id: p.id, quantity: 1 }] }, headers: { ...from(attacker), 'idempotency-key': 'unpaid-retry' },
  });
  assertProblem(await keyed(), 429, 'RATE_LIMITED');
  await t.request('PATCH', `/api/v1/admin/orders/${refilled.json.order.id}`, { token: s.admin, body: { status: 'CANCELLED' } });
  const retried = await keyed();
  assert.equal(retried.status, 201, retried.text);
  assert.equal(retried.headers['idempotent-replayed'], undefined);
  // Another client, and the shop's back end for this client's customers, are not refused.
  assert.equal((await order(await guest(s, '198.51.100.31'), '198.51.100.31', { products: [{ id: p.id, quantity: 1 }] })).status, 201);
  const g = guests[7]!;
  const byServer = await t.request('POST', `/api/v1/${g.customerId}/orders`, { token: s.server, body: { address: g.addressId, products: [{ id: p.id, quantity: 1 }] }, headers: from(attacker) });
  assert.equal(byServer.status, 201, byServer.text);
});

test('the inventory attack, measured: what one client can keep unavailable is (HOLDS_PER_CLIENT + UNPAID_ORDERS_PER_CLIENT) x maxPerOrder per product', async () => {
  const s = await createStore(t);
  const p = await createProduct(t, s, { quantity: 1000 });
  await t.request('PATCH', `/api/v1/admin/products/${p.id}`, { token: s.admin, body: { maxPerOrder: 5 } });
  const attacker = '203.0.113.40';
  // Everything the finding did: many carts with the most they may hold, held; orders from new guest sessions.
  const carts = await Promise.all(Array.from({ length: 30 }, () => newCart(s, [{ id: p.id, quantity: 5 }], attacker)));
  await Promise.all(carts.map((c) => hold(s, c.id, attacker)));
  const guests = await Promise.all(Array.from({ length: 10 }, () => guest(s, attacker)));
  await Promise.all(guests.map((g) => order(g, attacker, { products: [{ id: p.id, quantity: 5 }] })));
  const unavailable = 1000 - (await shownQuantity(s, p.id));
  assert.equal(unavailable, (3 + 3) * 5, `one client keeps ${unavailable} of 1000 units`);
  console.log(`# inventory attack: one client keeps ${unavailable} of 1000 units unavailable (3 holds + 3 unpaid orders, maxPerOrder 5)`);
});

test('discount codes: a public caller is told unknown for inactive and not started codes; secret tokens get the true reason', async () => {
  const s = await createStore(t);
  const p = await createProduct(t, s, { quantity: 100 });
  const cart = await newCart(s, [{ id: p.id, quantity: 1 }], '203.0.113.50');
  const hidden = await t.request('POST', '/api/v1/admin/discounts', { token: s.admin, body: { code: 'SUMMERSALE', type: 'percentage', value: 50, active: false } });
  const coming = await t.request('POST', '/api/v1/admin/discounts', { token: s.admin, body: { code: 'NEXTWEEK', type: 'percentage', value: 50, startsAt: new Date(Date.now() + 7 * 86400_000).toISOString() } });
  assert.deepEqual([hidden.status, coming.status], [201, 201]);
  for (const [code, reason] of [['summersale', 'inactive'], ['NEXTWEEK', 'not_started'], ['NOSUCH', 'unknown']] as const) {
    const asPublic = await t.request('POST', `/api/v1/carts/${cart.id}/discount`, { token: s.storefront, body: { code }, headers: from('203.0.113.50') });
    assertProblem(asPublic, 422, 'DISCOUNT_NOT_APPLICABLE');
    assert.equal(asPublic.json.reason, 'unknown', code);
    const asServer = await t.request('POST', `/api/v1/carts/${cart.id}/discount`, { token: s.server, body: { code } });
    assert.equal(asServer.json.reason, reason, code);
  }
  // An order of a guest session is a public caller too.
  const g = await guest(s, '203.0.113.50');
  assert.equal((await order(g, '203.0.113.50', { products: [{ id: p.id, quantity: 1 }], discountCode: 'summersale' })).json.reason, 'unknown');
});

test('DISCOUNT_ATTEMPTS_PER_MINUTE: 30 guesses from one client, 10 are answered, 20 are 429; a code that applies is not counted; other clients may still try', async () => {
  const s = await createStore(t);
  const p = await createProduct(t, s, { quantity: 100 });
  await t.request('POST', '/api/v1/admin/discounts', { token: s.admin, body: { code: 'REAL10', type: 'percentage', value: 10 } });
  const guesser = '203.0.113.60';
  await wellInsideAMinute(20_000);
  const cart = await newCart(s, [{ id: p.id, quantity: 1 }], guesser);
  for (let i = 0; i < 15; i++) assert.equal((await t.request('POST', `/api/v1/carts/${cart.id}/discount`, { token: s.storefront, body: { code: 'REAL10' }, headers: from(guesser) })).status, 200);
  const guesses = await Promise.all(Array.from({ length: 30 }, (_, i) => t.request('POST', `/api/v1/carts/${cart.id}/discount`, { token: s.storefront, body: { code: `TRY${i}` }, headers: from(guesser) })));
  assert.equal(guesses.filter((r) => r.status === 422).length, 10, guesses.map((r) => r.status).join(','));
  for (const r of guesses.filter((g) => g.status !== 422)) {
    assertProblem(r, 429, 'RATE_LIMITED');
    assert.ok(Number(r.headers['retry-after']) >= 1);
  }
  // Product-list orders with a code are guesses too.
  const g = await guest(s, guesser);
  assertProblem(await order(g, guesser, { products: [{ id: p.id, quantity: 1 }], discountCode: 'TRYAGAIN' }), 429, 'RATE_LIMITED');
  // The client may still order without a code; another client may still guess.
  assert.equal((await order(g, guesser, { products: [{ id: p.id, quantity: 1 }] })).status, 201);
  assert.equal((await t.request('POST', `/api/v1/carts/${cart.id}/discount`, { token: s.storefront, body: { code: 'OTHER1' }, headers: from('198.51.100.61') })).status, 422);
  // Secret tokens are not counted.
  assert.equal((await t.request('POST', `/api/v1/carts/${cart.id}/discount`, { token: s.server, body: { code: 'SERVERTRY' } })).status, 422);
});

test('once per customer is once per email too: 20 guest sessions of one client get it once; a guest order without email is email_required', async () => {
  const s = await createStore(t);
  const p = await createProduct(t, s, { quantity: 100, price: 1000 });
  await t.request('POST', '/api/v1/admin/discounts', { token: s.admin, body: { code: 'HALF', type: 'percentage', value: 50, oncePerCustomer: true } });
  // Spread over client addresses, so that only the rule under test refuses them.
  const answers: Reply[] = [];
  for (let i = 0; i < 20; i++) {
    const ip = `198.51.100.${100 + i}`;
    answers.push(await order(await guest(s, ip), ip, { products: [{ id: p.id, quantity: 1 }], discountCode: 'HALF', email: i % 2 ? 'Ana@Example.com' : 'ana@example.COM' }));
  }
  assert.equal(answers.filter((r) => r.status === 201).length, 1, 'one email, one use, whatever the guest session');
  for (const r of answers.filter((a) => a.status !== 201)) {
    assertProblem(r, 422, 'DISCOUNT_NOT_APPLICABLE');
    assert.equal(r.json.reason, 'already_used');
  }
  assert.equal(answers.find((r) => r.status === 201)!.json.order.email, 'ana@example.COM');
  const noEmail = await order(await guest(s, '198.51.100.200'), '198.51.100.200', { products: [{ id: p.id, quantity: 1 }], discountCode: 'HALF' });
  assertProblem(noEmail, 422, 'DISCOUNT_NOT_APPLICABLE');
  assert.equal(noEmail.json.reason, 'email_required');
  // A cart order of a guest session: the cart's code, the order's email.
  const g = await guest(s, '198.51.100.201');
  const cart = await newCart(s, [{ id: p.id, quantity: 1 }], '198.51.100.201');
  assert.equal((await t.request('POST', `/api/v1/carts/${cart.id}/discount`, { token: s.storefront, body: { code: 'HALF' }, headers: from('198.51.100.201') })).status, 200);
  assert.equal((await order(g, '198.51.100.201', { id: cart.id })).json.reason, 'email_required');
  const withEmail = await order(g, '198.51.100.201', { id: cart.id, email: 'bea@example.com' });
  assert.equal(withEmail.status, 201, withEmail.text);
  assert.equal(withEmail.json.order.discountTotal, 500);
  // A customer the shop knows (its own customer id, through the server token) needs no email; a bad email is 400.
  const { customer, address } = await createAddress(t, s);
  assert.equal((await t.request('POST', `/api/v1/${customer}/orders`, { token: s.server, body: { address: address.id, products: [{ id: p.id, quantity: 1 }], discountCode: 'HALF' } })).status, 201);
  for (const email of ['not-an-email', `${'a'.repeat(250)}@x.io`]) {
    assertProblem(await order(g, '198.51.100.201', { products: [{ id: p.id, quantity: 1 }], email }), 400, 'VALIDATION_FAILED');
  }
});

test('expiresAt never moves before heldUntil: setting and removing a code on a held cart keeps the later of the two', async () => {
  const short = await startAppOn(t.database, { ...LIMITS, CART_TTL_SECONDS: '2', CART_HOLD_SECONDS: '600' });
  const s = await createStore(t);
  const p = await createProduct(t, s, { quantity: 10 });
  await t.request('POST', '/api/v1/admin/discounts', { token: s.admin, body: { code: 'TEN', type: 'percentage', value: 10 } });
  const created = await short.request('POST', '/api/v1/carts', { token: s.storefront, body: { products: [{ id: p.id, quantity: 4 }] } });
  const id = created.json.cart.id;
  const held = (await short.request('POST', `/api/v1/carts/${id}/hold`, { token: s.storefront })).json.cart;
  assert.ok(Date.parse(held.expiresAt) >= Date.parse(held.heldUntil));
  for (const [method, body] of [['POST', { code: 'TEN' }], ['DELETE', undefined]] as const) {
    const r = await short.request(method, `/api/v1/carts/${id}/discount`, { token: s.storefront, body });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.cart.heldUntil, held.heldUntil, 'the code keeps the hold');
    assert.ok(Date.parse(r.json.cart.expiresAt) >= Date.parse(r.json.cart.heldUntil), `${method}: expiresAt ${r.json.cart.expiresAt} before heldUntil ${r.json.cart.heldUntil}`);
  }
  // Past the cart's TTL (2 s) the held cart is still PENDING and still holds its 4 units.
  await new Promise((r) => setTimeout(r, 2500));
  const later = (await short.request('GET', `/api/v1/carts/${id}`, { token: s.storefront })).json.cart;
  assert.deepEqual([later.status, later.heldUntil], ['PENDING', held.heldUntil]);
  assert.equal((await t.request('GET', `/api/v1/admin/products/${p.id}`, { token: s.admin })).json.product.held, 4);
});

test('CART_HOLD_MAX_SECONDS: renewals end at the cap; then a renewal is 409 HOLD_LIMIT_REACHED and the hold runs out; a changed cart may hold again', async () => {
  const capped = await startAppOn(t.database, { ...LIMITS, CART_HOLD_SECONDS: '2', CART_HOLD_MAX_SECONDS: '3' });
  const s = await createStore(t);
  const p = await createProduct(t, s, { quantity: 10 });
  const created = await capped.request('POST', '/api/v1/carts', { token: s.storefront, body: { products: [{ id: p.id, quantity: 10 }] } });
  const id = created.json.cart.id;
  const first = (await capped.request('POST', `/api/v1/carts/${id}/hold`, { token: s.storefront })).json.cart;
  const started = Date.parse(first.heldUntil) - 2000;
  await new Promise((r) => setTimeout(r, 1200));
  const renewed = await capped.request('POST', `/api/v1/carts/${id}/hold`, { token: s.storefront });
  assert.equal(renewed.status, 200, renewed.text);
  assert.equal(Date.parse(renewed.json.cart.heldUntil), started + 3000, 'renewed only up to the cap, 3 s after it was first taken');
  const refused = await capped.request('POST', `/api/v1/carts/${id}/hold`, { token: s.storefront });
  assertProblem(refused, 409, 'HOLD_LIMIT_REACHED');
  // The hold runs out at the cap: the units show again, and the cart cannot be held again as it is.
  while (Date.now() < started + 3000 + 100) await new Promise((r) => setTimeout(r, 100));
  assert.equal(await shownQuantity(s, p.id), 10);
  assertProblem(await capped.request('POST', `/api/v1/carts/${id}/hold`, { token: s.storefront }), 409, 'HOLD_LIMIT_REACHED');
  // A shopper who changes the cart starts a new hold.
  await capped.request('PATCH', `/api/v1/carts/${id}/products/${p.id}`, { token: s.storefront, body: { quantity: 9 } });
  assert.equal((await capped.request('POST', `/api/v1/carts/${id}/hold`, { token: s.storefront })).status, 200);
});

test('text that is not well-formed Unicode (a lone surrogate) is 400 on every route, never a database error', async () => {
  const s = await createStore(t);
  const p = await createProduct(t, s, { quantity: 10 });
  const lone = '"\\ud800"';
  const cases: Array<[string, string, string, string]> = [
    ['POST', '/api/v1/admin/products', s.admin, `{"name":"x","slug":"lone-a","sku":"S","price":1,"quantity":1,"options":{"Size":${lone}}}`],
    ['POST', '/api/v1/admin/products', s.admin, `{"name":"x","slug":"lone-b","sku":"S","price":1,"quantity":1,"options":{${lone}:"M"}}`],
    ['PATCH', `/api/v1/admin/products/${p.id}`, s.admin, `{"images":[{"url":"/api/images/a.svg","alt":${lone}}]}`],
    ['PATCH', `/api/v1/admin/products/${p.id}`, s.admin, `{"name":${lone}}`],
    ['POST', `/api/v1/${randomUUID()}/addresses`, s.server, `{"address":{"zipcode":"1","street":${lone},"number":"1","city":"c","state":"s","country":"BR"}}`],
    ['POST', '/api/v1/admin/discounts', s.admin, `{"code":${lone},"type":"fixed","value":1}`],
    ['POST', '/api/v1/admin/collections', s.admin, `{"name":${lone},"slug":"lone-c"}`],
  ];
  for (const [method, url, token, rawBody] of cases) {
    const r = await t.request(method, url, { token, rawBody, headers: { 'content-type': 'application/json' } });
    assertProblem(r, 400, 'VALIDATION_FAILED');
    assert.match(r.json.detail, /well-formed Unicode/, `${method} ${url}`);
  }
  const q = await t.request('GET', `/api/v1/products?q=${encodeURIComponent('a')}%ED%A0%80`, { token: s.storefront });
  assert.ok(q.status < 500, `a query string: ${q.status}`);
  // A surrogate pair (an emoji) is well-formed.
  const emoji = await t.request('PATCH', `/api/v1/admin/products/${p.id}`, { token: s.admin, body: { options: { Style: '😀' } } });
  assert.equal(emoji.status, 200, emoji.text);
});

test('option names and values are compared in NFC: "é" as one code point and as e + accent are one value of one group', async () => {
  const s = await createStore(t);
  const nfc = 'Caf\u00e9';
  const nfd = 'Cafe\u0301';
  const a = await createProduct(t, s, { group: 'mug', options: { ['Co\u0301r']: nfd } });
  assert.deepEqual(a.options, { ['C\u00f3r']: nfc }, 'stored and shown in NFC');
  const dup = await t.request('POST', '/api/v1/admin/products', { token: s.admin, body: { name: 'B', slug: 'mug-b', sku: 'B', price: 1, quantity: 1, status: 'ACTIVE', group: 'mug', options: { ['C\u00f3r']: nfc } } });
  assertProblem(dup, 409, 'CONFLICT');
  const twice = await t.request('POST', '/api/v1/admin/products', { token: s.admin, body: { name: 'C', slug: 'mug-c', sku: 'C', price: 1, quantity: 1, options: { ['C\u00f3r']: 'x', ['Co\u0301r']: 'y' } } });
  assertProblem(twice, 400, 'VALIDATION_FAILED');
});

test('no submitted discount code in any log line, at any level', async () => {
  const log = logBuffer('trace');
  const logged = await startAppOn(t.database, LIMITS, { logger: log.logger });
  const s = await createStore(t);
  const p = await createProduct(t, s, { quantity: 10 });
  const cart = (await logged.request('POST', '/api/v1/carts', { token: s.storefront, body: { products: [{ id: p.id, quantity: 1 }] } })).json.cart;
  await logged.request('POST', '/api/v1/admin/discounts', { token: s.admin, body: { code: 'PRIVATE-VIP-2026', type: 'fixed', value: 1, active: false } });
  for (const code of ['GUESSWORK-7781', 'private-vip-2026']) {
    assert.equal((await logged.request('POST', `/api/v1/carts/${cart.id}/discount`, { token: s.storefront, body: { code } })).status, 422);
  }
  const { customer, address } = await createAddress(t, s);
  await logged.request('POST', `/api/v1/${customer}/orders`, { token: s.server, body: { address: address.id, products: [{ id: p.id, quantity: 1 }], discountCode: 'ORDERGUESS-991' } });
  const text = log.text();
  assert.match(text, /request refused/, 'the refusals are logged');
  for (const code of ['GUESSWORK', 'PRIVATE-VIP', 'private-vip', 'ORDERGUESS']) assert.doesNotMatch(text, new RegExp(code), code);
});
