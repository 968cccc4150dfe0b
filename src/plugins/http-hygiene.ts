/** Security headers (helmet), CORS for the configured origins, and nothing else. */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet from '@fastify/helmet';
import cors from '@fastify/cors';

export default fp(
  async (app: FastifyInstance, options: { corsOrigins: string[] }) => {
    // A JSON API renders no HTML of its own; the docs page sets its own policy (swagger-ui staticCSP).
    await app.register(helmet, { contentSecurityPolicy: false, crossOriginResourcePolicy: { policy: 'cross-origin' } });
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
