/** Security headers (helmet), CORS for the configured origins, and nothing else. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet from 'helmet';
import cors from '@fastify/cors';

/**
 * Helmet's headers for this API, worked out once: with these options they are the same on every
 * answer. (Helmet's Fastify plugin runs its middleware again on every request, setting each header
 * on the raw response one by one: that took a tenth of a cached catalog read's server CPU.)
 */
function securityHeaders(): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = value),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  // A JSON API renders no HTML of its own; the docs page sets its own policy (swagger-ui staticCSP).
  const middleware = helmet({ contentSecurityPolicy: false, crossOriginResourcePolicy: { policy: 'cross-origin' } });
  middleware({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return Object.freeze(headers);
}

export default fp(
  async (app: FastifyInstance, options: { corsOrigins: string[] }) => {
    const headers = securityHeaders();
    // Set first: a route that needs another value of one of them (an image's policy) sets it after.
    app.addHook('onRequest', (_request, reply, done) => {
      reply.headers(headers);
      done();
    });
    if (options.corsOrigins.length > 0) {
      await app.register(cors, {
        origin: options.corsOrigins,
        methods: ['GET', 'POST', 'PATCH', 'DELETE'],
        allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-None-Match', 'X-Request-Id'],
        exposedHeaders: ['ETag', 'X-Request-Id', 'Idempotent-Replayed', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'],
        maxAge: 600,
      });
    }
  },
  { name: 'http-hygiene' },
);
