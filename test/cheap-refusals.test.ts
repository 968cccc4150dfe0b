/**
 * Refusals cost nothing once a budget is spent: a flood of fresh fake tokens, whatever their shape
 * (secret-shaped for a real store, storefront-shaped for made-up stores, JWTs of any issuer),
 * spends its client's budget and then costs no database statement per request; a valid caller over
 * its limit is refused before any database work too; other clients, and known credentials from
 * the flooding address, are not held up.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { startTestApp } from './support/app.js';
import { createStore } from './support/factories.js';
import { wellInsideAMinute } from './support/clock.js';

let statements = 0;
const t = await startTestApp({ CLIENT_RATE_LIMIT_PER_MINUTE: '20', RATE_LIMIT_PER_MINUTE: '30' }, { onQuery: () => statements++ });
const store = await createStore(t);

const from = (ip: string, token: string | undefined, url = '/api/v1/collections') =>
  t.app.inject({ method: 'GET', url, remoteAddress: ip, headers: token ? { authorization: `Bearer ${token}` } : {} });

const random43 = () => randomBytes(32).toString('base64url');
const fakeJwtKey = new TextEncoder().encode('x'.repeat(32));
/** A fresh fake credential of one of every shape the service knows, in turn. */
async function fakeToken(i: number): Promise<string> {
  switch (i % 6) {
    case 0: return `adm_${store.slug}_${random43()}`;
    case 1: return `srv_${store.slug}_${random43()}`;
    case 2: return `sf_made-up-${randomUUID().slice(0, 8)}_${random43()}`;
    case 3: return `cus_${store.slug}_${random43()}`;
    case 4: return new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setIssuer(`https://${randomUUID()}.example/`).setAudience('a').setSubject(randomUUID()).setExpirationTime('5m').sign(fakeJwtKey);
    default: return random43();
  }
}

/** Statements the database was sent while `work` ran. */
async function statementsDuring(work: () => Promise<void>): Promise<number> {
  const before = statements;
  await work();
  return statements - before;
}

test('a flood of fresh fake tokens of every shape costs no database statement once its client is limited', async () => {
  const ip = '198.51.100.7';
  await wellInsideAMinute(20_000);
  assert.equal((await from(ip, store.storefront)).statusCode, 200, 'a known credential of this address');
  const first: number[] = [];
  const beforeLimited = await statementsDuring(async () => {
    for (let i = 0; i < 21; i++) first.push((await from(ip, await fakeToken(i))).statusCode);
  });
  assert.ok(beforeLimited > 0, 'until the limit, fake tokens are looked up (the count works)');
  assert.deepEqual(first.slice(0, 20), Array(20).fill(401));
  assert.equal(first[20], 429);

  const tokens = await Promise.all(Array.from({ length: 300 }, (_, i) => fakeToken(i)));
  let answers: number[] = [];
  const spent = await statementsDuring(async () => {
    answers = (await Promise.all(tokens.map((token) => from(ip, token)))).map((r) => r.statusCode);
  });
  assert.deepEqual([...new Set(answers)], [429]);
  assert.equal(spent, 0, 'no database statement for a limited flood');

  const limited = await from(ip, await fakeToken(0));
  assert.ok(Number(limited.headers['retry-after']) >= 1);
  assert.equal((await from(ip, store.storefront)).statusCode, 200, 'the known credential of the same address still gets through');
  assert.equal((await from('198.51.100.8', await fakeToken(1))).statusCode, 401, 'another address is not limited');
});

test('a valid public caller over its limit, and a secret token over its own, are refused before any database work', async () => {
  const ip = '198.51.100.20';
  await wellInsideAMinute(20_000);
  assert.ok(await statementsDuring(async () => {
    for (let i = 0; i < 20; i++) assert.equal((await from(ip, store.storefront)).statusCode, 200);
  }) > 0, 'a valid token is looked up until its limit (the count works)');
  assert.equal((await from(ip, store.storefront)).statusCode, 429);
  assert.equal(await statementsDuring(async () => {
    for (let i = 0; i < 50; i++) assert.equal((await from(ip, store.storefront)).statusCode, 429);
  }), 0);

  const own = await createStore(t);
  for (let i = 0; i < 30; i++) assert.equal((await from('198.51.100.21', own.server)).statusCode, 200);
  assert.equal((await from('198.51.100.21', own.server)).statusCode, 429);
  assert.equal(await statementsDuring(async () => {
    for (let i = 0; i < 50; i++) assert.equal((await from(`198.51.100.${30 + (i % 5)}`, own.server)).statusCode, 429);
  }), 0, 'a secret token counts per token, from any address');
});

test('a revoked token that this process knew is refused and forgotten: it then spends the refused budget', async () => {
  const s = await createStore(t);
  const issued = await t.request('POST', '/api/v1/admin/tokens', { token: s.admin, body: { kind: 'storefront' } });
  const ip = '198.51.100.40';
  await wellInsideAMinute(20_000);
  assert.equal((await from(ip, issued.json.secret)).statusCode, 200);
  assert.equal((await t.request('DELETE', `/api/v1/admin/tokens/${issued.json.token.id}`, { token: s.admin })).status, 200);
  const statuses = [];
  for (let i = 0; i < 22; i++) statuses.push((await from(ip, issued.json.secret)).statusCode);
  assert.deepEqual(statuses.slice(0, 20), Array(20).fill(401));
  assert.equal(statuses[21], 429);
  assert.equal(await statementsDuring(async () => void (await from(ip, issued.json.secret))), 0);
});
