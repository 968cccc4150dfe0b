/** The OpenAPI 3.1 document (built from the routes' own schemas) and the human docs page. */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { readFileSync } from 'node:fs';
import { completeDocument, docsPageDocument, type RouteFacts } from './openapi-document.js';

/** The document's version is the package's: one number to bump. From src/ or from the build's dist/src/. */
function packageVersion(): string {
  for (const path of ['../../package.json', '../../../package.json']) {
    try {
      return (JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { version: string }).version;
    } catch {
      // not this one
    }
  }
  throw new Error('package.json not found');
}
const version = packageVersion();

/** Where the API's docs page (Swagger UI) is served. */
export const DOCS_PATH = '/api/docs';

export default fp(
  async (app: FastifyInstance) => {
    // What the document needs from a route beyond its schema, collected as routes register.
    const routeFacts = new Map<string, RouteFacts>();
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) routeFacts.set(`${method} ${route.url}`, { idempotent: route.config?.idempotent === true });
    });
    await app.register(swagger, {
      transformObject: (document) =>
        'openapiObject' in document ? (completeDocument(document.openapiObject as Record<string, unknown>, routeFacts) as typeof document.openapiObject) : document.swaggerObject,
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Storefront API',
          version,
          contact: { name: 'Storefront API maintainers' },
          license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
          description:
            'Multi-store storefront commerce API: catalog, carts, orders and addresses. Every `/v1` route needs ' +
            '`Authorization: Bearer <token>`; the token names the store. Errors are RFC 9457 `application/problem+json` ' +
            'with a stable `code`.',
        },
        servers: [{ url: '/', description: 'this server' }],
        tags: [
          { name: 'catalog', description: 'Products and collections (storefront)' },
          { name: 'store', description: 'The store\'s settings: currency, tax, payment providers (storefront)' },
          { name: 'carts', description: 'Carts (storefront)' },
          { name: 'orders', description: 'Orders (storefront)' },
          { name: 'payments', description: "Paying orders, and Stripe's webhooks" },
          { name: 'addresses', description: 'Customer addresses (storefront)' },
          { name: 'customers', description: 'Customer credentials: customer tokens and guest sessions' },
          { name: 'admin', description: 'Store administration' },
          { name: 'staff', description: 'Staff accounts and dashboard sessions' },
          { name: 'operations', description: 'Health, readiness and documents' },
        ],
      },
    });
    await app.register(swaggerUi, {
      routePrefix: DOCS_PATH,
      staticCSP: true,
      transformSpecification: (document) => docsPageDocument(document as Record<string, unknown>),
      // The base layout, without Swagger UI's top bar: its logo is an SVG with a style element, which
      // the static content security policy refuses (a console error on every load), and its
      // "explore" box would load any other document into this page.
      uiConfig: { deepLinking: true, persistAuthorization: true, layout: 'BaseLayout' },
    });
    app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'openapi' },
);
