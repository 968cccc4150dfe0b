/**
 * Authorization: may this caller call this route, for this customer? Two steps, in the order of
 * docs/api.md ("authentication (401), then input validation (400), then authorization (403)"):
 * a missing or refused credential is 401 before anything else is looked at; the route's entry of
 * the access table is checked once the path and body are valid, so a customer credential on a
 * path that is not a UUID is 400, and on another customer's path 403.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from './errors.js';
import { hook } from '../lib/hooks.js';
import { describeAccess, type Access, type Caller } from './access-table.js';
import type { Principal } from './authentication.js';

/** The access table's column of a caller: a staff session's is its role. */
const callerOf = (principal: Principal): Caller => (principal.kind === 'staff' ? principal.role : principal.kind);

function admits(access: Exclude<Access, 'public'>, principal: Principal, request: FastifyRequest): boolean {
  const grant = access[callerOf(principal)];
  if (!grant) return false;
  if (principal.kind !== 'customer') return true;
  switch (grant) {
    case 'any':
      return true;
    case 'own-path':
      return (request.params as { customer?: string }).customer?.toLowerCase() === principal.customerId;
    case 'own-token':
      return principal.tokenId !== null;
  }
}

function forbidden(access: Exclude<Access, 'public'>, principal: Principal): AppError {
  const kind = principal.kind === 'staff' ? (principal.role === 'owner' ? "owner's session" : "staff member's session") : `${principal.kind} credential`;
  const article = /^[aeiou]/.test(kind) ? 'an' : 'a';
  const caller = principal.kind === 'customer' && principal.tokenId === null ? 'an identity-provider JWT' : `${article} ${kind}`;
  return new AppError('FORBIDDEN', `${caller} may not use this route${principal.kind === 'customer' ? ' here' : ''}; it needs ${describeAccess(access)}`, {
    headers: { 'www-authenticate': 'Bearer realm="storefront", error="insufficient_scope"' },
  });
}

export default fp(
  async (app: FastifyInstance) => {
    app.addHook('onRequest', hook((request) => {
      if (request.credentialError) throw request.credentialError;
    }));
    app.addHook('preHandler', hook((request) => {
      const access = request.routeOptions.config.access;
      if (!access || access === 'public') return;
      const principal = request.principal!;
      if (!admits(access, principal, request)) throw forbidden(access, principal);
    }));
  },
  { name: 'authorization', dependencies: ['authentication'] },
);
