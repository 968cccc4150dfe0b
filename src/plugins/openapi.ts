/** The OpenAPI 3.1 document (built from the routes' own schemas) and the human docs page. */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { completeDocument, type RouteFacts } from './openapi-document.js';

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
          version: '1.0.0',
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
          { name: 'carts', description: 'Carts (storefront)' },
          { name: 'orders', description: 'Orders (storefront)' },
          { name: 'addresses', description: 'Customer addresses (storefront)' },
          { name: 'customers', description: 'Customer credentials: customer tokens and guest sessions' },
          { name: 'admin', description: 'Store administration' },
          { name: 'staff', description: 'Staff accounts and dashboard sessions' },
          { name: 'operations', description: 'Health, readiness and documents' },
        ],
      },
    });
    await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true, uiConfig: { deepLinking: true, persistAuthorization: true } });
    app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'openapi' },
);
