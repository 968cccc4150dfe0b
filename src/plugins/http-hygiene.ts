/** Security headers (helmet), CORS for the configured origins, and nothing else. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet from 'helmet';
import cors from '@fastify/cors';

/**
 * Helmet's headers, worked out once: with these options they are the same on every answer.
 * (Helmet's Fastify plugin runs its middleware again on every request, setting each header on the
 * raw response one by one: that took a tenth of a cached catalog read's server CPU.)
 */
function helmetHeaders(): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = value),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  // The pages set their own content security policy (the dashboard's, swagger-ui's staticCSP).
  const middleware = helmet({ contentSecurityPolicy: false, crossOriginResourcePolicy: { policy: 'cross-origin' } });
  middleware({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return Object.freeze(headers);
}

/**
 * The headers that act on an answer a program reads (JSON, a problem): no MIME sniffing, HTTPS
 * only, never in a frame. Helmet's others act only on what a browser shows (a page's opener, agent
 * cluster, DNS prefetching and links' referrer; who may embed a picture), or on browsers and
 * plug-ins long gone (IE8's downloads, the XSS auditor, Flash's policy files). Those eight are
 * some 260 bytes that the server writes and every client parses on every answer: a few per cent of
 * a cached read's requests a second (docs/performance.md, "Headers that act on the answer").
 */
const ANSWER_HEADERS = ['strict-transport-security', 'x-content-type-options', 'x-frame-options'];

export interface HttpHygieneOptions {
  corsOrigins: string[];
  /** Path prefixes of what a browser shows (the dashboard, the docs page, pictures): all of helmet's headers. */
  pagePrefixes: string[];
}

export default fp(
  async (app: FastifyInstance, options: HttpHygieneOptions) => {
    const pageHeaders = helmetHeaders();
    const answerHeaders = Object.freeze(Object.fromEntries(ANSWER_HEADERS.map((name) => [name, pageHeaders[name]!])));
    const isPage = (url: string) => options.pagePrefixes.some((prefix) => url.startsWith(prefix));
    // Set first: a route that needs another value of one of them (an image's policy) sets it after.
    app.addHook('onRequest', (request, reply, done) => {
      reply.headers(isPage(request.url) ? pageHeaders : answerHeaders);
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
