/**
 * A customer JWT reaches exactly one store, the one that owns its issuer: another store's admin
 * can neither capture a store's customer tokens (register its issuer with the tokens' second
 * audience and its JWK Set) nor lock its customers out (the same with its own key). Issuers listed
 * in SHARED_JWT_ISSUERS are told apart by audience; a token that could belong to two stores
 * belongs to neither. Every refusal reads the same.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { startAppOn, startTestApp, type TestApp } from './support/app.js';
import { assertProblem, createStore, type TestStore } from './support/factories.js';
import { serveJwks, signingKey, signJwt } from './support/jwt-keys.js';
import { LEVEL, logBuffer } from './support/log-buffer.js';

const SHARED = `https://shared-${randomUUID().slice(0, 8)}.example/`;
const base = await startTestApp();
const log = logBuffer('warn');
// JWK Sets served on loopback over http: a development setting.
const t = await startAppOn(base.database, { ALLOW_PRIVATE_NETWORKS: 'true', SHARED_JWT_ISSUERS: `https://accounts.example, ${SHARED}` }, { logger: log.logger });

const newIssuer = () => `https://idp-${randomUUID().slice(0, 8)}.example/`;
const ADDRESS = { zipcode: '1', street: 'Main', number: '1', city: 'C', state: 'S', country: 'BR' };

async function register(app: TestApp, store: TestStore, body: Record<string, unknown>) {
  return app.request('PUT', '/api/v1/admin/customer-auth', { token: store.admin, body });
}

const addressesOf = (store: TestStore, customer: string) => t.request('GET', `/api/v1/${customer}/addresses`, { token: store.server });

test('capture: a store cannot register another store\'s issuer with the second audience of its tokens, and those tokens never reach it', async () => {
  const [x, y] = [await createStore(t), await createStore(t)];
  const issuer = newIssuer();
  const xKey = await signingKey();
  const jwks = await serveJwks([xKey.publicJwk]);
  assert.equal((await register(t, x, { issuer, audience: 'https://api.x.example', jwksUrl: jwks.url })).status, 200);
  // Identity providers add a second audience (Auth0: https://<tenant>/userinfo).
  const userinfo = `${issuer}userinfo`;
  assertProblem(await register(t, y, { issuer, audience: userinfo, jwksUrl: jwks.url }), 409, 'CONFLICT');
  assertProblem(await register(t, y, { issuer, audience: userinfo, jwks: { keys: [xKey.publicJwk] } }), 409, 'CONFLICT');

  const customer = randomUUID();
  const token = await signJwt(xKey, { iss: issuer, aud: ['https://api.x.example', userinfo], sub: customer });
  const created = await t.request('POST', `/api/v1/${customer}/addresses`, { token, body: { address: ADDRESS } });
  assert.equal(created.status, 201, created.text);
  assert.equal((await addressesOf(x, customer)).json.addresses.length, 1, 'the address is in X');
  assert.deepEqual((await addressesOf(y, customer)).json.addresses, [], 'and not in Y');
  assert.equal((await t.request('GET', '/api/v1/admin/customer-auth', { token: y.admin })).status, 404, 'Y registered nothing');
});

test('lock-out: a store registering another store\'s issuer with its own key does not make that store\'s customers 401', async () => {
  const [x, y] = [await createStore(t), await createStore(t)];
  const issuer = newIssuer();
  const [xKey, yKey] = [await signingKey(), await signingKey()];
  assert.equal((await register(t, x, { issuer, audience: 'x-api', jwks: { keys: [xKey.publicJwk] } })).status, 200);
  assertProblem(await register(t, y, { issuer, audience: 'y-api', jwks: { keys: [yKey.publicJwk] } }), 409, 'CONFLICT');
  assertProblem(await register(t, y, { issuer, audience: 'x-api', jwks: { keys: [yKey.publicJwk] } }), 409, 'CONFLICT');
  const customer = randomUUID();
  const xToken = await signJwt(xKey, { iss: issuer, aud: ['x-api', 'y-api'], sub: customer });
  assert.equal((await t.request('GET', `/api/v1/${customer}/orders`, { token: xToken })).status, 200);
  const yToken = await signJwt(yKey, { iss: issuer, aud: 'y-api', sub: customer });
  assertProblem(await t.request('GET', `/api/v1/${customer}/orders`, { token: yToken }), 401, 'UNAUTHORIZED');
  // The owner may still change its own settings.
  assert.equal((await register(t, x, { issuer, audience: 'x-api-2', jwks: { keys: [xKey.publicJwk] } })).status, 200);
});

test('a shared issuer: each (issuer, audience) belongs to one store; a token whose audiences match two stores is 401, logged at warn naming both', async () => {
  const [x, y, z] = [await createStore(t), await createStore(t), await createStore(t)];
  const [xKey, yKey] = [await signingKey(), await signingKey()];
  assert.equal((await register(t, x, { issuer: SHARED, audience: 'client-x', jwks: { keys: [xKey.publicJwk] } })).status, 200);
  assert.equal((await register(t, y, { issuer: SHARED, audience: 'client-y', jwks: { keys: [yKey.publicJwk] } })).status, 200);
  assertProblem(await register(t, z, { issuer: SHARED, audience: 'client-x', jwks: { keys: [xKey.publicJwk] } }), 409, 'CONFLICT');

  const customer = randomUUID();
  const own = (key: typeof xKey, aud: string | string[]) => signJwt(key, { iss: SHARED, aud, sub: customer });
  assert.equal((await t.request('POST', `/api/v1/${customer}/addresses`, { token: await own(xKey, 'client-x'), body: { address: ADDRESS } })).status, 201);
  assert.equal((await addressesOf(x, customer)).json.addresses.length, 1);
  assert.equal((await t.request('POST', `/api/v1/${customer}/addresses`, { token: await own(yKey, 'client-y'), body: { address: ADDRESS } })).status, 201);
  assert.equal((await addressesOf(y, customer)).json.addresses.length, 1);

  const both = await t.request('GET', `/api/v1/${customer}/addresses`, { token: await own(xKey, ['client-x', 'client-y']) });
  assertProblem(both, 401, 'UNAUTHORIZED');
  const warning = log.entries().find((e) => e.level === LEVEL.warn && e.event === 'jwt_ambiguous' && String(e.msg).includes(x.slug));
  assert.ok(warning, log.text());
  assert.deepEqual(warning.stores, [x.slug, y.slug].sort());
});

test('registrations left from before an issuer had one owner: its tokens reach neither store, and the start says so', async () => {
  const [x, y] = [await createStore(t), await createStore(t)];
  const issuer = newIssuer();
  const [xKey, yKey] = [await signingKey(), await signingKey()];
  assert.equal((await register(t, x, { issuer, audience: 'x-api', jwks: { keys: [xKey.publicJwk] } })).status, 200);
  // As an older version let store Y do.
  await t.database.db.execute(sql`insert into customer_auth (store, issuer, audience, jwks) values (${y.slug}, ${issuer}, 'x-userinfo', ${JSON.stringify({ keys: [yKey.publicJwk] })}::jsonb)`);
  const customer = randomUUID();
  assertProblem(await t.request('GET', `/api/v1/${customer}/orders`, { token: await signJwt(xKey, { iss: issuer, aud: ['x-api', 'x-userinfo'], sub: customer }) }), 401, 'UNAUTHORIZED');
  assertProblem(await t.request('GET', `/api/v1/${customer}/orders`, { token: await signJwt(yKey, { iss: issuer, aud: 'x-userinfo', sub: customer }) }), 401, 'UNAUTHORIZED');

  const startLog = logBuffer('warn');
  await startAppOn(base.database, {}, { logger: startLog.logger });
  const said = startLog.entries().find((e) => e.event === 'jwt_issuer_of_several_stores' && String(e.msg).includes(issuer));
  assert.ok(said, startLog.text());
  assert.match(String(said.msg), new RegExp(`${x.slug}, ${y.slug}|${y.slug}, ${x.slug}`));

  // Once Y lets go, X's customers are back.
  assert.equal((await t.request('DELETE', '/api/v1/admin/customer-auth', { token: y.admin })).status, 200);
  assert.equal((await t.request('GET', `/api/v1/${customer}/orders`, { token: await signJwt(xKey, { iss: issuer, aud: 'x-api', sub: customer }) })).status, 200);
});

test('every JWT refusal reads the same: unknown issuer, unknown audience, bad signature, expired, bad subject', async () => {
  const s = await createStore(t);
  const issuer = newIssuer();
  const [key, stranger] = [await signingKey(), await signingKey()];
  assert.equal((await register(t, s, { issuer, audience: 'api', jwks: { keys: [key.publicJwk] } })).status, 200);
  const customer = randomUUID();
  const refused = [
    await signJwt(key, { iss: newIssuer(), aud: 'api', sub: customer }),
    await signJwt(key, { iss: issuer, aud: 'other-api', sub: customer }),
    await signJwt(stranger, { iss: issuer, aud: 'api', sub: customer }),
    await signJwt(key, { iss: issuer, aud: 'api', sub: customer, expiresIn: Math.floor(Date.now() / 1000) - 3600 }),
    await signJwt(key, { iss: issuer, aud: 'api', sub: 'auth0|123' }),
    'eyJhbGciOiJub25lIn0.eyJpc3MiOiJ4In0.',
  ];
  const answers = await Promise.all(refused.map((token) => t.request('GET', '/api/v1/products', { token })));
  for (const r of answers) assertProblem(r, 401, 'UNAUTHORIZED');
  assert.equal(new Set(answers.map((r) => `${r.json.detail}|${r.headers['www-authenticate']}`)).size, 1, answers.map((r) => r.json.detail).join('\n'));
  assert.doesNotMatch(answers[0]!.json.detail, /issuer and audience|registered/);
});
