/**
 * Customers signed in by the store's own identity provider: bearer JWTs verified with `jose`
 * against a JWK Set served by a local HTTP server in this test (keys made by `jose` here too).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, UnsecuredJWT, type JWK } from 'jose';
import { startTestApp } from './support/app.js';
import { assertProblem, createStore, type TestStore } from './support/factories.js';
import { freePort } from './support/server-process.js';

// The JWK Set server of this file listens on loopback, over http: a development setting.
const t = await startTestApp({ JWKS_REFETCH_COOLDOWN_SECONDS: '0', ALLOW_PRIVATE_NETWORKS: 'true' });

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;
interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256' | 'EdDSA';
  pair: KeyPair;
}

async function signingKey(alg: SigningKey['alg']): Promise<SigningKey> {
  return { kid: randomUUID(), alg, pair: await generateKeyPair(alg, { extractable: true }) };
}

async function publicJwk(key: SigningKey): Promise<JWK> {
  return { ...(await exportJWK(key.pair.publicKey)), kid: key.kid, alg: key.alg, use: 'sig' };
}

/** A JWK Set server whose keys the test changes; it counts its fetches. */
const served: { keys: JWK[] } = { keys: [] };
let fetches = 0;
const jwksServer = http.createServer((_request, response) => {
  fetches++;
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify(served));
});
await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
after(() => new Promise<void>((resolve) => jwksServer.close(() => resolve())));
const jwksUrl = `http://127.0.0.1:${(jwksServer.address() as { port: number }).port}/.well-known/jwks.json`;

const ISSUER = `https://idp-${randomUUID().slice(0, 8)}.example/`;
const AUDIENCE = 'https://api.shop.example';

interface Claims {
  sub?: string;
  iss?: string;
  aud?: string;
  expiresIn?: string | number;
  notBefore?: string | number;
}

async function jwt(key: SigningKey, claims: Claims = {}): Promise<string> {
  const token = new SignJWT({})
    .setProtectedHeader({ alg: key.alg, kid: key.kid })
    .setIssuer(claims.iss ?? ISSUER)
    .setAudience(claims.aud ?? AUDIENCE)
    .setSubject(claims.sub ?? customer)
    .setIssuedAt()
    .setExpirationTime(claims.expiresIn ?? '5m');
  if (claims.notBefore !== undefined) token.setNotBefore(claims.notBefore);
  return token.sign(key.pair.privateKey);
}

const customer = randomUUID();
const rsa = await signingKey('RS256');
served.keys = [await publicJwk(rsa)];
const store = await createStore(t);
const configured = await t.request('PUT', '/api/v1/admin/customer-auth', { token: store.admin, body: { issuer: ISSUER, audience: AUDIENCE, jwksUrl } });
assert.equal(configured.status, 200, configured.text);

const ordersOf = (token: string, who = customer) => t.request('GET', `/api/v1/${who}/orders`, { token });
function assertInvalidToken(r: Awaited<ReturnType<typeof ordersOf>>) {
  assertProblem(r, 401, 'UNAUTHORIZED');
  assert.match(String(r.headers['www-authenticate']), /error="invalid_token"/);
}

test('a valid JWT (RS256, ES256 or EdDSA) names its customer: own path 200, another path 403', async () => {
  assert.equal((await ordersOf(await jwt(rsa))).status, 200);
  const r = await t.request('POST', `/api/v1/${customer}/addresses`, {
    token: await jwt(rsa),
    body: { address: { zipcode: '1', street: 'A', number: '1', city: 'C', state: 'S', country: 'BR' } },
  });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.json.address.customerId, customer);
  assertProblem(await ordersOf(await jwt(rsa), randomUUID()), 403, 'FORBIDDEN');
  assert.equal((await t.request('GET', '/api/v1/products', { token: await jwt(rsa) })).status, 200, 'the catalog too');
  assertProblem(await t.request('DELETE', '/api/v1/customer-tokens/current', { token: await jwt(rsa) }), 403, 'FORBIDDEN');
  for (const alg of ['ES256', 'EdDSA'] as const) {
    const key = await signingKey(alg);
    served.keys = [await publicJwk(rsa), await publicJwk(key)];
    assert.equal((await ordersOf(await jwt(key))).status, 200, alg);
  }
});

test('expired, not yet valid, wrong issuer, wrong audience: 401 invalid_token', async () => {
  assertInvalidToken(await ordersOf(await jwt(rsa, { expiresIn: Math.floor(Date.now() / 1000) - 60 })));
  assert.equal((await ordersOf(await jwt(rsa, { expiresIn: Math.floor(Date.now() / 1000) - 10 }))).status, 200, '30 s of leeway on exp');
  assertInvalidToken(await ordersOf(await jwt(rsa, { notBefore: Math.floor(Date.now() / 1000) + 3600 })));
  assertInvalidToken(await ordersOf(await jwt(rsa, { iss: 'https://evil.example/' })));
  assertInvalidToken(await ordersOf(await jwt(rsa, { aud: 'https://other-api.example' })));
  const noExp = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: rsa.kid }).setIssuer(ISSUER).setAudience(AUDIENCE).setSubject(customer).sign(rsa.pair.privateKey);
  assertInvalidToken(await ordersOf(noExp));
});

test('a tampered payload, alg none, and HS256 signed with the public key: 401', async () => {
  const valid = await jwt(rsa);
  const [header, , signature] = valid.split('.');
  const forged = Buffer.from(JSON.stringify({ iss: ISSUER, aud: AUDIENCE, sub: randomUUID(), exp: Math.floor(Date.now() / 1000) + 300 })).toString('base64url');
  assertInvalidToken(await ordersOf(`${header}.${forged}.${signature}`));
  const unsecured = new UnsecuredJWT({}).setIssuer(ISSUER).setAudience(AUDIENCE).setSubject(customer).setExpirationTime('5m').encode();
  assertInvalidToken(await ordersOf(unsecured));
  const publicPem = await exportSPKI(rsa.pair.publicKey);
  const hmac = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', kid: rsa.kid })
    .setIssuer(ISSUER).setAudience(AUDIENCE).setSubject(customer).setExpirationTime('5m')
    .sign(new TextEncoder().encode(publicPem));
  assertInvalidToken(await ordersOf(hmac));
});

test('sub must be a UUID: it is the customer id', async () => {
  assertInvalidToken(await t.request('GET', '/api/v1/products', { token: await jwt(rsa, { sub: 'auth0|12345' }) }));
});

test('key rotation: a token with an unknown kid fetches the JWK Set again, without a restart', async () => {
  const before = fetches;
  const rotated = await signingKey('RS256');
  served.keys = [await publicJwk(rotated)];
  assert.equal((await ordersOf(await jwt(rotated))).status, 200);
  assert.ok(fetches > before, 'the set was fetched again');
  const unknown = await signingKey('RS256');
  assertInvalidToken(await ordersOf(await jwt(unknown)));
  served.keys = [await publicJwk(rsa)];
});

test('a JWK Set that cannot be fetched: 503 for JWT requests only, nothing else affected', async () => {
  const down = await createStore(t);
  const issuer = `https://down-${randomUUID().slice(0, 8)}.example/`;
  const deadUrl = `http://127.0.0.1:${await freePort()}/jwks.json`;
  const put = await t.request('PUT', '/api/v1/admin/customer-auth', { token: down.admin, body: { issuer, audience: AUDIENCE, jwksUrl: deadUrl } });
  assert.equal(put.status, 200, put.text);
  const r = await ordersOf(await jwt(rsa, { iss: issuer }));
  assertProblem(r, 503, 'SERVICE_UNAVAILABLE');
  assert.ok(r.headers['retry-after']);
  assert.equal((await t.request('GET', '/api/v1/products', { token: down.storefront })).status, 200, 'other credentials of that store work');
  assert.equal((await ordersOf(await jwt(rsa))).status, 200, 'other stores\' JWTs work');
});

test('an inline JWK Set works too; settings are read, replaced and turned off', async () => {
  const s = await createStore(t);
  const issuer = `https://inline-${randomUUID().slice(0, 8)}.example/`;
  const key = await signingKey('ES256');
  const put = await t.request('PUT', '/api/v1/admin/customer-auth', { token: s.admin, body: { issuer, audience: AUDIENCE, jwks: { keys: [await publicJwk(key)] } } });
  assert.equal(put.status, 200, put.text);
  assert.equal(put.json.customerAuth.jwksUrl, null);
  assert.equal((await ordersOf(await jwt(key, { iss: issuer }))).status, 200);
  const read = await t.request('GET', '/api/v1/admin/customer-auth', { token: s.admin });
  assert.deepEqual(read.json, put.json);
  const replacement = await signingKey('ES256');
  await t.request('PUT', '/api/v1/admin/customer-auth', { token: s.admin, body: { issuer, audience: AUDIENCE, jwks: { keys: [await publicJwk(replacement)] } } });
  assertInvalidToken(await ordersOf(await jwt(key, { iss: issuer })));
  assert.equal((await ordersOf(await jwt(replacement, { iss: issuer }))).status, 200, 'the new keys are used at once');
  assert.equal((await t.request('DELETE', '/api/v1/admin/customer-auth', { token: s.admin })).status, 200);
  assertInvalidToken(await ordersOf(await jwt(replacement, { iss: issuer })));
  assertProblem(await t.request('GET', '/api/v1/admin/customer-auth', { token: s.admin }), 404, 'NOT_FOUND');
});

test('settings are checked: one key source, a URL that resolves, public keys only, an issuer registered by another store is 409', async () => {
  const s: TestStore = await createStore(t);
  const key = await publicJwk(rsa);
  const privateJwk = { ...(await exportJWK(rsa.pair.privateKey)), kid: 'x' };
  const bad = [
    { issuer: 'i', audience: 'a' },
    { issuer: 'i', audience: 'a', jwksUrl, jwks: { keys: [key] } },
    { issuer: 'i', audience: 'a', jwksUrl: 'https://idp.invalid/jwks.json' },
    { issuer: 'i', audience: 'a', jwksUrl: 'not a url' },
    { issuer: 'i', audience: 'a', jwks: { keys: [privateJwk] } },
    { issuer: 'i', audience: 'a', jwks: { keys: [] } },
    { issuer: '', audience: 'a', jwksUrl },
    { issuer: 'i', audience: 'a', jwksUrl, extra: true },
  ];
  for (const body of bad) assertProblem(await t.request('PUT', '/api/v1/admin/customer-auth', { token: s.admin, body }), 400, 'VALIDATION_FAILED');
  assertProblem(await t.request('PUT', '/api/v1/admin/customer-auth', { token: s.admin, body: { issuer: ISSUER, audience: AUDIENCE, jwksUrl } }), 409, 'CONFLICT');
  assertProblem(await t.request('PUT', '/api/v1/admin/customer-auth', { token: s.server, body: { issuer: 'i', audience: 'a', jwksUrl } }), 403, 'FORBIDDEN');
  assertProblem(await t.request('PUT', '/api/v1/admin/customer-auth', { token: s.admin, body: { issuer: ISSUER, audience: 'another-audience', jwksUrl } }), 409, 'CONFLICT');
  assert.equal((await t.request('PUT', '/api/v1/admin/customer-auth', { token: s.admin, body: { issuer: `${ISSUER}other`, audience: AUDIENCE, jwksUrl } })).status, 200);
});
