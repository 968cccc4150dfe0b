/**
 * Requests the service makes for a tenant (JWK Set fetches, webhook deliveries) follow one address
 * policy: https, no loopback, private, link-local or unspecified host (IPv6 forms that embed an
 * IPv4 address judged by it), checked at registration and again at each fetch, no redirect
 * followed; a JWK Set fetch has 3 s for the whole body and reads at most 64 KiB. Refusals name the
 * rule, never the addresses a host resolved to.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { startAppOn, startTestApp, type TestApp } from './support/app.js';
import { assertProblem, createStore, type TestStore } from './support/factories.js';
import { serveJwks, signingKey, signJwt } from './support/jwt-keys.js';

const strict = await startTestApp({ ALLOW_PRIVATE_NETWORKS: 'false' });
const lenient = await startAppOn(strict.database, { ALLOW_PRIVATE_NETWORKS: 'true' });

/** A local server answering every request with `handle`; it counts requests. */
async function standIn(handle: (request: http.IncomingMessage, response: http.ServerResponse) => void) {
  let requests = 0;
  const server = http.createServer((request, response) => {
    requests++;
    handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { base: `http://127.0.0.1:${(server.address() as { port: number }).port}`, requests: () => requests };
}

const EMBEDDED_LOOPBACK = ['https://[::ffff:0:7f00:1]/k', 'https://[::7f00:1]/k', 'https://[2002:7f00:1::]/k', 'https://[64:ff9b::7f00:1]/k', 'https://[::ffff:127.0.0.1]/k', 'https://[64:ff9b::a00:1]/k'];
const PRIVATE = ['https://127.0.0.1/k', 'https://localhost/k', 'https://169.254.169.254/latest/meta-data/', 'https://10.0.0.1/k', 'https://192.168.1.1/k', 'https://[::1]/k', 'https://[::]/k', 'https://0.0.0.0/k', 'https://[fd00::1]/k', 'https://[fe80::1]/k'];
const SECRET_ADDRESSES = /127\.0\.0\.1|::1\b|\[::\]/;

async function jwtStore(app: TestApp, jwksUrl: string): Promise<{ store: TestStore; token: () => Promise<string> }> {
  const store = await createStore(app);
  const issuer = `https://idp-${randomUUID().slice(0, 8)}.example/`;
  const put = await app.request('PUT', '/api/v1/admin/customer-auth', { token: store.admin, body: { issuer, audience: 'api', jwksUrl } });
  assert.equal(put.status, 200, put.text);
  const key = await signingKey();
  return { store, token: () => signJwt(key, { iss: issuer, aud: 'api', sub: randomUUID() }) };
}

test('jwksUrl follows the webhook address policy at registration; the refusal names the rule, never an address', async () => {
  const metadata = await standIn((_q, r) => r.end('{"keys":[]}'));
  const s = await createStore(strict);
  const refused = [`${metadata.base}/latest/meta-data/iam/security-credentials/`, 'http://203.0.113.10/jwks.json', ...PRIVATE, ...EMBEDDED_LOOPBACK, 'https://user:pw@203.0.113.10/k'];
  for (const jwksUrl of refused) {
    const r = await strict.request('PUT', '/api/v1/admin/customer-auth', { token: s.admin, body: { issuer: 'https://i.example/', audience: 'a', jwksUrl } });
    assertProblem(r, 400, 'VALIDATION_FAILED');
    assert.equal(r.json.errors[0].field, 'body.jwksUrl', jwksUrl);
    if (!/127\.0\.0\.1|\[::1?\]/.test(jwksUrl)) assert.doesNotMatch(r.json.detail, SECRET_ADDRESSES, jwksUrl);
  }
  assert.match((await strict.request('PUT', '/api/v1/admin/customer-auth', { token: s.admin, body: { issuer: 'https://i.example/', audience: 'a', jwksUrl: 'https://localhost/k' } })).json.detail, /loopback, private/);
  assert.equal(metadata.requests(), 0);
  const ok = await strict.request('PUT', '/api/v1/admin/customer-auth', { token: s.admin, body: { issuer: 'https://i.example/', audience: 'a', jwksUrl: 'https://203.0.113.10/jwks.json' } });
  assert.equal(ok.status, 200, ok.text);
});

test('webhooks refuse the IPv6 forms that embed a loopback or private IPv4 address, and their refusals show no resolved address', async () => {
  const s = await createStore(strict);
  for (const url of EMBEDDED_LOOPBACK) {
    assertProblem(await strict.request('POST', '/api/v1/admin/webhooks', { token: s.admin, body: { url, events: ['*'] } }), 422, 'WEBHOOK_URL_NOT_ALLOWED');
  }
  const byName = await strict.request('POST', '/api/v1/admin/webhooks', { token: s.admin, body: { url: 'https://localhost/hooks', events: ['*'] } });
  assertProblem(byName, 422, 'WEBHOOK_URL_NOT_ALLOWED');
  assert.doesNotMatch(byName.text, SECRET_ADDRESSES);
  assert.match(byName.json.detail, /loopback, private, link-local or unspecified/);
  // NAT64 and 6to4 of a public address are that public address.
  for (const url of ['https://[64:ff9b::cb00:710a]/hooks', 'https://[2002:cb00:710a::1]/hooks']) {
    assert.equal((await strict.request('POST', '/api/v1/admin/webhooks', { token: s.admin, body: { url, events: ['*'] } })).status, 201, url);
  }
});

test('each fetch checks the policy again: a JWK Set on loopback registered by a lenient process is not fetched by a strict one', async () => {
  const key = await signingKey();
  const jwks = await serveJwks([key.publicJwk]);
  const { token } = await jwtStore(lenient, jwks.url);
  const r = await strict.request('GET', '/api/v1/products', { token: await token() });
  assertProblem(r, 503, 'SERVICE_UNAVAILABLE');
  assert.doesNotMatch(r.text, SECRET_ADDRESSES);
  assert.equal(jwks.fetches(), 0);
});

test('a JWK Set that answers a redirect is not followed', async () => {
  const target = await standIn((_q, r) => r.end('{"keys":[]}'));
  const redirecting = await standIn((_q, r) => r.writeHead(302, { location: `${target.base}/latest/meta-data/` }).end());
  const { token } = await jwtStore(lenient, `${redirecting.base}/jwks.json`);
  assertProblem(await lenient.request('GET', '/api/v1/products', { token: await token() }), 503, 'SERVICE_UNAVAILABLE');
  assert.equal(redirecting.requests(), 1);
  assert.equal(target.requests(), 0);
});

test('a JWK Set that trickles in fails within the 3 s for the whole body', async () => {
  const drip = await standIn((_q, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"keys":[');
    const timer = setInterval(() => response.write(' '), 100);
    response.on('close', () => clearInterval(timer));
  });
  const { token } = await jwtStore(lenient, `${drip.base}/jwks.json`);
  const jwt = await token();
  const started = Date.now();
  assertProblem(await lenient.request('GET', '/api/v1/products', { token: jwt }), 503, 'SERVICE_UNAVAILABLE');
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 2500 && elapsed < 6000, `${elapsed} ms`);
});

test('a 300 MB JWK Set fails at 64 KiB: fast, and the process does not grow', async () => {
  let sent = 0;
  let closedAt = 0;
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const huge = await standIn((request, response) => {
    const declare = request.url?.includes('declared');
    response.writeHead(200, { 'content-type': 'application/json', ...(declare ? { 'content-length': String(300 * 1024 * 1024) } : {}) });
    response.on('close', () => (closedAt = Date.now()));
    const pump = () => {
      while (sent < 300 * 1024 * 1024 && !response.destroyed) {
        sent += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', pump);
      }
      response.end();
    };
    pump();
  });
  for (const path of ['/streamed.json', '/declared.json']) {
    sent = 0;
    const { token } = await jwtStore(lenient, `${huge.base}${path}`);
    const jwt = await token();
    const before = process.memoryUsage().rss;
    const started = Date.now();
    assertProblem(await lenient.request('GET', '/api/v1/products', { token: jwt }), 503, 'SERVICE_UNAVAILABLE');
    const elapsed = Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(elapsed < 2000, `${path}: ${elapsed} ms`);
    assert.ok(closedAt >= started, `${path}: the connection was cut`);
    assert.ok(sent < 32 * 1024 * 1024, `${path}: the server got to send ${sent} bytes`);
    assert.ok(process.memoryUsage().rss - before < 100 * 1024 * 1024, `${path}: rss grew ${process.memoryUsage().rss - before} bytes`);
  }
});
