/**
 * Bearer tokens and tenancy. A route declares who may call it (`config.auth`); the store of every
 * request comes from its token, never from the request itself.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from './errors.js';
import { authenticateSecret } from '../modules/stores/service.js';
import { secretsEqual } from '../modules/stores/tokens.js';
import type { RateLimiter } from './rate-limit.js';

/** `root`: the platform operator. `admin`: one store's admin API. `storefront`: its storefront. */
export type AuthRequirement = 'root' | 'admin' | 'storefront';

export type Principal =
  | { kind: 'root' }
  | { kind: 'admin' | 'storefront'; store: string; tokenId: string; /** read with the token, at this request's start */ catalogVersion: number };

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRequirement;
    /** Order creation: the tighter ORDER_RATE_LIMIT_PER_MINUTE applies, per token and customer. */
    orderLimit?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

const ALLOWED: Record<AuthRequirement, ReadonlyArray<Principal['kind']>> = {
  root: ['root'],
  admin: ['admin'],
  storefront: ['admin', 'storefront'],
};

/** The store of an authenticated store request. */
export function storeOf(request: FastifyRequest): string {
  return storePrincipalOf(request).store;
}

export function storePrincipalOf(request: FastifyRequest): Extract<Principal, { store: string }> {
  const principal = request.principal;
  if (!principal || principal.kind === 'root') throw new AppError('FORBIDDEN', 'this route needs a store token');
  return principal;
}

function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer +([^\s]+) *$/i.exec(header);
  if (!match) throw unauthorized('the Authorization header must be "Bearer <token>"', 'invalid_request');
  return match[1];
}

function unauthorized(detail: string, error?: string): AppError {
  const challenge = error ? `Bearer realm="storefront", error="${error}"` : 'Bearer realm="storefront"';
  return new AppError('UNAUTHORIZED', detail, { headers: { 'www-authenticate': challenge } });
}

export interface AuthOptions {
  rootToken: string | undefined;
  limiter: RateLimiter;
  /** Requests per minute per token, or per client address without a valid token; 0 = off. */
  perMinute: number;
  /** Order creations per minute per token and customer; 0 = off. */
  ordersPerMinute: number;
}

async function principalOf(app: FastifyInstance, request: FastifyRequest, rootToken: string | undefined): Promise<Principal> {
  const secret = bearerOf(request);
  if (!secret) throw unauthorized('send Authorization: Bearer <token>');
  if (rootToken && secretsEqual(secret, rootToken)) return { kind: 'root' };
  const principal = await authenticateSecret(app.db, secret);
  if (!principal) throw unauthorized('the token is unknown or was revoked', 'invalid_token');
  return principal;
}

export default fp(
  async (app: FastifyInstance, options: AuthOptions) => {
    app.decorateRequest('principal', null);
    app.addHook('onRequest', async (request, reply) => {
      const required = request.routeOptions.config.auth;
      if (!required) return;
      let principal: Principal;
      try {
        principal = await principalOf(app, request, options.rootToken);
      } catch (error) {
        // Requests without a valid token count against their client address.
        if (error instanceof AppError && error.code === 'UNAUTHORIZED') await options.limiter.consume(reply, `ip:${request.ip}`, options.perMinute);
        throw error;
      }
      const who = principal.kind === 'root' ? 'root' : principal.tokenId;
      await options.limiter.consume(reply, `token:${who}`, options.perMinute);
      if (request.routeOptions.config.orderLimit) {
        const customer = (request.params as { customer?: string }).customer ?? '';
        await options.limiter.consume(reply, `order:${who}:${customer.toLowerCase()}`, options.ordersPerMinute);
      }
      if (!ALLOWED[required].includes(principal.kind)) {
        throw new AppError('FORBIDDEN', `a ${principal.kind} token may not use this route; it needs a ${required} token`, {
          headers: { 'www-authenticate': 'Bearer realm="storefront", error="insufficient_scope"' },
        });
      }
      request.principal = principal;
    });
  },
  { name: 'auth', dependencies: ['errors'] },
);
