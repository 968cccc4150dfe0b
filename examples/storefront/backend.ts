/**
 * The shop's own small back end, as a real shop has one: it serves the page, signs a customer in
 * (a DEMO sign-in: see `signIn`), and forwards every other request to the Storefront API, so the
 * page calls the API on its own origin and the API needs no CORS setting for it.
 *
 * The page still holds only the public storefront token, and a customer token once signed in; the
 * secret server token stays here.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const HERE = dirname(fileURLToPath(import.meta.url));

export interface ShopSettings {
  /** Where the Storefront API listens, without `/api`: `http://127.0.0.1:3000`. */
  apiUrl: string;
  /** The store's public storefront token (sf_...): it ships to the page. */
  storefrontToken: string;
  /** A secret server token (srv_...) of the same store, kept here; without it there is no sign-in. */
  serverToken?: string;
  storeName: string;
}

/** What the page learns from `/config.json`. */
export interface PageConfig {
  storefrontToken: string;
  storeName: string;
  signIn: boolean;
}

const FORWARDED_REQUEST_HEADERS = ['authorization', 'content-type', 'idempotency-key', 'if-none-match', 'x-request-id', 'accept'];
// The API's content security policy and nosniff come along, so a picture it serves (an SVG opened on
// its own) runs nothing on the shop's origin either.
const FORWARDED_ANSWER_HEADERS = [
  'content-type', 'etag', 'cache-control', 'retry-after', 'idempotent-replayed', 'x-request-id', 'www-authenticate',
  'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'content-security-policy', 'x-content-type-options',
];

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function sendJson(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

/** The same email always names the same customer id, so a shopper finds their orders again. */
export function customerIdOf(email: string): string {
  const hex = createHash('sha256').update(`storefront-example:${email.trim().toLowerCase()}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * DEMO sign-in, not authentication: anyone may sign in as any email. A real shop checks a password
 * or a one-time link first, with its own user store, and only then mints the customer token as here.
 */
async function signIn(settings: ShopSettings, request: IncomingMessage, response: ServerResponse) {
  if (!settings.serverToken) return sendJson(response, 404, { detail: 'sign-in needs STOREFRONT_SERVER_TOKEN' });
  let email = '';
  try {
    email = String((JSON.parse((await readBody(request)).toString() || '{}') as { email?: unknown }).email ?? '').trim();
  } catch {
    // a body that is not JSON is an empty email
  }
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254) return sendJson(response, 400, { detail: 'Please enter an email address.' });
  const customerId = customerIdOf(email);
  const minted = await fetch(`${settings.apiUrl}/api/v1/customer-tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${settings.serverToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ customerId, ttlSeconds: 8 * 3600 }),
  });
  const answer = (await minted.json()) as { secret?: string; token?: { expiresAt: string }; detail?: string };
  if (minted.status !== 201 || !answer.secret) return sendJson(response, 502, { detail: `the shop could not sign you in (${answer.detail ?? minted.status})` });
  sendJson(response, 200, { email, customerId, secret: answer.secret, expiresAt: answer.token?.expiresAt });
}

/** Any other path goes to the API as it came: catalog, carts, customers, and images it serves. */
async function forward(apiUrl: string, request: IncomingMessage, response: ServerResponse) {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  try {
    const answer = await fetch(`${apiUrl}${request.url ?? '/'}`, {
      method: request.method,
      headers,
      body: hasBody ? new Uint8Array(await readBody(request)) : undefined,
      redirect: 'manual',
    });
    const out: Record<string, string> = {};
    for (const name of FORWARDED_ANSWER_HEADERS) {
      const value = answer.headers.get(name);
      if (value !== null) out[name] = value;
    }
    response.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
  } catch {
    sendJson(response, 502, { type: 'about:blank', title: 'Bad Gateway', status: 502, code: 'SERVICE_UNAVAILABLE', detail: `the Storefront API at ${apiUrl} does not answer` });
  }
}

/** Bundles the page (app.ts and the typed client) and answers the shop's HTTP server. */
export async function startShopBackend(settings: ShopSettings, port: number): Promise<Server> {
  const bundle = await build({ entryPoints: [join(HERE, 'app.ts')], bundle: true, format: 'esm', target: 'es2022', write: false, sourcemap: 'inline' });
  const config: PageConfig = { storefrontToken: settings.storefrontToken, storeName: settings.storeName, signIn: Boolean(settings.serverToken) };
  const files: Record<string, [string, string | Uint8Array]> = {
    '/': ['text/html; charset=utf-8', readFileSync(join(HERE, 'index.html'))],
    '/style.css': ['text/css; charset=utf-8', readFileSync(join(HERE, 'style.css'))],
    '/app.js': ['text/javascript; charset=utf-8', bundle.outputFiles[0]!.contents],
    '/config.json': ['application/json', JSON.stringify(config)],
  };
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    const file = request.method === 'GET' ? files[path] : undefined;
    if (file) return void response.writeHead(200, { 'content-type': file[0], 'cache-control': 'no-store' }).end(file[1]);
    if (path === '/shop/sign-in' && request.method === 'POST') return void signIn(settings, request, response);
    void forward(settings.apiUrl, request, response);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  return server;
}
