/**
 * Authentication: who is calling. It names the caller of every request to a route that needs a
 * credential (`request.principal`) and never decides what the caller may do: rate limiting counts
 * the request next, and authorization answers 401 for a refused credential and 403 for a caller
 * the route does not admit. The store of every request comes from its credential, never from the
 * request itself.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from './errors.js';
import { accessOf, type Access } from './access-table.js';
import { authenticateSecret, hashesEqual, hashSecret } from '../modules/stores/index.js';
import { authenticateSession, isSessionSecret } from '../modules/staff/index.js';
import { toIso } from '../lib/time.js';
import type { Database } from '../db/client.js';
import { bearerTokenOf } from '../lib/bearer.js';

export type Principal =
  | { kind: 'root' }
  | { kind: 'admin' | 'server' | 'storefront'; store: string; tokenId: string; /** read with the token, at this request's start */ catalogVersion: number; /** likewise (modules/stores/catalog-version.ts) */ holdsVersion: number }
  | {
      kind: 'customer'; store: string; customerId: string; /** null for an identity-provider JWT */ tokenId: string | null; catalogVersion: number; holdsVersion: number;
      /** A guest session: a new customer id per session, so "once per customer" also needs the order's email. */
      guest: boolean;
    }
  /** A person signed in to the dashboard; `role` picks the access table's column (`owner` or `staff`). */
  | { kind: 'staff'; store: string; staffId: string; email: string; role: 'owner' | 'staff'; /** null while signing in */ sessionId: string | null; expiresAt: string; catalogVersion: number; holdsVersion: number };

export type StorePrincipal = Extract<Principal, { store: string }>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's entry of the access table, set when the route is registered. */
    access?: Access;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** The 401 a missing or refused credential gets; thrown by authorization, after rate limiting counted it. */
    credentialError: AppError | null;
    /** credentialHashOf's answer, once asked. */
    credentialHash: string | undefined;
  }
}

/** The store of an authenticated store request. */
export function storeOf(request: FastifyRequest): string {
  return storePrincipalOf(request).store;
}

export function storePrincipalOf(request: FastifyRequest): StorePrincipal {
  const principal = request.principal;
  if (!principal || principal.kind === 'root') throw new AppError('FORBIDDEN', 'this route needs a store token');
  return principal;
}

export function unauthorized(detail: string, error?: 'invalid_token' | 'invalid_request'): AppError {
  const challenge = error ? `Bearer realm="storefront", error="${error}"` : 'Bearer realm="storefront"';
  return new AppError('UNAUTHORIZED', detail, { headers: { 'www-authenticate': challenge } });
}

/**
 * The hash (hashSecret) of the request's bearer secret, or of its whole Authorization header when
 * that is not `Bearer <secret>`; undefined without the header. Worked out once a request: the rate
 * limiter knows callers by it, and the root token's comparison and the token's or staff session's
 * lookup use it (both keep this hash of their secrets).
 */
export function credentialHashOf(request: FastifyRequest): string | undefined {
  if (request.credentialHash === undefined) {
    const header = request.headers.authorization;
    if (header === undefined) return undefined;
    request.credentialHash = hashSecret(bearerTokenOf(header) || header);
  }
  return request.credentialHash;
}

function bearerOf(request: FastifyRequest): string | undefined {
  const token = bearerTokenOf(request.headers.authorization);
  if (token === null) throw unauthorized('the Authorization header must be "Bearer <token>"', 'invalid_request');
  return token;
}

/** Customer JWTs of the stores' identity providers (the customers module's; app.ts wires it). */
export interface CustomerJwts {
  /** True when a bearer secret has the shape of a JWT rather than of one of our tokens. */
  recognizes(secret: string): boolean;
  /** The customer a JWT names, or a 401 (`refuse`) / 503 AppError. */
  authenticate(db: Database, jwt: string, refuse: (detail: string) => AppError): Promise<{ store: string; customerId: string; catalogVersion: number; holdsVersion: number }>;
}

export interface AuthenticationOptions {
  rootToken: string | undefined;
  identityProviders: CustomerJwts;
}

async function principalOf(app: FastifyInstance, request: FastifyRequest, rootTokenHash: string | undefined, options: AuthenticationOptions): Promise<Principal> {
  const secret = bearerOf(request);
  if (!secret) throw unauthorized('send Authorization: Bearer <token>');
  const secretHash = credentialHashOf(request)!;
  if (rootTokenHash && hashesEqual(secretHash, rootTokenHash)) return { kind: 'root' };
  const refuse = (detail: string) => unauthorized(detail, 'invalid_token');
  if (options.identityProviders.recognizes(secret)) {
    const customer = await options.identityProviders.authenticate(app.db, secret, refuse);
    return { kind: 'customer', tokenId: null, guest: false, ...customer };
  }
  if (isSessionSecret(secret)) {
    const session = await authenticateSession(app.db, secret, secretHash);
    if (!session) throw refuse('the staff session is unknown, expired or was ended; sign in again');
    return { kind: 'staff', store: session.store, staffId: session.staffId, email: session.email, role: session.role, sessionId: session.sessionId, expiresAt: toIso(session.expiresAt), catalogVersion: session.catalogVersion, holdsVersion: session.holdsVersion };
  }
  const token = await authenticateSecret(app.db, secret, secretHash);
  if (!token) throw refuse('the token is unknown, expired or was revoked');
  if (token.kind === 'customer') {
    return { kind: 'customer', store: token.store, customerId: token.customerId!, tokenId: token.tokenId, catalogVersion: token.catalogVersion, holdsVersion: token.holdsVersion, guest: token.guest };
  }
  return { kind: token.kind, store: token.store, tokenId: token.tokenId, catalogVersion: token.catalogVersion, holdsVersion: token.holdsVersion };
}

export default fp(
  async (app: FastifyInstance, options: AuthenticationOptions) => {
    app.decorateRequest('principal', null);
    app.decorateRequest('credentialError', null);
    app.decorateRequest('credentialHash', undefined);
    const rootTokenHash = options.rootToken ? hashSecret(options.rootToken) : undefined;
    app.addHook('onRoute', (route) => {
      if (!route.url.startsWith('/api/v1/')) return;
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const access = methods.map((m) => accessOf(m, route.url)).find(Boolean);
      if (!access) throw new Error(`route ${methods.join(',')} ${route.url} has no entry in the access table (src/plugins/access-table.ts)`);
      route.config = { ...route.config, access };
    });
    app.addHook('onRequest', async (request) => {
      const access = request.routeOptions.config.access;
      if (!access || access === 'public') return;
      try {
        request.principal = await principalOf(app, request, rootTokenHash, options);
      } catch (error) {
        if (!(error instanceof AppError) || error.code !== 'UNAUTHORIZED') throw error;
        request.credentialError = error;
      }
    });
  },
  { name: 'authentication', dependencies: ['errors'] },
);
