/**
 * Rate limiting: how often. Secret callers (admin, server and root tokens) count per token; public
 * callers (the storefront token, customer credentials, no or a refused token) count per store and
 * client address, so that one client cannot use up a shop's budget. Order creation and guest
 * sessions have tighter limits of their own, counted after validation and authorization (so nobody
 * can spend a victim's budget with bad requests). The counters are in rate-limiter.ts.
 *
 * Refusals cost nothing once a budget is spent: before authentication (and so before any database
 * work) a request is refused when this process already saw its budget go over the limit in this
 * window. Its budget is known from a credential this process authenticated recently; any other
 * credential (a fresh fake token of whatever shape, a JWT of any issuer) spends the budget of
 * refused credentials from its client address, and so cannot buy a database query by being new.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { credentialHashOf, type Principal } from './authentication.js';
import { TOKEN_KINDS } from '../modules/stores/index.js';
import { RateLimiter } from './rate-limiter.js';
import { hook } from '../lib/hooks.js';

export { RateLimiter };

/** Credentials this process authenticated lately, by the hash of their secret (credentialHashOf). */
class KnownCredentials {
  private readonly principals = new Map<string, { principal: Principal; until: number }>();

  constructor(private readonly max = 10_000, private readonly ttlMs = 10 * 60_000) {}

  get(fingerprint: string | undefined): Principal | undefined {
    if (fingerprint === undefined) return undefined;
    const known = this.principals.get(fingerprint);
    if (known && known.until > Date.now()) return known.principal;
    if (known) this.principals.delete(fingerprint);
    return undefined;
  }

  remember(fingerprint: string, principal: Principal) {
    if (this.principals.size >= this.max && !this.principals.has(fingerprint)) {
      this.principals.delete(this.principals.keys().next().value!);
    }
    this.principals.set(fingerprint, { principal, until: Date.now() + this.ttlMs });
  }

  forget(fingerprint: string) {
    this.principals.delete(fingerprint);
  }
}

// One per limiter: the plugin that refuses before authentication and the one that counts after it share it.
const knownCredentialsOf = new WeakMap<RateLimiter, KnownCredentials>();
function knownCredentials(limiter: RateLimiter): KnownCredentials {
  let known = knownCredentialsOf.get(limiter);
  if (!known) knownCredentialsOf.set(limiter, (known = new KnownCredentials()));
  return known;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A tighter limit of its own, counted once the request passed validation and authorization. */
    extraLimit?: 'orders' | 'guest-sessions';
    /** The route may try a discount code: does this body? (DISCOUNT_ATTEMPTS_PER_MINUTE) */
    triesDiscountCode?: (body: unknown) => boolean;
  }
  interface FastifyRequest {
    /** The discount attempt this request counted up front, to give back when its code applied. */
    discountAttempt: { key: string; window: number } | undefined;
  }
}

export interface RateLimitOptions {
  limiter: RateLimiter;
  /** Requests per minute per secret token (admin, server, root). */
  perMinute: number;
  /** Requests per minute per store and client address for public callers. */
  clientPerMinute: number;
  /** Order creations per minute per store and customer. */
  ordersPerMinute: number;
  /** Guest sessions per minute per store and client address. */
  guestSessionsPerMinute: number;
  /** Discount codes that do not apply, per minute per store and client address (public callers). */
  discountAttemptsPerMinute: number;
}

/** The counter a caller spends, and its limit: null is a missing or refused credential. */
function budgetOf(principal: Principal | null, request: FastifyRequest, options: RateLimitOptions): [key: string, limit: number] {
  if (principal?.kind === 'root') return ['token:root', options.perMinute];
  if (principal?.kind === 'staff') return [`staff:${principal.sessionId}`, options.perMinute];
  if (principal && principal.kind !== 'customer' && TOKEN_KINDS[principal.kind].secret) return [`token:${principal.tokenId}`, options.perMinute];
  const store = principal && 'store' in principal ? principal.store : '-';
  return [`client:${store}:${request.ip}`, options.clientPerMinute];
}

/**
 * Whether callers have budgets at all. With both limits off (0) no budget is ever spent, and the two
 * hooks below are not registered: a request passes a dozen hooks, and those two took about a twentieth
 * of a cached catalog read's server CPU for nothing.
 */
const callersLimited = (options: RateLimitOptions) => options.perMinute > 0 || options.clientPerMinute > 0;

/** Before authentication: a request whose budget this process saw spent is refused with no further work. */
export const spentBudgets = fp(
  async (app: FastifyInstance, options: RateLimitOptions) => {
    if (!callersLimited(options)) return;
    const known = knownCredentials(options.limiter);
    app.addHook('onRequest', hook((request, reply) => {
      const access = request.routeOptions.config.access;
      if (!access || access === 'public') return;
      const [key] = budgetOf(known.get(credentialHashOf(request)) ?? null, request, options);
      options.limiter.refuseIfSpent(reply, key);
    }));
  },
  { name: 'spent-budgets', dependencies: ['errors'] },
);

/** Every request with a credential (or a refused one) counts against its caller's budget, right after authentication. */
export const callerLimits = fp(
  async (app: FastifyInstance, options: RateLimitOptions) => {
    if (!callersLimited(options)) return;
    app.addHook('onRequest', hook((request, reply) => {
      const access = request.routeOptions.config.access;
      if (!access || access === 'public') return;
      const fingerprint = credentialHashOf(request);
      if (fingerprint !== undefined) {
        if (request.principal) knownCredentials(options.limiter).remember(fingerprint, request.principal);
        else knownCredentials(options.limiter).forget(fingerprint);
      }
      const [key, limit] = budgetOf(request.principal, request, options);
      if (limit > 0) return options.limiter.consume(reply, key, limit);
    }));
  },
  { name: 'caller-limits', dependencies: ['authentication', 'spent-budgets'] },
);

/** The tighter limits of order creation and guest sessions; register after authorization. */
export const routeLimits = fp(
  async (app: FastifyInstance, options: RateLimitOptions) => {
    const attempts = options.discountAttemptsPerMinute;
    const publicStore = (request: FastifyRequest) =>
      request.principal && (request.principal.kind === 'storefront' || request.principal.kind === 'customer') ? request.principal.store : undefined;
    app.decorateRequest('discountAttempt', undefined);
    if (attempts > 0) registerDiscountAttempts(app, options.limiter, attempts, publicStore);
    // Order creation and guest sessions, each off at 0 (`consume` counts nothing then).
    if (options.ordersPerMinute <= 0 && options.guestSessionsPerMinute <= 0) return;
    app.addHook('preHandler', hook((request, reply) => {
      const extra = request.routeOptions.config.extraLimit;
      if (!extra || !request.principal || request.principal.kind === 'root') return;
      const store = request.principal.store;
      if (extra === 'orders') {
        const customer = (request.params as { customer?: string }).customer?.toLowerCase() ?? '';
        return options.limiter.consume(reply, `order:${store}:${customer}`, options.ordersPerMinute);
      }
      return options.limiter.consume(reply, `guest:${store}:${request.ip}`, options.guestSessionsPerMinute);
    }));
  },
  { name: 'route-limits', dependencies: ['authorization'] },
);

/** DISCOUNT_ATTEMPTS_PER_MINUTE's hooks, registered only when it is not 0. */
function registerDiscountAttempts(app: FastifyInstance, limiter: RateLimiter, attempts: number, publicStore: (request: FastifyRequest) => string | undefined) {
  // Discount codes that do not apply: counted up front when a request tries one (so a burst of
  // guesses cannot all pass before any is counted), given back when the code applied.
  app.addHook('preHandler', hook((request) => {
    const tries = request.routeOptions.config.triesDiscountCode;
    const store = publicStore(request);
    if (!tries || store === undefined || !tries(request.body)) return;
    const key = `discount:${store}:${request.ip}`;
    return limiter.attempt(key, attempts, 'discount codes that do not apply').then((window) => {
      request.discountAttempt = { key, window };
    });
  }));
  app.addHook('onError', async (request, _reply, error) => {
    const refusedCode = (error as { code?: string }).code === 'DISCOUNT_NOT_APPLICABLE';
    const store = publicStore(request);
    if (refusedCode && request.discountAttempt) request.discountAttempt = undefined;
    // A code refused on a request that did not count it up front (an order from a cart with a code).
    else if (refusedCode && store !== undefined) await limiter.attempt(`discount:${store}:${request.ip}`, attempts, 'discount codes that do not apply').catch(() => {});
  });
  app.addHook('onResponse', hook((request) => {
    // Still set: the code was not refused (it applied, or the request failed for another reason).
    if (request.discountAttempt) return limiter.giveBack(request.discountAttempt.key, request.discountAttempt.window);
  }));
}
